"""Datasets from the Hugging Face hub (``hf:NAME[:CONFIG]``) or a local saved / parquet directory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from advisor._error_codes import E107_DATASET, E107_DATASET_NAMED, E107_SAME_COLUMN, E108, E115, E116
from advisor.data._classify import LABEL_COLUMNS, TEXT_COLUMNS, tokenize
from advisor.data._corpus import Corpus
from advisor.data._pair_columns import refuse_pair_for_classify
from advisor.data._pairs import pair_corpus, pair_from_columns
from advisor.data._schemes import TagSequence, detect_scheme, normalise_case, to_iob2

__all__ = ["is_hf_spec", "read_hf"]

_TAG_COLUMNS = ("ner_tags", "tags", "labels", "ner")
_SPLIT_NAMES = {"train": ("train",), "dev": ("validation", "valid", "dev"), "test": ("test",)}


def is_hf_spec(path: str | Path) -> bool:
    """``hf:NAME[:CONFIG]``, or a directory written by ``save_to_disk`` or holding parquet files."""
    text = str(path)
    if text.startswith("hf:"):
        return True
    folder = Path(text)
    return folder.is_dir() and (
        (folder / "dataset_dict.json").exists()
        or (folder / "dataset_info.json").exists()
        or any(folder.rglob("*.parquet"))
    )


def _load(spec: str) -> Any:
    import datasets

    if not spec.startswith("hf:"):
        return _load_local(Path(spec), spec)
    try:
        name, _, config = spec[3:].partition(":")
        return datasets.load_dataset(name, config or None)
    except Exception as error:  # network, missing config, unknown name: all end the same way for the user
        raise E115(
            spec=spec,
            reason=_reason(error),
            hint="hub names need internet access (or a local cache); offline, save the dataset with "
            "Dataset.save_to_disk on a connected machine and pass that directory",
        ) from None


def _reason(error: Exception) -> str:
    return f"{type(error).__name__}: {(str(error).splitlines() or [''])[0][:300]}"


def _load_local(folder: Path, spec: str) -> Any:
    """A directory written by ``save_to_disk`` (checked file by file first) or holding parquet files."""
    import datasets

    saved = (folder / "dataset_dict.json").exists() or (folder / "dataset_info.json").exists()
    if saved:
        missing = _missing_saved_file(folder)
        if missing is not None:
            raise E116(problem=missing, file=spec)
    try:
        if saved:
            return datasets.load_from_disk(str(folder))
        return datasets.load_dataset("parquet", data_dir=str(folder))
    except Exception as error:  # a corrupt arrow or parquet file: name the directory, not the hub
        if saved:
            raise E116(problem=f"it cannot be loaded ({_reason(error)})", file=spec) from None
        raise E116(
            problem=f"its parquet files cannot be loaded ({_reason(error)})",
            file=spec,
            hint="write the parquet files again, or pass the data as a CSV/JSONL/CoNLL file",
        ) from None


def _missing_saved_file(folder: Path) -> str | None:
    """What a ``save_to_disk`` directory lacks (a split folder, state.json, an arrow file), or None."""
    if (folder / "dataset_dict.json").exists():
        try:
            names = json.loads((folder / "dataset_dict.json").read_text(encoding="utf-8"))["splits"]
        except (OSError, ValueError, KeyError, TypeError) as error:
            return f"dataset_dict.json is unreadable ({type(error).__name__})"
        folders = [folder / str(name) for name in names]
    else:
        folders = [folder]
    for split in folders:
        for needed in ("state.json", "dataset_info.json"):
            if not (split / needed).is_file():
                return f"{(split / needed).relative_to(folder)} is missing"
        try:
            files = [
                f["filename"]
                for f in json.loads((split / "state.json").read_text(encoding="utf-8"))["_data_files"]
            ]
        except (OSError, ValueError, KeyError, TypeError) as error:
            return f"{(split / 'state.json').relative_to(folder)} is unreadable ({type(error).__name__})"
        for name in files:
            if not (split / name).is_file():
                return f"{(split / name).relative_to(folder)} is missing (listed in state.json)"
    return None


def _names(feature: Any) -> list[str] | None:
    inner = getattr(feature, "feature", None)
    for candidate in (feature, inner, getattr(inner, "feature", None)):
        names = getattr(candidate, "names", None)
        if names:
            return list(names)
    return None


def _column(columns: list[str], wanted: str | None, known: tuple[str, ...], role: str, spec: str) -> str:
    if wanted:
        if wanted in columns:
            return wanted
    else:
        for name in known:
            if name in columns:
                return name
    if wanted:
        raise E107_DATASET_NAMED(role=role, name=wanted, columns=", ".join(columns), file=spec)
    raise E107_DATASET(role=role, columns=", ".join(columns), file=spec)


def _columns(
    columns: list[str],
    text_col: str | None,
    label_col: str | None,
    known: tuple[tuple[str, ...], ...],
    spec: str,
) -> tuple[str, str]:
    """The text (tokens) and label (tags) columns; the same column for both is refused."""
    text_name = _column(columns, text_col, known[0], "text", spec)
    label_name = _column(columns, label_col, known[1], "label", spec)
    if text_name == label_name:
        raise E107_SAME_COLUMN(name=text_name, columns=", ".join(columns), file=spec)
    return text_name, label_name


def _to_corpus(
    split: Any, task: str, spec: str, text_col: str | None, label_col: str | None
) -> Corpus | None:
    """One split as a :class:`Corpus`; None for a split without a single labelled item."""
    columns = list(split.column_names)
    if task == "ner":
        tok_name, tag_name = _columns(columns, text_col, label_col, (("tokens", "words"), _TAG_COLUMNS), spec)
        names = _names(split.features[tag_name])
        tokens, seqs = [], []
        for i, (toks, tags) in enumerate(zip(split[tok_name], split[tag_name], strict=True)):
            if not toks:
                continue
            tags = [names[t] for t in tags] if names else [str(t) for t in tags]
            tokens.append([str(t) for t in toks])
            seqs.append(TagSequence(tags, [i + 1] * len(tags)))
        seqs = normalise_case(seqs, spec, [])
        scheme = detect_scheme(seqs, spec)
        return Corpus("ner", tokens, [to_iob2(s.tags) for s in seqs], source=spec, scheme=scheme)
    if task == "pair":
        return _pair_corpus(split, spec, text_col, label_col)
    refuse_pair_for_classify(columns, text_col, spec)
    text_name, label_name = _columns(columns, text_col, label_col, (TEXT_COLUMNS, LABEL_COLUMNS), spec)
    kept = [
        (str(t), v)
        for t, v in zip(split[text_name], _labels(split, label_name), strict=True)
        if v is not None
    ]
    if not kept:
        return None
    texts = [t for t, _ in kept]
    return Corpus("classify", [tokenize(t) for t in texts], [v for _, v in kept], source=spec, texts=texts)


def _labels(split: Any, name: str) -> list[str | None]:
    """Label strings of column ``name``; None for a negative class id (GLUE's unlabelled test items)."""
    names = _names(split.features[name])
    if not names:
        return [str(v) for v in split[name]]
    return [names[v] if v is not None and v >= 0 else None for v in split[name]]


def _pair_corpus(split: Any, spec: str, text_col: str | None, label_col: str | None) -> Corpus | None:
    """A sentence-pair split (:mod:`._pairs`): both texts by name or ``--text-col A,B``; None if unlabelled."""
    first, second, label = pair_from_columns(list(split.column_names), text_col, label_col, spec)
    rows = [
        (i + 1, "" if a is None else str(a), "" if b is None else str(b), value)
        for i, (a, b, value) in enumerate(
            zip(split[first], split[second], _labels(split, label), strict=True)
        )
        if value is not None
    ]
    return pair_corpus(rows, spec, False, []) if rows else None


def read_hf(
    spec: str, task: str, text_col: str | None = None, label_col: str | None = None
) -> dict[str, Corpus]:
    """Load every split the dataset has, keyed ``train`` / ``dev`` / ``test`` where recognised."""
    loaded = _load(spec)
    splits = loaded if hasattr(loaded, "keys") else {"train": loaded}
    out: dict[str, Corpus] = {}
    for role, candidates in _SPLIT_NAMES.items():
        for name in candidates:
            if name in splits:
                corpus = _to_corpus(splits[name], task, f"{spec}[{name}]", text_col, label_col)
                if corpus is not None:  # an unlabelled split (GLUE's test) is left out: it is split off train
                    out[role] = corpus
                break
    if "train" not in out:
        raise E108(splits=", ".join(splits.keys()), file=spec)
    return out
