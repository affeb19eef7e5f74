"""The gain model finds a planted advantage, explains it with measured numbers, and admits noise."""

from __future__ import annotations

import numpy as np
import pytest

from advisor.errors import ConfigError, InputError
from advisor.gain import GainModel, default_features, fit_gain_model, predict_gain


def test_planted_unseen_effect_is_learned_ranked_first_and_predicted(planted_classify_result, texts) -> None:
    result = planted_classify_result
    assert result.learned_something and result.metric == "auc"
    assert result.scores["auc"].lo > 0.5 and result.scores["r2"].mean > 0
    assert len(result.scores["auc"].folds) == 5 and result.cv_spread > 0
    gain_rank = result.importance[result.importance["model"] == "gain"]
    assert gain_rank.iloc[0]["feature"] == "classify_unseen"
    model = GainModel.from_result(result)
    full = predict_gain(model, texts(True))
    none = predict_gain(model, texts(False))
    assert full.expected_gain > none.expected_gain + 0.3
    assert full.expected_share > none.expected_share + 0.3
    assert full.gain_lo <= full.expected_gain <= full.gain_hi


def test_insight_sentences_report_the_measured_advantage_on_both_sides(
    planted_classify, planted_classify_result
) -> None:
    result = planted_classify_result
    _, evaluation, _ = planted_classify
    insight = next(s for s in result.insights if "share of words unseen" in s)
    trees = result.booster.trees_to_dataframe()
    splits = trees[trees["split_feature"] == "classify_unseen"]
    threshold = splits.groupby("threshold")["split_gain"].sum().idxmax()
    unseen = np.array([sum(w.startswith("u") for w in s) / len(s) for s in evaluation.tokens])
    advantage = result.contributions["advantage"].to_numpy()
    above = unseen > threshold
    assert f"{100 * advantage[above].mean():+.1f} points" in insight
    assert f"{100 * advantage[~above].mean():+.1f} elsewhere" in insight
    assert advantage[above].mean() > 0.3 > advantage[~above].mean()


def test_contributions_add_up_to_the_prediction(planted_classify_result) -> None:
    frame = planted_classify_result.contributions
    parts = frame[[c for c in frame.columns if c.startswith("contrib_")]].sum(axis=1)
    np.testing.assert_allclose(parts, frame["predicted_gain"], atol=1e-9)
    assert frame["p_helps"].between(0, 1).all() and frame["oof_gain"].notna().all()
    assert set(frame["top_feature"]) <= set(planted_classify_result.features)
    top = frame[frame["predicted_gain"] >= frame["predicted_gain"].quantile(0.8)]
    summary = planted_classify_result.insights[-1]
    assert summary.startswith(f"On the {len(top)} sentences with the highest predicted gain")
    assert f"{100 * top['advantage'].mean():+.1f} points" in summary


def test_planted_ner_token_effect(planted_ner) -> None:
    train, evaluation, predictions = planted_ner
    result = fit_gain_model("ner", train, evaluation, predictions, seed=3)
    assert result.unit == "token" and result.baseline == "static" and result.n_seeds == 2
    assert result.learned_something
    assert result.importance[result.importance["model"] == "gain"].iloc[0]["feature"] == "ner_unseen"
    assert any("tokens never seen in training" in s for s in result.insights)


def test_pure_noise_says_it_learned_nothing(noise_classify) -> None:
    train, evaluation, predictions = noise_classify
    result = fit_gain_model(
        "classify", train, evaluation, predictions, features=default_features("classify", parse=False)
    )
    assert not result.learned_something
    assert "learned nothing" in result.verdict
    assert result.scores["auc"].lo <= 0.5 or result.scores["r2"].mean <= 0


def test_same_seed_same_model(planted_ner) -> None:
    train, evaluation, predictions = planted_ner
    first = fit_gain_model("ner", train, evaluation, predictions, seed=7)
    second = fit_gain_model("ner", train, evaluation, predictions, seed=7)
    assert first.scores["auc"].folds == second.scores["auc"].folds
    assert first.booster.model_to_string() == second.booster.model_to_string()


def test_bad_inputs(planted_classify) -> None:
    train, evaluation, predictions = planted_classify
    only_static = {k: v for k, v in predictions.items() if k[0] == "static"}
    with pytest.raises(ConfigError, match="contextual and static"):
        fit_gain_model("classify", train, evaluation, only_static, features=["classify_unseen"])
    short = {k: v[:-1] for k, v in predictions.items()}
    with pytest.raises(InputError, match="items"):
        fit_gain_model("classify", train, evaluation, short, features=["classify_unseen"])
    tiny = evaluation.subset(range(10))
    with pytest.raises(InputError, match="too few"):
        fit_gain_model(
            "classify", train, tiny, {k: v[:10] for k, v in predictions.items()}, features=["classify_unseen"]
        )
