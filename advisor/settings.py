"""The run settings in one place: :class:`RunSettings` and its schema (flag, text form and help per field).

Why here and not in the runner: the CLI, the app, validation, the plan, the stages and the grid all
read the settings; with the dataclass in the orchestrator they imported upward or typed settings as
``Any``. This module sits below them all (it imports only the shared vocabulary) and checks nothing:
settings are plain data, and :func:`advisor.validate.validate_settings` checks them once per run, at
the start of :func:`advisor.runner.run_analysis`.

The app turned settings into argv by hand and the CLI parsed them back, and six settings were
lost on the way; the data options were also written out again in every command. Each
:class:`Setting` names a :class:`RunSettings` field, its flag, how its value is written as text and
its help. :func:`to_argv` writes settings as ``advisor run`` arguments and :func:`from_cli` turns
parsed CLI values back into settings fields; a test takes every field through settings -> argv ->
CLI -> settings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields
from pathlib import Path
from typing import Any

from advisor._error_codes import E215
from advisor.form_labels import FORM_LABELS
from advisor.limits import LIMITS
from advisor.vocabulary import PAPER_FAMILIES, parse_list

__all__ = [
    "DATA_OPTIONS",
    "DECISION_INPUTS",
    "DECISION_PARAM",
    "DEFAULT_EXPERIMENT",
    "DEFAULT_POOLING",
    "FORM_LABELS",
    "LIMITS",
    "SETTINGS",
    "UNTIL",
    "RunSettings",
    "Setting",
    "default_of",
    "from_cli",
    "setting",
    "to_argv",
]

#: The MLflow experiment a run logs to unless ``--experiment`` names another (the tracker's default too).
DEFAULT_EXPERIMENT = "advisor"

#: How a word gets one vector from its sub-word pieces unless ``--pooling`` says otherwise: its first
#: piece (as BERT's NER head reads it). The run, the layer sweep, the contextuality command and the app
#: all default to it.
DEFAULT_POOLING = "first"

#: ``--until``: train the whole grid (the default), or stop once the verdict is settled by the
#: error-controlled rule of :mod:`advisor.verdict` (issue 31; ``advisor.pipeline`` trains round by round).
UNTIL: tuple[str, ...] = ("complete", "decided")
_UNTIL_HELP = (
    "complete (default): train the whole grid; decided: train the largest size seed by seed and stop "
    "once the verdict is settled (an error-controlled stopping rule; the report says what was not run)"
)


@dataclass
class RunSettings:
    """Everything that defines an analysis; the resume key is derived from the parts that change results.

    Plain data: making one checks nothing (``advisor.validate.validate_settings`` does, once per run).
    """

    data: str
    task: str
    dev: str | None = None
    test: str | None = None
    text_col: str | None = None
    label_col: str | None = None
    split_seed: int = 0
    embeddings: list[str] = field(default_factory=lambda: list(PAPER_FAMILIES))
    sizes: list[int] | None = None
    fractions: list[float] | None = None
    seeds: int | None = None
    profile: str = "default"
    contextual: str | None = None
    layer: str = "mix"
    pooling: str = DEFAULT_POOLING
    pair_encoding: str = "joint"  # --task pair: contextual reads both texts as one input, or each alone
    # the distilled family's layer; None = its default (advisor.embeddings._distilled)
    distill_layer: str | None = None
    static: str | None = None
    random_dim: int | None = None
    max_steps: int | None = None  # the step ceiling of a cell (default from the profile)
    patience: int | None = None  # dev evaluations without improvement before a cell stops
    until: str = UNTIL[0]  # "complete": the whole grid; "decided": stop when the verdict is settled
    budget: str | None = None  # wall time, "10m": the cells that fit, evidence first (pipeline._budget)
    lr: float | None = None  # one learning rate for every family; None: chosen on dev per family
    projection: int | None = None  # one projection width for every family; None: chosen on dev (profile)
    workers: int | None = None
    tracking_uri: str | None = None
    experiment: str = DEFAULT_EXPERIMENT
    force: bool = False
    device: str | None = None
    cache_dir: str | None = None
    difficulty: bool = True
    spacy_model: str | None = None
    tags: dict[str, str] = field(default_factory=dict)
    price_per_hour: float | None = None  # serving machine price: the verdict prices 1M items
    strict: bool = False  # items with a label but no text are an error instead of skipped
    backend: str = "local"  # where cells train: local worker processes or Ray (advisor.backends)
    precision: str = "auto"  # downstream compute precision (trainers.PRECISIONS); resolved in the plan
    ray_address: str | None = None  # a running Ray cluster; default: start a local runtime
    finetune_sizes: str | None = None  # fine-tuned reference sizes ("full", N, "off"); None: profile
    finetune_epochs: int | None = None  # its maximum epochs, early-stopped on dev (default 10)
    finetune_seeds: int | None = None  # its seeds: the grid's first N (default all)
    # What the verdict weighs (DECISION_INPUTS); None: not stated (the verdict's default). Not in the resume key.
    acceptable_loss: float | None = None  # score you accept to lose, 0-1 scale (None: 0.01 = 1 point)
    latency_budget_ms: float | None = None  # serving latency per item you can afford
    latency_batch: int = 1  # the batch size the latency budget is for: 1 or 64 (what advisor.costs measures)
    monthly_items: float | None = None  # serving volume: items per month
    value_per_point: float | None = None  # money one accuracy point is worth per 1M items served
    label_cost: float | None = None  # money per labelled item


#: Kinds of value: how a setting is typed on the command line and written back as text.
KINDS = ("text", "path", "int", "float", "flag", "ints", "floats", "names", "tags")


@dataclass(frozen=True)
class Setting:
    """One run setting: field name, value kind, flags (none for the positional data), help, form section."""

    name: str
    kind: str
    flags: tuple[str, ...]
    help: str
    section: str

    @property
    def flag(self) -> str | None:
        return self.flags[0] if self.flags else None

    @property
    def label(self) -> str:
        """The app run form's label ("" for a setting the form does not show)."""
        return FORM_LABELS.get(self.name, "")

    @property
    def param(self) -> str:
        """The CLI parameter's name (``tag`` for the repeatable ``--tag`` that fills ``tags``)."""
        return "tag" if self.kind == "tags" else self.name

    def to_cli(self, value: Any) -> Any:
        """The settings value as the CLI parser hands it over (lists as comma text, tags as KEY=VALUE)."""
        if value is None:
            return None
        if self.kind in ("ints", "floats", "names"):
            return ",".join(f"{v:g}" if isinstance(v, float) else str(v) for v in value)
        if self.kind == "tags":
            return [f"{k}={v}" for k, v in value.items()]
        if self.kind == "path":
            return Path(value)
        return value

    def from_cli(self, value: Any) -> Any:
        """The parsed CLI value as the settings field holds it."""
        if self.kind == "ints":
            return parse_list(value, int, "a comma-separated list of int")
        if self.kind == "floats":
            return parse_list(value, float, "a comma-separated list of float")
        if self.kind == "names":
            return parse_list(value, str, "a comma-separated list of str") or []
        if self.kind == "tags":
            return _parse_tags(value or [])
        if self.kind == "path":
            return str(value) if value else None
        return value

    def argv(self, value: Any) -> list[str]:
        """Command-line words for ``value`` (nothing when it is the default, unless always written)."""
        if value == default_of(self.name) and self.name not in ALWAYS_WRITTEN:
            return []
        if self.kind == "flag":
            return [self.flag] if value else [f"--no-{self.flag.removeprefix('--')}"]
        text = self.to_cli(value)
        if self.kind == "tags":
            return [word for item in text for word in (self.flag, item)]
        return [str(text)] if self.flag is None else [self.flag, str(text)]


def _parse_tags(values: list[str]) -> dict[str, str]:
    tags = {}
    for value in values:
        key, sep, text = value.partition("=")
        if not sep or not key:
            raise E215(value=value)
        tags[key] = text
    return tags


def _s(name: str, kind: str, flags: tuple[str, ...], help: str, section: str) -> Setting:
    return Setting(name, kind, flags, help, section)


_SPLIT = "(default: a seeded split of the train file)"

SETTINGS: tuple[Setting, ...] = (
    _s("data", "text", (), "training file, a saved/parquet directory, or hf:NAME[:CONFIG]", "data"),
    _s("task", "text", ("--task", "-t"), "{tasks}", "data"),
    _s("dev", "path", ("--dev",), f"dev file {_SPLIT}", "data"),
    _s("test", "path", ("--test",), f"evaluation file {_SPLIT}", "data"),
    _s(
        "text_col",
        "text",
        ("--text-col",),
        "text column of a CSV/TSV/JSONL file: its name, or in a CSV/TSV its 0-based position (a header "
        "name made of digits is the name); default: a known name (text, sentence, …), or by content "
        "in a file without a header (the longest free text); --task pair: the two texts' columns as A,B",
        "data",
    ),
    _s(
        "label_col",
        "text",
        ("--label-col",),
        "label column, by name or 0-based position as --text-col; default: a known name (label, "
        "class, …), or by content in a file without a header (the one short column whose values repeat)",
        "data",
    ),
    _s("split_seed", "int", ("--split-seed",), "seed of the train/dev/test split", "data"),
    _s("strict", "flag", ("--strict",), "items with a label but no text are an error, not skipped", "data"),
    _s("embeddings", "names", ("--embeddings", "-e"), "comma-separated, from: {embeddings}", "grid"),
    _s("profile", "text", ("--profile", "-p"), "grid and training effort: {profiles}", "grid"),
    _s("sizes", "ints", ("--sizes",), "training-set sizes, e.g. 100,200,400 (overrides the profile)", "grid"),
    _s("fractions", "floats", ("--fractions",), "fractions of the training set, e.g. 0.25,0.5,1", "grid"),
    _s("seeds", "int", ("--seeds",), "seeds per cell (default from the profile)", "grid"),
    _s(
        "max_steps",
        "int",
        ("--max-steps",),
        "optimizer-step ceiling per cell; cells stop earlier when dev stops improving (default from the profile)",
        "grid",
    ),
    _s(
        "lr",
        "float",
        ("--lr",),
        "learning rate of every family (default: chosen on dev per family from the profile's grid)",
        "grid",
    ),
    _s(
        "projection",
        "int",
        ("--projection",),
        "width of the learnt projection in front of every family (default: chosen on dev per family with "
        "the learning rate, from the profile's widths; with --lr, the profile's first width)",
        "grid",
    ),
    _s(
        "patience",
        "int",
        ("--patience",),
        "dev evaluations without improvement before the learning rate is halved (twice), then before a cell stops (default from the profile)",
        "grid",
    ),
    _s("until", "text", ("--until",), _UNTIL_HELP, "grid"),
    _s("budget", "text", ("--budget",), "wall time (10m, 1h30m): the cells that fit, evidence first", "grid"),
    _s(
        "contextual",
        "text",
        ("--contextual",),
        "HF encoder id or local dir (default: packaged all-MiniLM-L6-v2)",
        "embeddings",
    ),
    _s(
        "layer",
        "text",
        ("--layer",),
        "how the encoder's layers are read: mix (learned scalar mix of all layers, default), "
        "last, an index (0 = input embeddings), or mean-last-K",
        "embeddings",
    ),
    _s("pooling", "text", ("--pooling",), "sub-word pooling: first or mean", "embeddings"),
    _s(
        "pair_encoding",
        "text",
        ("--pair-encoding",),
        "--task pair only: how the contextual encoder reads an item's two texts: joint (default: one input, "
        "[CLS] a [SEP] b [SEP], so each word sees the other text) or separate (each text alone)",
        "embeddings",
    ),
    _s(
        "distill_layer",
        "text",
        ("--distill-layer",),
        "layer the distilled family's static vectors come from: an index (0 = input embeddings) or last "
        "(default 1: lower layers distil best, Ethayarajh 2019)",
        "embeddings",
    ),
    _s(
        "static",
        "text",
        ("--static",),
        "GloVe/word2vec/fastText text file (default: packaged GloVe 6B 50d)",
        "embeddings",
    ),
    _s(
        "random_dim",
        "int",
        ("--random-dim",),
        "width of the random vectors (default from the profile: 300 for quick, 800 for default and thorough)",
        "embeddings",
    ),
    _s(
        "finetune_sizes",
        "text",
        ("--finetune-sizes",),
        "fine-tuned reference (encoder trained end to end with a linear head) at these sizes: full, mid, "
        "a list such as 500,full, or off (default: off; the thorough profile runs mid,full)",
        "embeddings",
    ),
    _s(
        "finetune_epochs",
        "int",
        ("--finetune-epochs",),
        "maximum epochs of the fine-tuned reference, early-stopped on dev (default 10)",
        "embeddings",
    ),
    _s(
        "finetune_seeds",
        "int",
        ("--finetune-seeds",),
        "seeds of the fine-tuned reference: the grid's first N (default all)",
        "embeddings",
    ),
    _s(
        "difficulty",
        "flag",
        ("--difficulty",),
        "score the evaluation items' difficulty (slices and gain model); --no-difficulty skips it",
        "analysis",
    ),
    _s("spacy_model", "text", ("--spacy-model",), "spaCy pipeline for the parse-based metric", "analysis"),
    _s(
        "price_per_hour",
        "float",
        ("--price-per-hour",),
        "serving machine price per hour: the verdict prices 1M items from the measured batch-64 "
        "throughput (without it the trade-off is stated in machine-hours)",
        "decision",
    ),
    _s(
        "acceptable_loss",
        "float",
        ("--acceptable-loss",),
        "score you accept to lose for a cheaper embedding, on the 0-1 scale (0.01 = 1 point; default 0.01)",
        "decision",
    ),
    _s(
        "latency_budget_ms",
        "float",
        ("--latency-budget-ms",),
        "serving latency per item you can afford, ms/item at --latency-batch; a family over it is never "
        "the recommendation",
        "decision",
    ),
    _s(
        "latency_batch",
        "int",
        ("--latency-batch",),
        "the batch size --latency-budget-ms is for: 1 (one request at a time) or 64 (bulk); the serving "
        "pass measures both",
        "decision",
    ),
    _s(
        "monthly_items",
        "float",
        ("--monthly-items",),
        "serving volume, items per month: the verdict also states the extra serving cost per month",
        "decision",
    ),
    _s(
        "value_per_point",
        "float",
        ("--value-per-point",),
        "money one accuracy point (0.01 of the score) is worth per 1M items served: the verdict decides "
        "whether contextual pays for itself (needs --price-per-hour)",
        "decision",
    ),
    _s(
        "label_cost",
        "float",
        ("--label-cost",),
        "money per labelled item: prices the 'label more data for the cheaper embedding' option",
        "decision",
    ),
    _s(
        "tracking_uri",
        "text",
        ("--tracking-uri",),
        "MLflow store (default: $MLFLOW_TRACKING_URI or sqlite:///mlruns/mlflow.db)",
        "tracking",
    ),
    _s("experiment", "text", ("--experiment",), "MLflow experiment name", "tracking"),
    _s("tags", "tags", ("--tag",), "KEY=VALUE tag for the MLflow parent run (repeatable)", "tracking"),
    _s("force", "flag", ("--force",), "recompute cells that already finished", "tracking"),
    _s("device", "text", ("--device",), "cpu, cuda, cuda:1 … (default: a GPU when visible)", "compute"),
    _s(
        "precision",
        "text",
        ("--precision",),
        "what the downstream models compute in: auto (bfloat16 on CPUs with native bf16, else "
        "float32), float32 or bfloat16; the frozen features are the same either way",
        "compute",
    ),
    _s(
        "workers",
        "int",
        ("--workers",),
        "parallel training processes (default: one per core, at most 8; one outside Linux); on a GPU they share it (at most one per free GiB)",
        "compute",
    ),
    _s(
        "backend",
        "text",
        ("--backend",),
        "where cells train: local processes or ray (pip install advisor[ray])",
        "compute",
    ),
    _s(
        "ray_address",
        "text",
        ("--ray-address",),
        "Ray cluster address, e.g. ray://head:10001 (default: start one locally)",
        "compute",
    ),
    _s(
        "cache_dir",
        "path",
        ("--cache-dir",),
        "root of every cache: features, parses, vectors (default: $ADVISOR_CACHE_DIR or ~/.cache/advisor)",
        "compute",
    ),
)

#: Written even at their default, so the command the app shows says what runs (as it always did).
ALWAYS_WRITTEN: tuple[str, ...] = ("embeddings", "profile", "layer", "pooling", "split_seed", "experiment")

#: The options every command that reads a dataset shares (``inspect``, ``metrics``, ``layers``, …).
DATA_OPTIONS: tuple[str, ...] = tuple(s.name for s in SETTINGS if s.section == "data")

#: The settings the verdict weighs accuracy against cost with (the ``advisor.verdict.Thresholds`` fields
#: of the same names): the run stores those given, ``advisor report`` may override each one.
DECISION_INPUTS: tuple[str, ...] = tuple(s.name for s in SETTINGS if s.section == "decision")
#: ``Analysis.params`` key of the decision inputs a run was given (JSON object, only those stated).
DECISION_PARAM = "decision_inputs"

_BY_NAME = {s.name: s for s in SETTINGS}


def setting(name: str) -> Setting:
    return _BY_NAME[name]


def default_of(name: str) -> Any:
    """The :class:`RunSettings` default of field ``name`` (``MISSING`` for the required ones)."""
    field = {f.name: f for f in fields(RunSettings)}[name]
    if field.default_factory is not MISSING:
        return field.default_factory()
    return field.default


def to_argv(settings: RunSettings) -> list[str]:
    """``advisor run`` arguments (after ``run``) that give back ``settings``: data first, then the non-defaults.

    The task and :data:`ALWAYS_WRITTEN` are always written; every other field only where it is not the default.
    """
    words = [settings.data, "--task", settings.task]
    for item in SETTINGS:
        if item.name not in ("data", "task"):
            words += item.argv(getattr(settings, item.name))
    return words


def from_cli(values: Mapping[str, Any]) -> dict[str, Any]:
    """``RunSettings`` keyword arguments from the CLI's parsed values (keyed by parameter name)."""
    return {item.name: item.from_cli(values[item.param]) for item in SETTINGS if item.param in values}
