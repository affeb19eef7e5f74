"""Session-scoped tiny models built locally (no download): a 2-layer BERT and a small vectors file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(autouse=True, scope="session")
def cache_root(tmp_path_factory: pytest.TempPathFactory):
    """Every cache (features, parses, vectors, distilled models, locks) under a session temp dir: never $HOME."""
    root = tmp_path_factory.mktemp("advisor-cache")
    previous = os.environ.get("ADVISOR_CACHE_DIR")
    os.environ["ADVISOR_CACHE_DIR"] = str(root)
    yield root
    if previous is None:
        os.environ.pop("ADVISOR_CACHE_DIR", None)
    else:
        os.environ["ADVISOR_CACHE_DIR"] = previous


TINY_WORDS = (
    "the a an of to in on at for with by from and or but is was are were be been it this that "
    "he she they we you i his her their our my john mary paris london berlin new york city "
    "company bank river apple google play film movie book song team game went saw said visited "
    "likes works lives who what where when why how which many much time day year good bad great "
    "not no yes very more most , . ? ! ' \" - ( ) : ; 1 2 3 4 5 6 7 8 9 0"
).split()


def build_tiny_bert(path: Path, max_position_embeddings: int = 64) -> Path:
    """A 2-layer, 32-d BERT with a WordPiece vocabulary of a few hundred pieces, saved to ``path``."""
    import torch
    from transformers import BertConfig, BertModel, BertTokenizer

    path.mkdir(parents=True, exist_ok=True)
    special = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    letters = [chr(c) for c in range(ord("a"), ord("z") + 1)]
    pieces = special + sorted(set(TINY_WORDS)) + letters + [f"##{c}" for c in letters]
    (path / "vocab.txt").write_text("\n".join(pieces) + "\n", encoding="utf-8")
    tokenizer = BertTokenizer(vocab={p: i for i, p in enumerate(pieces)}, do_lower_case=True)
    tokenizer.model_max_length = max_position_embeddings
    tokenizer.save_pretrained(path)
    config = BertConfig(
        vocab_size=len(pieces),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=max_position_embeddings,
    )
    torch.manual_seed(0)
    BertModel(config).save_pretrained(path)
    return path


def write_tiny_vectors(path: Path, dim: int = 8, header: bool = False) -> Path:
    """A GloVe-style text file covering most of ``TINY_WORDS`` with deterministic vectors."""
    import numpy as np

    rng = np.random.default_rng(0)
    words = sorted(set(TINY_WORDS))[:-5]  # leave a few words out so coverage is not 100 %
    lines = [f"{len(words)} {dim}"] if header else []
    for word in words:
        vec = rng.normal(size=dim)
        lines.append(word + " " + " ".join(f"{v:.5f}" for v in vec))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture()
def advisor_cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    """Run the ``advisor`` entry point in-process: ``advisor_cli(*args) -> (exit code, stdout, stderr)``."""
    import sys

    from advisor.cli import main

    def run(*args: str) -> tuple[int, str, str]:
        monkeypatch.setattr(sys, "argv", ["advisor", *args])
        code = 0
        try:
            main()
        except SystemExit as exit_:
            code = int(exit_.code or 0)
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


@pytest.fixture(scope="session")
def tiny_bert_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_bert(tmp_path_factory.mktemp("tiny_bert"))


@pytest.fixture(scope="session")
def tiny_vectors_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_vectors(tmp_path_factory.mktemp("vectors") / "tiny.vec.txt")


@pytest.fixture(scope="session")
def app_store(tmp_path_factory: pytest.TempPathFactory):
    """An MLflow store with a finished and a half-done synthetic NER analysis (the app's tests read it)."""
    from tests.advisor.app.synthetic_store import build_store

    return build_store(tmp_path_factory.mktemp("app_store"))


@pytest.fixture(scope="session")
def layer_store(tmp_path_factory: pytest.TempPathFactory):
    """A store with an analysis carrying mix weights and contextuality, and a layer sweep (app tests)."""
    from tests.advisor.app.layer_store import build_layer_store

    return build_layer_store(tmp_path_factory.mktemp("layer_store"))
