"""What the MLflow UI shows of an analysis: the experiment's kind, the run's description, its datasets.

MLflow 3 opens an experiment on its GenAI overview unless the experiment carries
``mlflow.experimentKind = custom_model_development``; the run page's description is the tag
``mlflow.note.content``; the "Datasets" column lists ``mlflow.data`` inputs. Nothing here changes a
result: these are views onto what the rest of :mod:`advisor.tracking` logs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pandas as pd

from advisor.tracking._layout import TEST_TOKENS_TABLE
from advisor.tracking._store import store_uri
from advisor.tracking._tables import log_table

__all__ = [
    "DESCRIPTION_TAG",
    "EXPERIMENT_KIND",
    "EXPERIMENT_KIND_TAG",
    "dataset_frame",
    "log_dataset_inputs",
    "log_test_tokens",
    "mlflow_ui_command",
    "server_url",
    "set_description",
    "tag_experiment_kind",
]

EXPERIMENT_KIND_TAG = "mlflow.experimentKind"
#: The value the MLflow 3 UI maps to its training-runs view (``CUSTOM_MODEL_DEVELOPMENT``).
EXPERIMENT_KIND = "custom_model_development"
DESCRIPTION_TAG = "mlflow.note.content"
_CONTEXT_TAG = "mlflow.data.context"


def server_url(tracking_uri: str | None = None) -> str | None:
    """A tracking server's address without credentials in it (None for a local store).

    The server serves the MLflow UI itself, so there is nothing to start; the URL is shown on the
    page, so a ``user:password@`` part (MLflow reads credentials from its environment variables
    anyway) is left out.
    """
    uri = store_uri(tracking_uri)
    parts = urlsplit(uri)
    if parts.scheme not in ("http", "https"):
        return None
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


def mlflow_ui_command(tracking_uri: str | None = None) -> str:
    """How to browse the same store in the MLflow UI: a server's own URL, else an ``mlflow ui`` command."""
    return server_url(tracking_uri) or f"mlflow ui --backend-store-uri {store_uri(tracking_uri)}"


def tag_experiment_kind(client: Any, experiment_id: str) -> None:
    """Tag the experiment as model development (once), so the UI opens on the runs table."""
    experiment = client.get_experiment(experiment_id)
    if experiment.tags.get(EXPERIMENT_KIND_TAG) != EXPERIMENT_KIND:
        client.set_experiment_tag(experiment_id, EXPERIMENT_KIND_TAG, EXPERIMENT_KIND)


def set_description(client: Any, run_id: str, text: str) -> None:
    """The run page's description (markdown), e.g. the verdict summary."""
    client.set_tag(run_id, DESCRIPTION_TAG, text[:60000])


def dataset_frame(corpus: Any) -> pd.DataFrame:
    """One row per item: the text (NER: tokens joined by spaces) and its label (NER: the tag sequence)."""
    if corpus.task == "ner":
        return pd.DataFrame(
            {
                "line": corpus.line_numbers,
                "text": [" ".join(t) for t in corpus.tokens],
                "label": [" ".join(t) for t in corpus.labels],
            }
        )
    texts = corpus.texts or [" ".join(t) for t in corpus.tokens]
    return pd.DataFrame(
        {"line": corpus.line_numbers, "text": texts, "label": [str(x) for x in corpus.labels]}
    )


def _source(path: str) -> Any:
    """The file as a dataset source; None (the code location) when MLflow cannot resolve it (``hf:``)."""
    from mlflow.data.dataset_source_registry import resolve_dataset_source

    try:
        return resolve_dataset_source(str(Path(path).resolve()) if Path(path).exists() else path)
    except Exception:  # MLflow raises its own error type per resolver: the source is only a label
        return None


def log_dataset_inputs(client: Any, run_id: str, splits: Any, name: str) -> None:
    """Log train/dev/test as ``mlflow.data`` inputs of ``run_id``, each with the corpus content hash as digest.

    Each is named after the file it was read from (``name`` when the source has none), with its part.
    """
    import warnings

    import mlflow.data
    from mlflow.entities import DatasetInput, InputTag

    inputs = []
    with warnings.catch_warnings():  # schema hints and "ambiguous source" notes are not for our users
        warnings.simplefilter("ignore")
        for part in ("train", "dev", "test"):
            corpus = getattr(splits, part)
            label = Path(str(corpus.source)).name or name  # "train.conll", or "train.conll (test split)"
            dataset = mlflow.data.from_pandas(
                dataset_frame(corpus),
                source=_source(str(corpus.source).split(" (")[0]),
                targets="label",
                name=label if label.endswith(" split)") else f"{label} ({part})",
                digest=corpus.content_hash()[:16],
            )
            entity = dataset._to_mlflow_entity()  # the public API logs through the fluent active run only
            inputs.append(DatasetInput(entity, tags=[InputTag(_CONTEXT_TAG, part)]))
    client.log_inputs(run_id, datasets=inputs)


def log_test_tokens(client: Any, run_id: str, splits: Any) -> None:
    """NER: the evaluation sentences' tokens as ``analysis/test_tokens.json`` (the app's item explorer
    shows each entity in its sentence; logged at the start, so a killed run has them too)."""
    if splits.test.task != "ner":
        return
    tokens = [" ".join(t) for t in splits.test.tokens]
    frame = pd.DataFrame({"item": range(len(tokens)), "tokens": tokens})
    log_table(client, run_id, frame, TEST_TOKENS_TABLE)
