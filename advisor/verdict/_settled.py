"""The verdict of a run that stopped settled (``--until decided``, issue 31): the settled claim, with what
was not run.

Why: such a run trained the largest size only, and the evidence gate "too few sizes" would call it
"not judged" right after the early verdict said the decision was settled. The stop (what the rule
settled, at which look, the cells not run) is read from the run (``params["early_stop"]``, JSON written
by ``advisor.pipeline``); the gate on sizes is waived for it, the full-grid rules still decide at the
largest size, and where they do not reach the settled claim (their percentile interval differs from
the rule's t bound) the settled claim stands under its own rule (:data:`~._codes.SETTLED`). Either way a
caveat says what was not measured: the data efficiency and the "label more data" option need the
smaller sizes, so they are not assessed.
"""

from __future__ import annotations

import json
from typing import Any

from advisor.analysis import Analysis
from advisor.verdict import _codes as c
from advisor.verdict._codes import Note
from advisor.verdict._recommendation import Recommendation

__all__ = ["keep_settled", "settled_stop", "waive_gates"]


def settled_stop(analysis: Analysis) -> dict[str, Any] | None:
    """The settled stop the run recorded, or None (a complete run, or one that never settled)."""
    params = analysis.params
    text = params.get("early_stop") if params.get("until") == "decided" else None
    if not text:
        return None
    stop = json.loads(text) if isinstance(text, str) else dict(text)
    return (
        stop if stop.get("verdict") in c.VERDICTS and int(analysis.full_size) == int(stop["size"]) else None
    )


def waive_gates(problems: list[Note], stop: dict[str, Any] | None) -> list[Note]:
    """The evidence gates, less "too few sizes" for a run that stopped settled (one size by design)."""
    return problems if stop is None else [p for p in problems if p.code != c.FEW_SIZES]


def keep_settled(rec: Recommendation, stop: dict[str, Any]) -> None:
    """The settled claim as the verdict (under :data:`~._codes.SETTLED` where the rules said otherwise),
    and the caveat of what was not run."""
    claim = str(stop["verdict"])
    if rec.verdict != claim:
        rec.verdict = claim
        keys = ("pair", "gap", "prob_above", "size", "seeds", "looks")
        rec.rule = Note(c.SETTLED, {k: stop[k] for k in keys})
    values = {k: stop[k] for k in ("size", "seeds", "looks", "total")}
    values |= {
        "not_run": len(stop["not_run"]),
        "below": any(int(s) < int(stop["size"]) for _, s, _ in stop["not_run"]),
    }
    rec.caveat_notes.append(Note(c.SETTLED_EARLY, values))
