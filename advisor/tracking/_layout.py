"""Where everything lives in a run: tag names, run kinds and artifact paths, named once.

Why one module: readers (the report, the app, ``advisor report`` on an old store) and writers must
agree on every name; a literal in two places is a layout that can drift. Changing a value here
changes what existing stores read, so these are fixed.
"""

from __future__ import annotations

__all__ = [
    "ANALYSIS_COMPLETE",
    "ANALYSIS_KIND",
    "ANALYSIS_STATE_TAG",
    "BUDGET_STOP_TAG",
    "BUDGET_TAG",
    "CELLS_TABLE",
    "CHILD_KIND",
    "CONTEXTUALITY_FIGURE",
    "CONTEXTUALITY_KIND",
    "CONTEXTUALITY_TABLE",
    "CURVES_FIGURE",
    "CURVES_TABLE",
    "DECISION_TAG",
    "EARLY_STOP_TAG",
    "EARLY_VERDICT_TAG",
    "EMBEDDING_TAG",
    "GAIN_CONTRIBUTIONS_TABLE",
    "GAIN_FOLDER",
    "GAIN_IMPORTANCE_TABLE",
    "GAIN_SKIPPED_TAG",
    "GAIN_SUMMARY",
    "GAPS_FIGURE",
    "GAPS_TABLE",
    "ITEMS_TABLE",
    "ITEM_SCORES_ARTIFACT",
    "KEY_TAG",
    "KIND_TAG",
    "LAYERS_FIGURE",
    "LAYERS_KIND",
    "LAYERS_MIX_TABLE",
    "LAYERS_TABLE",
    "LAYER_TABLES",
    "LR_TAG",
    "MIX_WEIGHTS_FIGURE",
    "MIX_WEIGHTS_TABLE",
    "PARENT_TAG",
    "PRICE_TAG",
    "PROJECTION_TAG",
    "READER_WARNINGS_TABLE",
    "READER_WARNINGS_TAG",
    "REPORT_FIGURES",
    "REPORT_FOLDER",
    "SEED_TAG",
    "SERVING_ARTIFACT",
    "TASK_TAG",
    "TEST_TOKENS_TABLE",
    "UNTIL_TAG",
    "VERDICT_ARTIFACT",
    "VERDICT_TAG",
    "child_runs_filter",
    "known_rates",
    "known_widths",
    "predictions_artifact",
]

# -- tags -------------------------------------------------------------------------------------------

#: What a run is: an analysis (parent), one of its cells' curves (child), a layer sweep, a contextuality run.
KIND_TAG = "advisor.kind"
ANALYSIS_KIND = "analysis"
CHILD_KIND = "curve"
LAYERS_KIND = "layers"
CONTEXTUALITY_KIND = "contextuality"
PARENT_TAG = "mlflow.parentRunId"
KEY_TAG = "advisor.key"  # hash of data + settings: the resume key
TASK_TAG = "advisor.task"
EMBEDDING_TAG = "advisor.embedding"  # a child's embedding
SEED_TAG = "advisor.seed"  # a child's seed
VERDICT_TAG = "advisor.verdict"
GAIN_SKIPPED_TAG = "advisor.gain_skipped"  # why the gain model was not fitted
PRICE_TAG = "advisor.price_per_hour"  # a tag, so a later run may change it; the verdict reads params
#: The decision inputs the run was given (``advisor.settings.DECISION_INPUTS``), a JSON object: a tag
#: rewritten by every process (a resume without them clears them), read into ``params[DECISION_PARAM]``.
DECISION_TAG = "advisor.decision_inputs"
#: Whether every analysis stage and the report were recorded: "running" while they run, then
#: :data:`ANALYSIS_COMPLETE`. A re-run finds the analysis finished only by this tag, not by one artifact.
ANALYSIS_STATE_TAG = "advisor.analysis_state"
ANALYSIS_COMPLETE = "complete"
#: How many warnings the data readers raised (the warnings themselves: :data:`READER_WARNINGS_TABLE`).
READER_WARNINGS_TAG = "advisor.reader_warnings"
#: Prefix + family name: the learning rate chosen for that family on dev (``advisor.pipeline._tune``).
LR_TAG = "advisor.lr."
#: Prefix + family name: the projection width chosen for that family on dev with its rate.
PROJECTION_TAG = "advisor.projection."
#: How many learning-rate trials :data:`TRIALS_TABLE` holds (absent: none kept).
TRIALS_TAG = "advisor.trials_kept"
#: ``--until`` of the latest process ("complete" or "decided"): a tag, so a resume may finish the grid;
#: read into ``params["until"]``.
UNTIL_TAG = "advisor.until"
#: ``--until decided``: the latest early verdict line (rewritten after every look at the largest size).
EARLY_VERDICT_TAG = "advisor.early_verdict"
#: ``--until decided``: the settled stop as JSON (the claim, the look, the cells not run); "" when the
#: run did not stop early. Read into ``params["early_stop"]`` when ``until`` is "decided".
EARLY_STOP_TAG = "advisor.early_stop"
#: ``--budget`` of the latest process that trained, as written back ("10 min"; "" without one).
BUDGET_TAG = "advisor.budget"
#: What the budget left out, as JSON (``advisor.pipeline._budget.BudgetStop``); "" when the latest process
#: trained every cell it planned. Read into ``params["budget_stop"]``.
BUDGET_STOP_TAG = "advisor.budget_stop"

# -- the parent's artifacts ---------------------------------------------------------------------------

CELLS_TABLE = "analysis/cells.json"
CURVES_TABLE = "analysis/curves.json"
ITEMS_TABLE = "analysis/items.json"
GAPS_TABLE = "analysis/gaps.json"
ITEM_SCORES_ARTIFACT = "analysis/item_scores.npz"
VERDICT_ARTIFACT = "analysis/verdict.json"
CONTEXTUALITY_TABLE = "analysis/contextuality.json"
MIX_WEIGHTS_TABLE = "analysis/mix_weights.json"
SERVING_ARTIFACT = "analysis/serving_costs.json"
TEST_TOKENS_TABLE = "analysis/test_tokens.json"
#: Every learning-rate trial finished so far, rewritten after each: tuning stopped half-way resumes from it.
TRIALS_TABLE = "analysis/tuning_trials.json"
READER_WARNINGS_TABLE = "data/reader_warnings.json"  # one row per warning the readers raised
#: The parent tables an Analysis carries as ``layer_tables``, by their name there.
LAYER_TABLES: dict[str, str] = {"contextuality": CONTEXTUALITY_TABLE, "mix_weights": MIX_WEIGHTS_TABLE}
GAIN_IMPORTANCE_TABLE = "analysis/gain_importance.json"
GAIN_CONTRIBUTIONS_TABLE = "analysis/gain_contributions.json"
GAIN_SUMMARY = "analysis/gain_summary.json"
GAIN_FOLDER = "gain"  # the gain model's files (advisor.gain.GAIN_FILES) under this folder
CURVES_FIGURE = "figures/learning_curves.png"
GAPS_FIGURE = "figures/difficulty_gaps.png"
CONTEXTUALITY_FIGURE = "figures/contextuality.png"
MIX_WEIGHTS_FIGURE = "figures/mix_weights.png"
REPORT_FOLDER = "report"  # report.html, report.md
REPORT_FIGURES = "report/figures"

# -- a layer sweep's run ------------------------------------------------------------------------------

LAYERS_TABLE = "analysis/layers.json"
LAYERS_MIX_TABLE = "analysis/layer_sweep_mix_weights.json"
LAYERS_FIGURE = "figures/layers.png"


def predictions_artifact(size: int) -> str:
    """A child's per-item predictions at training-set size ``size``."""
    return f"predictions/size_{size:07d}.json"


def child_runs_filter(parent_id: str) -> str:
    """MLflow filter string selecting the cell runs (``advisor.kind=curve``) under ``parent_id``."""
    return f"tags.`{PARENT_TAG}` = '{parent_id}' and tags.`{KIND_TAG}` = '{CHILD_KIND}'"


def known_rates(tags: dict[str, str]) -> dict[str, float]:
    """The learning rate chosen per family, read from a parent run's tags."""
    return {k[len(LR_TAG) :]: float(v) for k, v in tags.items() if k.startswith(LR_TAG)}


def known_widths(tags: dict[str, str]) -> dict[str, int]:
    """The projection width chosen per family with its rate (none in stores from before widths were tagged)."""
    return {k[len(PROJECTION_TAG) :]: int(v) for k, v in tags.items() if k.startswith(PROJECTION_TAG)}
