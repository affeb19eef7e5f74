"""``advisor layers`` and ``advisor contextuality`` on generated data with the tiny BERT (in-process)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import NewStore, write_pairs

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


# -- --task pair: --pair-encoding as `advisor run` has it --------------------------------------------


@pytest.fixture
def pair_data(tmp_path: Path, new_store: NewStore) -> dict[str, str]:
    return {
        "train": str(write_pairs(tmp_path / "train.tsv", 24, 0)),
        "dev": str(write_pairs(tmp_path / "dev.tsv", 8, 1)),
        "cache": str(tmp_path / "features"),
        "uri": new_store(tmp_path),
    }


def _pair_args(command: str, data: dict[str, str], model: Path, *extra: str) -> list[str]:
    return [
        command, data["train"], "--task", "pair", "--dev", data["dev"], "--test", data["dev"],
        "--contextual", str(model), "--cache-dir", data["cache"], "--tracking-uri", data["uri"], *extra,
    ]  # fmt: skip


def _runs(uri: str, kind: str) -> list:
    from advisor.tracking import client_for

    client = client_for(uri)
    ids = [e.experiment_id for e in client.search_experiments()]
    return client.search_runs(ids, f"tags.`advisor.kind` = '{kind}'", order_by=["attributes.start_time ASC"])


def _cached_encodings(cache: str) -> list[str]:
    """The pair encoding of every feature cache entry (joint and separate never share one)."""
    return sorted(json.loads(p.read_text())["pair_encoding"] for p in Path(cache).glob("*/meta.json"))


def test_layers_on_pairs_records_the_encoding_and_sweeps_the_other_one(advisor_cli, pair_data, tiny_bert_dir):
    from advisor.tracking import load_layer_sweep

    sweep = ("--size", "12", "--seeds", "1", "--max-steps", "2")
    code, out, err = advisor_cli(*_pair_args("layers", pair_data, tiny_bert_dir, *sweep))
    assert code == 0, err
    assert "(1 seeds, pair encoding joint)" in " ".join(out.split()), out  # the default, said (title wraps)
    assert _cached_encodings(pair_data["cache"]) == ["joint", "joint"]  # train, dev (= test)
    code, out, err = advisor_cli(
        *_pair_args("layers", pair_data, tiny_bert_dir, *sweep, "--pair-encoding", "separate")
    )
    assert code == 0, err
    assert "(1 seeds, pair encoding separate)" in " ".join(out.split()), out
    assert _cached_encodings(pair_data["cache"]) == ["joint", "joint", "separate", "separate"]  # encoded anew
    joint, separate = _runs(pair_data["uri"], "layers")
    assert (
        joint.data.params["pair_encoding"] == "joint" and separate.data.params["pair_encoding"] == "separate"
    )
    assert separate.data.params["encoder_pair_encoding"] == "separate"
    assert separate.info.run_name.endswith("-pair-separate")
    assert load_layer_sweep(separate.info.run_id, pair_data["uri"]).pair_encoding == "separate"


def test_contextuality_on_pairs_records_the_encoding(advisor_cli, pair_data, tiny_bert_dir):
    args = _pair_args("contextuality", pair_data, tiny_bert_dir, "--pair-encoding", "separate")
    code, out, err = advisor_cli(*args)
    assert code == 0, err
    assert "24 pairs, pair encoding separate" in " ".join(out.split()), out
    assert _cached_encodings(pair_data["cache"]) == ["separate"]  # the train split only
    (run,) = _runs(pair_data["uri"], "contextuality")
    assert run.data.params["pair_encoding"] == "separate" and run.data.tags["advisor.task"] == "pair"


@pytest.mark.parametrize("command", ["layers", "contextuality"])
def test_pair_encoding_for_another_task_exits_2_before_any_data_or_model(advisor_cli, tmp_path, command):
    """E255 as `advisor run` says it: the data and the model are missing too, and neither is named."""
    code, out, err = advisor_cli(
        command, str(tmp_path / "missing.conll"), "--task", "ner", "--pair-encoding", "separate",
        "--contextual", str(tmp_path / "no-model"), "--tracking-uri", f"sqlite:///{tmp_path / 'mlflow.db'}",
    )  # fmt: skip
    assert code == 2 and "E255" in err and "--pair-encoding separate applies to --task pair only" in err
    assert "missing.conll" not in err and "no-model" not in err and "Traceback" not in out + err
    assert not (tmp_path / "mlflow.db").exists()  # no run created


@pytest.mark.parametrize("command", ["layers", "contextuality"])
def test_an_unknown_pair_encoding_names_the_choices(advisor_cli, pair_data, tiny_bert_dir, command):
    code, _, err = advisor_cli(*_pair_args(command, pair_data, tiny_bert_dir, "--pair-encoding", "both"))
    assert code == 2 and "unknown --pair-encoding 'both'" in err and "joint, separate" in err
    assert not Path(pair_data["cache"]).exists()
