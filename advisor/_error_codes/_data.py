"""E1xx: data files, and what the readers refuse (encodings, columns, labels, pairs)."""

from __future__ import annotations

from advisor._error_codes._catalog import INPUT as _INPUT
from advisor._error_codes._catalog import define, variant

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

# -- issue 32: sentence-pair files (--task pair) ------------------------------------------------------
_PAIR_COLS = "the columns: {columns}; name the two texts with --text-col A,B (names or 0-based positions)"
E107_PAIR_OPTION = variant(
    E107,
    "--text-col {value!r} names {n} column(s), but --task pair reads two texts",
    "give both, as --text-col A,B: e.g. --text-col sentence1,sentence2 or --text-col 0,1",
)
E107_PAIR_GUESS = variant(E107, "cannot tell which two columns hold the texts{where}", _PAIR_COLS)
E107_PAIR_HALF = variant(
    E107, "the first text's column {found!r} has no second one ({missing!r})", _PAIR_COLS
)
E107_PAIR_SAME = variant(
    E107, "{what} both name column {name!r}", "two texts and a label: three different columns ({columns})"
)
E107_PAIR_OBJECT = variant(
    E107, "object lacks {missing}", "every object needs both texts ({a!r}, {b!r}) and the label ({label!r})"
)
E113_SINGLE_TEXT = variant(
    E113,
    "this looks like a single-text file ({why}), not sentence pairs",
    "use --task classify, or name two text columns with --text-col A,B",
)
E113_PAIR_FILE = variant(
    E113,
    "this looks like a sentence-pair file: it has two text columns, {a!r} and {b!r}",
    "did you mean --task pair? (to classify one text alone, name it with --text-col)",
)
E113_CONLL_PAIR = variant(
    E113,
    "this looks like a CoNLL NER file (a token and an IOB tag per line), not sentence pairs",
    "did you mean --task ner?",
)
E106_EMPTY_SIDE = variant(
    E106,
    "pair has a label but one of its two texts is empty",
    "{n} such {what} in the file; drop --strict to skip them with a warning",
)
