"""advisor: are contextual embeddings (BERT-class) worth their cost on your data?

Trains random, static (GloVe) and contextual (BERT-class) embeddings, frozen, under the same
downstream model over data-size curves; scores every evaluation item for difficulty; logs to MLflow;
and turns it into a verdict (Arora et al., ACL 2020, and beyond).
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
