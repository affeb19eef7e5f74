"""The validation stage: checks that need no training, done before any MLflow run or model exists."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.embeddings import check_pair_encoding
from advisor.errors import AdvisorError, ConfigError, InputError
from advisor.runner import run_analysis
from advisor.settings import RunSettings
from advisor.validate import (
    check_device,
    check_layer,
    check_precision,
    check_static_file,
    check_tags,
    check_tracking_uri,
    choices_of,
    encoder_layers,
    validate_settings,
)
from tests.helpers import headerless_questions, write_headerless

ROWS = "Ann\tB-PER\nLee\tI-PER\nsang\tO\nin\tO\nRome\tB-LOC\n\nthe\tO\nman\tO\nsaw\tO\nParis\tB-LOC\n\n"


def test_encoder_depth_comes_from_its_config_and_the_folder_must_be_loadable(
    tmp_path: Path, tiny_bert_dir: Path
) -> None:
    assert encoder_layers(str(tiny_bert_dir)) == 2
    folder = tmp_path / "model"
    folder.mkdir()
    config = json.loads((tiny_bert_dir / "config.json").read_text(encoding="utf-8"))
    (folder / "config.json").write_text(json.dumps({**config, "num_hidden_layers": 12}), encoding="utf-8")
    with pytest.raises(ConfigError, match="the folder has no weights"):
        encoder_layers(str(folder))
    for name in ("model.safetensors", "vocab.txt"):  # the files are only looked for, never loaded
        (folder / name).write_bytes(b"")
    assert encoder_layers(str(folder)) == 12


@pytest.mark.parametrize("layer", ["mix", "last", "0", "2", "-3", "mean-last-2"])
def test_layer_specs_the_featurizer_accepts(layer: str) -> None:
    check_layer(layer, 2)


@pytest.mark.parametrize("layer", ["3", "-4", "mean-last-3", "mean-last-0", "top", ""])
def test_layer_specs_out_of_range_or_unknown(layer: str) -> None:
    with pytest.raises(ConfigError, match="layer"):
        check_layer(layer, 2)


def test_static_file_first_line(tmp_path: Path, tiny_vectors_file: Path) -> None:
    check_static_file(str(tiny_vectors_file))
    header = tmp_path / "w2v.txt"
    header.write_text("2 3\na 1 2 3\nb 4 5 6\n", encoding="utf-8")
    check_static_file(str(header))
    words = tmp_path / "words.txt"
    words.write_text("just some words\n", encoding="utf-8")
    with pytest.raises(InputError, match="not a word-vectors file") as error:
        check_static_file(str(words))
    assert error.value.line == 1


def test_device_cpu_passes_and_unknown_fails() -> None:
    check_device("cpu")
    with pytest.raises(ConfigError, match="unknown device"):
        check_device("warp-drive")


def test_precision_choices_pass_and_unknown_fails() -> None:
    for precision in ("auto", "float32", "bfloat16"):
        check_precision(precision)
    with pytest.raises(
        ConfigError, match=r"(?s)unknown precision 'half'.*choose one of: auto, float32, bfloat16"
    ):
        check_precision("half")


def test_tracking_uri_schemes(tmp_path: Path) -> None:
    assert check_tracking_uri(f"sqlite:///{tmp_path}/a/b.db").startswith("sqlite:///")
    assert (tmp_path / "a").is_dir()  # the folder of a new store is created, the database is not
    assert not (tmp_path / "a" / "b.db").exists()
    for uri, message in (
        ("ftp://x", "unsupported scheme"),
        ("file:///x", "file store"),
        ("x.db", "not a URI"),
    ):
        with pytest.raises(ConfigError, match=message):
            check_tracking_uri(uri)


def test_tags_follow_mlflow_key_rules() -> None:
    check_tags({"team": "nlp", "project/phase": "2", "a b": "c"})
    for key in ("a$b", "../x", "mlflow.user", "advisor.key", "k" * 300):
        with pytest.raises(ConfigError):
            check_tags({key: "v"})


def test_run_analysis_validates_before_creating_anything(tmp_path: Path) -> None:
    train = tmp_path / "train.conll"
    train.write_text(ROWS * 10, encoding="utf-8")
    store = tmp_path / "store" / "mlflow.db"
    for bad in ({"workers": 0}, {"tags": {"a$b": "1"}}, {"experiment": " "}, {"device": "cuda:99"}):
        settings = RunSettings(
            data=str(train),
            task="ner",
            embeddings=["random"],
            tracking_uri=f"sqlite:///{store}",
            **bad,  # type: ignore[arg-type]
        )
        with pytest.raises(AdvisorError):
            run_analysis(settings)
    assert not store.exists()  # no MLflow store, let alone a run


@pytest.mark.parametrize(
    ("bad", "code", "message"),
    [
        ({"embeddings": ["elmo"]}, "E202", "unknown embedding(s) elmo"),
        ({"embeddings": []}, "E202", "(none given)"),
        ({"profile": "turbo"}, None, "unknown profile 'turbo'"),
        ({"finetune_sizes": "half"}, "E219", "--finetune-sizes: cannot read half"),
    ],
)
def test_settings_are_plain_data_and_validation_names_every_choice(
    bad: dict[str, object], code: str | None, message: str
) -> None:
    """Making settings checks nothing; the one validation raises what construction used to, first."""
    settings = RunSettings(data="missing.conll", task="bogus", **bad)  # type: ignore[arg-type]
    with pytest.raises(ConfigError) as raised:
        validate_settings(settings)  # before the task and the data path, as when RunSettings checked these
    assert message in str(raised.value)
    assert code is None or raised.value.code == code


def test_pair_encoding_is_a_known_choice_and_set_for_pairs_only() -> None:
    check_pair_encoding("separate", "pair")
    check_pair_encoding("joint", "ner")  # the default says nothing: every task accepts it
    assert choices_of("pair_encoding") == ["joint", "separate"]
    with pytest.raises(ConfigError, match="unknown --pair-encoding 'both'") as unknown:
        check_pair_encoding("both", "pair")
    assert unknown.value.code == "E232" and "joint, separate" in str(unknown.value)
    for task in ("ner", "classify"):
        settings = RunSettings(data="missing.conll", task=task, pair_encoding="separate")
        with pytest.raises(ConfigError, match="applies to --task pair only") as raised:
            validate_settings(settings)  # before the data path is looked at
        assert raised.value.code == "E255" and raised.value.hint


def test_validate_settings_accepts_a_good_run(
    tmp_path: Path, tiny_bert_dir: Path, tiny_vectors_file: Path
) -> None:
    train = tmp_path / "train.conll"
    train.write_text(ROWS * 10, encoding="utf-8")
    validate_settings(
        RunSettings(
            data=str(train),
            task="ner",
            contextual=str(tiny_bert_dir),
            static=str(tiny_vectors_file),
            layer="mean-last-2",
            tracking_uri=f"sqlite:///{tmp_path}/mlflow.db",
            tags={"team": "nlp"},
            workers=1,
        )
    )


@pytest.mark.parametrize(
    ("finetune_sizes", "profile", "runs"),
    [("full", "quick", True), ("off", "thorough", False), (None, "thorough", True), (None, "quick", False)],
)
def test_a_family_s_checks_run_exactly_when_it_runs(
    tmp_path: Path, tiny_vectors_file: Path, finetune_sizes: str | None, profile: str, runs: bool
) -> None:
    """The fine-tuned reference is switched on by ``--finetune-sizes`` or the profile, not by
    ``--embeddings``: its encoder check ("encoder" of ``FAMILY_CHECKS``) runs exactly then."""
    train = tmp_path / "train.conll"
    train.write_text(ROWS * 10, encoding="utf-8")
    settings = RunSettings(
        data=str(train),
        task="ner",
        embeddings=["static"],  # no contextual family: nothing else reads the encoder
        static=str(tiny_vectors_file),
        contextual=str(tmp_path / "no-such-model"),
        finetune_sizes=finetune_sizes,
        profile=profile,
        tracking_uri=f"sqlite:///{tmp_path}/mlflow.db",
    )
    if not runs:
        validate_settings(settings)
        return
    with pytest.raises(ConfigError) as raised:
        validate_settings(settings)
    assert raised.value.code == "E230" and "no-such-model" in str(raised.value)


def test_column_options_are_checked_as_the_reader_resolves_them(
    tmp_path: Path, tiny_bert_dir: Path, tiny_vectors_file: Path
) -> None:
    """``--text-col`` / ``--label-col`` agree with the readers (issue 29): a headerless file needs no
    option, positions reach every file, a position no file has is refused before anything runs."""
    train = write_headerless(tmp_path / "train.tsv", headerless_questions(60))
    dev = tmp_path / "dev.tsv"
    dev.write_text("sentence\tlabel\n" + "".join(f"{t}\t{y}\n" for t, y in headerless_questions(12)))
    base = {
        "data": str(train),
        "dev": str(dev),
        "task": "classify",
        "contextual": str(tiny_bert_dir),
        "static": str(tiny_vectors_file),
        "tracking_uri": f"sqlite:///{tmp_path}/mlflow.db",
        "difficulty": False,
        "workers": 1,
    }
    validate_settings(RunSettings(**base))  # type: ignore[arg-type]
    validate_settings(RunSettings(**base, text_col="0", label_col="1"))  # type: ignore[arg-type]
    with pytest.raises(InputError) as raised:
        validate_settings(RunSettings(**base, text_col="sentence"))  # type: ignore[arg-type]
    assert raised.value.code == "E107" and raised.value.file == str(train)
    assert "no column named 'sentence': the file has no header" in raised.value.message
    with pytest.raises(InputError) as raised:
        validate_settings(RunSettings(**base, text_col="0", label_col="2"))  # type: ignore[arg-type]
    assert "no column at position 2" in raised.value.message and raised.value.line == 1
