from __future__ import annotations

import gzip

import numpy as np
import pytest

from advisor.data import Corpus
from advisor.embeddings import make_embedding
from advisor.embeddings._static import _header, _parse_slow
from advisor.errors import InputError

VECTORS = {
    "the": [0.1, 0.2, 0.3],
    "Paris": [1.0, -1.0, 0.5],
    "paris": [9.0, 9.0, 9.0],
    "bank": [0.0, 2.0, -2.0],
}


def _write(path, header=False, trailing_space=False, rows=VECTORS):
    lines = [f"{len(rows)} 3"] if header else []
    lines += [
        w + " " + " ".join(str(v) for v in vec) + (" " if trailing_space else "") for w, vec in rows.items()
    ]
    text = "\n".join(lines) + "\n"
    if path.suffix == ".gz":
        with gzip.open(path, "wt", encoding="utf-8") as handle:
            handle.write(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def _corpus(sentences):
    return Corpus(task="ner", tokens=sentences, labels=[["O"] * len(s) for s in sentences])


@pytest.mark.parametrize(
    "name,header,trailing",
    [("v.txt", False, False), ("v.vec", True, True), ("v.txt.gz", False, False), ("h.gz", True, False)],
)
def test_formats_give_the_same_table(tmp_path, name, header, trailing):
    path = _write(tmp_path / name, header=header, trailing_space=trailing)
    emb = make_embedding("static", path=path, cache_dir=tmp_path / "cache")
    assert emb.dim == 3 and len(emb.table) == 4
    feats = emb.featurize(_corpus([["the", "Paris", "PARIS", "Bank", "zebra"]]))
    assert feats.vectors.dtype == np.float32
    np.testing.assert_allclose(feats.vectors[0], VECTORS["the"])
    np.testing.assert_allclose(feats.vectors[1], VECTORS["Paris"])  # exact match wins over lowercase
    np.testing.assert_allclose(feats.vectors[2], VECTORS["paris"])  # lowercase fallback
    np.testing.assert_allclose(feats.vectors[3], VECTORS["bank"])
    np.testing.assert_array_equal(feats.vectors[4], 0.0)  # unknown -> zeros


def test_coverage_accumulates_over_corpora(tmp_path):
    emb = make_embedding("static", path=_write(tmp_path / "v.txt"), cache_dir=tmp_path)
    emb.featurize(_corpus([["the", "the", "zebra"]]))
    first = emb.describe()
    assert first["coverage_tokens"] == pytest.approx(2 / 3) and first["coverage_types"] == pytest.approx(
        1 / 2
    )
    emb.featurize(_corpus([["yak"], ["bank"]]))
    second = emb.describe()
    assert second["coverage_tokens"] == pytest.approx(3 / 5) and second["coverage_types"] == pytest.approx(
        2 / 4
    )
    assert second["coverage_n_tokens"] == 5


def test_tiny_fixture_file_and_mean_norm(tiny_vectors_file, tmp_path):
    emb = make_embedding("static", path=tiny_vectors_file, cache_dir=tmp_path)
    rows = [line.split() for line in tiny_vectors_file.read_text(encoding="utf-8").splitlines()]
    matrix = np.array([[float(v) for v in r[1:]] for r in rows])
    assert emb.dim == 8 and len(emb.table) == len(rows)
    assert emb.mean_norm == pytest.approx(np.linalg.norm(matrix, axis=1).mean(), rel=1e-5)
    assert emb.storage_bytes == len(rows) * 8 * 4
    assert 0 < make_embedding("static", path=tiny_vectors_file, cache_dir=tmp_path).describe()["vocab_size"]


def test_parsed_table_is_cached_on_disk(tmp_path):
    from advisor.embeddings import _static

    path = _write(tmp_path / "v.txt")
    make_embedding("static", path=path, cache_dir=tmp_path / "c").dim  # noqa: B018 - loads and caches
    assert len(list((tmp_path / "c").glob("vectors-*/vectors.npy"))) == 1
    _static._LOADED.clear()
    table = _static.load_vectors(path, tmp_path / "c")
    assert isinstance(table.vectors, np.memmap)  # read back from the cache, not re-parsed
    np.testing.assert_allclose(table.vectors[table.index["bank"]], VECTORS["bank"])


def test_words_with_spaces_use_the_careful_parser(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("new york 1 2 3\nthe 4 5 6\nbank 7 8 9\n", encoding="utf-8")
    emb = make_embedding("static", path=path, cache_dir=tmp_path)
    assert emb.dim == 3  # the common width wins over line 1's
    np.testing.assert_array_equal(emb.table.vectors[emb.table.index["new york"]], [1, 2, 3])
    np.testing.assert_array_equal(emb.table.vectors[emb.table.index["the"]], [4, 5, 6])


@pytest.mark.parametrize(
    "text,line,message",
    [
        ("the 1 2 3\nbank 1 2\n", 2, "found 2"),
        ("the 1 2 3\nbank 1 x 3\n", 2, "not a number"),
        ("2 3\nthe 1 2 3\nbank 1 2 3 4 5\n", None, None),  # extra fields: a word with spaces, accepted
        ("4 3\nthe 1 2\n", 2, "found 2"),
        ("the\n", 1, "word followed by numbers"),
    ],
)
def test_malformed_file_names_file_and_line(tmp_path, text, line, message):
    path = tmp_path / "bad.txt"
    path.write_text(text, encoding="utf-8")
    if line is None:
        assert "bank 1 2" in make_embedding("static", path=path, cache_dir=tmp_path).table.index
        return
    with pytest.raises(InputError) as info:
        make_embedding("static", path=path, cache_dir=tmp_path).dim  # noqa: B018
    assert info.value.line == line and info.value.file == str(path)
    assert message in str(info.value) and f"bad.txt:{line}:" in str(info.value)


def test_slow_and_fast_parsers_agree(tiny_vectors_file, tmp_path):
    from advisor.embeddings._static import parse_vectors_file

    words_fast, fast = parse_vectors_file(tiny_vectors_file)
    has_header, dim = _header(tiny_vectors_file)
    words_slow, slow = _parse_slow(tiny_vectors_file, has_header, dim)
    assert words_fast == words_slow
    np.testing.assert_array_equal(fast, slow)


def test_missing_file_is_a_config_error(tmp_path):
    from advisor.errors import ConfigError

    with pytest.raises(ConfigError, match="not found"):
        make_embedding("static", path=tmp_path / "nope.txt").dim  # noqa: B018
