"""Featurization of a frozen encoder: sentences cut into windows, encoded in length-sorted batches, pooled.

Why apart from the embedding: this is the memory-bound part. Long sentences are never truncated:
pieces are cut into windows of the model's length with an overlap, each piece takes its vector
from the window where it sits farthest from an edge, and every word still gets exactly one row.
Sentences are encoded in chunks whose bookkeeping is freed before the next chunk is built, repeated
sentences are encoded once, and the cache pages already written are dropped from the process
every :data:`_RELEASE_BYTES`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from advisor._error_codes import E238
from advisor.data import Corpus
from advisor.embeddings._cache import release_pages

__all__ = ["WindowEncoding"]

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


def _distinct_sentences(tokens: list[list[str]]) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """Sentences to encode (ascending) and ``(copy, original)`` pairs for the repeated ones.

    Repeated sentences (retweets, boilerplate) are encoded once and their rows copied. They are
    found through one int64 hash per sentence, sorted (8 bytes a sentence, not a dict of tuples);
    a hash collision between different sentences is checked and both are encoded.
    """
    hashes = np.fromiter((hash(tuple(sent)) for sent in tokens), dtype=np.int64, count=len(tokens))
    order = np.argsort(hashes, kind="stable")  # equal hashes keep index order: the first is the original
    ordered = hashes[order]
    starts = np.ones(len(order), dtype=bool)
    starts[1:] = ordered[1:] != ordered[:-1]
    original = order[starts][np.cumsum(starts) - 1]  # the group's first index, per position in ``order``
    copies: list[tuple[int, int]] = []
    collided: list[int] = []
    for position in np.flatnonzero(order != original):
        i, first = int(order[position]), int(original[position])
        if tokens[i] == tokens[first]:
            copies.append((i, first))
        else:
            collided.append(i)
    unique = np.sort(np.concatenate([order[starts], np.asarray(collided, dtype=np.int64)]))
    return unique, copies


class WindowEncoding:
    """The encoding side of :class:`~advisor.embeddings.ContextualEmbedding`: windows, batches, pooling.

    A mixin: the embedding provides the tokenizer, model and window sizes (:class:`EncoderLoading`),
    ``pooling``, ``batch_size``, ``device``, ``forward_calls`` and ``on_progress``.
    """

    pooling: str
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
        step = width - self.window_overlap
        half = self.window_overlap // 2
        base = int(offsets[sentences[0]]) if len(sentences) else 0
        span = int(offsets[sentences[-1] + 1]) - base if len(sentences) else 0
        pending = _Pending(base, np.zeros(span, dtype=np.int32))
        windows: list[_Window] = []
        prefix_arr, suffix_arr = np.asarray(prefix, dtype=np.int64), np.asarray(suffix, dtype=np.int64)
        for chunk_start in range(0, len(sentences), _TOKENIZE_CHUNK):
            chunk = sentences[chunk_start : chunk_start + _TOKENIZE_CHUNK]
            for sent_index, piece_ids, word_of_piece in self._tokenize(corpus.tokens, chunk):
                n_words = len(corpus.tokens[sent_index])
                is_first = np.ones(len(word_of_piece), dtype=bool)
                is_first[1:] = word_of_piece[1:] != word_of_piece[:-1]
                if self.pooling == "first":
                    use, weights = is_first, np.ones(len(word_of_piece), dtype=np.float32)
                else:
                    counts = np.bincount(word_of_piece, minlength=n_words)
                    use, weights = (
                        np.ones(len(word_of_piece), dtype=bool),
                        (1.0 / counts[word_of_piece]).astype(np.float32),
                    )
                rows = offsets[sent_index] + word_of_piece
                np.add.at(pending.counts, rows[use] - base, 1)
                n = len(piece_ids)
                starts = [0] if n <= width else list(range(0, n - width + step, step))
                for k, s in enumerate(starts):
                    e = min(s + width, n)
                    own_start = s if k == 0 else s + half
                    own_end = e if k == len(starts) - 1 else e - (self.window_overlap - half)
                    owned = np.arange(own_start, own_end)
                    owned = owned[use[owned]]
                    windows.append(
                        _Window(
                            ids=np.concatenate([prefix_arr, piece_ids[s:e], suffix_arr]),
                            positions=owned - s + len(prefix),
                            rows=rows[owned],
                            weights=weights[owned],
                        )
                    )
        return windows, pending

    def _tokenize(self, tokens: list[list[str]], indices: np.ndarray | list[int]):
        """``(sentence index, piece ids, word index of each piece)``; words with no piece become [UNK]."""
        nonempty = [int(i) for i in indices if tokens[i]]
        if not nonempty:
            return
        enc = self.tokenizer(
            [tokens[i] for i in nonempty], is_split_into_words=True, add_special_tokens=False
        )
        for j, i in enumerate(nonempty):
            ids = np.asarray(enc["input_ids"][j], dtype=np.int64)
            word_ids = np.asarray([-1 if w is None else w for w in enc.word_ids(j)], dtype=np.int64)
            if len(np.unique(word_ids[word_ids >= 0])) != len(tokens[i]):
                ids, word_ids = self._tokenize_with_unknowns(tokens[i])
            keep = word_ids >= 0
            yield i, ids[keep], word_ids[keep]

    def _tokenize_with_unknowns(self, words: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Re-tokenize a sentence whose words include some the tokenizer drops (empty, control chars)."""
        tok = self.tokenizer
        single = tok([[w] for w in words], is_split_into_words=True, add_special_tokens=False)["input_ids"]
        fixed = [w if ids else tok.unk_token for w, ids in zip(words, single, strict=True)]
        enc = tok([fixed], is_split_into_words=True, add_special_tokens=False)
        ids = np.asarray(enc["input_ids"][0], dtype=np.int64)
        word_ids = np.asarray([-1 if w is None else w for w in enc.word_ids(0)], dtype=np.int64)
        if len(np.unique(word_ids[word_ids >= 0])) != len(words):
            raise E238(model=self.model_ref)
        return ids, word_ids

    def _encode_into(self, corpus: Corpus, offsets: np.ndarray, out: np.ndarray, indices: list[int]) -> None:
        """Run the encoder over length-sorted batches of windows; write pooled rows of the ``indices`` layers into ``out``."""
        unique, copies = _distinct_sentences(corpus.tokens)
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
                longest = len(batch[0].ids)
                input_ids = np.full((len(batch), longest), pad_id, dtype=np.int64)
                mask = np.zeros((len(batch), longest), dtype=np.int64)
                for b, window in enumerate(batch):
                    input_ids[b, : len(window.ids)] = window.ids
                    mask[b, : len(window.ids)] = 1
                hidden = self._hidden(model, torch.from_numpy(input_ids), torch.from_numpy(mask), indices)
                self._scatter(batch, hidden, pending, partial, budget.out)
                done += len(batch)
                budget.add(sum(len(w.rows) for w in batch))
                if self.on_progress is not None:
                    self.on_progress(done_before + n_sentences * done // len(windows), total)

    def _hidden(self, model: Any, input_ids: Any, mask: Any, indices: list[int]) -> list[Any]:
        """The states of the ``indices`` layers, each (batch, length, dim), where the model ran."""
        self.forward_calls += 1
        output = model(
            input_ids=input_ids.to(self.device),
            attention_mask=mask.to(self.device),
            output_hidden_states=True,
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
