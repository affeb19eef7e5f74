"""The report's "Method" section: how every number the verdict states was obtained, in plain sentences.

Kept beside the code that does it, so the text cannot drift from the computation: each sentence reads
the run (which interval method was used, how many replicates, tests and items) rather than
describing an ideal.
"""

from __future__ import annotations

import json
import math
from typing import Any

from advisor.analysis import Analysis
from advisor.stats import significance_level
from advisor.verdict._efficiency import HIERARCHICAL
from advisor.verdict._recommend import Recommendation
from advisor.verdict._sequential import sequential_method

__all__ = ["method_notes"]


def _uncertainty(analysis: Analysis, rec: Recommendation) -> str:
    t = rec.thresholds
    if rec.gaps and rec.gaps[0].method == HIERARCHICAL and analysis.item_scores is not None:
        unit = (
            "sentences (all entities of a drawn sentence come along)" if analysis.task == "ner" else "items"
        )
        return (
            f"Uncertainty: one hierarchical bootstrap ({t.n_boot:,} replicates) for the full-data gaps, the "
            f"data-efficiency ratios and the slice gaps. Each replicate draws the seeds with replacement (one "
            f"draw for every embedding and size: paired) and the {analysis.item_scores.n_items:,} test {unit} "
            "with replacement (one draw for every cell), recomputes each cell's score from its per-item counts "
            "(NER: strict-IOB2 TP/FP/FN per sentence; classification: correct per item), averages the drawn "
            "seeds and forms the statistic. Seed deviations are scaled by sqrt(n/(n-1)) to undo the shrinkage "
            f"of resampling n seeds. Intervals are {t.confidence:.0%} percentile intervals; P(gap > "
            f"{100 * t.acceptable_loss:.1f} pts) is the share of replicates above the acceptable loss."
        )
    return (
        "Uncertainty: this run logged no per-item test scores, so intervals are over seeds only (paired "
        "t-interval; seed bootstrap for the data-efficiency ratio) and leave out test-set sampling."
    )


def _slices(rec: Recommendation) -> str | None:
    tested = [s for s in rec.slices if math.isfinite(s.p_holm)]
    if not rec.slices:
        return None
    if not tested:
        return "Difficulty slices: the slice table has no p-values (older run), so claims are not corrected."
    return (
        f"Difficulty slices: a difference between the difficult and easy slice counts only when its bootstrap "
        f"p-value, Holm-corrected over the {len(tested)} (metric, pair) tests, is below "
        f"{significance_level(rec.thresholds.confidence):g}. Difficulty values come from the full training set, so only "
        "full-data cells are sliced. Items never seen in training are not applicable to ambiguity (NaN, in "
        "neither slice); classification ambiguity averages p(label | word) over seen words only. The overlap "
        "table shows how far two metrics pick the same items (warning at 80 % same or mirror-image split "
        "with |kappa| ≥ 0.4)."
    )


def _training(analysis: Analysis) -> str | None:
    """The downstream model every embedding shares, and what it computed in (older runs: float32)."""
    raw = (analysis.params or {}).get("train_config")  # MLflow params are strings: here, JSON
    if not raw:
        return None
    config: dict[str, Any] = json.loads(raw)
    model = _projected(config) + _downstream_model(analysis.task, config)
    precision = config.get("precision", "float32")
    rounding = " (activations rounded to bfloat16; weights, loss and optimizer in float32)"
    return (
        f"Downstream model: the same for every embedding, on frozen features: {model}, batch "
        f"{config.get('batch_size')}, {_learning_rate(config, analysis.params)}, dropout {config.get('dropout')}; "
        f"{_budget(config)}; computed in {precision}{rounding if precision == 'bfloat16' else ''}."
    )


def _projected(config: dict[str, Any]) -> str:
    """The learnt map every family's vectors pass first: its width decides whether a wide embedding is
    squeezed or a narrow one widened, so a reader must see it ('' for stores that did not log it)."""
    width, widths = config.get("projection"), config.get("projection_grid")
    if widths and not width:
        return "a learnt linear projection of the vectors (its width chosen on dev, below), then "
    return f"a learnt linear projection of the vectors to {width} dimensions, then " if width else ""


def _downstream_model(task: str, config: dict[str, Any]) -> str:
    """The head every family trains, in words: the tagger, the classifier, or the pair model around it."""
    hidden = config.get("hidden")
    if task == "ner":
        return f"a BiLSTM tagger (hidden {hidden}{', CRF' if config.get('use_crf') else ''})"
    encoder = f"{str(config.get('classifier', 'cnn')).upper()}"
    if task == "pair":
        return (
            f"one {encoder} encoder (hidden {hidden}) shared by both texts of a pair, their pooled vectors "
            "u, v combined as [u; v; |u − v|; u ⊙ v] and classified by an MLP"
        )
    return f"a {encoder} classifier (hidden {hidden})"


#: The rate rule of advisor.pipeline._tune in words; older stores keep the words of the rule they used.
_LR_RULE = (
    "the largest rate whose lower bound (mean dev score less its own standard error) and mean both come "
    "within one standard error (the median over rates) of the rate with the best bound"
)
_WIDTH_RULE = (
    "among the settings whose lower bound (mean dev score less its own standard error) and mean both come "
    "within one standard error (the median over settings) of the setting with the best bound, the "
    "narrowest width, and at it the largest rate"
)
_LR_RULES = {
    "narrowest width, then largest rate, among those within 1 median SE of the best bound's": _WIDTH_RULE,
    "largest within 1 SE of the best mean dev": "the largest rate within one standard error of the best mean dev score",
    "largest within 1 median SE of the best mean-minus-own-SE dev": (
        "the largest rate whose lower bound (mean dev score less its own standard error) is within one "
        "standard error (the median over rates) of the best bound"
    ),
}


def _learning_rate(config: dict[str, Any], params: dict[str, Any]) -> str:
    """A fixed rate, or the rate each family chose on dev from the grid (the same grid for every family)."""
    if config.get("lr") is not None:
        return f"learning rate {config['lr']} for every embedding"
    grid = "{" + ", ".join(f"{lr:g}" for lr in config.get("lr_grid", [])) + "}"
    chosen = json.loads(params.get("learning_rates") or "{}")
    widths = config.get("projection_grid")
    dims = json.loads(params.get("projections") or "{}") if widths else {}
    picked = ", ".join(
        f"{e} {lr:g}" + (f" at {dims[e]} dims" if e in dims else "") for e, lr in chosen.items()
    )
    seeds = int(config.get("lr_seeds") or 1)
    rule = _LR_RULES.get(str(config.get("lr_choice")), _LR_RULE)
    tried = f"{seeds} seeds; {rule}" if seeds > 1 else "one seed"
    what, per = ("learning rate", "rate")
    if widths:
        grid += " x projection widths {" + ", ".join(str(w) for w in widths) + "}"
        what, per = ("learning rate and projection width", "setting")
    return (
        f"{what} chosen per embedding on dev from {grid} (models per {per} at the grid's middle "
        f"size, {tried}; the same grid and effort for every embedding){'; chosen: ' + picked if picked else ''}"
    )


def _budget(config: dict[str, Any]) -> str:
    """The training rule: a step budget with early stopping on dev, the same for every embedding."""
    every = config.get("eval_every")
    cadence = f"every {every} steps" if every else "every epoch of the cell's training set (20-100 steps)"
    anneals = int(config.get("anneals") or 0)
    plateau = (
        f"dev had not improved for {config.get('patience')} evaluations after at least {config.get('min_steps')} "
        "steps"
    )
    if anneals:
        stop = (
            f"the learning rate halved each time {plateau} (at most {anneals} times), and training stopped at "
            "the next such plateau"
        )
    else:
        stop = f"stopped once {plateau}"
    return (
        f"trained in optimizer steps, dev scored {cadence}, {stop}, at most "
        f"{config.get('max_steps')} steps (a cell that reached the ceiling while dev still improved is flagged "
        "under-trained); the best-on-dev weights are kept"
    )


def _costs(rec: Recommendation) -> str | None:
    if rec.costs is None:
        return None
    if rec.costs.serving_measured:
        return (
            f"Serving cost: a dedicated pass per embedding, {rec.costs.provenance_text()}: raw text is tokenized, "
            "embedded (the encoder runs, no feature cache) and fed to a downstream model of the run's architecture, "
            "at batch 1 and 64; serving memory = weights held (vector table or encoder + downstream model) + the "
            "features of one batch of 64. Stored with its provenance and kept on resume, so the ratios do not "
            "depend on the cache or the order of runs. Training time is the downstream model's; the embedding's "
            "own pass over train/dev/test is stated apart. Training peak memory below 1 MB is not shown (what "
            "resident-memory sampling cannot resolve)."
        )
    return (
        "Serving cost: this run predates the dedicated serving pass; latency is featurization time (which "
        "depends on the feature cache) plus downstream inference, and memory is a training-time high-water mark."
    )


def _worth(rec: Recommendation) -> str:
    """The cost rule (advisor.verdict._worth), with the inputs this verdict was judged under."""
    t = rec.thresholds
    price = f"${t.price_per_hour:g} per machine-hour" if t.price_per_hour is not None else "no price given"
    value = f"${t.value_per_point:g}" if t.value_per_point is not None else "not given"
    budget = (
        "none"
        if t.latency_budget_ms is None
        else f"{t.latency_budget_ms:g} ms/item at batch {t.latency_batch}"
    )
    return (
        "Cost against accuracy: after a verdict between contextual and the cheap family it was weighed against, "
        "the headline states the trade-off: the gap with its interval, contextual's serving-latency multiple "
        "at the budget's batch size, and its extra serving cost per 1M items from the measured batch-64 "
        f"throughput (machine-hours × the price per hour; {price}: without one it stays in machine-hours rather "
        "than at an assumed price), per month at the serving volume, the break-even value of one point (extra "
        "cost ÷ gap in points), and the labelling alternative (the cheap family's extrapolated extra items, at "
        "the cost per label). With a value per point (money per point per 1M items served; here "
        f"{value}), contextual is worth it only if the lower end of its gap's interval times that value exceeds "
        "its extra serving cost, not worth it if the upper end's value falls short, and undecided when the "
        "interval straddles the break-even; 'enough' and 'label more' verdicts stand. A family over the latency "
        f"budget (here {budget}) is never the recommendation: when the verdict would name one, the best-scoring "
        "family within the budget is recommended, with its gap to the best one over it."
    )


def method_notes(analysis: Analysis, rec: Recommendation) -> list[str]:
    """Sentences for the report's Method section (what was measured, how, and on which data)."""
    from advisor.gain import FIT_SCHEME

    notes = [_uncertainty(analysis, rec)]
    if analysis.task == "ner":
        notes.append(
            "Scores: seqeval strict IOB2 entity micro-F1 on the raw predictions (a stray I- tag is an error); "
            "when repairing stray I- tags would change a score, the verdict states the repaired F1 beside it."
        )
    notes.append(
        "Random baseline: one random circulant table per training seed, drawn from the seed, so the seed "
        "spread includes the draw of the table."
    )
    notes += [n for n in (_training(analysis), _slices(rec), _costs(rec)) if n]
    notes.append(_worth(rec))
    if analysis.params.get("until") == "decided":  # the run looked after every round: the rule it used
        seeds = analysis.params.get("seeds")
        looks = len(seeds) if isinstance(seeds, list) else int(seeds or rec.n_seeds or 1)
        notes.append(sequential_method(looks, rec.thresholds.confidence))
    # classification: one text is one item, so the scheme speaks of items
    scheme = FIT_SCHEME if analysis.task == "ner" else FIT_SCHEME.replace("sentence", "item")
    notes.append(f"Gain model: {scheme}.")
    return notes
