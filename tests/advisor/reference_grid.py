"""A small, deterministic demo-style grid whose per-cell scores are stored as the reference.

Why: speed work (issues 17, 30) and restructuring (issues 15, 27) must not change what a run measures. The
grid runs ``advisor run`` end to end (read, featurize with random / static / tiny-BERT scalar-mix
features, train, evaluate) on generated NER and classification data, and collects each cell's score
from the progress events (a public interface that survives a reorganised runner).

Regenerate the stored scores only from a pristine export of a named commit (``git archive``), never
from a working tree under change, and only when what is measured changes by design (issue 26 did:
cells train to convergence in steps, each family's learning rate chosen on dev)::

    mkdir /tmp/ref-SHA && git archive SHA | tar -x -C /tmp/ref-SHA && cd /tmp/ref-SHA && \
        PYTHONPATH=/tmp/ref-SHA /work/main/.venv/bin/python tests/advisor/reference_grid.py \
        /work/main/tests/advisor/reference_scores.json
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

NAMES = {"John": "PER", "Mary": "PER", "Paris": "LOC", "London": "LOC", "Berlin": "LOC", "Google": "ORG"}
FILLER = "the a of in on with went saw said visited likes works lives good bad".split()
GOOD = "good great very yes more".split()
BAD = "bad not no why less".split()

#: task -> (number of train, dev, test items); sizes and seeds of the grid are in :func:`settings_for`.
SPLIT_SIZES = {"ner": (256, 32, 32), "classify": (128, 32, 32)}
SIZES = {"ner": [128, 256], "classify": [64, 128]}
SEEDS = 2
MAX_STEPS = 600  # with the quick profile's floor (400) and PATIENCE, most cells stop on dev
PATIENCE = 3  # the quick profile's until it took default's 5: the stored scores were recorded at 3


def write_ner(path: Path, n: int, seed: int) -> Path:
    """CoNLL lines: names tagged B-<type> (a quarter of them left O: noise), filler words O.

    Without the noise a converged tagger scores 1.0 in every cell, and a constant reference guards nothing.
    """
    rng = random.Random(seed)
    blocks = []
    for _ in range(n):
        rows = []
        for _ in range(rng.randint(3, 8)):
            if rng.random() < 0.3:
                name = rng.choice(sorted(NAMES))
                rows.append(f"{name}\t{'O' if rng.random() < 0.25 else 'B-' + NAMES[name]}")
            else:
                rows.append(f"{rng.choice(FILLER)}\tO")
        blocks.append("\n".join(rows))
    path.write_text("\n\n".join(blocks) + "\n", encoding="utf-8")
    return path


def write_classify(path: Path, n: int, seed: int) -> Path:
    """CSV ``text,label``: the label is whichever of good / bad words is in the majority."""
    rng = random.Random(seed)
    rows = ["text,label"]
    for _ in range(n):
        label = rng.choice(["pos", "neg"])
        words = [rng.choice(FILLER) for _ in range(rng.randint(2, 6))]
        cue = GOOD if label == "pos" else BAD
        words += [rng.choice(cue) for _ in range(rng.randint(1, 3))]
        rng.shuffle(words)
        rows.append(f"{' '.join(words)},{label}")
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def write_data(task: str, folder: Path) -> dict[str, str]:
    """Train / dev / test files for ``task`` in ``folder``."""
    writer, ext = (write_ner, "conll") if task == "ner" else (write_classify, "csv")
    n_train, n_dev, n_test = SPLIT_SIZES[task]
    parts = (("train", n_train), ("dev", n_dev), ("test", n_test))
    return {part: str(writer(folder / f"{part}.{ext}", n, i)) for i, (part, n) in enumerate(parts)}


def settings_for(
    task: str,
    files: dict[str, str],
    bert: Path,
    vectors: Path,
    folder: Path,
    workers: int,
    precision: str | None = None,
):
    """The grid's settings; ``precision`` None leaves the run's default (auto)."""
    from advisor.settings import RunSettings

    extra = {} if precision is None else {"precision": precision}
    return RunSettings(
        **extra,
        data=files["train"],
        task=task,
        dev=files["dev"],
        test=files["test"],
        sizes=SIZES[task],
        seeds=SEEDS,
        profile="quick",
        contextual=str(bert),
        static=str(vectors),
        random_dim=16,
        max_steps=MAX_STEPS,
        patience=PATIENCE,
        workers=workers,
        tracking_uri=f"sqlite:///{folder}/mlflow.db",
        experiment=f"reference-{task}",
        cache_dir=str(folder / "cache"),
        device="cpu",
        difficulty=False,
    )


def grid_scores(
    task: str, bert: Path, vectors: Path, folder: Path, workers: int = 1, precision: str | None = None
) -> dict[str, float]:
    """``{"embedding/size/seed": score}`` of every cell of the reference grid for ``task``."""
    from advisor.runner import run_analysis

    folder.mkdir(parents=True, exist_ok=True)
    files = write_data(task, folder)
    scores: dict[str, float] = {}

    def collect(event: Any) -> None:
        if event.stage == "cell" and event.cell is not None:
            scores[f"{event.cell.embedding}/{event.cell.size}/{event.cell.seed}"] = float(event.score)

    run_analysis(settings_for(task, files, bert, vectors, folder, workers, precision), progress=collect)
    return dict(sorted(scores.items()))


def main(out: str) -> None:
    import advisor
    import trainers
    from tests.helpers import build_tiny_bert, write_tiny_vectors

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        bert = build_tiny_bert(root / "bert")
        vectors = write_tiny_vectors(root / "tiny.vec.txt")
        stored = {
            task: grid_scores(task, bert, vectors, root / task, precision="float32") for task in SPLIT_SIZES
        }
    stored["_generated_by"] = {
        "advisor": str(Path(advisor.__file__).parent),
        "trainers": str(Path(trainers.__file__).parent),
        "workers": 1,
    }
    Path(out).write_text(json.dumps(stored, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(json.dumps(stored, indent=1))


if __name__ == "__main__":
    main(sys.argv[1])
