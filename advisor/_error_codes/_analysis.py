"""E5xx difficulty metrics, E6xx verdict, E8xx gain model."""

from __future__ import annotations

from advisor._error_codes._catalog import INPUT as _INPUT
from advisor._error_codes._catalog import define, variant

# -- E5xx: difficulty metrics ------------------------------------------------------------------------
E501 = define("E501", "training data is {train!r} but evaluation data is {evaluation!r}", kind=_INPUT)
E502 = define("E502", "unknown task {task!r}", "choose one of: ner, classify, pair")
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
E833 = define("E833", "unknown task {task!r}", "choose one of: ner, classify, pair")
E834 = define("E834", "{option} must {requirement}")
E834_OUT = variant(E834, "--out {out}: the folder {folder} does not exist")
E835 = define("E835", "the text has no tokens to score", "pass non-empty sentences", _INPUT)
E836 = define("E836", "no tab between the two texts of a pair", "one pair per line: text, tab, text", _INPUT)
E836_EMPTY = variant(E836, "the {side} text of the pair has no word", "both texts of a pair need a word")
E837 = define("E837", "--format conll cannot hold sentence pairs", "pass one pair per line: text, tab, text")
