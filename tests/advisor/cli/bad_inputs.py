"""Generated malformed (and unusual but valid) inputs and options for both tasks.

Each :class:`Case` is one command line with the files it needs, the exit status it must end with
(2 for bad input, 0 for valid input) and text its output must contain: the ``file:line:`` of a data
error, the option named in an option error, or the counts of a valid but quirky file. Used by
``test_bad_input.py``; the counts in the README come from running it.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass, field

__all__ = ["Case", "build_cases"]

NER_ROWS = "Ann\tB-PER\nLee\tI-PER\nsang\tO\nin\tO\nRome\tB-LOC\n\nthe\tO\nman\tO\nsaw\tO\nParis\tB-LOC\n\n"
LONG = "x" * 300


@dataclass
class Case:
    """One command: ``args`` may hold {bert}, {vec}, {fifo}, {store} and {dir} placeholders."""

    name: str
    args: list[str]
    files: dict[str, str | bytes] = field(default_factory=dict)
    code: int = 2
    expect: tuple[str, ...] = ()


def ner_text(n: int = 10) -> str:
    """``2 n`` sentences of valid CoNLL."""
    return NER_ROWS * n


def csv_text(n: int = 30, sep: str = ",") -> str:
    rows = [f"text{sep}label"] + [
        f"item number {i} is {'good' if i % 2 else 'bad'}{sep}{'pos' if i % 2 else 'neg'}" for i in range(n)
    ]
    return "\n".join(rows) + "\n"


def label_text(n: int = 30) -> str:
    return "".join(f"{'pos' if i % 2 else 'neg'} item number {i} is fine\n" for i in range(n))


TRAIN = {"ner": ("train.conll", ner_text()), "classify": ("train.csv", csv_text())}
BASE = ["--embeddings", "random", "--sizes", "4", "--seeds", "1", "--profile", "quick", "--workers", "1"]
CONTEXTUAL = ["--embeddings", "contextual", "--contextual", "{bert}"]

# (name, extra options, files, text the error must contain); run once per task.
OPTION_CASES: list[tuple[str, list[str], dict[str, str | bytes], str]] = [
    ("workers-0", ["--workers", "0"], {}, "--workers must be at least 1"),
    ("workers-negative", ["--workers", "-2"], {}, "--workers must be at least 1"),
    ("layer-too-deep", [*CONTEXTUAL, "--layer", "99"], {}, "layer '99' is out of range"),
    ("layer-too-negative", [*CONTEXTUAL, "--layer", "-9"], {}, "layer '-9' is out of range"),
    ("layer-mean-last-0", [*CONTEXTUAL, "--layer", "mean-last-0"], {}, "out of range"),
    ("layer-mean-last-9", [*CONTEXTUAL, "--layer", "mean-last-9"], {}, "out of range"),
    ("layer-bogus", [*CONTEXTUAL, "--layer", "top"], {}, "unknown layer 'top'"),
    ("pooling-bogus", [*CONTEXTUAL, "--pooling", "max"], {}, "unknown pooling 'max'"),
    ("precision-bogus", ["--precision", "fp8"], {}, "unknown precision 'fp8'"),
    (
        "contextual-missing-dir",
        ["--embeddings", "contextual", "--contextual", "/nonexistent/model"],
        {},
        "no such model directory",
    ),
    (
        "contextual-relative-missing",
        ["--embeddings", "contextual", "--contextual", "./nope"],
        {},
        "no such model directory",
    ),
    (
        "contextual-dir-without-config",
        ["--embeddings", "contextual", "--contextual", "emptymodel"],
        {"emptymodel/readme.txt": "x"},
        "has no config.json",
    ),
    (
        "contextual-broken-config",
        ["--embeddings", "contextual", "--contextual", "badmodel"],
        {"badmodel/config.json": "{not json"},
        "cannot read config.json",
    ),
    (
        "contextual-config-without-layers",
        ["--embeddings", "contextual", "--contextual", "oddmodel"],
        {"oddmodel/config.json": '{"model_type": "gpt"}'},
        "does not recognize this architecture",
    ),
    (
        "contextual-bad-id",
        ["--embeddings", "contextual", "--contextual", "not a model!"],
        {},
        "no such model directory",
    ),
    (
        "contextual-hub-id-offline",
        ["--embeddings", "contextual", "--contextual", "advisor-tests/no-such-model"],
        {},
        "cannot load its configuration",
    ),
    ("static-missing", ["--embeddings", "static", "--static", "nope.vec"], {}, "nope.vec: file not found"),
    (
        "static-directory",
        ["--embeddings", "static", "--static", "vecdir"],
        {"vecdir/a.txt": "a 1 2"},
        "vecdir: is a directory",
    ),
    ("static-fifo", ["--embeddings", "static", "--static", "{fifo}"], {}, "named pipe"),
    (
        "static-not-vectors",
        ["--embeddings", "static", "--static", "words.txt"],
        {"words.txt": "hello world\n"},
        "words.txt:1: not a word-vectors file",
    ),
    (
        "static-empty",
        ["--embeddings", "static", "--static", "empty.vec"],
        {"empty.vec": "\n\n"},
        "the vectors file is empty",
    ),
    (
        "static-bad-gzip",
        ["--embeddings", "static", "--static", "v.txt.gz"],
        {"v.txt.gz": b"not gzip at all"},
        "cannot read the vectors file",
    ),
    (
        "static-for-random",
        ["--static", "words.txt"],
        {"words.txt": "hello world\n"},
        "not a word-vectors file",
    ),
    ("device-bogus", ["--device", "gpu0"], {}, "unknown device 'gpu0'"),
    ("device-cuda-index", ["--device", "cuda:7"], {}, "--device cuda:7"),
    ("tag-bad-character", ["--tag", "a$b=1"], {}, "--tag 'a$b'"),
    ("tag-no-equals", ["--tag", "owner"], {}, "--tag needs KEY=VALUE"),
    ("tag-empty-key", ["--tag", "=v"], {}, "--tag needs KEY=VALUE"),
    ("tag-reserved-mlflow", ["--tag", "mlflow.runName=x"], {}, "are reserved"),
    ("tag-reserved-advisor", ["--tag", "advisor.kind=curve"], {}, "are reserved"),
    ("tag-path-key", ["--tag", "../x=1"], {}, "--tag '../x'"),
    ("tag-long-key", ["--tag", f"{LONG}=1"], {}, "[E222]"),
    ("tag-long-value", ["--tag", f"k={'v' * 9000}"], {}, "at most 8000"),
    ("experiment-empty", ["--experiment", ""], {}, "the name is empty"),
    ("experiment-blank", ["--experiment", "   "], {}, "the name is empty"),
    ("experiment-too-long", ["--experiment", "e" * 600], {}, "at most 500"),
    ("uri-unknown-scheme", ["--tracking-uri", "foo://x"], {}, "unsupported scheme 'foo'"),
    ("uri-file-store", ["--tracking-uri", "file:///tmp/mlruns"], {}, "file store was removed"),
    ("uri-not-a-uri", ["--tracking-uri", "mlruns"], {}, "is not a URI"),
    ("uri-sqlite-memory", ["--tracking-uri", "sqlite://"], {}, "needs a database file"),
    (
        "uri-sqlite-not-a-db",
        ["--tracking-uri", "sqlite:///{dir}/notes.txt"],
        {"notes.txt": "just text"},
        "is not an SQLite database",
    ),
    (
        "uri-sqlite-directory",
        ["--tracking-uri", "sqlite:///{dir}/dbdir"],
        {"dbdir/x": "x"},
        "is not a regular file",
    ),
    (
        "uri-sqlite-under-a-file",
        ["--tracking-uri", "sqlite:///{dir}/notes.txt/mlflow.db"],
        {"notes.txt": "x"},
        "is a file, not a folder",
    ),
    ("uri-server-down", ["--tracking-uri", "http://127.0.0.1:9"], {}, "cannot reach the server"),
    ("sizes-zero", ["--sizes", "0"], {}, "--sizes must be positive"),
    ("sizes-negative", ["--sizes", "4,-5"], {}, "--sizes must be positive"),
    ("sizes-not-numbers", ["--sizes", "a,b"], {}, "comma-separated list of int"),
    ("sizes-too-large", ["--sizes", "100000"], {}, "outside 1.."),
    ("fractions-zero", ["--sizes", "", "--fractions", "0"], {}, "must lie in (0, 1]"),
    ("fractions-above-one", ["--sizes", "", "--fractions", "1.5"], {}, "must lie in (0, 1]"),
    ("fractions-nan", ["--sizes", "", "--fractions", "nan"], {}, "must lie in (0, 1]"),
    ("sizes-and-fractions", ["--fractions", "0.5"], {}, "not both"),
    ("seeds-zero", ["--seeds", "0"], {}, "--seeds must be at least 1"),
    ("split-seed-negative", ["--split-seed", "-1"], {}, "--split-seed must lie"),
    ("profile-unknown", ["--profile", "turbo"], {}, "unknown profile 'turbo'"),
    ("embedding-unknown", ["--embeddings", "elmo"], {}, "unknown embedding(s) elmo"),
    ("embedding-none", ["--embeddings", ","], {}, "(none given)"),
    ("dev-missing", ["--dev", "nope.txt"], {}, "nope.txt: file not found"),
    (
        "dev-directory",
        ["--dev", "devdir"],
        {"devdir/a.txt": "x"},
        "devdir: is a directory but not a saved dataset",
    ),
    ("dev-fifo", ["--dev", "{fifo}"], {}, "named pipe (FIFO)"),
    ("test-io-error", ["--test", "/proc/self/mem"], {}, "/proc/self/mem: cannot read the file"),
    ("test-device", ["--test", "/dev/null"], {}, "/dev/null: is a character device"),
    ("test-hf-empty", ["--test", "hf:"], {}, "names no dataset"),
]


def _option_cases() -> list[Case]:
    cases = []
    for task, (train, text) in TRAIN.items():
        for name, options, files, expect in OPTION_CASES:
            args = ["run", train, "--task", task, "--tracking-uri", "{store}", *BASE, *options]
            cases.append(Case(f"{task}-{name}", args, {train: text, **files}, 2, (expect,)))
        for name, data, files, expect in (
            ("data-missing", "missing.txt", {}, "missing.txt: file not found"),
            (
                "data-directory",
                "datadir",
                {"datadir/x.txt": "x"},
                "datadir: is a directory but not a saved dataset",
            ),
            ("data-fifo", "{fifo}", {}, "named pipe (FIFO)"),
            ("data-device", "/dev/zero", {}, "/dev/zero: is a character device"),
        ):
            args = ["run", data, "--task", task, "--tracking-uri", "{store}", *BASE]
            cases.append(Case(f"{task}-{name}", args, files, 2, (expect,)))
    cases.append(
        Case(
            "task-unknown",
            ["run", "train.conll", "--task", "pos", *BASE],
            {"train.conll": ner_text()},
            2,
            ("unknown task 'pos'",),
        )
    )
    return cases


# (name, file name, content, text the error must contain)
NER_BAD: list[tuple[str, str, str | bytes, str]] = [
    ("empty", "x.conll", "", "x.conll:1: file is empty"),
    ("blank", "x.conll", " \n\t\n\n", "x.conll:1: file is empty"),
    ("nul-byte", "x.conll", b"Ann B-PER\nLee O\nsa\x00ng O\n", "x.conll:3: binary data"),
    ("one-column", "x.conll", "Ann B-PER\nsang\n", "x.conll:2: row has 1 column"),
    (
        "ragged",
        "x.conll",
        "Ann NNP B-PER\nLee NNP I-PER\nsang O\n",
        "x.conll:3: row has 2 columns but line 1 has 3",
    ),
    (
        "unknown-prefix",
        "x.conll",
        "Ann X-PER\nsang O\n",
        "x.conll:1: tag 'X-PER' is outside any known scheme",
    ),
    ("tag-word", "x.conll", ner_text(3) + "Ann PERSON\n", "x.conll:34: tag 'PERSON'"),
    ("mixed-bioes-bilou", "x.conll", "Ann S-PER\n\nLee U-PER\n", "mixed tag schemes"),
    ("mixed-iob1-iob2", "x.conll", "Ann I-PER\nsang O\n\nLee B-PER\nsang O\n", "mixed tag schemes"),
    ("all-o", "x.conll", "the O\nman O\n\n" * 20, "every tag is O"),
    ("too-few", "x.conll", "Ann B-PER\n\nLee B-LOC\n\nsang O\n", "too few"),
    (
        "nbsp-blames-right-line",
        "x.conll",
        "New\u00a0York B-LOC\nis O\nbig O X\n",
        "x.conll:3: row has 3 columns but line 1 has 2",
    ),
    ("csv-for-ner", "x.csv", csv_text(), "did you mean --task classify?"),
    ("tsv-for-ner", "x.tsv", csv_text(sep="\t"), "did you mean --task classify?"),
    ("label-text-for-ner", "x.txt", label_text(), "did you mean --task classify?"),
    (
        "jsonl-classify-for-ner",
        "x.jsonl",
        '{"text": "a b", "label": "pos"}\n',
        "did you mean --task classify?",
    ),
    (
        "jsonl-length-mismatch",
        "x.jsonl",
        '{"tokens": ["a"], "tags": ["O"]}\n{"tokens": ["a", "b"], "tags": ["O"]}\n',
        "x.jsonl:2: 'tokens' has 2 items",
    ),
    (
        "jsonl-invalid",
        "x.jsonl",
        '{"tokens": ["a"], "tags": ["B-X"]}\n{"tokens": [\n',
        "x.jsonl:2: invalid JSON",
    ),
    ("jsonl-int-tags", "x.jsonl", '{"tokens": ["a"], "tags": [1]}\n', "x.jsonl:1: 'tags' must be strings"),
    ("jsonl-array", "x.jsonl", '["a", "O"]\n', "x.jsonl:1: expected a JSON object"),
    (
        "utf16-broken",
        "x.conll",
        codecs.BOM_UTF16_LE + "Ann B-PER\n".encode("utf-16-le") + b"\x00\xd8",
        "not valid UTF-16",
    ),
]
NER_STRICT = (
    "strict-empty-jsonl-item",
    "x.jsonl",
    '{"tokens": ["Ann"], "tags": ["B-PER"]}\n{"tokens": [], "tags": []}\n' * 12,
    "x.jsonl:2: item has a label but no text",
)

CLS_BAD: list[tuple[str, str, str | bytes, str]] = [
    ("empty", "x.csv", "", "x.csv:1: file is empty"),
    ("nul-byte", "x.csv", b"text,label\na,b\n\x00\n", "x.csv:3: binary data"),
    ("no-label-column", "x.csv", "text,score\na,1\n", "x.csv:1: cannot tell which column holds the label"),
    ("no-text-column", "x.tsv", "body\tlabel\na\tpos\n", "x.tsv:1: cannot tell which column holds the text"),
    (
        "ragged-row",
        "x.csv",
        "text,label\na,pos\nb,neg,extra\n",
        "x.csv:3: row has 3 columns but the header has 2",
    ),
    ("empty-label", "x.csv", "text,label\na,pos\nb,neg\nc,\n", "x.csv:4: empty label"),
    (
        "unclosed-quote",
        "x.csv",
        'text,label\na,pos\nb,neg\nc,pos\n"d e without a label\nf,neg\n',
        "x.csv:5: malformed CSV",
    ),
    ("tsv-ragged", "x.tsv", "text\tlabel\na\tpos\tx\n", "x.tsv:2: row has 3 columns"),
    (
        "jsonl-null-label",
        "x.jsonl",
        '{"text": "a", "label": "pos"}\n{"text": "b", "label": null}\n',
        "x.jsonl:2: empty or invalid label None",
    ),
    ("jsonl-empty-label", "x.jsonl", '{"text": "a", "label": ""}\n', "x.jsonl:1: empty or invalid label ''"),
    (
        "jsonl-dict-label",
        "x.jsonl",
        '{"text": "a", "label": {"x": 1}}\n',
        "x.jsonl:1: label in field 'label' must be a string or a number",
    ),
    ("jsonl-invalid", "x.jsonl", '{"text": "a", "label": "pos"}\n{"text": \n', "x.jsonl:2: invalid JSON"),
    (
        "jsonl-list-text",
        "x.jsonl",
        '{"text": ["a"], "label": "pos"}\n',
        "x.jsonl:1: text in field 'text' must be a string",
    ),
    (
        "jsonl-missing-key",
        "x.jsonl",
        '{"text": "a", "label": "pos"}\n{"text": "b"}\n',
        "x.jsonl:2: object lacks",
    ),
    ("conll-for-classify", "x.txt", ner_text(), "did you mean --task ner?"),
    ("conll-tsv-for-classify", "x.tsv", ner_text().replace(" ", "\t"), "did you mean --task ner?"),
    ("single-class", "x.csv", "text,label\n" + "a good one,pos\n" * 20, "a single class 'pos'"),
    ("too-few", "x.csv", "text,label\na,pos\nb,neg\n", "too few"),
    ("header-only", "x.csv", "text,label\n", "x.csv:1: no items found"),
    ("only-empty-texts", "x.txt", "pos\nneg\npos\n", "x.txt:1: no items found"),
    ("label-col-missing", "x.csv", csv_text(), "no column named 'nope'"),
]
CLS_STRICT = [
    (
        "strict-label-only-line",
        "x.txt",
        label_text(12) + "neg\n" + label_text(3),
        "x.txt:13: item has a label but no text",
    ),
    ("strict-blank-csv-text", "x.csv", csv_text(12) + "   ,pos\n", "x.csv:14: item has a label but no text"),
]


def _data_cases() -> list[Case]:
    cases = []
    for task, bad in (("ner", NER_BAD), ("classify", CLS_BAD)):
        for name, file, content, expect in bad:
            extra = ["--label-col", "nope"] if name == "label-col-missing" else []
            args = ["run", file, "--task", task, "--tracking-uri", "{store}", *BASE, *extra]
            cases.append(Case(f"{task}-{name}", args, {file: content}, 2, (expect,)))
    for task, (name, file, content, expect) in [("ner", NER_STRICT)] + [("classify", c) for c in CLS_STRICT]:
        for command in ("run", "inspect", "metrics"):
            args = [command, file, "--task", task, "--strict"]
            args += ["--tracking-uri", "{store}", *BASE] if command == "run" else []
            cases.append(Case(f"{task}-{command}-{name}", args, {file: content}, 2, (expect,)))
    return cases


def _valid(
    task: str,
    name: str,
    file: str,
    content: str | bytes,
    expect: tuple[str, ...],
    extra: list[str] | None = None,
    files: dict[str, str | bytes] | None = None,
) -> Case:
    return Case(
        f"{task}-valid-{name}",
        ["inspect", file, "--task", task, *(extra or [])],
        {file: content, **(files or {})},
        0,
        expect,
    )


def _valid_cases() -> list[Case]:
    quote_tsv = csv_text(29, "\t") + '"Great movie, said nobody\tpos\n'
    stray_csv = csv_text(29) + '"Great" movie,pos\n'
    big_csv = csv_text(29) + "x" * 200_000 + ",pos\n"
    skipped = label_text(12) + "neg\n\npos   \n" + label_text(3)
    blank_csv = csv_text(14) + "   ,pos\n\t,neg\n"
    nbsp = ("New\u00a0York B-LOC\nis O\nbig\u2028city O\n\n" + NER_ROWS) * 6
    lower = NER_ROWS.lower() * 10
    unseen_dev = {"dev.conll": "Bob B-MISC\nsang O\n\n" * 3, "test.conll": NER_ROWS * 2}
    null_json = (
        '{"text": "a fine one", "label": 1}\n{"text": "another", "label": 2}\n{"text": null, "label": 2}\n'
        * 7
    )
    empty_json = '{"tokens": ["Ann"], "tags": ["B-PER"]}\n{"tokens": [], "tags": []}\n' * 24
    return [
        _valid(
            "ner",
            "utf16-bom",
            "u16.conll",
            codecs.BOM_UTF16_LE + ner_text().encode("utf-16-le"),
            (r"re:sentences\s*│\s*20\b", "utf-16"),
        ),
        _valid(
            "ner",
            "utf16-no-bom",
            "u16.conll",
            ner_text().encode("utf-16-le"),
            (r"re:sentences\s*│\s*20\b", "utf-16-le"),
        ),
        _valid(
            "ner",
            "utf32-bom",
            "u32.conll",
            ner_text().encode("utf-32"),
            (r"re:sentences\s*│\s*20\b", "utf-32"),
        ),
        _valid(
            "ner",
            "bom-crlf",
            "crlf.conll",
            ("\ufeff" + ner_text()).replace("\n", "\r\n").encode(),
            (r"re:sentences\s*│\s*20\b",),
        ),
        _valid(
            "ner",
            "unicode-spaces-in-tokens",
            "nbsp.conll",
            nbsp,
            (r"re:sentences\s*│\s*18\b", r"re:tokens\s*│\s*72\b"),
        ),
        _valid(
            "ner",
            "lower-case-prefixes",
            "lower.conll",
            lower,
            (r"re:sentences\s*│\s*20\b", "lower-case prefix"),
        ),
        _valid(
            "ner",
            "jsonl-empty-items-skipped",
            "e.jsonl",
            empty_json,
            (r"re:sentences\s*│\s*24\b", r"re:skipped\s*│\s*24\b", "e.jsonl:2: skipped 24 sentences"),
        ),
        _valid(
            "ner",
            "dev-unseen-type",
            "train.conll",
            ner_text(),
            ("never seen in training: 'MISC' (3)",),
            ["--dev", "dev.conll", "--test", "test.conll"],
            unseen_dev,
        ),
        _valid("classify", "tsv-leading-quote", "q.tsv", quote_tsv, (r"re:items\s*│\s*30\b",)),
        _valid(
            "classify",
            "csv-stray-quote",
            "q.csv",
            stray_csv,
            (r"re:items\s*│\s*30\b", "q.csv:31: 1 row(s) with an unbalanced double quote"),
        ),
        _valid("classify", "csv-huge-field", "big.csv", big_csv, (r"re:items\s*│\s*30\b",)),
        _valid(
            "classify",
            "label-only-lines-skipped",
            "s.txt",
            skipped,
            (r"re:items\s*│\s*15\b", r"re:skipped\s*│\s*2\b", "s.txt:13: skipped 2 items"),
        ),
        _valid(
            "classify",
            "blank-csv-texts-skipped",
            "b.csv",
            blank_csv,
            (r"re:items\s*│\s*14\b", r"re:skipped\s*│\s*2\b", "b.csv:16: skipped 2 items"),
        ),
        _valid(
            "classify",
            "jsonl-null-text-skipped",
            "n.jsonl",
            null_json,
            (r"re:items\s*│\s*14\b", "n.jsonl:3: skipped 7 items"),
        ),
        _valid(
            "classify",
            "utf16-csv",
            "u.csv",
            codecs.BOM_UTF16_LE + csv_text().encode("utf-16-le"),
            (r"re:items\s*│\s*30\b", "utf-16"),
        ),
        _valid(
            "classify",
            "cp1252",
            "c.txt",
            label_text().encode() + "pos caf\xe9 au lait\n".encode("cp1252"),
            (r"re:items\s*│\s*31\b", "c.txt:31: not valid UTF-8"),
        ),
        _valid(
            "classify",
            "dev-unseen-label",
            "train.csv",
            csv_text(),
            ("never seen in training: 'meh' (2)",),
            ["--dev", "dev.csv", "--test", "test.csv"],
            {"dev.csv": "text,label\na,meh\nb,meh\nc,pos\n", "test.csv": csv_text(4)},
        ),
    ]


GAIN_CASES: list[tuple[str, list[str], str]] = [
    ("confidence-above-one", ["--confidence", "2"], "--confidence must be in (0, 1)"),
    ("confidence-zero", ["--confidence", "0"], "--confidence must be in (0, 1)"),
    ("format-unknown", ["--format", "xml"], "unknown format 'xml'"),
    ("seed-negative", ["--seed", "-1"], "--seed must be at least 0"),
    ("out-folder-missing", ["--out", "/nonexistent/dir/x.csv"], "does not exist"),
]


def _gain_cases() -> list[Case]:
    """``advisor predict-gain``: its options and text file are checked before any run is read."""
    files: dict[str, str | bytes] = {"u.txt": "the man saw Paris\n"}
    cases = [
        Case(
            f"gain-{name}",
            ["predict-gain", "latest", "u.txt", "--tracking-uri", "{store}", *options],
            files,
            2,
            (expect,),
        )
        for name, options, expect in GAIN_CASES
    ]
    for name, text, expect in (
        ("text-fifo", "{fifo}", "named pipe (FIFO)"),
        ("text-missing", "nope.txt", "nope.txt: file not found"),
        ("text-device", "/dev/zero", "is a character device"),
    ):
        cases.append(
            Case(
                f"gain-{name}",
                ["predict-gain", "latest", text, "--tracking-uri", "{store}"],
                {},
                2,
                (expect,),
            )
        )
    return cases


def pair_text(n: int = 16, sep: str = "\t", header: str = "sentence1\tsentence2\tlabel") -> str:
    """``n`` valid sentence pairs under ``header``."""
    rows = [
        f"pair {i} first text{sep}pair {i} {'same' if i % 2 else 'other'} text{sep}{i % 2}" for i in range(n)
    ]
    return "\n".join([header.replace("\t", sep), *rows]) + "\n"


def _pair_cases() -> list[Case]:
    """``--task pair`` (issue 32): a bad pair file, a single-text file as pair, a pair file as classify."""
    lines = pair_text().splitlines()
    ragged = "\n".join([*lines[:5], "only one text\t1", *lines[5:]]) + "\n"
    empty_side = "\n".join([*lines[:4], "\tsecond text only\t1", *lines[4:]]) + "\n"
    jsonl = "".join(
        f'{{"sentence1": "a {i} b", "sentence2": "c {i} d", "label": {i % 2}}}\n' for i in range(3)
    )
    jsonl += '{"sentence1": "alone", "label": 1}\n'
    mrpc = "\ufeff" + pair_text(header="Quality\t#1 String\t#2 String").replace(
        "pair 3 first", '" pair 3 first'
    )
    run = ["--tracking-uri", "{store}", *BASE]
    bad = [
        ("pair-row-missing-second-text", "train.tsv", ragged, [], "train.tsv:6: row has 2 columns"),
        (
            "pair-single-text-file",
            "train.csv",
            csv_text(),
            [],
            "train.csv:1: this looks like a single-text file",
        ),
        (
            "pair-text-col-unknown",
            "train.tsv",
            pair_text(),
            ["--text-col", "sentence1,nope"],
            "no column named 'nope'",
        ),
        ("pair-text-col-one", "train.tsv", pair_text(), ["--text-col", "sentence1"], "names 1 column(s)"),
        ("pair-jsonl-missing-text", "train.jsonl", jsonl, [], "train.jsonl:4: object lacks 'sentence2'"),
        (
            "pair-strict-empty-side",
            "train.tsv",
            empty_side,
            ["--strict"],
            "train.tsv:5: pair has a label but",
        ),
    ]
    cases = [Case(n, ["run", f, "--task", "pair", *run, *x], {f: c}, 2, (e,)) for n, f, c, x, e in bad]
    qnli = pair_text(header="question\tsentence\tlabel")
    expect = ("train.tsv:1: this looks like a sentence-pair file", "did you mean --task pair?")
    cases.append(
        Case(
            "classify-did-you-mean-pair",
            ["run", "train.tsv", "--task", "classify", *run],
            {"train.tsv": qnli},
            2,
            expect,
        )
    )
    cases.append(
        _valid("pair", "mrpc-bom-quotes", "msr.tsv", mrpc.encode("utf-8"), ("pairs", "16", "first text"))
    )
    cases.append(
        _valid("pair", "skipped-empty-side", "p.tsv", empty_side, ("16", "skipped", "empty text on one side"))
    )
    return cases


def build_cases() -> list[Case]:
    """Every case, named uniquely."""
    cases = _option_cases() + _data_cases() + _valid_cases() + _gain_cases() + _pair_cases()
    assert len({c.name for c in cases}) == len(cases)
    return cases
