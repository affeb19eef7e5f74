"""Where does context help? A LightGBM model of the contextual advantage, and predictions for new text.

After a run, :func:`fit_gain_model` learns, per evaluation unit (sentence for classification, token
for NER), how much more often contextual embeddings are right than static ones (random when static
was not run), from the difficulty metrics and cheap text features that need only training-set
statistics. It reports an honest grouped cross-validated AUC / R², global and per-unit explanations,
and sentences a practitioner can act on. The boosters (LightGBM text format) and the statistics are
files (:func:`save_gain_files`, :meth:`GainModel.load`); the record layer keeps them in the run
(``advisor.tracking.log_gain_model`` / ``load_gain_model``), so :func:`predict_gain` can score
unlabelled production text with nothing else (``advisor predict-gain``). Nothing here touches MLflow.

    result = fit_gain_model("ner", splits.train, splits.test, predictions)
    log_gain_model(tracker, result)  # advisor.tracking
    model = load_gain_model("latest")  # advisor.tracking
    forecast = predict_gain(model, read_unlabelled("traffic.txt", model.task).tokens)
"""

from __future__ import annotations

from advisor.gain._features import (
    FEATURES,
    NEVER_SEEN,
    FeatureSpec,
    TrainingStatistics,
    default_features,
    gain_features,
    item_of,
    unit_of,
)
from advisor.gain._fit import (
    FIT_SCHEME,
    CVScore,
    GainResult,
    advantage_table,
    fit_gain_model,
    fit_scheme_for,
    lgb_params,
)
from advisor.gain._model import GAIN_FILES, GainModel, gain_summary, save_gain_files
from advisor.gain._predict import FORMATS, GainForecast, UnlabelledText, predict_gain, read_unlabelled

__all__ = [
    "FEATURES",
    "FIT_SCHEME",
    "FORMATS",
    "GAIN_FILES",
    "NEVER_SEEN",
    "CVScore",
    "FeatureSpec",
    "GainForecast",
    "GainModel",
    "GainResult",
    "TrainingStatistics",
    "UnlabelledText",
    "advantage_table",
    "default_features",
    "fit_gain_model",
    "fit_scheme_for",
    "gain_features",
    "gain_summary",
    "item_of",
    "lgb_params",
    "predict_gain",
    "read_unlabelled",
    "save_gain_files",
    "unit_of",
]
