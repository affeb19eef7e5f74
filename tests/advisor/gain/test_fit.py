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


def test_insight_sentences_are_chosen_on_one_half_and_measured_on_the_other(
    planted_classify, planted_classify_result
) -> None:
    from advisor.gain._cv import best_threshold, lgb_params, train_booster
    from advisor.gain._features import gain_features
    from advisor.gain._insights import halves

    result = planted_classify_result
    _, evaluation, _ = planted_classify
    assert "cross-fitted" in result.fit_scheme
    insight = next(s for s in result.insights if "share of words unseen" in s)
    assert "threshold chosen on the other half" in insight
    table = gain_features(result.statistics, evaluation.tokens, result.features)
    advantage = result.contributions["advantage"].to_numpy()
    choose, measure = halves(table["item"].to_numpy(), 0)
    booster = train_booster(
        table[result.features][choose], advantage[choose], lgb_params(int(choose.sum()), "regression")
    )
    threshold = best_threshold(booster, "classify_unseen")
    unseen = np.array([sum(w.startswith("u") for w in s) / len(s) for s in evaluation.tokens])[measure]
    held_out = advantage[measure]
    above = unseen > threshold
    assert (
        f"({int(above.sum())} of {int(measure.sum())} sentences)" in insight
    )  # counted on the held-out half
    assert f"{100 * held_out[above].mean():+.1f} points" in insight
    assert f"{100 * held_out[~above].mean():+.1f} elsewhere" in insight
    assert held_out[above].mean() > 0.3 > held_out[~above].mean()


def test_contributions_add_up_to_the_prediction(planted_classify_result) -> None:
    frame = planted_classify_result.contributions
    parts = frame[[c for c in frame.columns if c.startswith("contrib_")]].sum(axis=1)
    np.testing.assert_allclose(parts, frame["predicted_gain"], atol=1e-9)
    assert frame["p_helps"].between(0, 1).all() and frame["oof_gain"].notna().all()
    assert set(frame["top_feature"]) <= set(planted_classify_result.features)
    top = frame[frame["oof_gain"] >= frame["oof_gain"].quantile(0.8)]  # ranked out of fold
    summary = planted_classify_result.insights[-1]
    assert summary.startswith(f"On the {len(top)} sentences with the highest out-of-fold predicted gain")
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
