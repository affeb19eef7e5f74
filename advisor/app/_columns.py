"""The Data page's column choice: the columns of a tabular upload, each shown with its first values.

Why: the page used to offer two free-text boxes and, when the reader could not tell the columns,
repeat the CLI's ``pass --text-col NAME`` hint, which a headerless file has no name for (issue 29).
Now the user picks from the file's own columns (names, or positions when it has no header), and
what the reader would take on its own is preselected. Pure Python: the page only draws it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from advisor.data import TableSniff, sniff_columns, sniff_pair_columns
from advisor.errors import AdvisorError

__all__ = ["ColumnChoices", "column_choices"]

_SHOWN_CHARS = 40


@dataclass(frozen=True)
class ColumnChoices:
    """The columns to choose from and the reader's own choice.

    ``options`` are the values ``--text-col`` / ``--label-col`` take (header names, or ``"0"``,
    ``"1"``, … for a file without a header); ``labels`` what the selectboxes show for each;
    ``text`` and ``label`` the options the reader takes without being told (None: it cannot tell).
    """

    header: bool
    options: list[str]
    labels: dict[str, str]
    text: str | None
    label: str | None
    second_text: str | None = None  # a pair file's second text column
    pair: bool = False

    @property
    def roles(self) -> tuple[str, ...]:
        """The selectboxes to draw, in order: a pair file has two text columns."""
        return ("text", "second text", "label") if self.pair else ("text", "label")

    def index(self, role: str) -> int | None:
        """The preselected position of a selectbox (None: nothing chosen yet)."""
        chosen = {"text": self.text, "second text": self.second_text, "label": self.label}[role]
        return None if chosen is None else self.options.index(chosen)

    def as_options(self, *picked: str) -> tuple[str | None, str | None]:
        """``--text-col`` / ``--label-col`` for the picked columns (in :attr:`roles` order): None where
        it is the reader's own (the run's command stays as short as the CLI user would write it);
        for a pair, ``--text-col A,B``."""
        *texts, label = picked
        own = [self.text, self.second_text] if self.pair else [self.text]
        text = None if list(texts) == own else ",".join(texts)
        return text, (None if label == self.label else label)


def _shown(value: str) -> str:
    value = " ".join(value.split())
    return repr(value if len(value) <= _SHOWN_CHARS else value[: _SHOWN_CHARS - 1] + "…")


def column_choices(path: str | Path, task: str) -> ColumnChoices | None:
    """The choices for a CSV/TSV/JSONL classification or pair file; None for every other file, and for
    one the reader refuses outright (the page's preview then shows that error)."""
    if task == "pair":
        return _pair_choices(path)
    if task != "classify":
        return None
    try:
        sniff = sniff_columns(path)
    except AdvisorError:
        return None
    if sniff is None or not sniff.names:
        return None
    pick = [None if i is None else sniff.names[i] for i in (sniff.text, sniff.label)]
    return ColumnChoices(sniff.header, list(sniff.names), _labels(sniff), pick[0], pick[1])


def _pair_choices(path: str | Path) -> ColumnChoices | None:
    """A pair file's columns, the two texts and the label preselected where the reader can tell them."""
    try:
        found = sniff_pair_columns(path)
    except AdvisorError:  # the reader cannot tell the columns on its own: the user picks all three
        found = None
        try:
            sniff = sniff_columns(path)
        except AdvisorError:
            return None
    else:
        sniff = None if found is None else found[0]
    if sniff is None or not sniff.names:
        return None
    first, second, label = (None, None, None) if found is None else (sniff.names[i] for i in found[1])
    return ColumnChoices(sniff.header, list(sniff.names), _labels(sniff), first, label, second, pair=True)


def _labels(sniff: TableSniff) -> dict[str, str]:
    """Each column as its selectbox shows it: its name (or position) and first values."""
    labels = {}
    for i, name in enumerate(sniff.names):
        values = ", ".join(_shown(v) for v in sniff.first_values(i))
        title = name if sniff.header else f"column {name}"
        labels[name] = f"{title}: {values}" if values else title
    return labels
