"""The catalog's mechanism: one dict of codes, :func:`define` and :func:`variant` (the entries live beside it)."""

from __future__ import annotations

from advisor.errors import ErrorCode, define_in

__all__ = ["CATALOG", "INPUT", "VARIANTS", "ErrorCode", "define", "variant"]

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


INPUT = "input"  # the kind of an error in the user's data, not in an option
