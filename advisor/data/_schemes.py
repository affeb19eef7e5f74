"""Tag-scheme detection (IOB1, IOB2, BIOES, BILOU) and normalisation to IOB2.

Entity-level scores (seqeval strict mode) are only comparable when every file uses one scheme, so
readers convert everything to IOB2 and report what they found.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from advisor._error_codes import E110, E111

__all__ = ["SCHEMES", "TagCheck", "TagSequence", "detect_scheme", "normalise_case", "to_iob2"]

SCHEMES = ("IOB1", "IOB2", "BIOES", "BILOU")
_TAG = re.compile(r"^(?P<prefix>[BIESLU])[-_](?P<type>\S+)$")
_LOWER = re.compile(r"^(?:o|[bieslu][-_]\S+)$")


@dataclass(frozen=True)
class TagSequence:
    """The tags of one sentence with the file line of each tag (for error messages)."""

    tags: list[str]
    lines: list[int]


@functools.lru_cache(maxsize=65536)
def _parts(tag: str) -> tuple[str, str] | None:
    """(prefix, type) of a tag, None outside every scheme; cached: a big file repeats a few tags millions of times."""
    if tag == "O":
        return "O", ""
    match = _TAG.match(tag)
    return (match["prefix"], match["type"]) if match else None


@functools.lru_cache(maxsize=65536)
def _is_lower(tag: str) -> bool:
    return _LOWER.match(tag) is not None


def _split(tag: str, file: str, line: int) -> tuple[str, str]:
    parts = _parts(tag)
    if parts is None:
        raise E110(
            tag=tag,
            file=file,
            line=line,
            hint="tags must be O or PREFIX-TYPE with PREFIX one of B, I (IOB1/IOB2), E, S (BIOES), L, U (BILOU)",
        )
    return parts


def _upper_prefix(tags: Sequence[str]) -> tuple[list[str], int]:
    """Tags with a lower-case prefix upper-cased (``b-per`` -> ``B-per``, ``o`` -> ``O``), and how many were."""
    out, count = [], 0
    for tag in tags:
        if _is_lower(tag):
            count += 1
            tag = tag[0].upper() + tag[1:]
        out.append(tag)
    return out, count


def _case_warning(file: str, count: int, first: int | None) -> str:
    return (
        f"{file}:{first}: {count} tag(s) with a lower-case prefix (such as 'b-per') read as upper-case "
        "('B-per'); entity types keep their case"
    )


def normalise_case(sentences: Sequence[TagSequence], file: str, warnings: list[str]) -> list[TagSequence]:
    """Upper-case lower-case prefixes (``b-per`` -> ``B-per``, ``o`` -> ``O``), with one warning."""
    first: int | None = None
    total = 0
    out = []
    for sent in sentences:
        tags, count = _upper_prefix(sent.tags)
        if count and first is None:
            first = next(line for tag, line in zip(sent.tags, sent.lines, strict=True) if _is_lower(tag))
        total += count
        out.append(TagSequence(tags, sent.lines))
    if total:
        warnings.append(_case_warning(file, total, first))
    return out


def _gather(tags: Sequence[str], lines: Sequence[int], file: str, evidence: dict[str, int]) -> None:
    """Add one sentence's scheme evidence (the first line of each kind); an unknown tag is an error."""
    prev_prefix, prev_type = "O", ""
    for tag, line in zip(tags, lines, strict=True):
        prefix, etype = _split(tag, file, line)
        if prefix in "ES":
            evidence.setdefault("BIOES", line)
        elif prefix in "LU":
            evidence.setdefault("BILOU", line)
        elif prefix == "I" and (prev_prefix == "O" or prev_type != etype):
            evidence.setdefault("IOB1", line)  # an entity opened by I-: only IOB1 does that
        elif prefix == "B" and (prev_prefix == "O" or prev_type != etype):
            evidence.setdefault("B-start", line)  # an entity opened by B-: IOB2 (or BIOES/BILOU)
        prev_prefix, prev_type = prefix, etype


def detect_scheme(sentences: Sequence[TagSequence], file: str) -> str:
    """Name the scheme used throughout the file; mixed evidence is an error that cites both lines."""
    evidence: dict[str, int] = {}
    for sent in sentences:
        _gather(sent.tags, sent.lines, file, evidence)
    return _decide(evidence, file)


class TagCheck:
    """Tags checked sentence by sentence while a reader streams a file (nothing kept but the evidence).

    ``add`` upper-cases lower-case prefixes, raises at an unknown tag (its line), gathers the scheme
    evidence and returns the sentence in IOB2; ``scheme`` decides once the file is read.
    """

    def __init__(self, file: str) -> None:
        self.file = file
        self.evidence: dict[str, int] = {}
        self.lowered = 0
        self.first_lowered: int | None = None

    def tag(self, tag: str, line: int) -> None:
        """Refuse a tag outside every scheme at its line (before its sentence is complete)."""
        _split(tag[0].upper() + tag[1:] if _is_lower(tag) else tag, self.file, line)

    def add(self, tags: Sequence[str], lines: Sequence[int]) -> list[str]:
        if tags.count("O") == len(tags):  # most sentences: nothing to check, convert or learn
            return list(tags)
        upper, count = _upper_prefix(tags)
        if count:
            if self.first_lowered is None:
                self.first_lowered = next(line for t, line in zip(tags, lines, strict=True) if _is_lower(t))
            self.lowered += count
        _gather(upper, lines, self.file, self.evidence)
        return to_iob2(upper)

    def scheme(self) -> str:
        return _decide(self.evidence, self.file)

    def warnings(self) -> list[str]:
        return [_case_warning(self.file, self.lowered, self.first_lowered)] if self.lowered else []


def _decide(evidence: dict[str, int], file: str) -> str:
    if "BIOES" in evidence and "BILOU" in evidence:
        raise E111(
            detail="BIOES (E-/S-) and BILOU (L-/U-) tags in one file",
            file=file,
            line=max(evidence["BIOES"], evidence["BILOU"]),
            hint=f"first BIOES tag at line {evidence['BIOES']}, first BILOU tag at line {evidence['BILOU']}",
        )
    ends = "BIOES" if "BIOES" in evidence else "BILOU" if "BILOU" in evidence else None
    if ends and "IOB1" in evidence:
        raise E111(
            detail=f"{ends} tags and IOB1-style entities opened by I-",
            file=file,
            line=evidence["IOB1"],
            hint=f"first {ends} tag at line {evidence[ends]}; convert the file to one scheme",
        )
    if ends:
        return ends
    if "IOB1" in evidence and "B-start" in evidence:
        raise E111(
            detail="entities opened by I- (IOB1) and by B- after O (IOB2)",
            file=file,
            line=max(evidence["IOB1"], evidence["B-start"]),
            hint=(
                f"first I- opening at line {evidence['IOB1']}, first B- opening at line {evidence['B-start']}; "
                "convert the file to one scheme"
            ),
        )
    return "IOB1" if "IOB1" in evidence else "IOB2"


def to_iob2(tags: Sequence[str]) -> list[str]:
    """Convert one sentence from any supported scheme to IOB2 (tags already validated)."""
    out: list[str] = []
    prev_type = ""
    prev_prefix = "O"
    for tag in tags:
        if tag == "O":
            out.append("O")
            prev_prefix, prev_type = "O", ""
            continue
        prefix, etype = tag[0], tag[2:]
        if prefix in "BSU":
            new = "B"
        elif prefix in "IEL":
            continues = prev_prefix in "BI" and prev_type == etype
            new = "I" if continues else "B"
        else:  # unreachable after validation
            new = "B"
        out.append(f"{new}-{etype}")
        # after E/S/L/U an entity is closed: the next I- (malformed) must open a new one
        prev_prefix = "O" if prefix in "ESLU" else new
        prev_type = etype
    return out
