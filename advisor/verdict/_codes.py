"""What the verdict decides, as codes and numbers: the verdicts, the rule that fired, each reason and caveat.

The decision (:mod:`advisor.verdict._recommend`) says *what* holds as a :class:`Note` (a code and the
numbers behind it); the renderer (:mod:`advisor.verdict._wording`) is the one place that turns notes
into sentences for the CLI, the report and the app. Tests of the decision assert on these codes, so
rewording a sentence never breaks them. A leaf: it imports nothing of the verdict.

Codes and their values (a value named ``pair`` is ``"a-b"``, looked up in ``Recommendation.gaps``):

- the rule behind the verdict (``Recommendation.rule``): :data:`NOT_JUDGED` (an evidence gate failed:
  ``Recommendation.problems`` say which); :data:`ENOUGH` (``family``, ``pair`` the gap stated,
  ``against`` ``"costlier"`` or ``"contextual"``, ``share`` of contextual's serving latency or NaN);
  :data:`CONTEXTUAL_WINS` (``pair``); :data:`CATCH_UP` (``embedding``, ``extra_items``);
  :data:`STRADDLES` / :data:`NO_INTERVAL` (``pair``, ``lean``, ``seeds_needed``); :data:`STOPPED_EARLY`
  (``pair``, ``cut_from``); :data:`SETTLED` (the stopping rule of ``--until decided`` settled a claim the
  full-grid rules alone do not make at the largest size: ``pair``, ``gap``, ``prob_above``, ``size``,
  ``seeds``, ``looks``); the cost side (:mod:`advisor.verdict._worth`): :data:`WORTH_IT` /
  :data:`NOT_WORTH` / :data:`WORTH_UNCLEAR` (``pair``, ``value`` per point; the numbers are the
  trade-off's), :data:`OVER_BUDGET` (``family`` recommended within the budget, ``rival`` the best
  family over it, ``pair`` their gap, ``over``, ``budget``, ``batch``, ``latency`` {family: ms/item}),
  :data:`NONE_FITS` (``fastest``, ``budget``, ``batch``, ``latency``).
- the trade-off (``Recommendation.tradeoff``, stated after the headline of a contextual-vs-cheap rule):
  :data:`TRADEOFF` (``pair``, ``batch``, ``ratio`` latency multiple, ``extra`` serving cost per 1M items
  in money at ``price`` or machine-hours when ``price`` is None, ``setup``, ``break_even`` value of a
  point per 1M items, ``per_month`` at ``monthly_items``; the labelling alternative ``label_status``,
  ``label_items``, ``label_reliable``, ``label_far``, ``label_money``, ``payback_months``).
- evidence gates (``Recommendation.problems``): :data:`NO_CONTEXTUAL`, :data:`ONLY_CONTEXTUAL`,
  :data:`FEW_SIZES` (``n``, ``need``), :data:`FEW_SEEDS` (``thin`` {embedding: seeds}, ``need``),
  :data:`NOTHING_LEARNED` (``score``: what every family scored at every size and seed, e.g. F1 0.0).
- reasons (``Recommendation.reason_notes``): :data:`HEADROOM`, :data:`GAP` (``pair``), :data:`INTERVALS`
  (``hierarchical``, ``n_boot``, ``n_items``), :data:`REPAIRED` (``scores`` {embedding: (repaired,
  strict)}), :data:`LOSS` (``loss``), :data:`EFFICIENCY` (``embedding``, ``baseline``),
  :data:`EXTRAPOLATION` (``embedding``), :data:`BUDGET` (``items``), :data:`COST_RATIO` (``pair``,
  ``ratios`` {column: multiple}, ``encode``: both families' embedding pass in seconds, when known;
  one note for the paper's first baseline, one for the family decided against if another, e.g.
  distilled), :data:`SERVING_PRICE` (``per_hour``, ``prices`` {embedding: price}),
  :data:`OVER_LATENCY` (``embedding``, ``latency``, ``budget``), :data:`SLICES_CARRY` /
  :data:`SLICES_EASY` (``findings`` [(metric, baseline)]: contextual's advantage over ``baseline`` is
  significantly larger on the difficult / the easy items of ``metric``; ``tested``), :data:`SLICES_NONE`
  (``tested``), :data:`ENCODER` (``text``: the encoder's own sentence from :mod:`advisor.contextuality`).
- caveats (``Recommendation.caveat_notes``): :data:`UNDER_TRAINED` (``points``), :data:`SLICE_OVERLAP`
  (``pairs``), :data:`JUDGED_BELOW` (``size``, ``cut_from``, ``min_seeds``), :data:`RUN_STATUS`
  (``status``), :data:`FEW_FIT_SIZES` (``n``,
  ``need``), :data:`LEARNED_NOTHING` (``families`` that scored 0.0 at every size and seed),
  :data:`ENCODER` (``text``), :data:`SETTLED_EARLY` (``size``, ``seeds``, ``looks``, ``not_run``,
  ``total``, ``below``: whether smaller sizes were planned and not measured; ``short``: the families with
  such cells; ``finished``: the families trained at every size after a settled "use contextual", for the
  "label more data" rule, or empty), :data:`TIME_BUDGET`
  (``budget``, ``run``, ``total``, ``not_run``, ``below``: the smallest size measured when smaller ones were
  left out, else 0; ``waived``: the budget was shorter than the first round), :data:`AT_MAJORITY`
  (``points`` [(embedding, size, seeds at or below the baseline, seeds)], ``share``, ``label``: cells
  of a one-label-per-item task that did not beat always predicting the most frequent test label).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from advisor.vocabulary import PAIRS

__all__ = [
    "BASELINES",
    "CONTEXTUAL",
    "DISTILLED_ENOUGH",
    "HIERARCHICAL",
    "INCONCLUSIVE",
    "LABEL_MORE",
    "NONE_WITHIN_BUDGET",
    "NOT_WORTH_IT",
    "RANDOM_ENOUGH",
    "STATIC_ENOUGH",
    "USE_CONTEXTUAL",
    "VERDICTS",
    "WITHIN_BUDGET",
    "Note",
]

#: The family every other one is weighed against: the question is whether it is worth its cost.
CONTEXTUAL = "contextual"
#: The paper's cheaper families, in the order the verdict reads them against contextual (data efficiency,
#: extrapolations, cost ratios, difficulty slices).
BASELINES: tuple[str, ...] = tuple(b for a, b in PAIRS if a == CONTEXTUAL)

USE_CONTEXTUAL = "use contextual"
STATIC_ENOUGH = "static is enough"
#: static vectors distilled from the encoder (advisor.embeddings._distilled) serve well enough
DISTILLED_ENOUGH = "distilled is enough"
RANDOM_ENOUGH = "random is enough"
LABEL_MORE = "label more data instead"
INCONCLUSIVE = "inconclusive"
#: The cost side (advisor.verdict._worth): contextual's advantage is worth less than its extra serving
#: cost at the user's value per point; the family the verdict would name misses the latency budget.
NOT_WORTH_IT = "contextual is not worth its cost"
WITHIN_BUDGET = "use the best within budget"
NONE_WITHIN_BUDGET = "nothing within budget"
#: Every verdict, as the ``advisor.verdict`` tag and ``verdict.json`` name it.
VERDICTS: tuple[str, ...] = (
    USE_CONTEXTUAL,
    DISTILLED_ENOUGH,
    STATIC_ENOUGH,
    RANDOM_ENOUGH,
    LABEL_MORE,
    NOT_WORTH_IT,
    WITHIN_BUDGET,
    NONE_WITHIN_BUDGET,
    INCONCLUSIVE,
)

#: The interval method of a gap computed from per-item scores (``ScoreGap.method``).
HIERARCHICAL = "hierarchical bootstrap over seeds and test items (paired)"

# -- the rule behind the verdict
NOT_JUDGED = "not_judged"
ENOUGH = "enough"
CONTEXTUAL_WINS = "contextual_wins"
CATCH_UP = "catch_up"
STRADDLES = "straddles"
NO_INTERVAL = "no_interval"
STOPPED_EARLY = "stopped_early"
SETTLED = "settled"
WORTH_IT = "worth_it"
NOT_WORTH = "not_worth"
WORTH_UNCLEAR = "worth_unclear"
OVER_BUDGET = "over_budget"
NONE_FITS = "none_fits"

# -- the trade-off stated after a contextual-vs-cheap headline
TRADEOFF = "tradeoff"

# -- evidence gates
NO_CONTEXTUAL = "no_contextual"
ONLY_CONTEXTUAL = "only_contextual"
FEW_SIZES = "few_sizes"
FEW_SEEDS = "few_seeds"
NOTHING_LEARNED = "nothing_learned"

# -- reasons
HEADROOM = "headroom"
GAP = "gap"
INTERVALS = "intervals"
REPAIRED = "repaired"
LOSS = "loss"
EFFICIENCY = "efficiency"
EXTRAPOLATION = "extrapolation"
BUDGET = "budget"
COST_RATIO = "cost_ratio"
SERVING_PRICE = "serving_price"
OVER_LATENCY = "over_latency"
SLICES_CARRY = "slices_carry"
SLICES_NONE = "slices_none"
SLICES_EASY = "slices_easy"
ENCODER = "encoder"

# -- caveats
UNDER_TRAINED = "under_trained"
SLICE_OVERLAP = "slice_overlap"
JUDGED_BELOW = "judged_below"
RUN_STATUS = "run_status"
FEW_FIT_SIZES = "few_fit_sizes"
LEARNED_NOTHING = "learned_nothing"
SETTLED_EARLY = "settled_early"
TIME_BUDGET = "time_budget"
AT_MAJORITY = "at_majority"


@dataclass(frozen=True)
class Note:
    """One thing the decision found: a code (above) and the numbers a sentence about it needs."""

    code: str
    values: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, key: str) -> Any:
        return self.values[key]
