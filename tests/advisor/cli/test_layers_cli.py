"""``advisor layers`` and ``advisor contextuality`` on generated data with the tiny BERT (in-process)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import NewStore

SENTENCES = [
    "john went to paris", "mary saw the river", "the bank of the river", "he visited london",
    "she likes the film", "they went to berlin", "the company said no", "who is john",
]  # fmt: skip
PLACES = {"paris", "london", "berlin"}
PEOPLE = {"john", "mary"}


def _conll(path: Path, repeat: int) -> Path:
    lines = []
    for _ in range(repeat):
        for sentence in SENTENCES:
            for word in sentence.split():
                tag = "B-LOC" if word in PLACES else "B-PER" if word in PEOPLE else "O"
                lines.append(f"{word}\t{tag}")
            lines.append("")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, new_store: NewStore) -> dict[str, str]:
    monkeypatch.setenv("ADVISOR_CACHE_DIR", str(tmp_path / "cache"))
    return {
        "train": str(_conll(tmp_path / "train.conll", 4)),
        "dev": str(_conll(tmp_path / "dev.conll", 1)),
        "uri": new_store(tmp_path),
    }


def test_layers_prints_each_layer_and_the_mix_and_logs_a_run(advisor_cli, data, tiny_bert_dir):
    from advisor.tracking import client_for

    code, out, err = advisor_cli(
        "layers", data["train"], "--task", "ner", "--dev", data["dev"], "--test", data["dev"],
        "--contextual", str(tiny_bert_dir), "--size", "16", "--seeds", "2", "--max-steps", "2",
        "--tracking-uri", data["uri"],
    )  # fmt: skip
    assert code == 0, err
    assert "by layer at 16 training items (2 seeds)" in out
    # the featurize progress of `advisor run` (of train + dev + test items; test = dev is cached), the model by name
    assert "featurizing contextual: 32 / 48 items" in out, out
    assert f"featurizing every layer with {tiny_bert_dir.name}" in out and str(tiny_bert_dir) not in out + err
    for label in ("0", "1", "2", "scalar mix", "scalar-mix weights", "best layer"):
        assert label in out
    client = client_for(data["uri"])
    (run,) = client.search_runs(
        [e.experiment_id for e in client.search_experiments()], "tags.`advisor.kind` = 'layers'"
    )
    history = client.get_metric_history(run.info.run_id, "dev_score_by_layer")
    assert sorted(m.step for m in history) == [0, 1, 2] and "dev_score_mix" in run.data.metrics
    local = client.download_artifacts(run.info.run_id, "analysis/layers.json", str(Path(data["dev"]).parent))
    table = json.loads(Path(local).read_text())
    assert len(table["data"]) == 2 * 4  # 3 layers + the mix, 2 seeds


def test_contextuality_prints_one_row_per_layer_and_logs_table_and_figure(advisor_cli, data, tiny_bert_dir):
    from advisor.tracking import client_for

    code, out, err = advisor_cli(
        "contextuality", data["train"], "--task", "ner", "--dev", data["dev"], "--test", data["dev"],
        "--contextual", str(tiny_bert_dir), "--tracking-uri", data["uri"],
    )  # fmt: skip
    assert code == 0, err
    assert "featurizing contextual: 32 / 32 items" in out, out  # as `run` shows it
    assert "self-sim" in out and "MEV" in out and "anisotropy" in out and "intra-sim" in out
    first_cells = [line.split("│")[1].strip() for line in out.splitlines() if line.startswith("│")]
    assert [c for c in first_cells if c.isdigit()] == ["0", "1", "2"], out  # 0 = input embeddings, 2 layers
    client = client_for(data["uri"])
    (run,) = client.search_runs(
        [e.experiment_id for e in client.search_experiments()], "tags.`advisor.kind` = 'contextuality'"
    )
    paths = {a.path for a in client.list_artifacts(run.info.run_id, "analysis")}
    paths |= {a.path for a in client.list_artifacts(run.info.run_id, "figures")}
    assert {"analysis/contextuality.json", "figures/contextuality.png"} <= paths
    assert int(run.data.params["contextuality_words"]) > 0
    local = client.download_artifacts(
        run.info.run_id, "analysis/contextuality.json", str(Path(data["dev"]).parent)
    )
    logged = json.loads(Path(local).read_text())
    assert [row[logged["columns"].index("layer")] for row in logged["data"]] == [0, 1, 2]
    assert {"self_similarity", "intra_similarity", "mev", "anisotropy"} <= set(logged["columns"])


def test_contextuality_bad_option_exits_2(advisor_cli, data, tiny_bert_dir):
    code, _, err = advisor_cli(
        "contextuality",
        data["train"],
        "--task",
        "ner",
        "--min-count",
        "1",
        "--contextual",
        str(tiny_bert_dir),
    )
    assert code == 2 and "--min-count" in err
