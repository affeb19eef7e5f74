"""What several test modules share, in one place: the tiny local models, generated data, MLflow stores
and the trainers' planted tasks. The fixtures built on them are in ``tests/conftest.py``.

No test module imports another one; they import from here. Nothing here imports ``advisor`` at
module level, so the trainers' tests (which may not import it) can use this module too.
"""

from __future__ import annotations

import importlib.util
import random
import shutil
import sqlite3
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from trainers._features import TokenFeatures

if TYPE_CHECKING:
    from advisor.runner import ProgressEvent, RunOutcome
    from advisor.settings import RunSettings
    from trainers import TrainResult

# -- the tiny local models (no download) -----------------------------------------------------------

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


def build_tiny_roberta(path: Path) -> Path:
    """A 1-layer, 16-d RoBERTa with a byte-level BPE vocabulary (the alphabet and a few merges), saved to ``path``."""
    import json

    import torch
    from tokenizers.pre_tokenizers import ByteLevel
    from transformers import RobertaConfig, RobertaModel, RobertaTokenizer

    path.mkdir(parents=True, exist_ok=True)
    # Byte-level alphabet plus a few merged words: no BPE training needed, still RoBERTa's scheme.
    pieces = ["<s>", "<pad>", "</s>", "<unk>", "<mask>", *sorted(ByteLevel.alphabet())]
    merges = ["Ġ t", "h e", "Ġt he", "c i", "t y", "Ġ ci", "Ġci ty"]
    pieces += [a + b for a, b in (m.split() for m in merges)]
    (path / "vocab.json").write_text(json.dumps({p: i for i, p in enumerate(pieces)}), encoding="utf-8")
    (path / "merges.txt").write_text("#version: 0.2\n" + "\n".join(merges) + "\n", encoding="utf-8")
    tokenizer = RobertaTokenizer(vocab=str(path / "vocab.json"), merges=str(path / "merges.txt"))
    tokenizer.model_max_length = 32
    tokenizer.save_pretrained(path)
    config = RobertaConfig(
        vocab_size=len(pieces),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=34,  # RoBERTa positions start after the padding index
        pad_token_id=1,
    )
    torch.manual_seed(0)
    RobertaModel(config).save_pretrained(path)
    return path


def write_tiny_vectors(path: Path, dim: int = 8, header: bool = False) -> Path:
    """A GloVe-style text file covering most of ``TINY_WORDS`` with deterministic vectors."""
    rng = np.random.default_rng(0)
    words = sorted(set(TINY_WORDS))[:-5]  # leave a few words out so coverage is not 100 %
    lines = [f"{len(words)} {dim}"] if header else []
    for word in words:
        vec = rng.normal(size=dim)
        lines.append(word + " " + " ".join(f"{v:.5f}" for v in vec))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# -- generated NER files ---------------------------------------------------------------------------

NAMES = ["John", "Mary", "Paris", "London", "Berlin", "Google", "Apple"]
TYPES = {
    "John": "PER",
    "Mary": "PER",
    "Paris": "LOC",
    "London": "LOC",
    "Berlin": "LOC",
    "Google": "ORG",
    "Apple": "ORG",
}
FILLER = "the a of in on with went saw said visited likes works lives good bad".split()
#: The train / dev / test sizes of the end-to-end runs on generated data.
TINY_SPLITS = (("train", 40), ("dev", 10), ("test", 12))


def load_experiment(name: str) -> Any:
    """``experiments/<name>.py`` as a module (the scripts are not a package). Registered in
    ``sys.modules`` (dataclasses look their module up while being defined), with ``experiments/`` on the
    path, as when the script runs, so a benchmark can import a sibling one."""
    folder = Path(__file__).resolve().parents[1] / "experiments"
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    spec = importlib.util.spec_from_file_location(name, folder / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def write(path: Path, text: str | bytes) -> Path:
    """``text`` into ``path`` as UTF-8 (bytes as they are, for encodings and BOMs under test)."""
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def write_ner(path: Path, n: int, seed: int) -> Path:
    """``n`` CoNLL sentences of 3-7 tokens, names tagged B-PER/LOC/ORG, everything else O."""
    rng = random.Random(seed)
    blocks = []
    for _ in range(n):
        rows = []
        for _ in range(rng.randint(3, 7)):
            if rng.random() < 0.3:
                name = rng.choice(NAMES)
                rows.append(f"{name}\tB-{TYPES[name]}")
            else:
                rows.append(f"{rng.choice(FILLER)}\tO")
        blocks.append("\n".join(rows))
    path.write_text("\n\n".join(blocks) + "\n", encoding="utf-8")
    return path


def write_ner_splits(folder: Path, splits: Sequence[tuple[str, int]] = TINY_SPLITS) -> dict[str, str]:
    """``folder/{part}.conll`` for each (part, n), the i-th written with seed i: part -> path."""
    folder.mkdir(parents=True, exist_ok=True)
    return {part: str(write_ner(folder / f"{part}.conll", n, i)) for i, (part, n) in enumerate(splits)}


def write_pairs(path: Path, n: int, seed: int) -> Path:
    """``n`` sentence pairs (``sentence1 / sentence2 / label`` TSV) of tiny-BERT words: label 1 when the
    second text reorders the first's words, 0 when it has words of its own."""
    rng = random.Random(seed)
    rows = ["sentence1\tsentence2\tlabel"]
    for i in range(n):
        first = [rng.choice(NAMES), *rng.sample(FILLER, 4)]
        second = rng.sample(first, len(first)) if i % 2 else [rng.choice(NAMES), *rng.sample(FILLER, 3)]
        rows.append(f"{' '.join(first)}\t{' '.join(second)}\t{i % 2}")
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def static_contextual_grid(files: dict[str, str], contextual: str, static: str) -> dict[str, Any]:
    """``RunSettings`` fields of the fine-tuned reference's tests: static and contextual NER on ``files``,
    20 and 40 items x 2 seeds, the quick profile, on the CPU."""
    return {
        "data": files["train"],
        "task": "ner",
        "dev": files["dev"],
        "test": files["test"],
        "embeddings": ["static", "contextual"],
        "sizes": [20, 40],
        "seeds": 2,
        "profile": "quick",
        "contextual": contextual,
        "static": static,
        "device": "cpu",
    }


#: Question templates of TREC's six coarse classes, numbered 0-5 as a headerless TREC copy numbers them.
QUESTION_TEMPLATES = (
    "What does the word {w} mean ?",
    "What kind of {w} is shown in the old painting ?",
    "What does the abbreviation for {w} stand for ?",
    "Who was the first {w} to win the prize ?",
    "Where is the {w} museum , the big one , located ?",
    "How many {w} live in the city ?",
)
QUESTION_WORDS = tuple(
    "river castle painter bridge doctor lake garden soldier island teacher tower farmer harbor "
    "singer forest baker valley pilot desert tailor".split()
)


def headerless_questions(n: int = 120, label_first: bool = False) -> list[tuple[str, str]]:
    """``n`` distinct (text, label) rows like TREC's questions, six numeric labels in turn (0 first)."""
    rows = []
    for i in range(n):
        text = QUESTION_TEMPLATES[i % 6].format(w=QUESTION_WORDS[(i // 6) % len(QUESTION_WORDS)])
        rows.append((str(i % 6), text) if label_first else (text, str(i % 6)))
    return rows


def write_headerless(path: Path, rows: Sequence[Sequence[str]]) -> Path:
    """``rows`` with no header line: tab-separated for ``.tsv``, else CSV (quoted where needed)."""
    import csv
    import io

    if path.suffix == ".tsv":
        path.write_text("".join("\t".join(row) + "\n" for row in rows), encoding="utf-8")
        return path
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    path.write_text(buffer.getvalue(), encoding="utf-8")
    return path


# -- MLflow stores ---------------------------------------------------------------------------------


def build_store_template(folder: Path) -> Path:
    """An empty MLflow sqlite store migrated to the installed MLflow's schema: ``folder/mlflow.db``.

    Creating a store runs every MLflow schema migration (about 1 s on an idle core, over 10 s on a
    busy machine); a copy of this file is a store MLflow opens as is, in milliseconds. Its Default
    experiment (id 0, which advisor never uses) keeps its artifacts under ``folder/artifacts``.
    """
    from mlflow.store.tracking.sqlalchemy_store import SqlAlchemyStore

    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "mlflow.db"
    store = SqlAlchemyStore(f"sqlite:///{db}", (folder / "artifacts").resolve().as_uri())
    store.engine.dispose()  # every write is committed: the file alone is the store
    return db


class NewStore(Protocol):
    """The ``new_store`` fixture: ``new_store(folder) -> "sqlite:///folder/mlflow.db"``, a fresh store."""

    def __call__(self, folder: Path, name: str = "mlflow.db") -> str: ...


def copy_store(template: Path, db: Path) -> str:
    """A fresh store at ``db`` (a copy of ``template``, see :func:`build_store_template`): its URI."""
    db.parent.mkdir(parents=True, exist_ok=True)
    if db.exists():
        raise FileExistsError(f"{db} exists: a store copy never replaces a store")
    shutil.copyfile(template, db)
    return f"sqlite:///{db}"


def clone_store_folder(source: Path, target: Path) -> None:
    """Copy a local store folder (its sqlite database and the artifacts beside it) to ``target``.

    The database records where artifacts live as absolute paths; in the copy every text value under
    ``source`` is rewritten to ``target``, so runs resumed in the copy write to the copy only.
    """
    shutil.copytree(source, target)
    old, new = str(source.resolve()), str(target.resolve())
    for db in target.glob("*.db"):
        connection = sqlite3.connect(db)
        try:
            tables = [
                row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            ]
            for table in tables:
                for column in [row[1] for row in connection.execute(f'PRAGMA table_info("{table}")')]:
                    connection.execute(
                        f'UPDATE "{table}" SET "{column}" = replace("{column}", ?, ?) '
                        f'WHERE typeof("{column}") = \'text\' AND instr("{column}", ?) > 0',
                        (old, new, old),
                    )
            connection.commit()
        finally:
            connection.close()


# -- advisor run on generated data -----------------------------------------------------------------


def tiny_run_settings(
    folder: Path, files: dict[str, str], tiny_bert_dir: Path, tiny_vectors_file: Path, tracking_uri: str
) -> RunSettings:
    """Every family on ``files`` with the tiny BERT and vectors: 2 sizes x 2 seeds, a few steps."""
    from advisor.settings import RunSettings

    return RunSettings(
        data=files["train"],
        task="ner",
        dev=files["dev"],
        test=files["test"],
        sizes=[20, 40],
        seeds=2,
        profile="quick",
        contextual=str(tiny_bert_dir),
        static=str(tiny_vectors_file),
        random_dim=16,
        max_steps=3,
        tracking_uri=tracking_uri,
        experiment="test",
        cache_dir=str(folder / "cache"),
        device="cpu",
    )


@dataclass(frozen=True)
class FinishedRun:
    """One finished ``advisor run``: its settings, its outcome and the progress events it sent."""

    settings: RunSettings
    outcome: RunOutcome
    events: list[ProgressEvent]


# -- the trainers' planted tasks -------------------------------------------------------------------


@dataclass(frozen=True)
class LabelledCorpus:
    """The corpus shape the trainers read (``trainers._corpus.LabelledItems``), without ``advisor``."""

    task: str  # "ner" | "classify" | "pair"
    tokens: list[list[str]]
    labels: list[Any]
    source: str = "<memory>"
    line_numbers: list[int] = field(default_factory=list)
    pair_split: list[int] = field(default_factory=list)  # pair: words of the first text per item

    def __post_init__(self) -> None:
        if len(self.tokens) != len(self.labels):
            raise ValueError("tokens and labels differ in length")
        if not self.line_numbers:
            object.__setattr__(self, "line_numbers", list(range(1, len(self.tokens) + 1)))

    def __len__(self) -> int:
        return len(self.tokens)

    def label_counts(self) -> Counter[str]:
        """Tags (NER, counted per token) or labels (classification) with their counts."""
        if self.task == "ner":
            return Counter(tag for tags in self.labels for tag in tags)
        return Counter(self.labels)

    def subset(self, indices: Sequence[int] | np.ndarray) -> LabelledCorpus:
        idx = [int(i) for i in indices]
        return replace(
            self,
            tokens=[self.tokens[i] for i in idx],
            labels=[self.labels[i] for i in idx],
            line_numbers=[self.line_numbers[i] for i in idx],
            pair_split=[self.pair_split[i] for i in idx] if self.pair_split else [],
        )


PLANTED_DIM = 8
#: A small, fast budget and model for the planted tasks.
FAST = {
    "max_steps": 180,
    "min_steps": 0,
    "eval_every": 15,
    "patience": 3,
    "batch_size": 16,
    "lr": 1e-2,
    "hidden": 16,
    "projection": 16,
}


def planted_ner(n: int, seed: int) -> tuple[TokenFeatures, LabelledCorpus]:
    """Planted signal: feature 0 > 0.6 marks a PER token, feature 1 > 0.6 a LOC token; runs are entities."""
    rng = np.random.default_rng(seed)
    arrays, tokens, tags = [], [], []
    for _ in range(n):
        length = int(rng.integers(3, 10))
        x = rng.normal(size=(length, PLANTED_DIM)).astype(np.float32)
        sent_tags = []
        for t in range(length):
            if x[t, 0] > 0.6 and x[t, 0] >= x[t, 1]:
                entity = "PER"
            elif x[t, 1] > 0.6:
                entity = "LOC"
            else:
                entity = None
            if entity is None:
                sent_tags.append("O")
            elif sent_tags and sent_tags[-1][2:] == entity:
                sent_tags.append(f"I-{entity}")
            else:
                sent_tags.append(f"B-{entity}")
        arrays.append(x)
        tokens.append([f"w{i}" for i in range(length)])
        tags.append(sent_tags)
    return TokenFeatures.from_list(arrays), LabelledCorpus(task="ner", tokens=tokens, labels=tags)


def planted_classify(n: int, seed: int) -> tuple[TokenFeatures, LabelledCorpus]:
    """Planted signal: the label is the sign of feature 0 summed over the sentence (3 classes by size)."""
    rng = np.random.default_rng(seed)
    arrays, tokens, labels = [], [], []
    for _ in range(n):
        length = int(rng.integers(2, 12))
        x = rng.normal(size=(length, PLANTED_DIM)).astype(np.float32)
        total = x[:, 0].mean()
        labels.append("neg" if total < -0.2 else "pos" if total > 0.2 else "mid")
        arrays.append(x)
        tokens.append(["Tok"] * length)
    return TokenFeatures.from_list(arrays), LabelledCorpus(task="classify", tokens=tokens, labels=labels)


def fit_planted(splits: Sequence[tuple[TokenFeatures, LabelledCorpus]], **options: object) -> TrainResult:
    """``fit_and_evaluate`` on (train, dev, eval) splits with :data:`FAST` and ``options`` over it."""
    from trainers import TrainConfig, fit_and_evaluate

    (tf, tc), (df, dc), (ef, ec) = splits
    return fit_and_evaluate(tf, tc, df, dc, ef, ec, TrainConfig(**{**FAST, **options}))


# -- verdicts with planted serving costs -----------------------------------------------------------


def plant_serving(analysis: Any, ms_b1: dict[str, float], ms_b64: dict[str, float], threads: int = 4) -> Any:
    """``analysis`` with a dedicated serving pass planted (ms/item at batch 1 and 64 per family), as
    ``advisor.costs.serving_columns`` adds it to a real run's embedding table."""
    import json
    import math

    table = analysis.embeddings.copy()
    table["serving_ms_per_item_b1"] = [ms_b1.get(e, math.nan) for e in table["embedding"]]
    table["serving_ms_per_item_b64"] = [ms_b64.get(e, math.nan) for e in table["embedding"]]
    table["serving_memory_mb"] = 100.0
    provenance = {"device": "cpu", "torch_threads": threads, "sample_size": 256, "batch1_items": 64}
    table["serving_provenance"] = json.dumps(provenance | {"repeats": 3})
    table["serving_conditions"] = json.dumps({"precision": {e: "float32" for e in table["embedding"]}})
    return replace(analysis, embeddings=table)


def assert_within_int8_step(stored: Any, reference: Any, slack: float = 2e-3) -> None:
    """``stored`` (a cached layer stack or a view of it) equals ``reference`` to within the int8 codes'
    rounding: half a step of ``max|x| / 127`` per (word, layer) vector, plus ``slack`` for float16 and
    float32 arithmetic. A wrong scale, a shifted row or a lost layer is far outside it."""
    ref = np.asarray(reference, np.float32)
    got = np.asarray(stored, np.float32)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    half_step = np.abs(ref).max(axis=-1, keepdims=True) / 127 / 2
    excess = np.abs(got - ref) - (half_step * 1.01 + slack)
    assert (excess <= 0).all(), f"off by up to {float(excess.max()):.3g} beyond half an int8 step"
