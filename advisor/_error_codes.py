"""The error catalog (spaCy-style): every code defined once, with its message template and hint.

Why: codes written inline had collided (E230 meant four things, E210 eleven). Here each code has one
meaning; :func:`define` refuses a code twice, and ``tests/advisor/test_error_codes.py`` checks that
every code used in ``advisor/`` is defined here. A call site raises ``E211(option=..., requirement=...)``:
the template gives the message, the hint comes from the catalog unless the site passes a sharper one.
No call site writes a code (``tests/advisor/test_error_codes.py`` fails on ``code="E..."``).

A code has one meaning, but some are raised with several messages (which problem the data file has,
which problem the tracking URI has) that users and their scripts know: each such wording is a
:func:`variant` of its code, written here beside it, never at the call site.

Ranges: E1xx data files, E2xx options and settings, E5xx difficulty metrics, E6xx verdict, E8xx gain.
The trainers keep their own "T..." catalog (:mod:`trainers._errors`, which defines the mechanism);
the prefix keeps the two apart, and ``tests/trainers/test_errors.py`` checks they share no code.
"""

from __future__ import annotations

from advisor.errors import ErrorCode, define_in

__all__ = ["CATALOG", "VARIANTS", "ErrorCode", "define", "variant"]

CATALOG: dict[str, ErrorCode] = {}
#: Every :func:`variant`: more wordings of a code in :data:`CATALOG`.
VARIANTS: list[ErrorCode] = []


def define(code: str, template: str, hint: str | None = None, kind: str = "config") -> ErrorCode:
    """Add ``code`` ("E" and digits) to the catalog; a code defined twice is a programming error."""
    return define_in(CATALOG, "E", code, template, hint, kind)


def variant(entry: ErrorCode, template: str, hint: str | None = None) -> ErrorCode:
    """Another wording of ``entry``'s meaning: its code and kind, its own template and hint (none unless given)."""
    if CATALOG.get(entry.code) is not entry:
        raise ValueError(f"{entry.code} is not a catalog entry")
    found = ErrorCode(entry.code, template, hint, entry.kind)
    VARIANTS.append(found)
    return found


_INPUT = "input"

# -- E1xx: data files --------------------------------------------------------------------------------
E100 = define("E100", "{message}", kind=_INPUT)  # InputError's default code
# E101: the data file cannot be opened.
E101 = define("E101", "file not found", "check the path", _INPUT)
E101_ACCESS = variant(E101, "cannot access the file: {reason}")
E101_DIRECTORY = variant(E101, "is a directory, not a file", "pass a file, or hf:NAME")
E101_SPECIAL = variant(
    E101,
    "is {kind}, not a regular file",
    "save the data to a regular file first; pipes and devices are not read",
)
E101_IRREGULAR = variant(E101, "is not a regular file")
E101_READ = variant(E101, "cannot read the file: {reason}")
E101_NOT_DATASET = variant(
    E101,
    "is a directory but not a saved dataset (no dataset_dict.json, dataset_info.json or parquet files)",
    "pass a data file, a directory written by save_to_disk, or hf:NAME",
)
# E102: no items in the file.
E102 = define("E102", "no items found", "the file has no data rows", _INPUT)
E102_EMPTY_FILE = variant(E102, "file is empty", "the file has no data rows")
E102_NO_SENTENCES = variant(E102, "no sentences found", "is this a {format} file?")
# E103: not text in a known encoding.
E103 = define(
    "E103",
    "starts with a {bom} byte-order mark but is not valid {bom} (offset {offset})",
    "re-save the file as UTF-8",
    _INPUT,
)
E103_BINARY = variant(
    E103,
    "binary data (NUL byte at offset {offset})",
    "expected a text file (CoNLL, CSV, TSV or JSONL); compressed or binary files are not read",
)
# E104: malformed rows or columns.
E104 = define(
    "E104",
    "row has {n} columns but the header has {width}",
    "quote fields that contain the delimiter {delimiter!r}",
    _INPUT,
)
E104_CSV = variant(
    E104, "malformed CSV: {reason} (the quoted field opened on this line never closes cleanly)"
)
E104_HEADER = variant(E104, "malformed CSV header: {reason}")
E104_NARROW = variant(
    E104,
    "row has {n} column; expected a token and a tag (2 or more columns)",
    "CoNLL rows are 'token [other columns] tag' separated by spaces or tabs; sentences are separated by empty lines",
)
E104_WIDTH = variant(
    E104,
    "row has {n} columns but line {first} has {width}",
    "every row needs the same columns; a token containing a space would shift the tag column",
)
# E105: a malformed JSON record.
E105 = define(
    "E105", "invalid JSON: {reason} (column {column})", "JSONL needs one JSON object per line", _INPUT
)
E105_NOT_OBJECT = variant(E105, "expected a JSON object")
E105_TEXT_TYPE = variant(E105, "text in field {field!r} must be a string, got {type}")
E105_NER_FIELDS = variant(
    E105,
    "object needs list fields 'tokens' and 'tags'",
    'e.g. {{"tokens": ["John", "lives"], "tags": ["B-PER", "O"]}}',
)
E105_NER_LENGTHS = variant(E105, "'tokens' has {n_tokens} items but 'tags' has {n_tags}", "one tag per token")
E105_NER_TAG_IDS = variant(
    E105,
    "'tags' must be strings such as 'B-PER' (integer ids need a label list)",
    "write tag names, or load a Hugging Face dataset with a ClassLabel feature via hf:NAME",
)
# E106: an item has an empty or invalid label.
E106 = define("E106", "empty label in column {column!r}", kind=_INPUT)
E106_JSON_LABEL = variant(
    E106, "empty or invalid label {value!r} in field {field!r}", "every item needs a label"
)
E106_LABEL_TYPE = variant(
    E106, "label in field {field!r} must be a string or a number, got {type}", "every item needs a label"
)
E106_NO_TEXT = variant(
    E106,
    "item has a label but no text",
    "{n} such {what} in the file; drop --strict to skip them with a warning",
)
# E107: the text or label column cannot be found.
E107 = define("E107", "no column named {name!r}", "the header has: {columns}", _INPUT)
E107_GUESS = variant(
    E107, "cannot tell which column holds the {role}", "the header has: {columns}; pass --{role}-col NAME"
)
E107_EMPTY_HEADER = variant(E107, "the first line (the header) is empty")
E107_OBJECT = variant(E107, "object lacks {text!r} or {label!r}")
E107_DATASET = variant(E107, "no {role} column", "the dataset has columns: {columns}; pass --{role}-col NAME")
E107_DATASET_NAMED = variant(
    E107, "no {role} column named {name!r}", "the dataset has columns: {columns}; pass --{role}-col NAME"
)
E108 = define("E108", "no train split (splits: {splits})", kind=_INPUT)
E109 = define("E109", "only {n} items, too few {purpose}", kind=_INPUT)
E110 = define("E110", "tag {tag!r} is outside any known scheme", kind=_INPUT)
E111 = define("E111", "mixed tag schemes: {detail}", "convert the file to one scheme", _INPUT)
# E112: the training labels cannot be learned.
E112 = define(
    "E112",
    "a single class {label!r} in {n} training items",
    "classification needs at least two labels; check --label-col",
    _INPUT,
)
E112_NO_ENTITIES = variant(
    E112, "no entity tags in the training data: every tag is O", "check that the tag is the last column"
)
# E113: the file looks like data of another task.
E113 = define(
    "E113",
    "this looks like a CoNLL NER file (a token and an IOB tag per line), not classification data",
    "did you mean --task ner?",
    _INPUT,
)
E114 = define("E114", "{role}: {text!r} names no dataset", "use hf:NAME[:CONFIG]")
E115 = define("E115", "could not load dataset {spec!r}: {reason}")
# E120: not a usable word-vectors file.
_VECTOR_LINES = "a vectors file has one 'word v1 v2 ... vD' line per word"
E120 = define("E120", "expected a word followed by numbers", _VECTOR_LINES, _INPUT)
E120_EMPTY = variant(E120, "the vectors file is empty")
E120_NO_VECTORS = variant(E120, "the vectors file has no vectors")
E120_READ = variant(E120, "cannot read the vectors file: {reason}")
E120_FIRST_LINE = variant(
    E120,
    "not a word-vectors file: the first line is neither an 'N D' header nor 'word v1 v2 … vD'",
    "--static takes a GloVe / word2vec / fastText text file (optionally .gz)",
)
E121 = define(
    "E121",
    "expected a word and {dim} numbers, found {found} value(s)",
    "every line must have the same number of values as the first one (or as the 'N D' header)",
    _INPUT,
)
# E122: a vector holds a value that is not a finite number.
E122 = define("E122", "not a number: {value!r}", _VECTOR_LINES, _INPUT)
E122_NOT_FINITE = variant(E122, "vector contains nan or inf")
E123 = define(
    "E123",
    "word-vectors file not found: {path}",
    "pass a GloVe/word2vec/fastText text file (optionally .gz), or omit it for the packaged GloVe",
)
E150 = define("E150", "the upload is {size_mb:.1f} MB, over the {limit} MB limit", kind=_INPUT)
E151 = define("E151", "the uploaded file is empty", kind=_INPUT)
E152 = define("E152", "this is a binary file, not text", kind=_INPUT)

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

# -- E5xx: difficulty metrics ------------------------------------------------------------------------
E501 = define("E501", "training data is {train!r} but evaluation data is {evaluation!r}", kind=_INPUT)
E502 = define("E502", "unknown task {task!r}", "choose one of: ner, classify")
E503 = define("E503", "level {level!r} is not available for task {task!r}", "choose one of: {choices}")
E503_CLI = variant(E503, "--level {level!r} is not available for --task {task}", "choose one of: {choices}")
E504 = define("E504", "the training split is empty", "metrics need training statistics", _INPUT)
E505 = define("E505", "unknown {task} difficulty metric(s): {names}", "choose from: {choices}")
E506 = define("E506", "the evaluation split is empty", "metrics are scored on evaluation items", _INPUT)
E510 = define("E510", "cannot load spaCy model {name!r}: {reason}")
E511 = define("E511", "spaCy model {name!r} has no dependency parser (components: {components})")
E520 = define("E520", "{name} must {requirement}")
E530 = define("E530", "no predictions given", "pass {{(embedding, size, seed): predictions}}", _INPUT)
E531 = define("E531", "prediction key {key!r} is not (embedding, size, seed)")
E532 = define("E532", "unknown embedding {name!r} in predictions", "choose one of: {choices}")
E533 = define("E533", "predictions {key} have {n} items, the evaluation split has {n_eval}", kind=_INPUT)
E534 = define("E534", "predictions {key}: sentence {i} has {n_tags} tags for {n_tokens} tokens", kind=_INPUT)
E535 = define("E535", "token table does not cover every evaluation token", kind=_INPUT)
E536 = define("E536", "task {task!r} does not match the data ({train!r} / {evaluation!r})")
E537 = define("E537", "n_boot must be at least 1, got {n_boot}")
E538 = define("E538", "the metrics table does not match the evaluation split", kind=_INPUT)
E540 = define("E540", "not a gap_analysis table: missing columns {columns}", kind=_INPUT)
E541 = define("E541", "the gap table is empty: nothing to plot", kind=_INPUT)

# -- E6xx: verdict -----------------------------------------------------------------------------------
E601 = define("E601", "the run's learning curves lack the column(s) {columns}")
E602 = define("E602", "{name} must {requirement}")
E603 = define(
    "E603",
    "a labelling budget in money needs the cost of labelling one item",
    "also pass --label-cost (money per item)",
)
E604 = define(
    "E604",
    "--value-per-point needs --price-per-hour: a point's value is money, the serving cost is machine time",
    "also pass --price-per-hour (the serving machine's price per hour), or leave --value-per-point out to "
    "get the break-even value in machine-hours",
)

# -- E8xx: gain model --------------------------------------------------------------------------------
E801 = define(
    "E801",
    "gain statistics of version {version!r} for task {task!r} cannot be read (expected version {expected})",
    "re-run `advisor run` with this advisor version to refit the gain model",
)
E802 = define("E802", "unknown {task} gain feature(s): {names}", "choose from: {choices}")
E810 = define("E810", "predictions {key} have {n} items, the evaluation split has {n_eval}", kind=_INPUT)
E811 = define("E811", "predictions {key}: sentence {i} has {n_tags} tags for {n_tokens} tokens", kind=_INPUT)
E812 = define(
    "E812",
    "the gain model needs contextual and static (or random) predictions at a common size",
    "run both families; found: {found}",
)
E813 = define("E813", "task {task!r} does not match the data ({train!r} / {evaluation!r})")
E814 = define("E814", "n_folds must be at least 2, got {n_folds}")
E815 = define(
    "E815",
    "only {n} evaluation {unit}s: too few to fit a gain model (need {need})",
    "use a larger evaluation split",
    _INPUT,
)
E820 = define("E820", "run {run} has no gain model")
E830 = define("E830", "unknown format {name!r}", "choose one of: {choices}")
E831 = define(
    "E831",
    "row has {n} {columns}; the first row has {width}",  # columns: "column" or "columns"
    "CoNLL rows are a token, optionally followed by tag columns (ignored); use --format lines for one text per line",
    _INPUT,
)
E832 = define("E832", "no text found", "the file has only blank lines", _INPUT)
E833 = define("E833", "unknown task {task!r}", "choose one of: ner, classify")
E834 = define("E834", "{option} must {requirement}")
E834_OUT = variant(E834, "--out {out}: the folder {folder} does not exist")
E835 = define("E835", "the text has no tokens to score", "pass non-empty sentences", _INPUT)

# -- issue 28: data readers (binary data, column widths, labels, column options, saved datasets) -------
E103_COMPRESSED = variant(
    E103,
    "binary data: {kind}-compressed, not text",
    "decompress it first ({tool} FILE) and pass the text file",
)
E103_CONTROL = variant(
    E103,
    "binary data ({n} control bytes in the first {size})",
    "expected a text file (CoNLL, CSV, TSV or JSONL); binary files are not read",
)
E104_WIDTH_FIRST = variant(
    E104,
    "row has {n} columns but the rows after it have {width} (line {next} on)",
    "every row needs the same columns: fix this row, or the rows after it if they are the wrong ones",
)
E106_NOT_FINITE = variant(
    E106,
    "label {value} in field {field!r} is not a finite number",
    "every item needs a label: a string or a finite number (NaN and Infinity are not classes)",
)
E107_SAME_COLUMN = variant(
    E107,
    "--text-col and --label-col both name {name!r}",
    "the text and the label must be two different columns (found: {columns})",
)
E116 = define(
    "E116",
    "a broken saved dataset: {problem}",
    "save it again with save_to_disk (Dataset or DatasetDict), or pass the data as a CSV/JSONL/CoNLL file",
    _INPUT,
)

# -- issue 29: headerless CSV/TSV files, columns by position ------------------------------------------
E104_FIRST_ROW = variant(
    E104,
    "row has {n} columns but the first row has {width} (the file has no header)",
    "quote fields that contain the delimiter {delimiter!r}",
)
E107_GUESS_COLUMN = variant(
    E107,
    "cannot tell which column holds the {role} from the header's names",
    "the header has: {columns}; pass --{role}-col with a column's name or its 0-based position",
)
E107_HEADERLESS = variant(
    E107,
    "cannot tell which column holds the {role} (the file has no header: its first row reads as data)",
    "the columns by position: {columns}; pass --text-col and --label-col as 0-based positions, "
    "e.g. --text-col 0 --label-col 1",
)
E107_NO_HEADER_NAME = variant(
    E107,
    "no column named {name!r}: the file has no header (its first row reads as data)",
    "pass the column's 0-based position instead; the columns: {columns}",
)
E107_POSITION = variant(
    E107,
    "no column at position {index}: the rows have {width} columns",
    "positions count from 0; the columns: {columns}",
)
