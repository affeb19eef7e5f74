"""Word-level embeddings compared by the advisor: random circulant, static vectors, static vectors distilled
from an encoder, frozen encoders.

``make_embedding(name, **options)`` builds one by its registry name; every embedding is fitted on
the training split and then turns any :class:`~advisor.data.Corpus` into
:class:`~advisor.features.TokenFeatures` (one row per word). Contextual features are cached on disk
once per corpus with every hidden layer (fp16 stack); the ``layer`` option only chooses how that
stack is read ("mix" hands the whole stack to the downstream model's scalar mix).
"""

from __future__ import annotations

from advisor.embeddings._base import (
    EMBEDDING_NAMES,
    Coverage,
    Embedding,
    default_cache_dir,
    embedding_choices,
    make_embedding,
)
from advisor.embeddings._cache import CACHE_FORMAT, FeatureCache, FeatureWriter, tokens_hash
from advisor.embeddings._contextual import (
    DTYPES,
    PAIR_ENCODINGS,
    POOLINGS,
    ContextualEmbedding,
    check_pair_encoding,
    default_encoder,
    model_fingerprint,
)
from advisor.embeddings._distilled import (
    DEFAULT_DISTILL_LAYER,
    DistilledEmbedding,
    Model2VecTable,
    parse_distill_layer,
)
from advisor.embeddings._encoder_files import encoder_depth
from advisor.embeddings._layer_choice import LayerChoice, parse_layer
from advisor.embeddings._quantized import QuantizedStack, quantize
from advisor.embeddings._random import UNKNOWN_ROW, RandomEmbedding, circulant_table
from advisor.embeddings._sentence_models import is_sentence_embedding_model
from advisor.embeddings._static import PACKAGED_GLOVE, StaticEmbedding, VectorTable, is_float, load_vectors

__all__ = [
    "CACHE_FORMAT",
    "DEFAULT_DISTILL_LAYER",
    "DTYPES",
    "EMBEDDING_NAMES",
    "PACKAGED_GLOVE",
    "PAIR_ENCODINGS",
    "POOLINGS",
    "UNKNOWN_ROW",
    "ContextualEmbedding",
    "Coverage",
    "DistilledEmbedding",
    "Embedding",
    "FeatureCache",
    "FeatureWriter",
    "LayerChoice",
    "Model2VecTable",
    "QuantizedStack",
    "RandomEmbedding",
    "StaticEmbedding",
    "VectorTable",
    "check_pair_encoding",
    "circulant_table",
    "default_cache_dir",
    "default_encoder",
    "embedding_choices",
    "encoder_depth",
    "is_float",
    "is_sentence_embedding_model",
    "load_vectors",
    "make_embedding",
    "model_fingerprint",
    "parse_distill_layer",
    "parse_layer",
    "quantize",
    "tokens_hash",
]
