"""The error catalog (spaCy-style): every code defined once, with its message template and hint.

Why: codes written inline had collided (E230 meant four things, E210 eleven). Here each code has one
meaning; :func:`define` refuses a code twice, and ``tests/advisor/test_error_codes.py`` checks that
every code used in ``advisor/`` is defined here. A call site raises ``E211(option=..., requirement=...)``:
the template gives the message, the hint comes from the catalog unless the site passes a sharper one.

Ranges: E1xx data files, E2xx options and settings, E5xx difficulty metrics, E6xx verdict, E8xx gain.
The trainers keep their own "T..." catalog (:mod:`trainers._errors`, which defines the mechanism);
the prefix keeps the two apart, and ``tests/trainers/test_errors.py`` checks they share no code.
"""

from __future__ import annotations

from advisor.errors import ErrorCode, define_in

__all__ = ["CATALOG", "ErrorCode", "define"]

CATALOG: dict[str, ErrorCode] = {}


def define(code: str, template: str, hint: str | None = None, kind: str = "config") -> ErrorCode:
    """Add ``code`` ("E" and digits) to the catalog; a code defined twice is a programming error."""
    return define_in(CATALOG, "E", code, template, hint, kind)


_INPUT = "input"

# -- E1xx: data files --------------------------------------------------------------------------------
E100 = define("E100", "{message}", kind=_INPUT)  # InputError's default code
E101 = define("E101", "the data file cannot be opened: {detail}", "check the path", _INPUT)
E102 = define("E102", "no items found", "the file has no data rows", _INPUT)
E103 = define("E103", "not text in a known encoding: {detail}", "re-save the file as UTF-8", _INPUT)
E104 = define("E104", "malformed rows or columns: {detail}", kind=_INPUT)
E105 = define("E105", "malformed JSON record: {detail}", "JSONL needs one JSON object per line", _INPUT)
E106 = define("E106", "an item has an empty or invalid label: {detail}", "every item needs a label", _INPUT)
E107 = define(
    "E107", "the text or label column cannot be found: {detail}", "pass --text-col / --label-col", _INPUT
)
E108 = define("E108", "no train split (splits: {splits})", kind=_INPUT)
E109 = define("E109", "only {n} items, too few {purpose}", kind=_INPUT)
E110 = define("E110", "tag {tag!r} is outside any known scheme", kind=_INPUT)
E111 = define("E111", "mixed tag schemes: {detail}", "convert the file to one scheme", _INPUT)
E112 = define("E112", "the training labels cannot be learned: {detail}", kind=_INPUT)
E113 = define("E113", "the file looks like data of another task: {detail}", kind=_INPUT)
E114 = define("E114", "{role}: {text!r} names no dataset", "use hf:NAME[:CONFIG]")
E115 = define("E115", "could not load dataset {spec!r}: {reason}")
E120 = define("E120", "not a usable word-vectors file: {detail}", kind=_INPUT)
E121 = define("E121", "expected a word and {dim} numbers, found {found} value(s)", kind=_INPUT)
E122 = define("E122", "a vector holds a value that is not a finite number: {detail}", kind=_INPUT)
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
E219 = define("E219", "--finetune-sizes cannot be used: {problem}", "give sizes such as full,mid or 200,800")
E220 = define(
    "E220",
    "tracking URI {uri!r} is not a URI",
    "use sqlite:///path/to/mlflow.db or http://host:port (the file store was removed in MLflow 3)",
)
E221 = define("E221", "the experiment name cannot be used: {problem}", "e.g. --experiment advisor")
E222 = define("E222", "--tag {key}: {problem}")
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
    "E227", "no run with id {run!r} in {store}", "use `latest`, or an id listed by `advisor history`"
)
E228 = define("E228", "run {run!r} is not an advisor analysis")
E229 = define("E229", "cannot load the {what} {source}: {reason}")
E230 = define("E230", "--contextual {model}: {problem}")
E231 = define("E231", "{what} {layer!r} is {problem}", "choose {allowed}")
E232 = define("E232", "unknown {kind} {name!r}", "choose one of: {choices}")
E233 = define("E233", "batch_size must be >= 1, got {batch_size}")
E234 = define(
    "E234",
    "{model} has no hidden_size/num_hidden_layers",
    "use an encoder such as BERT, RoBERTa, DeBERTa or MiniLM",
)
E235 = define("E235", "the tokenizer of {model} is not a fast (Rust) tokenizer")
E236 = define("E236", "max_length {limit} leaves no room for words")
E237 = define("E237", "window_overlap must be in [0, {top}], got {overlap}")
E238 = define("E238", "the tokenizer of {model} gives no piece for some words even as its unknown token")
E239 = define("E239", "--device {device}: {problem}", "use cpu, cuda or cuda:N")
E240 = define("E240", "demo data not found in {folder}")
E241 = define("E241", "{name} must be a positive integer, got {value!r}")
E242 = define("E242", "{name} must {requirement}")
E243 = define("E243", "the tokenizer of {model} has ids up to {top} but the model only {limit} embeddings")
E250 = define("E250", "{option} must be {requirement}, got {value}")
E260 = define("E260", "the app file {path} is missing")

# -- E5xx: difficulty metrics ------------------------------------------------------------------------
E501 = define("E501", "training data is {train!r} but evaluation data is {evaluation!r}", kind=_INPUT)
E502 = define("E502", "unknown task {task!r}", "choose one of: ner, classify")
E503 = define("E503", "level {level!r} is not available for task {task!r}", "choose one of: {choices}")
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
    "E603", "a labelling budget in money needs the cost of labelling one item", "also pass --label-cost"
)

# -- E8xx: gain model --------------------------------------------------------------------------------
E801 = define("E801", "gain statistics of version {version!r} for task {task!r} cannot be read")
E802 = define("E802", "unknown {task} gain feature(s): {names}", "choose from: {choices}")
E810 = define("E810", "predictions {key} have {n} items, the evaluation split has {n_eval}", kind=_INPUT)
E811 = define("E811", "predictions {key}: sentence {i} has {n_tags} tags for {n_tokens} tokens", kind=_INPUT)
E812 = define("E812", "the gain model needs contextual and static (or random) predictions at a common size")
E813 = define("E813", "task {task!r} does not match the data ({train!r} / {evaluation!r})")
E814 = define("E814", "n_folds must be at least 2, got {n_folds}")
E815 = define("E815", "only {n} evaluation {unit}s: too few to fit a gain model (need {need})", kind=_INPUT)
E820 = define("E820", "run {run} has no gain model")
E830 = define("E830", "unknown format {name!r}", "choose one of: {choices}")
E831 = define("E831", "row has {n} column(s); the first row has {width}", kind=_INPUT)
E832 = define("E832", "no text found", "the file has only blank lines", _INPUT)
E833 = define("E833", "unknown task {task!r}", "choose one of: ner, classify")
E834 = define("E834", "{option} must {requirement}")
E835 = define("E835", "the text has no tokens to score", "pass non-empty sentences", _INPUT)
