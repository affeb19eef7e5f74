"""One validation stage before anything is created: options, paths, store, tags, device.

``advisor run`` used to find a bad ``--layer``, ``--static`` file or ``--device`` only after
featurizing, leaving FAILED runs behind; a bad ``--tag`` even left the parent RUNNING. Everything
that can be checked without training is checked here, before the first MLflow run exists or any
model weights are loaded (the encoder's configuration is loaded and its folder listed, nothing more).
Issue 28 moved the last late checks here: every line of a ``--static`` file (the parse is the run's
own, cached), ``--price-per-hour`` and ``--spacy-model``, NaN/inf and absurd numbers, and the folders
the run writes to. Each failure is an :class:`~advisor.errors.AdvisorError` (exit 2,
``file:line: message`` plus a hint).
"""

from __future__ import annotations

import math
import os
import shutil
import socket
import warnings
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from advisor._error_codes import (
    E101_NOT_DATASET,
    E114,
    E120_EMPTY,
    E120_FIRST_LINE,
    E120_READ,
    E201,
    E202,
    E211,
    E213,
    E220,
    E220_FILE_STORE,
    E220_MKDIR,
    E220_NO_FILE,
    E220_NO_HOST,
    E220_NOT_FILE,
    E220_NOT_FOLDER,
    E220_NOT_SQLITE,
    E220_READ_ONLY,
    E220_SCHEME,
    E220_UNREACHABLE,
    E221,
    E221_LONG,
    E222,
    E222_LONG,
    E222_RESERVED,
    E232,
    E239,
    E239_COUNT,
    E239_UNKNOWN,
    E244,
    E245,
    E246,
    E246_LOW_SPACE,
    E246_NOT_FOLDER,
)
from advisor.costs import BATCH_SIZES
from advisor.data import TASKS, check_columns, check_file, is_hf_spec
from advisor.embeddings import check_pair_encoding, embedding_choices
from advisor.finetune import parse_finetune_sizes
from advisor.grid import profiles
from advisor.settings import DECISION_INPUTS, LIMITS, UNTIL, RunSettings, setting
from advisor.tracking import TRACKING_SCHEMES
from advisor.vocabulary import FAMILIES, family, family_runs, task_choices

__all__ = [
    "FAMILY_CHECKS",
    "TRACKING_SCHEMES",
    "check_data_path",
    "check_device",
    "check_distill_layer",
    "check_embeddings",
    "check_experiment",
    "check_finite",
    "check_layer",
    "check_limit",
    "check_precision",
    "check_static_file",
    "check_tags",
    "check_tracking_uri",
    "check_writable_folder",
    "choices_of",
    "encoder_layers",
    "validate_settings",
]

_RESERVED_TAG_PREFIXES = ("mlflow.", "advisor.")
_MAX_SEED = LIMITS["split_seed"][0]  # numpy / scikit-learn random_state
#: Tasks whose difficulty analysis parses sentences with spaCy (the classification complexity metric).
_PARSED_TASKS = ("classify", "pair")
#: Free space a run needs at least where it writes (the store, the caches): below it, say so up front.
MIN_FREE_MB = 50


def validate_settings(settings: RunSettings) -> None:
    """Raise on the first problem with ``settings``: once per run, at the start of ``run_analysis``.

    A :class:`RunSettings` is plain data (nothing is checked when it is made), so every check is here.
    """
    check_embeddings(settings.embeddings)
    profiles.get(settings.profile)  # an unknown profile fails first
    parse_finetune_sizes(settings.finetune_sizes)  # a bad size list fails before anything runs
    _check_task(settings.task)
    check_pair_encoding(settings.pair_encoding, settings.task)
    check_data_path(settings.data, "training data")
    for role, path in (("--dev", settings.dev), ("--test", settings.test)):
        if path is not None:
            check_data_path(path, role)
    _check_columns(settings)
    _check_numbers(settings)
    _check_families(settings)
    _at_least(settings.finetune_epochs, 1, "--finetune-epochs")  # checked whether or not it runs
    _at_least(settings.finetune_seeds, 1, "--finetune-seeds")
    if settings.device is not None:
        check_device(settings.device)
    check_precision(settings.precision)
    if settings.difficulty and settings.task in _PARSED_TASKS and settings.spacy_model:
        from advisor.difficulty import check_parser_model

        check_parser_model(settings.spacy_model)  # from its meta.json: nothing is loaded
    _check_storage(check_tracking_uri(settings.tracking_uri), settings.cache_dir)
    from advisor.backends import check_backend
    from advisor.pipeline import check_until

    check_backend(settings.backend, settings.ray_address)
    check_until(settings.until, settings.budget)  # and --budget: when the run stops
    check_experiment(settings.experiment)
    check_tags(settings.tags)
    if settings.static is not None:  # last: the whole file is parsed (and cached for the run)
        check_static_file(settings.static)


#: The setting checks a family may name in ``Family.checks``, run in this order when a family that runs does.
FAMILY_CHECKS: dict[str, Callable[[RunSettings], None]] = {
    "pooling": lambda settings: check_pooling(settings.pooling),
    "layer": lambda settings: check_layer(settings.layer, encoder_layers(settings.contextual)),
    "distill_layer": lambda settings: check_distill_layer(
        settings.distill_layer, encoder_layers(settings.contextual)
    ),
    # the encoder a family trains itself must load (config only): the fine-tuned reference
    "encoder": lambda settings: encoder_layers(settings.contextual),
}


def _check_families(settings: RunSettings) -> None:
    """The checks of the families that will run, each once (contextual and distilled share pooling):
    the ones ``settings.embeddings`` names, and the ones their own switch chooses (the fine-tuned
    reference: ``--finetune-sizes`` or the profile)."""
    running = [family(name) for name in settings.embeddings]
    running += [f for f in FAMILIES.values() if f.chosen is not None and family_runs(f, settings)]
    wanted = {check for declared in running for check in declared.checks}
    for name, check in FAMILY_CHECKS.items():
        if name in wanted:
            check(settings)


def check_embeddings(names: list[str]) -> None:
    """Registered embeddings, at least one (the app's form checks the same before Run)."""
    choices = embedding_choices()
    unknown = [e for e in names if e not in choices]
    if unknown or not names:
        raise E202(names=", ".join(unknown) or "(none given)", choices=", ".join(choices))


def choices_of(name: str) -> list[Any] | None:
    """The registries' current choices of setting ``name`` (None: any value): what CLI and app offer."""
    from advisor.backends import BACKENDS
    from advisor.embeddings import PAIR_ENCODINGS, POOLINGS
    from trainers import PRECISIONS

    registries = {
        "task": task_choices,
        "embeddings": embedding_choices,
        "profile": profiles.names,
        "pooling": lambda: list(POOLINGS),
        "pair_encoding": lambda: list(PAIR_ENCODINGS),
        "backend": lambda: list(BACKENDS),
        "precision": lambda: list(PRECISIONS),
        "latency_batch": lambda: list(BATCH_SIZES),
        "until": lambda: list(UNTIL),
    }
    return registries[name]() if name in registries else None


def _check_task(task: str) -> None:
    if task not in TASKS:
        raise E201(kind="task", name=task, choices=", ".join(TASKS))


def _at_least(value: int | None, minimum: int, option: str) -> None:
    if value is not None and (isinstance(value, bool) or value < minimum):
        raise E211(option=option, requirement=f"be at least {minimum}, got {value}")


def check_finite(value: float | None, option: str) -> None:
    """NaN and inf are refused by name (``value < 0`` is False for NaN, so range checks let it through)."""
    if value is not None and not (isinstance(value, int) or math.isfinite(value)):
        raise E244(option=option, value=value)


def check_limit(value: float | None, name: str, option: str | None = None) -> None:
    """``value`` of setting ``name`` at most its :data:`advisor.settings.LIMITS` bound (the reason is the hint)."""
    limit, why = LIMITS[name]
    if value is not None and value > limit:
        raise E245(option=option or setting(name).flag, limit=f"{limit:,}", value=value, why=why)


def _check_numbers(settings: RunSettings) -> None:
    """Grid and training numbers: sizes, fractions, seeds, workers, step budget, dimensions, price."""
    for name in ("workers", "seeds", "max_steps", "patience", "random_dim", "projection"):
        _at_least(getattr(settings, name), 1, setting(name).flag)
    if settings.lr is not None and not 0 < settings.lr < 1:  # NaN and inf fail too
        raise E211(option="--lr", requirement=f"lie in (0, 1), got {settings.lr}")
    if not 0 <= settings.split_seed <= _MAX_SEED:
        raise E211(option="--split-seed", requirement=f"lie in 0..{_MAX_SEED}, got {settings.split_seed}")
    from advisor.verdict import check_decision_inputs  # the verdict's inputs: checked by the verdict's rule

    check_decision_inputs({name: getattr(settings, name) for name in DECISION_INPUTS}, complete=True)
    for name in LIMITS:
        check_limit(getattr(settings, name), name)
    if settings.sizes and settings.fractions:
        raise E213()
    if settings.sizes and min(settings.sizes) < 1:
        raise E211(option="--sizes", requirement=f"be positive, got {settings.sizes}")
    bad = [f for f in settings.fractions or [] if not 0 < f <= 1]  # NaN fails too
    if bad:
        raise E211(option="--fractions", requirement=f"lie in (0, 1], got {bad}")


def _check_columns(settings: RunSettings) -> None:
    """``--text-col`` / ``--label-col`` against each CSV/TSV file as its reader will resolve them (names
    or 0-based positions, with or without a header): the same function, so the two cannot disagree."""
    if settings.task == "ner":
        return
    for path in (settings.data, settings.dev, settings.test):
        if path is not None and not is_hf_spec(path):
            check_columns(path, settings.text_col, settings.label_col, settings.task)


def check_data_path(path: str | os.PathLike[str], role: str) -> None:
    """A data argument: ``hf:NAME``, a saved/parquet directory, or a readable regular file."""
    text = str(path)
    if text.startswith("hf:"):
        if not text[3:].strip(":").strip():
            raise E114(role=role, text=text)
        return
    if Path(text).expanduser().is_dir():
        if not is_hf_spec(text):
            raise E101_NOT_DATASET(file=text)
        return
    check_file(text)


# -- embeddings --------------------------------------------------------------------------------------


def check_pooling(pooling: str) -> None:
    from advisor.embeddings import POOLINGS

    if pooling not in POOLINGS:
        raise E232(kind="pooling", name=pooling, choices=", ".join(POOLINGS))


def encoder_layers(model: str | None) -> int:
    """``num_hidden_layers`` of the encoder (the packaged one when None), from its configuration alone.

    :func:`advisor.embeddings.encoder_depth` loads a local folder's config with transformers itself and
    checks that weights and tokenizer files are there, so a broken folder fails here, not after the
    run was created; a hub id is resolved from the cache (or fetched, config only, when online).
    """
    from advisor.embeddings import default_encoder, encoder_depth

    return encoder_depth(model if model is not None else default_encoder())


def check_layer(layer: str, n_layers: int) -> None:
    """The layer spec against the encoder's depth, with the parser the featurizer itself uses."""
    from advisor.embeddings import parse_layer

    parse_layer(layer, n_layers)


def check_distill_layer(layer: str | int | None, n_layers: int) -> None:
    """The distilled family's layer: one hidden-state index of the encoder (None = the family's default)."""
    if layer is None:
        return
    from advisor.embeddings import parse_distill_layer

    parse_distill_layer(layer, n_layers)


def check_static_file(path: str) -> None:
    """Every line of the vectors file: a word then ``dim`` finite numbers (``file:line`` of the first bad one).

    A streaming parse (pandas' C reader, the careful line-by-line reader where it gives up) of the whole
    file, not its first line: a bad value on line 200,000 used to fail the run after featurizing. The
    parsed table is the run's own: it is cached by path, size and modification time (in memory and
    under the cache root), so the run loads it again for free.
    """
    from advisor.embeddings import PACKAGED_GLOVE, is_float, load_vectors

    if path == PACKAGED_GLOVE:
        return
    file = check_file(path)
    try:
        first = _first_line(file)
        fields = first.rstrip("\r\n ").split(" ")
        header = len(fields) == 2 and fields[0].isdigit() and fields[1].isdigit()
        if not header and not any(is_float(value) for value in fields[1:]):
            raise E120_FIRST_LINE(file=path, line=1)  # not vectors at all: say so, not "not a number"
        with warnings.catch_warnings():  # pandas' mixed-type note on a bad file: the error says it better
            warnings.filterwarnings("ignore", message="Columns .* have mixed types")
            load_vectors(path)
    except (OSError, EOFError, zlib.error) as error:  # a corrupt or truncated .gz, an unreadable file
        raise E120_READ(reason=error, file=path) from None


def _first_line(file: Path, limit: int = 1 << 20) -> str:
    """The first non-empty line (at most ``limit`` bytes), decoded leniently; gzip when ``.gz``."""
    import gzip

    opener = gzip.open if file.suffix == ".gz" else open
    with opener(file, "rb") as handle:
        for _ in range(100):
            raw = handle.readline(limit)
            if not raw:
                break
            if raw.strip():
                return raw.decode("utf-8", errors="replace")
    raise E120_EMPTY(file=str(file), line=1)


# -- device ------------------------------------------------------------------------------------------


def check_precision(precision: str) -> None:
    """One of ``trainers.PRECISIONS``: checked before any model is loaded (trainers would raise late)."""
    from trainers import PRECISIONS

    if precision not in PRECISIONS:
        raise E232(kind="precision", name=precision, choices=", ".join(PRECISIONS))


def check_device(device: str) -> None:
    """``cpu``, ``cuda[:N]`` (a GPU must be visible) or ``mps``; checked before any work starts."""
    import torch

    try:
        parsed = torch.device(device)
    except (RuntimeError, TypeError, ValueError):
        raise E239_UNKNOWN(device=device) from None
    if parsed.type == "cpu":
        return
    if parsed.type == "cuda":
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if count == 0:
            raise E239(
                device=device,
                problem="no CUDA GPU is visible on this machine",
                hint="use --device cpu, or leave --device out to pick a GPU only when one is visible",
            )
        if parsed.index is not None and parsed.index >= count:
            raise E239_COUNT(device=device, count=count, top=count - 1)
        return
    if parsed.type == "mps" and torch.backends.mps.is_available():
        return
    raise E239(device=device, problem="not available here", hint="use cpu or cuda")


# -- storage -----------------------------------------------------------------------------------------


def _check_storage(uri: str, cache_dir: str | None) -> None:
    """The folders a run writes to, before it starts: the sqlite store's artifacts and the cache root."""
    from advisor.cache import CACHE_ENV
    from advisor.cache import cache_dir as cache_folder

    if uri.startswith("sqlite:///"):
        artifacts = Path(uri.removeprefix("sqlite:///")).parent / "artifacts"
        check_writable_folder(artifacts, "MLflow artifact folder", "--tracking-uri")
    option = "ADVISOR_CACHE_DIR" if cache_dir is None and os.environ.get(CACHE_ENV) else "--cache-dir"
    check_writable_folder(cache_folder("features"), "cache folder", option)


def check_writable_folder(path: str | os.PathLike[str], what: str, option: str) -> None:
    """``path`` is a folder (or can be made) that this process may write in, on a disk with room.

    Raises E246 naming ``what``, the path and the ``option`` that chose it: a read-only or full disk used
    to surface as an OSError (or sqlite's "database or disk is full") in the middle of a run.
    """
    folder = Path(path).expanduser()
    existing = folder
    try:
        while not existing.exists() and existing.parent != existing:
            existing = existing.parent
        is_dir = existing.is_dir()
    except OSError as error:
        raise E246_NOT_FOLDER(
            what=what, path=folder, problem=error.strerror or error, option=option
        ) from None
    if not is_dir:
        problem = f"{existing} is a file, not a folder"
        raise E246_NOT_FOLDER(what=what, path=folder, problem=problem, option=option)
    if not os.access(existing, os.W_OK | os.X_OK):
        raise E246(what=what, path=folder, option=option)
    free_mb = shutil.disk_usage(existing).free / 1e6
    if free_mb < MIN_FREE_MB:
        raise E246_LOW_SPACE(what=what, path=folder, free_mb=free_mb, need_mb=MIN_FREE_MB, option=option)


# -- tracking ----------------------------------------------------------------------------------------


def check_tracking_uri(uri: str | None) -> str:
    """A store MLflow 3 can use: known scheme, sqlite file creatable, server reachable. Returns it."""
    from advisor.tracking import DEFAULT_TRACKING_URI

    chosen = uri or os.environ.get("MLFLOW_TRACKING_URI") or DEFAULT_TRACKING_URI
    scheme = urlparse(chosen).scheme.split("+")[0].lower()
    if "://" not in chosen:
        raise E220(uri=chosen, hint="use sqlite:///path/to/mlflow.db or http://host:port")
    if scheme == "file":
        raise E220_FILE_STORE(uri=chosen)
    if scheme not in TRACKING_SCHEMES:
        raise E220_SCHEME(
            uri=chosen, scheme=scheme, schemes=", ".join(s + "://" for s in TRACKING_SCHEMES[:4])
        )
    if scheme == "sqlite":
        _check_sqlite(chosen)
    elif scheme in ("http", "https"):
        _check_server(chosen)
    return chosen


def _check_sqlite(uri: str) -> None:
    path = uri.removeprefix("sqlite:///") if uri.startswith("sqlite:///") else ""
    if not path or path.startswith(":memory:"):
        raise E220_NO_FILE(uri=uri)
    db = Path(path)
    try:
        db.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise E220_NOT_FOLDER(uri=uri, folder=db.parent) from None
    except OSError as error:
        raise E220_MKDIR(uri=uri, folder=db.parent, reason=error.strerror) from None
    if db.exists():
        if not db.is_file():
            raise E220_NOT_FILE(uri=uri, db=db)
        with open(db, "rb") as handle:
            head = handle.read(16)
        if head and head != b"SQLite format 3\x00":
            raise E220_NOT_SQLITE(uri=uri, db=db)
    if not os.access(db if db.exists() else db.parent, os.W_OK):
        raise E220_READ_ONLY(uri=uri, db=db)


def _check_server(uri: str, timeout: float = 3.0) -> None:
    parsed = urlparse(uri)
    if not parsed.hostname:
        raise E220_NO_HOST(uri=uri)
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    try:
        with socket.create_connection((parsed.hostname, port), timeout=timeout):
            pass
    except OSError as error:
        raise E220_UNREACHABLE(uri=uri, reason=error.strerror or error) from None


def check_experiment(name: str) -> None:
    """A non-blank experiment name MLflow accepts (at most 500 characters)."""
    if not isinstance(name, str) or not name.strip():
        raise E221(name=name)
    if len(name) > 500:
        raise E221_LONG(n=len(name))


def check_tags(tags: dict[str, str]) -> None:
    """``--tag`` keys by MLflow's own rules; our bookkeeping prefixes are reserved."""
    from mlflow.exceptions import MlflowException
    from mlflow.utils.validation import _validate_tag

    for key, value in tags.items():
        if key.startswith(_RESERVED_TAG_PREFIXES):
            raise E222_RESERVED(key=key, prefixes=" or ".join(_RESERVED_TAG_PREFIXES))
        if len(str(value)) > 8000:
            raise E222_LONG(key=key, n=len(value))
        try:
            _validate_tag(key, value)
        except MlflowException as error:
            raise E222(key=key, reason=error.message) from None
