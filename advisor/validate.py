"""One validation stage before anything is created: options, paths, store, tags, device.

``advisor run`` used to find a bad ``--layer``, ``--static`` file or ``--device`` only after
featurizing, leaving FAILED runs behind; a bad ``--tag`` even left the parent RUNNING. Everything
that can be checked without training is checked here, before the first MLflow run exists or any
model weights are loaded (the encoder's ``config.json`` is read, nothing more). Each failure is an
:class:`~advisor.errors.AdvisorError` (exit 2, ``file:line: message`` plus a hint).
"""

from __future__ import annotations

import gzip
import json
import os
import re
import socket
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
    E230,
    E232,
    E234_CONFIG,
    E239,
    E239_COUNT,
    E239_UNKNOWN,
)
from advisor.data import TASKS, check_file, is_hf_spec
from advisor.embeddings import embedding_choices
from advisor.finetune import parse_finetune_sizes
from advisor.grid import Profile, profiles
from advisor.settings import RunSettings
from advisor.vocabulary import family, task_choices

__all__ = [
    "FAMILY_CHECKS",
    "TRACKING_SCHEMES",
    "check_data_path",
    "check_device",
    "check_distill_layer",
    "check_embeddings",
    "check_experiment",
    "check_layer",
    "check_precision",
    "check_static_file",
    "check_tags",
    "check_tracking_uri",
    "choices_of",
    "encoder_layers",
    "validate_settings",
]

TRACKING_SCHEMES = (
    "sqlite",
    "http",
    "https",
    "postgresql",
    "mysql",
    "mssql",
    "databricks",
    "databricks-uc",
    "uc",
)
_RESERVED_TAG_PREFIXES = ("mlflow.", "advisor.")
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[\w.-]+)?$")
_MAX_SEED = 2**32 - 1  # numpy / scikit-learn random_state


def validate_settings(settings: RunSettings) -> None:
    """Raise on the first problem with ``settings``: once per run, at the start of ``run_analysis``.

    A :class:`RunSettings` is plain data (nothing is checked when it is made), so every check is here.
    """
    check_embeddings(settings.embeddings)
    profile = profiles.get(settings.profile)
    finetune = parse_finetune_sizes(settings.finetune_sizes)  # a bad size list fails before anything runs
    _check_task(settings.task)
    check_data_path(settings.data, "training data")
    for role, path in (("--dev", settings.dev), ("--test", settings.test)):
        if path is not None:
            check_data_path(path, role)
    _check_numbers(settings)
    if settings.static is not None:
        check_static_file(settings.static)
    _check_families(settings)
    _check_finetune(settings, finetune, profile)
    if settings.device is not None:
        check_device(settings.device)
    check_precision(settings.precision)
    check_tracking_uri(settings.tracking_uri)
    from advisor.backends import check_backend

    check_backend(settings.backend, settings.ray_address)
    check_experiment(settings.experiment)
    check_tags(settings.tags)


#: The setting checks a family may name in ``Family.checks``, run in this order when a chosen family does.
FAMILY_CHECKS: dict[str, Callable[[RunSettings], None]] = {
    "pooling": lambda settings: check_pooling(settings.pooling),
    "layer": lambda settings: check_layer(settings.layer, encoder_layers(settings.contextual)),
    "distill_layer": lambda settings: check_distill_layer(
        settings.distill_layer, encoder_layers(settings.contextual)
    ),
}


def _check_families(settings: RunSettings) -> None:
    """The checks the chosen families declare, each once (contextual and distilled share pooling)."""
    wanted = {check for name in settings.embeddings for check in family(name).checks}
    for name, check in FAMILY_CHECKS.items():
        if name in wanted:
            check(settings)


def _check_finetune(settings: RunSettings, tokens: tuple[str, ...] | None, profile: Profile) -> None:
    """The fine-tuned reference's sizes (``tokens``, parsed; range once the data is read) and its encoder."""
    _at_least(settings.finetune_epochs, 1, "--finetune-epochs")
    _at_least(settings.finetune_seeds, 1, "--finetune-seeds")
    if tokens or (tokens is None and profile.finetune):
        encoder_layers(settings.contextual)  # the encoder it fine-tunes must load (config only)


def check_embeddings(names: list[str]) -> None:
    """Registered embeddings, at least one (the app's form checks the same before Run)."""
    choices = embedding_choices()
    unknown = [e for e in names if e not in choices]
    if unknown or not names:
        raise E202(names=", ".join(unknown) or "(none given)", choices=", ".join(choices))


def choices_of(name: str) -> list[str] | None:
    """The registries' current choices of setting ``name`` (None: any value): what CLI and app offer."""
    from advisor.backends import BACKENDS
    from advisor.embeddings import POOLINGS
    from trainers import PRECISIONS

    registries = {
        "task": task_choices,
        "embeddings": embedding_choices,
        "profile": profiles.names,
        "pooling": lambda: list(POOLINGS),
        "backend": lambda: list(BACKENDS),
        "precision": lambda: list(PRECISIONS),
    }
    return registries[name]() if name in registries else None


def _check_task(task: str) -> None:
    if task not in TASKS:
        raise E201(kind="task", name=task, choices=", ".join(TASKS))


def _at_least(value: int | None, minimum: int, option: str) -> None:
    if value is not None and (isinstance(value, bool) or value < minimum):
        raise E211(option=option, requirement=f"be at least {minimum}, got {value}")


def _check_numbers(settings: RunSettings) -> None:
    """Grid and training numbers: sizes, fractions, seeds, workers, step budget, dimensions."""
    _at_least(settings.workers, 1, "--workers")
    _at_least(settings.seeds, 1, "--seeds")
    _at_least(settings.max_steps, 1, "--max-steps")
    _at_least(settings.patience, 1, "--patience")
    if settings.lr is not None and not 0 < settings.lr < 1:
        raise E211(option="--lr", requirement=f"lie in (0, 1), got {settings.lr}")
    _at_least(settings.random_dim, 1, "random_dim")
    if not 0 <= settings.split_seed <= _MAX_SEED:
        raise E211(option="--split-seed", requirement=f"lie in 0..{_MAX_SEED}, got {settings.split_seed}")
    if settings.sizes and settings.fractions:
        raise E213()
    if settings.sizes and min(settings.sizes) < 1:
        raise E211(option="--sizes", requirement=f"be positive, got {settings.sizes}")
    bad = [f for f in settings.fractions or [] if not 0 < f <= 1]  # NaN fails too
    if bad:
        raise E211(option="--fractions", requirement=f"lie in (0, 1], got {bad}")


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


def _looks_like_path(ref: str) -> bool:
    return ref.startswith(("/", ".", "~")) or os.sep in ref.strip("/").replace("/", "", 1) or "\\" in ref


def encoder_layers(model: str | None) -> int:
    """``num_hidden_layers`` of the encoder, from its ``config.json`` only (no weights are loaded)."""
    if model is None:
        from advisor.embeddings import default_encoder

        model = default_encoder()
    folder = Path(model).expanduser()
    if folder.is_dir():
        config_file = folder / "config.json"
        try:
            config = json.loads(config_file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise E230(
                model=model,
                problem="the directory has no config.json",
                hint="pass a Hugging Face model directory saved with save_pretrained, or a hub id",
            ) from None
        except (OSError, ValueError) as error:
            raise E230(model=model, problem=f"cannot read config.json: {error}") from None
        return _layers_from_config(config, model)
    if _looks_like_path(model) or not _HUB_ID.match(model):
        raise E230(
            model=model,
            problem="no such model directory",
            hint="pass an existing local model directory or a hub id such as bert-base-cased",
        )
    return _hub_layers(model)


def _layers_from_config(config: dict[str, Any], model: str) -> int:
    for source in (config, config.get("text_config") or {}, config.get("encoder") or {}):
        value = source.get("num_hidden_layers", source.get("n_layers", source.get("num_layers")))
        if isinstance(value, int) and value > 0:
            return value
    raise E234_CONFIG(model=model)


def _hub_layers(model: str) -> int:
    """The config of a hub model: from the local cache, or fetched (config only) when online."""
    from transformers import AutoConfig

    try:
        config = AutoConfig.from_pretrained(model, trust_remote_code=False)
    except (OSError, ValueError) as error:
        raise E230(
            model=model,
            problem=f"cannot load its configuration ({type(error).__name__}): it is not a local directory, "
            "not in the Hugging Face cache, or the hub cannot be reached",
            hint="pass a local model directory, run once with internet access, or omit --contextual for the "
            "packaged all-MiniLM-L6-v2",
        ) from None
    return _layers_from_config(config.to_dict(), model)


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
    """A readable vectors file whose first line is an ``N D`` header or ``word v1 … vD``."""
    from advisor.embeddings import PACKAGED_GLOVE

    if path == PACKAGED_GLOVE:
        return
    file = check_file(path)
    first = _first_line(file)
    fields = first.rstrip("\r\n ").split(" ")
    if len(fields) == 2 and fields[0].isdigit() and fields[1].isdigit():
        return
    numbers = 0
    for value in reversed(fields[1:]):
        try:
            float(value)
        except ValueError:
            break
        numbers += 1
    if numbers == 0:
        raise E120_FIRST_LINE(file=path, line=1)


def _first_line(file: Path, limit: int = 1 << 20) -> str:
    """The first non-empty line (at most ``limit`` bytes), decoded leniently; gzip when ``.gz``."""
    try:
        opener = gzip.open if file.suffix == ".gz" else open
        with opener(file, "rb") as handle:
            for _ in range(100):
                raw = handle.readline(limit)
                if not raw:
                    break
                if raw.strip():
                    return raw.decode("utf-8", errors="replace")
    except (OSError, EOFError) as error:
        raise E120_READ(reason=error, file=str(file)) from None
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
