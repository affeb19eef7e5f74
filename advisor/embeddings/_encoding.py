"""Featurization of a frozen encoder: sentences cut into windows, encoded in length-sorted batches, pooled.

Why apart from the embedding: this is the memory-bound part. Long sentences are never truncated:
pieces are cut into windows of the model's length with an overlap, each piece takes its vector
from the window where it sits farthest from an edge, and every word still gets exactly one row.
Sentences are encoded in chunks whose bookkeeping is freed before the next chunk is built, repeated
sentences are encoded once, and the cache pages already written are dropped from the process
every :data:`_RELEASE_BYTES`.

A sentence pair (``corpus.is_pair``) is read as the encoder reads pairs: under ``pair_encoding ==
"joint"`` both texts go into one input with the tokenizer's own pair template (``[CLS] a [SEP] b
[SEP]`` with segment ids 0/1, ``<s> a </s></s> b </s>``), so each word's vector sees the other text;
a pair too long for one input falls back to its two texts encoded apart (windowed as any sentence,
never truncated) and is counted in ``last_pair_overflow``. Under ``"separate"`` each text is its own
input. Either way every word of each text keeps one row: the first text's words, then the second's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from advisor._error_codes import E238
from advisor.data import Corpus
from advisor.embeddings._cache import release_pages

__all__ = ["PAIR_ENCODINGS", "WindowEncoding"]

#: How a sentence pair reaches the encoder: both texts in one input (the default), or each alone.
PAIR_ENCODINGS: tuple[str, ...] = ("joint", "separate")

_TOKENIZE_CHUNK = 2048  # sentences per tokenizer call: fast, and bounded memory on huge corpora
_ENCODE_CHUNK = 4096  # sentences whose windows are built, length-sorted and encoded together
_RELEASE_BYTES = 64 << 20  # written cache pages dropped from the process after about this many bytes


@dataclass
class _Window:
    """One encoder input and where each of its pooled pieces goes."""

    ids: np.ndarray  # input ids with special tokens
    positions: np.ndarray  # positions (in ids) of the pieces this window contributes
    rows: np.ndarray  # output row (global word index) of each such piece
    weights: np.ndarray  # 1 for "first"; 1/pieces-of-the-word for "mean"
    types: np.ndarray | None = None  # segment ids of a jointly encoded pair (None: all 0)


@dataclass(frozen=True)
class _Geometry:
    """How single texts are cut: the special tokens around each window, its width and overlap in pieces."""

    prefix: np.ndarray
    suffix: np.ndarray
    width: int
    overlap: int


def _pair_arrays(enc: Any, j: int, n_first: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Input ids of pair ``j`` of a tokenizer output, each piece's word in the item (the second
    text's words numbered after the first's; -1 for special tokens) and its segment ids if any."""
    ids = np.asarray(enc["input_ids"][j], dtype=np.int64)
    word_index = np.asarray(
        [
            -1 if w is None else w + (n_first if side == 1 else 0)
            for w, side in zip(enc.word_ids(j), enc.sequence_ids(j), strict=True)
        ],
        dtype=np.int64,
    )
    types = np.asarray(enc["token_type_ids"][j], dtype=np.int64) if "token_type_ids" in enc else None
    return ids, word_index, types


@dataclass
class _Pending:
    """Pooled pieces each row of one chunk still waits for: ``counts[row - base]`` (rows of that chunk only)."""

    base: int
    counts: np.ndarray


@dataclass
class _PageBudget:
    """Counts the bytes written to ``out`` and releases its pages every :data:`_RELEASE_BYTES`, across chunks."""

    out: np.ndarray
    written: int = 0

    def add(self, rows: int) -> None:
        self.written += rows * (int(self.out.nbytes) // max(len(self.out), 1))  # bytes per row as stored
        if self.written >= _RELEASE_BYTES:
            release_pages(self.out)
            self.written = 0


def _distinct_sentences(
    tokens: list[list[str]], splits: Sequence[int] = ()
) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """Sentences to encode (ascending) and ``(copy, original)`` pairs for the repeated ones.

    Repeated sentences (retweets, boilerplate) are encoded once and their rows copied. They are
    found through one int64 hash per sentence, sorted (8 bytes a sentence, not a dict of tuples);
    a hash collision between different sentences is checked and both are encoded. With ``splits``
    (a pair corpus) an item is its words and where the second text starts: the same words split
    elsewhere are another pair, encoded apart.
    """
    keys = (
        (hash((tuple(sent), int(k))) for sent, k in zip(tokens, splits, strict=True))
        if len(splits)
        else (hash(tuple(sent)) for sent in tokens)
    )
    hashes = np.fromiter(keys, dtype=np.int64, count=len(tokens))
    order = np.argsort(hashes, kind="stable")  # equal hashes keep index order: the first is the original
    ordered = hashes[order]
    starts = np.ones(len(order), dtype=bool)
    starts[1:] = ordered[1:] != ordered[:-1]
    original = order[starts][np.cumsum(starts) - 1]  # the group's first index, per position in ``order``
    copies: list[tuple[int, int]] = []
    collided: list[int] = []
    for position in np.flatnonzero(order != original):
        i, first = int(order[position]), int(original[position])
        same_split = not len(splits) or int(splits[i]) == int(splits[first])
        if tokens[i] == tokens[first] and same_split:
            copies.append((i, first))
        else:
            collided.append(i)
    unique = np.sort(np.concatenate([order[starts], np.asarray(collided, dtype=np.int64)]))
    return unique, copies


def _padded(batch: list[_Window], pad_id: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Input ids, attention mask and (when a window of the batch has them) segment ids, padded to its longest."""
    longest = max(len(w.ids) for w in batch)
    input_ids = np.full((len(batch), longest), pad_id, dtype=np.int64)
    mask = np.zeros((len(batch), longest), dtype=np.int64)
    with_types = any(w.types is not None for w in batch)
    types = np.zeros((len(batch), longest), dtype=np.int64) if with_types else None
    for b, window in enumerate(batch):
        input_ids[b, : len(window.ids)] = window.ids
        mask[b, : len(window.ids)] = 1
        if types is not None and window.types is not None:
            types[b, : len(window.types)] = window.types
    return input_ids, mask, types


class WindowEncoding:
    """The encoding side of :class:`~advisor.embeddings.ContextualEmbedding`: windows, batches, pooling.

    A mixin: the embedding provides the tokenizer, model and window sizes (:class:`EncoderLoading`),
    ``pooling``, ``pair_encoding``, ``batch_size``, ``device``, ``forward_calls`` and ``on_progress``.
    """

    pooling: str
    pair_encoding: str
    last_pair_overflow: int
    batch_size: int
    device: str
    model_ref: str
    forward_calls: int
    on_progress: Callable[[int, int], None] | None
    tokenizer: Any
    model: Any
    max_length: int
    window_overlap: int
    _specials: tuple[list[int], list[int]]

    def _windows(
        self, corpus: Corpus, offsets: np.ndarray, sentences: np.ndarray
    ) -> tuple[list[_Window], _Pending]:
        """Encoder inputs for the chosen (ascending) sentences, and how many pooled pieces each of their rows waits for."""
        prefix, suffix = self._specials
        width = self.max_length - len(prefix) - len(suffix)
        geometry = _Geometry(
            np.asarray(prefix, dtype=np.int64), np.asarray(suffix, dtype=np.int64), width, self.window_overlap
        )
        base = int(offsets[sentences[0]]) if len(sentences) else 0
        span = int(offsets[sentences[-1] + 1]) - base if len(sentences) else 0
        pending = _Pending(base, np.zeros(span, dtype=np.int32))
        windows: list[_Window] = []
        for chunk_start in range(0, len(sentences), _TOKENIZE_CHUNK):
            chunk = sentences[chunk_start : chunk_start + _TOKENIZE_CHUNK]
            for row_base, piece_ids, word_of_piece in self._texts(corpus, offsets, chunk, pending, windows):
                self._cut(geometry, piece_ids, row_base + word_of_piece, word_of_piece, pending, windows)
        return windows, pending

    def _texts(
        self,
        corpus: Corpus,
        offsets: np.ndarray,
        chunk: np.ndarray,
        pending: _Pending,
        windows: list[_Window],
    ) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
        """The single texts of ``chunk`` to window: ``(first row, piece ids, word index of each piece)``.

        A sentence is one text, a pair two; a pair encoded jointly puts its one window straight into
        ``windows`` and comes back as its two texts only when it does not fit one input.
        """
        if not corpus.is_pair:
            texts = [(int(offsets[i]), corpus.tokens[i]) for i in chunk]
        else:
            items = [(int(offsets[i]), *corpus.sides(int(i))) for i in chunk]
            if self.pair_encoding == "joint":
                items = self._joint_windows(items, pending, windows)
            texts = [text for base, a, b in items for text in ((base, a), (base + len(a), b))]
        for j, piece_ids, word_of_piece in self._tokenize([words for _, words in texts]):
            yield texts[j][0], piece_ids, word_of_piece

    def _cut(
        self,
        geometry: _Geometry,
        piece_ids: np.ndarray,
        rows: np.ndarray,
        word_of_piece: np.ndarray,
        pending: _Pending,
        windows: list[_Window],
    ) -> None:
        """One text's windows: a piece's vector comes from the window where it sits farthest from an edge."""
        use, weights = self._pooling(word_of_piece)
        np.add.at(pending.counts, rows[use] - pending.base, 1)
        width, overlap = geometry.width, geometry.overlap
        step, half = width - overlap, overlap // 2
        n = len(piece_ids)
        starts = [0] if n <= width else list(range(0, n - width + step, step))
        for k, s in enumerate(starts):
            e = min(s + width, n)
            own_start = s if k == 0 else s + half
            own_end = e if k == len(starts) - 1 else e - (overlap - half)
            owned = np.arange(own_start, own_end)
            owned = owned[use[owned]]
            windows.append(
                _Window(
                    ids=np.concatenate([geometry.prefix, piece_ids[s:e], geometry.suffix]),
                    positions=owned - s + len(geometry.prefix),
                    rows=rows[owned],
                    weights=weights[owned],
                )
            )

    def _pooling(self, word_of_piece: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The pieces a word's vector pools ("first": its first piece; "mean": all) and their weights."""
        if self.pooling == "first":
            use = np.ones(len(word_of_piece), dtype=bool)
            use[1:] = word_of_piece[1:] != word_of_piece[:-1]
            return use, np.ones(len(word_of_piece), dtype=np.float32)
        counts = np.bincount(word_of_piece)
        return np.ones(len(word_of_piece), dtype=bool), (1.0 / counts[word_of_piece]).astype(np.float32)

    def _joint_windows(
        self, items: list[tuple[int, list[str], list[str]]], pending: _Pending, windows: list[_Window]
    ) -> list[tuple[int, list[str], list[str]]]:
        """One window per pair ``(first row, words a, words b)`` in the tokenizer's pair template; the
        pairs longer than one input are returned (encoded apart, never truncated) and counted."""
        enc = self.tokenizer(
            [a for _, a, _ in items],
            [b for _, _, b in items],
            is_split_into_words=True,
            add_special_tokens=True,
        )
        limit = self.max_length
        overflow = []
        for j, (base, a, b) in enumerate(items):
            ids, word_index, types = self._pair_pieces(enc, j, a, b)
            if len(ids) > limit:
                overflow.append((base, a, b))
                continue
            keep = np.flatnonzero(word_index >= 0)
            use, weights = self._pooling(word_index[keep])
            rows = base + word_index[keep][use]
            np.add.at(pending.counts, rows - pending.base, 1)
            windows.append(
                _Window(ids=ids, positions=keep[use], rows=rows, weights=weights[use], types=types)
            )
        self.last_pair_overflow += len(overflow)
        return overflow

    def _pair_pieces(
        self, enc: Any, j: int, a: list[str], b: list[str]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Ids of pair ``j`` with its special tokens, each piece's word in the item (-1: a special
        token; b's words follow a's) and its segment ids (None where the model has none)."""
        ids, word_index, types = _pair_arrays(enc, j, len(a))
        if len(np.unique(word_index[word_index >= 0])) != len(a) + len(b):  # a word without a piece
            fixed = self.tokenizer(
                [self._known_words(a)],
                [self._known_words(b)],
                is_split_into_words=True,
                add_special_tokens=True,
            )
            ids, word_index, types = _pair_arrays(fixed, 0, len(a))
            if len(np.unique(word_index[word_index >= 0])) != len(a) + len(b):
                raise E238(model=self.model_ref)
        return ids, word_index, types

    def _tokenize(self, texts: Sequence[Sequence[str]]) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
        """``(text index, piece ids, word index of each piece)``; words with no piece become [UNK]."""
        nonempty = [j for j, words in enumerate(texts) if len(words)]
        if not nonempty:
            return
        enc = self.tokenizer([texts[j] for j in nonempty], is_split_into_words=True, add_special_tokens=False)
        for k, j in enumerate(nonempty):
            ids = np.asarray(enc["input_ids"][k], dtype=np.int64)
            word_ids = np.asarray([-1 if w is None else w for w in enc.word_ids(k)], dtype=np.int64)
            if len(np.unique(word_ids[word_ids >= 0])) != len(texts[j]):
                ids, word_ids = self._tokenize_with_unknowns(list(texts[j]))
            keep = word_ids >= 0
            yield j, ids[keep], word_ids[keep]

    def _known_words(self, words: list[str]) -> list[str]:
        """``words`` with each one the tokenizer gives no piece (empty, control characters) as its unknown token."""
        tok = self.tokenizer
        single = tok([[w] for w in words], is_split_into_words=True, add_special_tokens=False)["input_ids"]
        return [w if ids else tok.unk_token for w, ids in zip(words, single, strict=True)]

    def _tokenize_with_unknowns(self, words: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Re-tokenize a sentence whose words include some the tokenizer drops (empty, control chars)."""
        enc = self.tokenizer([self._known_words(words)], is_split_into_words=True, add_special_tokens=False)
        ids = np.asarray(enc["input_ids"][0], dtype=np.int64)
        word_ids = np.asarray([-1 if w is None else w for w in enc.word_ids(0)], dtype=np.int64)
        if len(np.unique(word_ids[word_ids >= 0])) != len(words):
            raise E238(model=self.model_ref)
        return ids, word_ids

    def _encode_into(self, corpus: Corpus, offsets: np.ndarray, out: np.ndarray, indices: list[int]) -> None:
        """Run the encoder over length-sorted batches of windows; write pooled rows of the ``indices`` layers into ``out``."""
        self.last_pair_overflow = 0  # distinct pairs too long for one joint input (encoded apart)
        unique, copies = _distinct_sentences(corpus.tokens, corpus.pair_split if corpus.is_pair else ())
        # Sentences go through in chunks, each chunk's windows built, encoded and freed before the
        # next: with the pages written to ``out`` released as we go, memory does not grow with the corpus.
        partial: dict[int, np.ndarray] = {}
        budget = _PageBudget(out)
        for chunk_start in range(0, len(unique), _ENCODE_CHUNK):
            chunk = unique[chunk_start : chunk_start + _ENCODE_CHUNK]
            windows, pending = self._windows(corpus, offsets, chunk)
            self._encode_windows(windows, pending, partial, budget, indices, chunk_start, len(unique))
            del windows, pending
        if partial:  # cannot happen unless the pending counts are wrong
            raise RuntimeError(f"{len(partial)} word vectors were left incomplete")
        for copy, original in copies:
            out[offsets[copy] : offsets[copy + 1]] = out[offsets[original] : offsets[original + 1]]
            budget.add(int(offsets[copy + 1] - offsets[copy]))
        release_pages(out)

    def _encode_windows(
        self,
        windows: list[_Window],
        pending: _Pending,
        partial: dict[int, np.ndarray],
        budget: _PageBudget,
        indices: list[int],
        done_before: int,
        total: int,
    ) -> None:
        """Encode one chunk's windows in length-sorted batches; progress is reported in sentences."""
        import torch

        if not windows:
            return
        model = self.model
        pad_id = self.tokenizer.pad_token_id or 0
        order = sorted(range(len(windows)), key=lambda i: len(windows[i].ids), reverse=True)
        n_sentences = min(_ENCODE_CHUNK, total - done_before)
        done = 0
        with torch.inference_mode():
            for first in range(0, len(order), self.batch_size):
                batch = [windows[i] for i in order[first : first + self.batch_size]]
                input_ids, mask, types = _padded(batch, pad_id)
                hidden = self._hidden(
                    model,
                    torch.from_numpy(input_ids),
                    torch.from_numpy(mask),
                    indices,
                    None if types is None else torch.from_numpy(types),
                )
                self._scatter(batch, hidden, pending, partial, budget.out)
                done += len(batch)
                budget.add(sum(len(w.rows) for w in batch))
                if self.on_progress is not None:
                    self.on_progress(done_before + n_sentences * done // len(windows), total)

    def _hidden(
        self, model: Any, input_ids: Any, mask: Any, indices: list[int], types: Any = None
    ) -> list[Any]:
        """The states of the ``indices`` layers, each (batch, length, dim), where the model ran
        (``types``: the segment ids of a batch holding joint pairs, for models that take them)."""
        self.forward_calls += 1
        segments = {} if types is None else {"token_type_ids": types.to(self.device)}
        output = model(
            input_ids=input_ids.to(self.device),
            attention_mask=mask.to(self.device),
            output_hidden_states=True,
            **segments,
        )
        return [output.hidden_states[i] for i in indices]

    @staticmethod
    def _scatter(
        batch: list[_Window],
        hidden: list[Any],
        pending: _Pending,
        partial: dict[int, np.ndarray],
        out: np.ndarray,
    ) -> None:
        """Pool pieces into word rows; rows whose pieces all arrived are written, others wait in ``partial``.

        The gather runs where the states are (GPU or CPU); the pooling is a numpy ``add.reduceat`` over
        each word's run of pieces, several times faster on CPU than ``index_add_`` for these shapes.
        """
        import torch

        lengths = [len(w.positions) for w in batch]
        if not sum(lengths):
            return
        device = hidden[0].device
        batch_index = torch.from_numpy(np.repeat(np.arange(len(batch)), lengths)).to(device)
        positions = torch.from_numpy(np.concatenate([w.positions for w in batch])).to(device)
        # (pieces, layers, dim): gather per layer first, so no (batch, length, layers, dim) tensor is built.
        pieces = torch.stack([h[batch_index, positions] for h in hidden], dim=1).float().cpu().numpy()
        pieces *= np.concatenate([w.weights for w in batch])[:, None, None]
        rows = np.concatenate([w.rows for w in batch])
        starts = np.flatnonzero(np.concatenate([[True], rows[1:] != rows[:-1]]))
        if len(np.unique(rows[starts])) < len(starts):  # a word's pieces in two windows of this batch
            order = np.argsort(rows, kind="stable")
            rows, pieces = rows[order], pieces[order]
            starts = np.flatnonzero(np.concatenate([[True], rows[1:] != rows[:-1]]))
        unique_rows = rows[starts]
        n_pieces = np.diff(np.append(starts, len(rows)))
        pooled = pieces if len(starts) == len(rows) else np.add.reduceat(pieces, starts, axis=0)
        local = unique_rows - pending.base
        pending.counts[local] -= n_pieces.astype(np.int32)
        complete = pending.counts[local] == 0
        if partial:
            for i in np.flatnonzero(complete & np.isin(unique_rows, list(partial))):
                pooled[i] += partial.pop(int(unique_rows[i]))
        for i in np.flatnonzero(~complete):
            row = int(unique_rows[i])
            partial[row] = partial.get(row, 0) + pooled[i]
        if complete.all():  # float32 rows: ``out`` stores them as it stores (float16, or int8 + scales)
            out[unique_rows] = pooled
        elif complete.any():
            out[unique_rows[complete]] = pooled[complete]
