"""What the run measured and what it did not, in words: the caveats about its coverage (judged below its
largest size, not finished, a family that learned nothing, too few sizes to fit) and the stop of a
``--until decided`` run (issue 31: what was not run, and the headline when only the stopping rule settled it)
and what ``--budget`` left out.

Why apart from :mod:`advisor.verdict._wording`: the renderer dispatches on codes; these sentences are
about the run's coverage rather than the evidence, and the renderer had no room for the stop's.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from advisor.verdict._codes import Note
from advisor.verdict._phrases import mag, pts

if TYPE_CHECKING:
    from advisor.verdict._recommendation import Recommendation

__all__ = [
    "at_majority",
    "few_fit_sizes",
    "judged_below",
    "learned_nothing",
    "run_status",
    "settled_early",
    "settled_headline",
    "time_budget",
]


def judged_below(rec: Recommendation, note: Note) -> str:
    return (
        f"judged at {int(note['size']):,} items, the largest size every embedding finished with {note['min_seeds']}+ "
        f"seeds; the grid goes up to {int(note['cut_from']):,} items (resume the run to judge with all the data)"
    )


def run_status(rec: Recommendation, note: Note) -> str:
    return f"the run's status is {note['status']}: some cells may be missing"


def learned_nothing(rec: Recommendation, note: Note) -> str:
    names = list(note["families"])
    who = ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]
    they, them = ("it", "it") if len(names) == 1 else ("they", "them")
    return (
        f"{who} scored 0.0 at every size and seed: {they} learned nothing at these sizes (check the labels "
        f"or add data), so every comparison with {them} says only that"
    )


def at_majority(rec: Recommendation, note: Note) -> str:
    """The cells that did not beat always predicting the most frequent label, per family."""
    by_family: dict[str, list[str]] = {}
    for name, size, low, seeds in note["points"]:
        by_family.setdefault(name, []).append(f"{size:,} ({low} of {seeds} seeds)")
    where = "; ".join(f"{name} at {', '.join(points)}" for name, points in by_family.items())
    return (
        f"no better than the majority label: {where} scored at or below always predicting "
        f"{note['label']!r} ({note['share']:.1%} of test items). Those cells learned nothing beyond the "
        "label prior (a failed optimisation, or no signal at that size), so their curve points pull the "
        "family's mean down; more seeds, or a fixed smaller --lr, tell the two apart"
    )


def few_fit_sizes(rec: Recommendation, note: Note) -> str:
    return (
        f"only {note['n']} training sizes: learning-curve extrapolations are not trusted "
        f"(need {note['need']}), so the 'label more data' option could not be assessed"
    )


def settled_early(rec: Recommendation, note: Note) -> str:
    """What a run that stopped settled did not train, and what that leaves unassessed."""
    size, seeds, looks = int(note["size"]), int(note["seeds"]), int(note["looks"])
    finished, short = (list(note.values.get(k) or []) for k in ("finished", "short"))
    whose = (
        f"the curve{'s' if len(short) > 1 else ''} of {' and '.join(short)}"
        if finished and short
        else "curves"
    )
    where = f"{whose} below {size:,} items not measured: " if note["below"] else ""
    ran = f"{int(note['not_run'])} of {int(note['total'])} cells were not run"
    if finished:
        return (
            f"{where}the decision was settled after {seeds} of {looks} seeds at {size:,} items by the "
            f"stopping rule (--until decided); {' and '.join(finished)} then trained at every size for the "
            f"'label more data' option, and {ran}, so the data efficiency was not assessed (resume with "
            "--until complete to measure it)"
        )
    return (
        f"{where}the decision was settled after {seeds} of {looks} seeds at {size:,} items by the stopping "
        f"rule (--until decided), and {ran}; the verdict speaks about the largest size only, so the data "
        "efficiency and the 'label more data' option were not assessed (resume with --until complete to "
        "measure them)"
    )


def settled_headline(rec: Recommendation, note: Note) -> str:
    """The verdict the stopping rule settled when the full-grid rules alone, at the largest size, do not
    make it (their intervals differ: percentile bootstrap against the rule's t bound): both are stated."""
    p = float(note["prob_above"])
    chance = f", P(gap > {mag(rec.thresholds.acceptable_loss)}) = {p:.2f}" if math.isfinite(p) else ""
    verdict = rec.verdict[0].upper() + rec.verdict[1:]
    return (
        f"{verdict}: settled by the stopping rule (--until decided) after {int(note['seeds'])} of "
        f"{int(note['looks'])} seeds at {int(note['size']):,} items ({note['pair']} gap "
        f"{pts(float(note['gap']))}{chance}); the {rec.thresholds.confidence:.0%} bootstrap intervals below, "
        "taken alone, do not settle it: resume with --until complete for more evidence."
    )


def time_budget(rec: Recommendation, note: Note) -> str:
    """What the wall-time budget left out: "budget 10 min: 18 of 45 cells run; curves below N items …"."""
    below = int(note["below"])
    text = f"budget {note['budget']}: {int(note['run'])} of {int(note['total'])} cells run"
    if below:
        text += f"; curves below {below:,} items not measured"
    if note.values.get("waived"):
        text += " (the budget was shorter than the first round, which ran anyway)"
    return text + (
        f"; the budget left out {int(note['not_run'])} cells"
        + (
            ", so the data efficiency and the 'label more data' option were not assessed"
            if note.values.get("unassessed")
            else ""
        )
        + " (resume with a larger --budget, or none, to train them: finished cells are kept)"
    )
