"""The flair side of ``bench_peers.py``: one frozen-embedding BiLSTM tagger per cell, run in flair's own venv.

    FLAIR_VENV/bin/python experiments/flair_peer.py SPEC.json RESULTS.jsonl

flair 0.15 pins transformers < 5, so it cannot share the project's environment: this script imports
nothing from ``advisor`` and reads everything it needs from SPEC.json, written by bench_peers.py
(the cell list, the subset files, the vector files, the local encoder and the hyper-parameters).
Each finished cell appends one JSON line (embedding, size, seed, score, seconds) to RESULTS.jsonl.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _interrupt import interruptible  # experiments/ is on sys.path when a script runs


def make_embedding(spec: dict[str, Any], embedding: str, seed: int) -> Any:
    """The same frozen vectors advisor uses: its GloVe rows, its random table, its local encoder."""
    from flair.embeddings import TransformerWordEmbeddings, WordEmbeddings

    if embedding == "contextual":
        return TransformerWordEmbeddings(
            spec["encoder"],
            layers=spec["flair_layers"],
            layer_mean=True,
            subtoken_pooling="first",
            fine_tune=False,
            allow_long_sentences=True,
        )
    path = spec["vectors"]["random"][str(seed)] if embedding == "random" else spec["vectors"]["static"]
    return WordEmbeddings(path)


def train_cell(spec: dict[str, Any], cell: dict[str, Any], work: Path) -> float:
    """Train one tagger the way a flair user would script it; return the test micro-F1 (span level)."""
    import flair
    import torch
    from flair.datasets import ColumnCorpus
    from flair.models import SequenceTagger
    from flair.trainers import ModelTrainer

    flair.set_seed(cell["seed"])
    corpus = ColumnCorpus(
        spec["folder"],
        {0: "text", 1: "ner"},
        train_file=cell["train_file"],
        dev_file=spec["dev_file"],
        test_file=spec["test_file"],
        column_delimiter="\t",
    )
    train = spec["train"]
    tagger = SequenceTagger(
        embeddings=make_embedding(spec, cell["embedding"], cell["seed"]),
        tag_dictionary=corpus.make_label_dictionary("ner", add_unk=False),
        tag_type="ner",
        tag_format="BIO",
        hidden_size=train["hidden"],
        use_crf=False,
        reproject_embeddings=True,
        dropout=train["dropout"],
        word_dropout=0.0,
        locked_dropout=0.0,
    )
    result = ModelTrainer(tagger, corpus).train(
        str(work),
        learning_rate=train["lr"],
        optimizer=torch.optim.Adam,
        mini_batch_size=train["batch_size"],
        max_epochs=train["max_epochs"],
        patience=train["patience"],
        embeddings_storage_mode="cpu",
        save_final_model=False,
        create_file_logs=False,
        create_loss_file=False,
    )
    return float(result["test_score"])


def main() -> None:
    spec = json.loads(Path(sys.argv[1]).read_text())
    out = Path(sys.argv[2])
    import torch

    torch.set_num_threads(spec["threads"])
    for cell in spec["cells"]:
        started = time.perf_counter()
        with tempfile.TemporaryDirectory() as work:
            score = train_cell(spec, cell, Path(work))
        row = {**{k: cell[k] for k in ("embedding", "size", "seed")}, "score": score}
        row["seconds"] = time.perf_counter() - started
        with out.open("a") as handle:
            handle.write(json.dumps(row) + "\n")
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    interruptible(main)
