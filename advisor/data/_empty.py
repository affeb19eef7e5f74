"""Items with a label but no text: skipped with one counted warning, or an error under ``--strict``.

Widely used benchmark files carry a handful of such rows; refusing the whole file for them makes the
benchmark unusable, while reading them silently would hide that the file is not what it seems.
"""

from __future__ import annotations

from dataclasses import dataclass

from advisor._error_codes import E106_EMPTY_SIDE, E106_NO_TEXT

__all__ = ["Kept", "skip_empty"]

_SHOWN = 5


@dataclass(frozen=True)
class Kept:
    """Positions of the items kept, and the file lines of those skipped."""

    indices: list[int]
    skipped_lines: tuple[int, ...]


def skip_empty(
    file: str,
    lines: list[int],
    has_text: list[bool],
    strict: bool,
    warnings: list[str],
    what: str = "items",
    pair: bool = False,
) -> Kept:
    """Drop the items without text (``pair``: a pair with either text empty); warn once naming the first
    lines, or raise at the first one."""
    skipped = tuple(line for line, ok in zip(lines, has_text, strict=True) if not ok)
    if skipped and strict:
        entry = E106_EMPTY_SIDE if pair else E106_NO_TEXT
        raise entry(n=len(skipped), what=what, file=file, line=skipped[0])
    if skipped:
        shown = ", ".join(map(str, skipped[:_SHOWN])) + (" …" if len(skipped) > _SHOWN else "")
        why = "an empty text on one side" if pair else "no text"
        warnings.append(
            f"{file}:{skipped[0]}: skipped {len(skipped)} {what} with a label but {why} (lines {shown}); "
            "--strict makes this an error"
        )
    return Kept([i for i, ok in enumerate(has_text) if ok], skipped)
