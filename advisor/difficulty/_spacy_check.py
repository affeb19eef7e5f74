"""Whether a ``--spacy-model`` can serve the parse metric, checked without loading it.

Why: the name was first tried in the difficulty stage, after every cell had trained, and a typo left a
FAILED run. Validation asks here instead, before any run exists: an installed package or a pipeline
folder, read from its ``meta.json`` (spaCy itself is not even imported), with a parser among its
components. Loading stays with :mod:`advisor.difficulty._parse`.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from advisor._error_codes import E247

__all__ = ["check_parser_model"]


def check_parser_model(name: str) -> None:
    """Raise E247 unless ``name`` is an installed spaCy pipeline or a pipeline folder with a parser."""
    folder = _pipeline_folder(name)
    if folder is None:
        raise E247(name=name, problem="no installed spaCy pipeline and no folder of that name")
    meta_file = folder / "meta.json"
    if not meta_file.is_file():
        if (folder / "config.cfg").is_file():
            return  # a pipeline folder without meta.json: spaCy will say what it lacks
        raise E247(name=name, problem=f"{folder} is not a spaCy pipeline (no meta.json or config.cfg)")
    try:
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise E247(name=name, problem=f"cannot read {meta_file}: {error}") from None
    pipeline = meta.get("pipeline") if isinstance(meta, dict) else None
    if isinstance(pipeline, list) and "parser" not in pipeline:
        components = ", ".join(map(str, pipeline)) or "none"
        raise E247(name=name, problem=f"has no dependency parser (components: {components})")


def _pipeline_folder(name: str) -> Path | None:
    """The folder of a pipeline folder path, or of an installed pipeline package; None when neither."""
    path = Path(name).expanduser()
    try:
        if path.is_dir():
            return path
        if not name.isidentifier():
            return None
        spec = importlib.util.find_spec(name)
    except (OSError, ImportError, ValueError):
        return None
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    return Path(locations[0]) if locations else None
