"""``advisor run --finetune-sizes``: the fine-tuned reference as its own family, cost row and headroom line."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.errors import ConfigError
from advisor.finetune import parse_finetune_sizes, plan_finetune
from advisor.grid import plan_grid, profiles
from advisor.runner import run_analysis
from advisor.settings import RunSettings
from advisor.tracking import load_analysis
from tests.helpers import NewStore, static_contextual_grid, write_ner_splits


def _settings(tmp_path: Path, tiny_bert_dir: Path, tiny_vectors_file: Path, **extra) -> RunSettings:
    files = write_ner_splits(tmp_path, (("train", 40), ("dev", 10), ("test", 12)))
    options = static_contextual_grid(files, str(tiny_bert_dir), str(tiny_vectors_file)) | {
        "max_steps": 2,
        "tracking_uri": f"sqlite:///{tmp_path}/mlruns/mlflow.db",
        "experiment": "test",
        "cache_dir": str(tmp_path / "cache"),
        "difficulty": False,
    }
    return RunSettings(**(options | extra))


def test_finetuned_reference_is_its_own_family_with_cost_row_and_headroom(
    tmp_path: Path, tiny_bert_dir: Path, tiny_vectors_file: Path, new_store: NewStore
) -> None:
    from advisor.report import write_report
    from advisor.verdict import recommend

    uri = new_store(tmp_path / "mlruns")
    settings = _settings(  # difficulty on: the slices and the gain model must take the extra family
        tmp_path,
        tiny_bert_dir,
        tiny_vectors_file,
        finetune_sizes="full",
        finetune_epochs=1,
        difficulty=True,
        tracking_uri=uri,
    )
    outcome = run_analysis(settings)
    tuned = [c for c in outcome.computed if c.embedding == "finetuned"]
    assert [(c.size, c.seed) for c in tuned] == [(40, 0), (40, 1)]  # full size only, the grid's seeds
    assert len(outcome.computed) == 2 * 2 * 2 + 2
    analysis = load_analysis(outcome.run_id, settings.tracking_uri)
    rows = analysis.curves[analysis.curves["embedding"] == "finetuned"]
    assert list(rows["size"]) == [40, 40] and (rows["train_seconds"] > 0).all()
    info = analysis.embeddings.set_index("embedding")
    assert info.loc["finetuned", "serving_ms_per_item_b1"] > 0  # measured from raw text like the others
    rec = recommend(analysis)
    assert rec.headroom is not None and rec.headroom.gap.size == 40 and rec.headroom.gap.n_seeds == 2
    assert rec.headroom.gap.has_interval and rec.headroom.train_ratio > 0
    # The frozen side is priced at the raw-text pass (logged even when the feature cache was warm).
    assert info.loc["contextual", "encode_seconds"] > 0
    assert rec.headroom.contextual_encode_seconds == info.loc["contextual", "encode_seconds"]
    assert "finetuned" in rec.costs.table.index
    assert "finetuned" not in {g.a for g in rec.gaps}  # the verdict decides on the frozen families
    assert rec.reasons[0].startswith("Fine-tuning would")
    _, md = write_report(analysis, tmp_path / "report", recommendation=rec)
    assert "**Fine-tuning headroom**: Fine-tuning would" in md.read_text(encoding="utf-8")
    # Resumed without the reference (a different analysis key): no headroom line in its report.
    plain = run_analysis(
        _settings(tmp_path, tiny_bert_dir, tiny_vectors_file, finetune_sizes="off", tracking_uri=uri)
    )
    rec_plain = recommend(load_analysis(plain.run_id, settings.tracking_uri))
    assert rec_plain.headroom is None and not any("Fine-tuning" in r for r in rec_plain.reasons)


@pytest.mark.parametrize(
    "text, expected",
    [(None, None), ("off", ()), ("full", ("full",)), ("mid, 20,full", ("mid", "20", "full"))],
)
def test_finetune_sizes_parse(text, expected):
    assert parse_finetune_sizes(text) == expected


@pytest.mark.parametrize("text", ["half", "0", "-3", "full,x"])
def test_bad_finetune_sizes_fail_before_anything_runs(text, tmp_path, tiny_bert_dir, tiny_vectors_file):
    settings = _settings(tmp_path, tiny_bert_dir, tiny_vectors_file, finetune_sizes=text)  # plain data
    with pytest.raises(ConfigError, match="finetune-sizes") as error:
        run_analysis(settings)
    assert error.value.code == "E219"
    assert not (tmp_path / "mlruns" / "mlflow.db").exists() or not _runs(settings.tracking_uri)


def _runs(uri: str) -> list:
    from mlflow import MlflowClient

    client = MlflowClient(uri)
    experiments = [e.experiment_id for e in client.search_experiments()]
    return client.search_runs(experiments) if experiments else []


def test_sizes_beyond_the_data_fail_before_a_run_opens(tmp_path, tiny_bert_dir, tiny_vectors_file):
    settings = _settings(tmp_path, tiny_bert_dir, tiny_vectors_file, finetune_sizes="500")
    with pytest.raises(ConfigError, match=r"outside 1\.\.40"):
        run_analysis(settings)
    store = tmp_path / "mlruns" / "mlflow.db"
    if store.exists():  # refused before the tracker opened: no run in the store
        from mlflow import MlflowClient

        client = MlflowClient(settings.tracking_uri)
        experiments = [e.experiment_id for e in client.search_experiments()]
        assert not experiments or not client.search_runs(experiments)


def test_profiles_decide_when_not_asked():
    plan = plan_grid(1000, ["contextual"], profiles.get("thorough"))
    assert profiles.get("quick").finetune == () and profiles.get("default").finetune == ()
    cells = plan_finetune(profiles.get("thorough").finetune, plan)
    assert sorted({c.size for c in cells}) == [plan.sizes[(len(plan.sizes) - 1) // 2], 1000]
    assert {c.seed for c in cells} == set(plan.seeds)
    assert {c.seed for c in plan_finetune(["full"], plan, n_seeds=2)} == {0, 1}
