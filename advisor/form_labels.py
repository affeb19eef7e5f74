"""The app's run form: which run settings it shows, and with which labels.

Why apart from :mod:`advisor.settings`: they are the form's words, not the settings' shape (the key,
default and choices of each field come from the settings schema); the settings module re-exports them
under the name every reader already uses.
"""

from __future__ import annotations

__all__ = ["FORM_LABELS"]

#: The app's run form: the settings it shows, with their labels (key, default and choices come from the schema).
FORM_LABELS: dict[str, str] = {
    "profile": "Profile (grid and training effort)",
    "embeddings": "Embeddings",
    "until": "Train until (decided: stop once the verdict is settled; complete: the whole grid)",
    "budget": "Time budget (e.g. 10m, 1h30m; blank: none)",
    "sizes": "Sizes",
    "fractions": "Fractions",
    "seeds": "Seeds (0: the profile's)",
    "contextual": "Contextual encoder (HF id or local folder; blank: packaged all-MiniLM-L6-v2)",
    "layer": "Layer (mix, last, an index, or mean-last-K)",
    "pooling": "Sub-word pooling",
    "pair_encoding": "Pair encoding (joint: both texts as one encoder input; separate: each alone)",
    "static": "Static vectors file (blank: packaged GloVe 6B 50d)",
    "experiment": "MLflow experiment",
    "backend": "Backend",
    "ray_address": "Ray address (blank: start a local Ray runtime)",
    "acceptable_loss": "Acceptable loss, 0-1 score scale (0.01 = 1 point; blank: 0.01)",
    "latency_budget_ms": "Latency budget, ms/item (blank: none)",
    "latency_batch": "Batch size of the latency budget",
    "monthly_items": "Serving volume, items per month (blank: not stated)",
    "price_per_hour": "Serving machine price per hour (blank: costs in machine-hours)",
    "value_per_point": "Value of one accuracy point per 1M items served (needs a price)",
    "label_cost": "Cost of labelling one item (blank: not priced)",
}
