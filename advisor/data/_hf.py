"""Datasets from the Hugging Face hub (``hf:NAME[:CONFIG]``) or a local saved / parquet directory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from advisor._error_codes import E107_DATASET, E107_DATASET_NAMED, E108, E115
from advisor.data._classify import LABEL_COLUMNS, TEXT_COLUMNS, tokenize
from advisor.data._corpus import Corpus
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

    try:
        if spec.startswith("hf:"):
            name, _, config = spec[3:].partition(":")
            return datasets.load_dataset(name, config or None)
        folder = Path(spec)
        if (folder / "dataset_dict.json").exists() or (folder / "dataset_info.json").exists():
            return datasets.load_from_disk(str(folder))
        return datasets.load_dataset("parquet", data_dir=str(folder))
    except Exception as error:  # network, missing config, unknown name: all end the same way for the user
        raise E115(
            spec=spec,
            reason=f"{type(error).__name__}: {str(error).splitlines()[0][:300]}",
            hint="hub names need internet access (or a local cache); offline, save the dataset with "
            "Dataset.save_to_disk on a connected machine and pass that directory",
        ) from None


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


def _to_corpus(split: Any, task: str, spec: str, text_col: str | None, label_col: str | None) -> Corpus:
    columns = list(split.column_names)
    if task == "ner":
        tok_name = _column(columns, text_col, ("tokens", "words"), "text", spec)
        tag_name = _column(columns, label_col, _TAG_COLUMNS, "label", spec)
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
    text_name = _column(columns, text_col, TEXT_COLUMNS, "text", spec)
    label_name = _column(columns, label_col, LABEL_COLUMNS, "label", spec)
    names = _names(split.features[label_name])
    texts = [str(t) for t in split[text_name]]
    labels = [names[v] if names else str(v) for v in split[label_name]]
    return Corpus("classify", [tokenize(t) for t in texts], labels, source=spec, texts=texts)


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
                out[role] = _to_corpus(splits[name], task, f"{spec}[{name}]", text_col, label_col)
                break
    if "train" not in out:
        raise E108(splits=", ".join(splits.keys()), file=spec)
    return out
