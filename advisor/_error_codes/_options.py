"""E2xx: options and settings, checked before any run is created or any model loaded."""

from __future__ import annotations

from advisor._error_codes._catalog import define, variant

# -- E2xx: options and settings ----------------------------------------------------------------------
E200 = define("E200", "{message}")  # ConfigError's default code
E201 = define("E201", "unknown {kind} {name!r}", "choose one of: {choices}")
E202 = define("E202", "unknown embedding(s) {names}", "choose from: {choices}")
E210 = define("E210", "cannot read {text!r} as {what}", "write values separated by commas, e.g. 100,200,400")
E211 = define("E211", "{option} must {requirement}")
E212 = define("E212", "option {name} must be true or false, got {value!r}")
E213 = define("E213", "give --sizes or --fractions, not both")
E214 = define("E214", "sizes {sizes} are outside 1..{full_size} (the training set has {full_size} items)")
E215 = define("E215", "--tag needs KEY=VALUE, got {value!r}")
E216 = define("E216", "unknown option(s) for the {name} embedding: {options}", "allowed options: {allowed}")
E217 = define("E217", "{option} needs {requirement}")
E218 = define("E218", "{feature} needs {package}, which is not installed", 'pip install "{extra}"')
# E219: --finetune-sizes cannot be used.
_FINETUNE_SIZES = 'give "full", "mid" (the middle size of the grid), sizes such as "500,full", or "off"'
E219 = define("E219", "--finetune-sizes: cannot read {values}", _FINETUNE_SIZES)
E219_RANGE = variant(
    E219,
    "--finetune-sizes {sizes} outside 1..{full_size} (the training set has {full_size} items)",
    _FINETUNE_SIZES,
)
# E220: the tracking URI cannot be used.
E220 = define(
    "E220",
    "tracking URI {uri!r} is not a URI",
    "use sqlite:///path/to/mlflow.db or http://host:port (the file store was removed in MLflow 3)",
)
E220_FILE_STORE = variant(
    E220,
    "tracking URI {uri!r}: the file store was removed in MLflow 3",
    "use sqlite:///path/to/mlflow.db or http://host:port",
)
E220_SCHEME = variant(E220, "tracking URI {uri!r}: unsupported scheme {scheme!r}", "use one of: {schemes} …")
E220_NO_FILE = variant(
    E220,
    "tracking URI {uri!r}: needs a database file",
    "use sqlite:///path/to/mlflow.db (an in-memory store keeps nothing)",
)
E220_NOT_FOLDER = variant(E220, "tracking URI {uri!r}: a part of {folder} is a file, not a folder")
E220_MKDIR = variant(E220, "tracking URI {uri!r}: cannot create the folder {folder}: {reason}")
E220_NOT_FILE = variant(E220, "tracking URI {uri!r}: {db} is not a regular file")
E220_NOT_SQLITE = variant(
    E220,
    "tracking URI {uri!r}: {db} is not an SQLite database",
    "point --tracking-uri at a new file or an existing MLflow database",
)
E220_READ_ONLY = variant(E220, "tracking URI {uri!r}: {db} is not writable")
E220_NO_HOST = variant(E220, "tracking URI {uri!r} names no host")
E220_UNREACHABLE = variant(
    E220,
    "tracking URI {uri!r}: cannot reach the server ({reason})",
    "start it (mlflow server --port …) or use a local sqlite:///mlruns/mlflow.db store",
)
# E221: the experiment name cannot be used.
E221 = define("E221", "--experiment {name!r}: the name is empty", "e.g. --experiment advisor")
E221_LONG = variant(E221, "--experiment: the name has {n} characters (at most 500)")
# E222: a --tag cannot be used.
E222 = define(
    "E222",
    "--tag {key!r}: {reason}",
    "keys may hold letters, digits, _ - . / and spaces, at most 250 characters",
)
E222_RESERVED = variant(
    E222, "--tag {key}=…: keys starting with {prefixes} are reserved", "choose another key, e.g. team.owner"
)
E222_LONG = variant(E222, "--tag {key}=…: the value has {n} characters (at most 8000)")
E225 = define(
    "E225",
    "no MLflow store at {path}",
    "run `advisor run` first, run this from the folder you ran it in, "
    "or pass --tracking-uri sqlite:///path/to/mlflow.db",
)
E226 = define(
    "E226",
    "no analysis in the tracking store",
    "run `advisor run` first, or pass --tracking-uri (store: {store})",
)
E227 = define(
    "E227",
    "no run with id {run!r} in {store}",
    "use `latest`, the id `advisor run` printed (its last line: `advisor report <id>`), or one shown on the "
    "History page of `advisor ui`",
)
E228 = define("E228", "run {run!r} is not an advisor analysis")
E229 = define("E229", "cannot load the {what} {source}: {reason}")
E230 = define("E230", "--contextual {model}: {problem}")
E230_MISSING = variant(
    E230,
    "--contextual {model}: the folder has no {missing}",
    "pass a folder written by save_pretrained (config.json, the weights and the tokenizer files), or a hub id",
)
E230_CONFIG = variant(
    E230,
    "--contextual {model}: cannot read config.json: {reason}",
    "config.json must be the JSON object save_pretrained writes, with a model_type transformers knows",
)
E231 = define("E231", "{what} {layer!r} is {problem}", "choose {allowed}")
E231_UNKNOWN = variant(E231, "unknown layer {layer!r}", "choose {allowed}")
E232 = define("E232", "unknown {kind} {name!r}", "choose one of: {choices}")
E233 = define("E233", "batch_size must be >= 1, got {batch_size}")
# E234: the model is not an encoder the advisor can read.
_ENCODERS = "use an encoder such as BERT, RoBERTa, DeBERTa or MiniLM"
E234 = define("E234", "{model} is a {model_type} model without hidden_size/num_hidden_layers", _ENCODERS)
E234_CONFIG = variant(E234, "--contextual {model}: config.json names no num_hidden_layers", _ENCODERS)
E235 = define("E235", "the tokenizer of {model} is not a fast (Rust) tokenizer")
E236 = define("E236", "max_length {limit} leaves no room for words")
E237 = define("E237", "window_overlap must be in [0, {top}], got {overlap}")
E238 = define("E238", "the tokenizer of {model} gives no piece for some words even as its unknown token")
E239 = define("E239", "--device {device}: {problem}", "use cpu, cuda or cuda:N")
E239_UNKNOWN = variant(E239, "unknown device {device!r}", "use cpu, cuda or cuda:N")
E239_COUNT = variant(E239, "--device {device}: only {count} CUDA device(s) are visible (cuda:0..cuda:{top})")
E240 = define(
    "E240",
    "demo data not found in {folder}",
    "reinstall the package (the demo data ships inside it), or in a checkout regenerate it: "
    "python experiments/make_demo.py",
)
E241 = define("E241", "{name} must be a positive integer, got {value!r}")
E242 = define("E242", "{name} must {requirement}")
E243 = define(
    "E243",
    "the tokenizer of {model} has ids up to {top} but the model only {limit} embeddings",
    "the tokenizer does not belong to these weights; pass a consistent model directory",
)
E250 = define("E250", "{option} must be {requirement}, got {value}")
E260 = define("E260", "the app file {path} is missing")
# E244: a number option holds nan or inf (comparisons such as ``value < 0`` let NaN through).
E244 = define(
    "E244",
    "{option} must be a finite number, got {value}",
    "nan and inf are not values a threshold or a size can take; write a plain number such as 0.5",
)
# E245: a number option beyond the sane range (a typing mistake, not a real setting).
E245 = define("E245", "{option} must be at most {limit}, got {value}", "{why}")
# E255: ``--pair-encoding`` set for a task without pairs (issue 32): it would change nothing, silently.
E255 = define(
    "E255",
    "--pair-encoding {value} applies to --task pair only (this run is --task {task})",
    "drop --pair-encoding, or use --task pair for a file of text pairs",
)
# E248: ``--budget`` is not a wall-time duration (issue 31).
E248 = define("E248", "--budget {value!r} {problem}", "write a duration with units: 90s, 10m, 1h or 1h30m")
# E246: a folder the command writes to cannot take the files (checked up front, or said when it happens).
E246 = define(
    "E246",
    "{what} {path}: permission denied",
    "make it writable, or point {option} at a folder you can write to",
)
E246_DISK_FULL = variant(
    E246,
    "{what} {path}: disk full (no space left on device)",
    "free space on that disk or point {option} at another disk; what was stored is kept (a re-run "
    "of `advisor run` resumes)",
)
E246_LOW_SPACE = variant(
    E246,
    "{what} {path}: disk full (only {free_mb:.0f} MB free, at least {need_mb} MB needed)",
    "free space on that disk or point {option} at another disk",
)
E246_NOT_FOLDER = variant(
    E246, "{what} {path}: {problem}", "point {option} at a folder (it is created if missing)"
)
# E247: a spaCy pipeline that cannot serve the parse metric (checked before the run starts).
E247 = define(
    "E247",
    "--spacy-model {name!r}: {problem}",
    "install it (python -m spacy download NAME, or pip install the package), pass a pipeline folder, or "
    "leave --spacy-model out for the packaged en_core_web_sm; --no-difficulty skips the parse metric",
)
