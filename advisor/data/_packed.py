"""Compact storage for the sentences of a big file: ids into one shared vocabulary instead of str lists.

Why: a list of lists of strings costs 16 bytes of pointers per token plus two list headers per
sentence, more than twice the bytes of a CoNLL file for the lists alone (issue 28: 11.5 GB for a
300 MB file). :class:`Packed` keeps one array of ids per file (1 to 4 bytes a token) and an offsets
array, and reads as a sequence of ``list[str]`` (``packed[i]`` builds the sentence's list on demand),
which is all the consumers of :attr:`Corpus.tokens` and :attr:`Corpus.labels` use. A subset is a view
(an index array into the same storage), so a train/dev/test split costs 8 bytes a sentence.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any, overload

__all__ = ["JoinedTexts", "Packed", "PackedBuilder", "take"]

# Id arrays start at one byte and widen when the vocabulary outgrows them.
_WIDTHS = (("B", 1 << 8), ("H", 1 << 16), ("I", 1 << 32))


class PackedBuilder:
    """Sentences appended one by one; each string is stored once (the vocabulary) and referred to by id."""

    def __init__(self) -> None:
        self.vocab: list[str] = []
        self._index: dict[str, int] = {}
        self._width = 0
        self.ids = array(_WIDTHS[0][0])
        self.offsets = array("Q", [0])

    def _id(self, item: str) -> int:
        found = self._index.get(item)
        if found is None:
            found = self._index[item] = len(self.vocab)
            self.vocab.append(item)
            if found >= _WIDTHS[self._width][1]:
                self._width += 1
                self.ids = array(_WIDTHS[self._width][0], self.ids)
        return found

    def add(self, items: Sequence[str]) -> None:
        ids = list(map(self._index.get, items))
        if None in ids:  # first the new strings: one may widen (replace) the array
            ids = [self._id(item) if k is None else k for item, k in zip(items, ids, strict=True)]
        self.ids.extend(ids)  # type: ignore[arg-type]
        self.offsets.append(len(self.ids))

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @property
    def n_items(self) -> int:
        return len(self.ids)

    def build(self) -> Packed:
        return Packed(self.vocab, self.ids, self.offsets)

    def lists(self) -> list[list[str]]:
        """The sentences as plain lists (for files small enough not to need packing)."""
        return list(self.build())


class Packed(Sequence[list[str]]):
    """A read-only sequence of string lists stored as vocabulary ids; ``order`` makes it a view."""

    __slots__ = ("_ids", "_offsets", "_order", "_vocab")

    def __init__(self, vocab: list[str], ids: array, offsets: array, order: array | None = None) -> None:
        self._vocab, self._ids, self._offsets, self._order = vocab, ids, offsets, order

    def __len__(self) -> int:
        return len(self._order) if self._order is not None else len(self._offsets) - 1

    def _span(self, index: int) -> tuple[int, int]:
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("Packed index out of range")
        row = self._order[index] if self._order is not None else index
        return self._offsets[row], self._offsets[row + 1]

    @overload
    def __getitem__(self, index: int) -> list[str]: ...
    @overload
    def __getitem__(self, index: slice) -> list[list[str]]: ...
    def __getitem__(self, index: int | slice) -> list[str] | list[list[str]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        start, end = self._span(index)
        vocab = self._vocab
        return [vocab[k] for k in self._ids[start:end]]

    def __iter__(self) -> Iterator[list[str]]:
        for i in range(len(self)):
            yield self[i]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes) or len(other) != len(self):
            return False
        return all(list(mine) == list(theirs) for mine, theirs in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Packed({len(self)} items, {len(self._vocab)} distinct strings)"

    def lengths(self) -> list[int]:
        return [end - start for start, end in map(self._span, range(len(self)))]

    def take(self, indices: Sequence[int]) -> Packed:
        """A view of the items at ``indices`` (no copy of the ids)."""
        rows = array("Q", (self._order[i] for i in indices) if self._order is not None else indices)
        return Packed(self._vocab, self._ids, self._offsets, rows)

    def counts(self) -> Counter[str]:
        """How often each string occurs over all items (counted on ids, then named)."""
        if self._order is None:
            tally = Counter(self._ids)
        else:
            tally = Counter()
            for start, end in map(self._span, range(len(self))):
                tally.update(self._ids[start:end])
        return Counter({self._vocab[k]: n for k, n in tally.items()})


class JoinedTexts(Sequence[str]):
    """The text of each sentence (its tokens joined by spaces), built when asked rather than stored."""

    __slots__ = ("_tokens",)

    def __init__(self, tokens: Packed) -> None:
        self._tokens = tokens

    def __len__(self) -> int:
        return len(self._tokens)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [" ".join(t) for t in self._tokens[index]]
        return " ".join(self._tokens[index])

    def __iter__(self) -> Iterator[str]:
        return (" ".join(t) for t in self._tokens)

    def take(self, indices: Sequence[int]) -> JoinedTexts:
        return JoinedTexts(self._tokens.take(indices))


def take(items: Sequence[Any], indices: Sequence[int]) -> Sequence[Any]:
    """``items`` at ``indices``: a view for packed storage, an array for an array, else a list."""
    if isinstance(items, Packed | JoinedTexts):
        return items.take(indices)
    if isinstance(items, array):
        return array(items.typecode, (items[i] for i in indices))
    return [items[i] for i in indices]
