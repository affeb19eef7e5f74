"""The gain model through MLflow: logged by ``log_gain_model``, read by ``load_gain_model`` and
``advisor predict-gain``; plus one real tiny ``advisor run`` (slow) proving the runner logs it."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from advisor.tracking import GAIN_ARTIFACTS, AnalysisTracker, client_for, load_gain_model, log_gain_model
from tests.helpers import NewStore, copy_store


@pytest.fixture(scope="module")
def store(
    tmp_path_factory: pytest.TempPathFactory, planted_classify_result, mlflow_template: Path
) -> tuple[str, str]:
    """A store with one analysis run holding the planted classification gain model."""
    uri = copy_store(mlflow_template, tmp_path_factory.mktemp("store") / "mlflow.db")
    tracker = AnalysisTracker(uri, "gain-test")
    tracker.open("key", "planted-classify", {"task": "classify"}, {"advisor.task": "classify"})
    log_gain_model(tracker, planted_classify_result)
    tracker.close("FINISHED")
    return uri, tracker.parent_id


def test_logged_model_has_text_boosters_statistics_tables_and_metrics(
    store, planted_classify_result, texts
) -> None:
    uri, run_id = store
    client = client_for(uri)
    files = {a.path for a in client.list_artifacts(run_id, "gain")}
    assert set(GAIN_ARTIFACTS.values()) == files
    tables = {a.path for a in client.list_artifacts(run_id, "analysis")}
    assert {"analysis/gain_importance.json", "analysis/gain_contributions.json"} <= tables
    metrics = client.get_run(run_id).data.metrics
    assert metrics["gain_cv_auc"] == pytest.approx(planted_classify_result.scores["auc"].mean)
    assert metrics["gain_learned"] == 1.0 and "gain_cv_r2" in metrics
    model = load_gain_model("latest", uri)
    assert model.run_id == run_id and model.task == "classify" and model.learned_something
    x = np.array([[0.5] * len(model.features), [0.0] * len(model.features)])
    np.testing.assert_allclose(model.booster.predict(x), planted_classify_result.booster.predict(x))


def _gain_points(output: str) -> float:
    return float(re.search(r"Expected gain of contextual over static: ([+-][\d.]+) points", output).group(1))


def test_predict_gain_cli_ranks_unseen_traffic_above_familiar_traffic(
    advisor_cli,
    store,
    texts,
    tmp_path: Path,
) -> None:
    uri, run_id = store
    unseen, seen = tmp_path / "unseen.txt", tmp_path / "seen.txt"
    unseen.write_text("\n".join(" ".join(s) for s in texts(True)) + "\n", encoding="utf-8")
    seen.write_text("\n".join(" ".join(s) for s in texts(False)) + "\n", encoding="utf-8")
    out_csv = tmp_path / "units.csv"
    code, out_unseen, err = advisor_cli(
        "predict-gain",
        "latest",
        str(unseen),
        "--tracking-uri",
        uri,
        "--out",
        str(out_csv),
    )
    assert code == 0, err
    assert run_id in out_unseen and "interval" in out_unseen
    assert out_csv.read_text().splitlines()[0].startswith("item,line,unit,text")
    code, out_seen, err = advisor_cli("predict-gain", run_id, str(seen), "--tracking-uri", uri)
    assert code == 0, err
    assert _gain_points(out_unseen) > _gain_points(out_seen) + 30


def test_predict_gain_cli_bad_input_exits_2_with_file_and_line(advisor_cli, store, tmp_path: Path) -> None:
    uri, _ = store
    path = tmp_path / "bad.conll"
    path.write_text("".join(f"w{i}\tO\nv{i}\tO\n\n" for i in range(6)) + "c\tO\nd O O\n", encoding="utf-8")
    code, out, err = advisor_cli("predict-gain", "latest", str(path), "--tracking-uri", uri)
    assert code == 2
    assert f"{path}:20:" in err and "Traceback" not in err + out


def test_run_without_gain_model_is_a_config_error(advisor_cli, store, tmp_path: Path) -> None:
    uri, _ = store
    tracker = AnalysisTracker(uri, "gain-test")
    tracker.open("other-key", "no-gain", {"task": "ner"}, {})
    tracker.close("FINISHED")
    text = tmp_path / "t.txt"
    text.write_text("hello world\n", encoding="utf-8")
    code, _, err = advisor_cli("predict-gain", tracker.parent_id, str(text), "--tracking-uri", uri)
    assert code == 2 and "has no gain model" in err


@pytest.mark.slow
def test_real_tiny_run_logs_a_gain_model_that_predict_gain_reads(
    advisor_cli,
    tmp_path: Path,
    tiny_bert_dir: Path,
    tiny_vectors_file: Path,
    new_store: NewStore,
) -> None:
    from advisor.runner import run_analysis
    from advisor.settings import RunSettings

    # Entities vary in length, ambiguity and novelty so every difficulty metric can be split.
    rng = np.random.default_rng(0)
    filler = ["the", "a", "went", "saw", "good", "bad", "with", "of"]
    entities = {
        "train": [["john"], ["mary"], ["new", "york"], ["apple"], ["berlin"]],
        "test": [["john"], ["new", "york"], ["apple"], ["zed"], ["kim", "lee"], ["paris"]],
    }
    kinds = {
        "john": "PER",
        "mary": "PER",
        "zed": "PER",
        "kim": "PER",
        "new": "LOC",
        "berlin": "LOC",
        "paris": "LOC",
    }
    files = {}
    for part, n in (("train", 40), ("dev", 10), ("test", 40)):
        pool = entities["test" if part == "test" else "train"]
        blocks = []
        for _ in range(n):
            rows = []
            for _ in range(int(rng.integers(3, 6))):
                if rng.random() < 0.4:
                    entity = pool[int(rng.integers(len(pool)))]
                    kind = kinds.get(entity[0], "ORG")
                    if entity == ["apple"] and rng.random() < 0.5:
                        rows.append("apple\tO")  # apple the fruit: an ambiguous string
                        continue
                    rows += [f"{w}\t{'B' if k == 0 else 'I'}-{kind}" for k, w in enumerate(entity)]
                else:
                    rows.append(f"{filler[int(rng.integers(len(filler)))]}\tO")
            blocks.append("\n".join(rows))
        files[part] = tmp_path / f"{part}.conll"
        files[part].write_text("\n\n".join(blocks) + "\n", encoding="utf-8")
    settings = RunSettings(
        data=str(files["train"]), task="ner", dev=str(files["dev"]), test=str(files["test"]), sizes=[40], seeds=1,
        profile="quick", embeddings=["static", "contextual"], contextual=str(tiny_bert_dir), static=str(tiny_vectors_file),
        tracking_uri=new_store(tmp_path / "mlruns"), experiment="t", cache_dir=str(tmp_path / "cache"), device="cpu",
    )  # fmt: skip
    outcome = run_analysis(settings)
    client = client_for(settings.tracking_uri)
    assert {a.path for a in client.list_artifacts(outcome.run_id, "gain")} == set(GAIN_ARTIFACTS.values())
    text = tmp_path / "traffic.txt"
    text.write_text("john went to zorblax\nthe good paris\n", encoding="utf-8")
    code, out, err = advisor_cli("predict-gain", "latest", str(text), "--tracking-uri", settings.tracking_uri)
    assert code == 0, err
    assert "2 texts, 7 tokens" in out
