"""Downstream models trained on frozen word features: the same model for every embedding.

``fit_and_evaluate(train_feats, train_corpus, dev_feats, dev_corpus, eval_feats, eval_corpus,
config)`` trains a BiLSTM(-CRF) tagger (NER) or a CNN / BiLSTM classifier, early-stops on dev and
returns a :class:`TrainResult` with eval scores, per-item predictions and p(gold), and costs.
"""

from __future__ import annotations

from trainers._classifier import BiLSTMPoolClassifier, CNNClassifier
from trainers._config import CLASSIFIERS, TrainConfig, TrainResult
from trainers._crf import LinearChainCRF, iob2_allowed_transitions
from trainers._evaluate import classification_scores, ner_scores, repair_iob2
from trainers._loop import fit_and_evaluate
from trainers._tagger import CASING_CLASSES, BiLSTMTagger, casing_ids

__all__ = [
    "CASING_CLASSES",
    "CLASSIFIERS",
    "BiLSTMPoolClassifier",
    "BiLSTMTagger",
    "CNNClassifier",
    "LinearChainCRF",
    "TrainConfig",
    "TrainResult",
    "casing_ids",
    "classification_scores",
    "fit_and_evaluate",
    "iob2_allowed_transitions",
    "ner_scores",
    "repair_iob2",
]
