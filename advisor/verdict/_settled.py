"""The verdict of a run that stopped settled (``--until decided``, issue 31): the settled claim, with what
was not run.

Why: such a run trained the largest size only, and the evidence gate "too few sizes" would call it
"not judged" right after the early verdict said the decision was settled. The stop (what the rule
settled, at which look, the cells not run) is read from the run (``params["early_stop"]``, JSON written
by ``advisor.pipeline``); the gate on sizes is waived for it, the full-grid rules still decide at the
largest size, and where they do not reach the settled claim (their percentile interval differs from
the rule's t bound) the settled claim stands under its own rule (:data:`~._codes.SETTLED`). Either way a
caveat says what was not measured: the data efficiency and the "label more data" option need the
smaller sizes. After a settled "use contextual" the run goes on to train the cheaper families whose curves
the "label more data" rule extrapolates (:func:`curves_to_finish`), at every size, and skips contextual's
smaller sizes: the full-grid rules may then refine the claim to "label more data instead", as the full
grid would; only the data efficiency stays unassessed. A settled "<family> is enough" needs no smaller
size: no rule reads one.

A run cut by ``--budget`` (``params["budget_stop"]``) is judged on the same terms: evidence first, so
the largest size comes first and the gate on sizes is waived when the budget left the smaller ones
out; a caveat states the budget and what it left out. A stop whose cells have all been trained since
(a resume with a larger budget, or none) says nothing any more.
"""

from __future__ import annotations

import json
from typing import Any

from advisor.analysis import Analysis
from advisor.verdict import _codes as c
from advisor.verdict._codes import Note
from advisor.verdict._recommendation import Recommendation
from advisor.vocabulary import is_frozen, ordered

__all__ = [
    "budget_cut",
    "budget_left_too_few",
    "curves_cut_short",
    "curves_to_finish",
    "finished_curves",
    "keep_settled",
    "note_budget",
    "seeds_to_finish",
    "settled_stop",
    "waive_gates",
]


def curves_to_finish(claim: str, names: list[str]) -> list[str]:
    """The families whose every cell a run settled on ``claim`` still trains: for "use contextual" those
    whose learning curves the "label more data" rule extrapolates (the paper's baselines); none else."""
    return ordered(b for b in c.BASELINES if b in names) if claim == c.USE_CONTEXTUAL else []


def seeds_to_finish(claim: str, names: list[str]) -> list[str]:
    """The other cheaper frozen families (distilled) whose remaining seeds at the largest size a run
    settled on "use contextual" still trains: the "label more data" rule reads the best cheaper family,
    and chosen on fewer seeds than the full grid's that choice could differ from the full grid's."""
    finish = curves_to_finish(claim, names)
    return [e for e in names if finish and e not in finish and e != c.CONTEXTUAL and is_frozen(e)]


def finished_curves(stop: dict[str, Any], names: list[str]) -> bool:
    """Whether the run trained every cell of the families :func:`curves_to_finish` names after its claim
    (False when it names none): only then are their extrapolations, and "label more data", assessed."""
    finish = set(curves_to_finish(str(stop["verdict"]), names))
    return bool(finish) and not any(e in finish for e, _, _ in stop["not_run"])


def curves_cut_short(
    stop: dict[str, Any] | None, budget: dict[str, Any] | None, names: list[str], n_sizes: int, min_sizes: int
) -> bool:
    """Whether a stop left the "label more data" option unassessed, as its caveat says: a settled stop
    before the cheaper curves were finished, or a budget that left fewer than ``min_sizes`` sizes. Such a
    run states no extrapolation (and no labelling budget), so no reason contradicts the caveat."""
    settled_short = stop is not None and not finished_curves(stop, names)
    return settled_short or budget_left_too_few(budget, n_sizes, min_sizes)


def budget_left_too_few(budget: dict[str, Any] | None, n_sizes: int, min_sizes: int) -> bool:
    """A budget cut the run to fewer sizes than a learning curve needs: "label more data" not assessed."""
    return budget is not None and n_sizes < min_sizes


def settled_stop(analysis: Analysis) -> dict[str, Any] | None:
    """The settled stop the run recorded, or None (a complete run, or one that never settled)."""
    params = analysis.params
    text = params.get("early_stop") if params.get("until") == "decided" else None
    if not text:
        return None
    stop = json.loads(text) if isinstance(text, str) else dict(text)
    if stop.get("verdict") not in c.VERDICTS or int(analysis.full_size) != int(stop["size"]):
        return None
    return {**stop, "not_run": _missing(analysis, stop.get("not_run", []))}


def _missing(analysis: Analysis, cells: list[Any]) -> list[tuple[str, int, int]]:
    """The recorded cells (embedding, size, seed) that the run's curves do not hold."""
    curves = analysis.curves
    have = set(zip(curves["embedding"], curves["size"].astype(int), curves["seed"].astype(int), strict=True))
    listed = [(str(e), int(z), int(s)) for e, z, s in cells]
    return [cell for cell in listed if cell not in have]


def budget_cut(analysis: Analysis) -> dict[str, Any] | None:
    """What ``--budget`` left out and is still missing from the run's cells, or None."""
    text = analysis.params.get("budget_stop")
    if not text:
        return None
    stop = json.loads(text) if isinstance(text, str) else dict(text)
    missing = _missing(analysis, stop.get("not_run", []))
    return {**stop, "not_run": missing} if missing else None


def waive_gates(
    problems: list[Note], stop: dict[str, Any] | None, budget: dict[str, Any] | None = None
) -> list[Note]:
    """The evidence gates, less "too few sizes" for a run that stopped settled (one size by design) or
    that the budget cut (the smaller sizes come last)."""
    return problems if stop is None and budget is None else [p for p in problems if p.code != c.FEW_SIZES]


def note_budget(rec: Recommendation, budget: dict[str, Any] | None, sizes: list[int], min_sizes: int) -> None:
    """The caveat of what the budget left out (``sizes``: those measured; ``unassessed``: whether that
    left "label more data" unassessed, the predicate :func:`curves_cut_short` clears the fits by)."""
    if budget is None:
        return
    smallest = min(sizes) if sizes else 0
    below = smallest if any(int(z) < smallest for _, z, _ in budget["not_run"]) else 0
    values = {k: budget.get(k) for k in ("budget", "total", "waived")}
    values |= {"not_run": len(budget["not_run"]), "run": int(budget["total"]) - len(budget["not_run"])}
    unassessed = budget_left_too_few(budget, len(sizes), min_sizes)
    rec.caveat_notes.append(Note(c.TIME_BUDGET, values | {"below": below, "unassessed": unassessed}))


def keep_settled(rec: Recommendation, stop: dict[str, Any], names: list[str]) -> None:
    """The settled claim as the verdict (under :data:`~._codes.SETTLED` where the rules said otherwise;
    "label more data instead" refines a settled "use contextual" and stands), and the caveat of what was
    not run (``names``: the run's families)."""
    claim = str(stop["verdict"])
    refined = claim == c.USE_CONTEXTUAL and rec.verdict == c.LABEL_MORE
    if rec.verdict != claim and not refined:
        rec.verdict = claim
        keys = ("pair", "gap", "prob_above", "size", "seeds", "looks")
        rec.rule = Note(c.SETTLED, {k: stop[k] for k in keys})
    below = {e for e, s, _ in stop["not_run"] if int(s) < int(stop["size"])}
    values = {k: stop[k] for k in ("size", "seeds", "looks", "total")}
    values |= {"not_run": len(stop["not_run"]), "below": bool(below), "short": ordered(sorted(below))}
    values |= {"finished": curves_to_finish(claim, names) if finished_curves(stop, names) else []}
    rec.caveat_notes.append(Note(c.SETTLED_EARLY, values))
