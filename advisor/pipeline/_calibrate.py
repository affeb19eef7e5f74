"""Training's pace timed on this machine before a long run: the run's own downstream model, a few
optimizer steps and dev passes per family, on a sample of the user's texts.

Why: with nothing recorded on a machine, the first estimate priced every step at a 2-core constant
(0.05 s), and a CoNLL-size run took 139 min where it said 67: its steps cost 0.06-0.10 s there, the
more the larger the dev set each evaluation passes over. The features are random numbers of the
shape and storage each family hands its cells (float16 rows of the random table's and the static
vectors' width; the encoder's int8 layer stack read through the run's layer choice), so no encoder
runs and no text is featurized. On 2 idle cores the default profile's 6 timings (3 families x 2
widths) and the encoder's took 34-41 s together, once per task and device.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from advisor.data import Corpus, DataSplits
from advisor.grid import StepCost
from trainers import TokenFeatures, TrainConfig, offsets_from_lengths

__all__ = ["CALIBRATED_FAMILIES", "calibrate_training", "synthetic_features"]

#: Families whose feature shape is known without running them; the others are priced at their mean.
CALIBRATED_FAMILIES = ("random", "static", "contextual")
_STEPS = 30  # timed optimizer steps per family (two dev passes among them)
_TRAIN_ITEMS = 256
_DEV_ITEMS = 512  # a dev pass has a fixed cost: 128 items showed it as a higher per-item cost


def calibrate_training(
    splits: DataSplits, options: dict[str, dict[str, Any]], config: TrainConfig, widths: tuple[int, ...] = ()
) -> dict[tuple[str, int], StepCost]:
    """(family, projection width) -> its pace on this machine: seconds per optimizer step without dev
    passes, and seconds per dev item evaluated. ``options``: each family's embedding options;
    ``config``: the cells' model (its budget is replaced); ``widths``: the projection widths the run
    tries (default: the config's; a 256-wide step costs about twice a 64-wide one). Sentence pairs
    and families of unknown shape are not timed."""
    if splits.train.is_pair or len(splits.train) < 2 or len(splits.dev) < 1:
        return {}
    rng = np.random.default_rng(0)
    train, dev = _sample(splits.train, _TRAIN_ITEMS, rng), _sample(splits.dev, _DEV_ITEMS, rng)
    budget = {"max_steps": _STEPS, "min_steps": _STEPS, "eval_every": _STEPS // 2, "seed": 0}
    costs = {}
    for family in (f for f in CALIBRATED_FAMILIES if f in options):
        train_feats, dev_feats = (
            synthetic_features(family, options[family], part, rng) for part in (train, dev)
        )
        for width in widths or (config.projection,):
            timed = TrainConfig(**{**config.to_dict(), **budget, "projection": width})
            costs[family, width] = _time(train_feats, train, dev_feats, dev, timed)
    return costs


def _sample(corpus: Corpus, n: int, rng: np.random.Generator) -> Corpus:
    """Up to ``n`` items drawn without replacement (the texts' lengths are what the pace depends on)."""
    return corpus.subset(np.sort(rng.permutation(len(corpus))[:n]))


def _time(
    train_feats: TokenFeatures, train: Corpus, dev_feats: TokenFeatures, dev: Corpus, config: TrainConfig
) -> StepCost:
    """One short training, its dev passes timed apart: the passes a cell repeats, not the final scoring
    pass (which also computes probabilities)."""
    from trainers import fit_and_evaluate

    result = fit_and_evaluate(train_feats, train, dev_feats, dev, dev_feats, dev, config)
    dev_item_s = result.dev_seconds / max(len(result.dev_history) * len(dev), 1)
    step_s = max(result.train_seconds - result.dev_seconds, 0.0) / max(result.steps, 1)
    return StepCost(step_s, dev_item_s)


def synthetic_features(
    family: str, options: dict[str, Any], corpus: Corpus, rng: np.random.Generator
) -> TokenFeatures:
    """Random features of the shape and storage ``family`` gives its cells for ``corpus``."""
    from advisor.embeddings import QuantizedStack, make_embedding

    offsets = offsets_from_lengths([len(tokens) for tokens in corpus.tokens])
    words = int(offsets[-1])
    if family != "contextual":
        embedding = make_embedding(family, **options)
        rows = rng.standard_normal((words, embedding.dim), dtype=np.float32).astype(np.float16)
        return TokenFeatures(rows, offsets)
    encoder = make_embedding(family, **{**options, "use_cache": False})  # its config only: no weights
    layers = encoder.n_layers + 1  # the input embeddings and every hidden layer
    codes = rng.integers(-127, 128, size=(words, layers, encoder.dim), dtype=np.int8)
    scales = np.full((words, layers), 1 / 127, dtype=np.float16)
    return encoder.read_choice(TokenFeatures(QuantizedStack(codes, scales), offsets))  # type: ignore[arg-type]
