"""Downstream models trained on frozen word features: the same model for every embedding.

``fit_and_evaluate(train_feats, train_corpus, dev_feats, dev_corpus, eval_feats, eval_corpus,
config)`` trains a BiLSTM(-CRF) tagger (NER), a CNN / BiLSTM classifier or, for sentence pairs,
that classifier's encoder over each text with an MLP on ``[u; v; |u - v|; u * v]``, early-stops on dev and
returns a :class:`TrainResult` with eval scores, per-item predictions and p(gold), and costs. The
headline metric comes from the caller's task spec (``scoring=TaskScoring(task, primary_metric)``),
else the task's default (:func:`default_primary`).
``finetune_and_evaluate(model, train, dev, eval, FineTuneConfig())`` is the fine-tuned reference: the
encoder itself trained end to end with a linear head, returning the same :class:`TrainResult`.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

#: Public name -> private module. Resolved on first use (PEP 562), so importing the light modules
#: (``trainers._errors``, ``trainers._features``, which ``advisor`` re-exports) does not load torch.
_EXPORTS = {
    "BiLSTMPoolClassifier": "_classifier",
    "CNNClassifier": "_classifier",
    "PairClassifier": "_pair",
    "CLASSIFIERS": "_config",
    "PRECISIONS": "_config",
    "TrainConfig": "_config",
    "TrainResult": "_config",
    "LinearChainCRF": "_crf",
    "iob2_allowed_transitions": "_crf",
    "classification_scores": "_evaluate",
    "ner_scores": "_evaluate",
    "repair_iob2": "_evaluate",
    "resolve_precision": "_precision",
    "TaskScoring": "_scoring",
    "default_primary": "_scoring",
    "fit_and_evaluate": "_loop",
    "FineTuneConfig": "_finetune",
    "FineTuner": "_finetune",
    "finetune_and_evaluate": "_finetune",
    "ServingModel": "_model",
    "label_set": "_batches",
    "eval_interval": "_budget",
    "AdvisorError": "_errors",
    "ConfigError": "_errors",
    "ErrorCode": "_errors",
    "InputError": "_errors",
    "define_in": "_errors",
    "RowView": "_features",
    "TokenFeatures": "_features",
    "offsets_from_lengths": "_features",
    "CASING_CLASSES": "_tagger",
    "BiLSTMTagger": "_tagger",
    "casing_ids": "_tagger",
}

if TYPE_CHECKING:
    from trainers._batches import label_set
    from trainers._budget import eval_interval
    from trainers._classifier import BiLSTMPoolClassifier, CNNClassifier
    from trainers._config import CLASSIFIERS, PRECISIONS, TrainConfig, TrainResult
    from trainers._crf import LinearChainCRF, iob2_allowed_transitions
    from trainers._errors import AdvisorError, ConfigError, ErrorCode, InputError, define_in
    from trainers._evaluate import classification_scores, ner_scores, repair_iob2
    from trainers._features import RowView, TokenFeatures, offsets_from_lengths
    from trainers._finetune import FineTuneConfig, FineTuner, finetune_and_evaluate
    from trainers._loop import fit_and_evaluate
    from trainers._model import ServingModel
    from trainers._pair import PairClassifier
    from trainers._precision import resolve_precision
    from trainers._scoring import TaskScoring, default_primary
    from trainers._tagger import CASING_CLASSES, BiLSTMTagger, casing_ids


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'trainers' has no attribute {name!r}")
    value = getattr(import_module(f"trainers.{_EXPORTS[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "CASING_CLASSES",
    "CLASSIFIERS",
    "PRECISIONS",
    "AdvisorError",
    "BiLSTMPoolClassifier",
    "BiLSTMTagger",
    "CNNClassifier",
    "ConfigError",
    "ErrorCode",
    "FineTuneConfig",
    "FineTuner",
    "InputError",
    "LinearChainCRF",
    "PairClassifier",
    "RowView",
    "ServingModel",
    "TaskScoring",
    "TokenFeatures",
    "TrainConfig",
    "TrainResult",
    "casing_ids",
    "classification_scores",
    "default_primary",
    "define_in",
    "eval_interval",
    "finetune_and_evaluate",
    "fit_and_evaluate",
    "iob2_allowed_transitions",
    "label_set",
    "ner_scores",
    "offsets_from_lengths",
    "repair_iob2",
    "resolve_precision",
]
