"""What the MLflow UI shows of an analysis: the experiment's kind, links to it, the run's description, its datasets.

Which page an experiment opens on: MLflow 3.0-3.x read the experiment tag ``mlflow.experimentKind``
(``custom_model_development``: the training-runs table). MLflow 3.17's UI ignores that tag: it takes
the kind from the page's *workflow type*, the URL's ``workflowType`` query (else the browser's last
choice, GenAI by default), and a GenAI experiment opens on an empty overview with its runs under
"Evaluations" (checked in its bundle, ``mlflow/server/js/build``, and in a browser). So the experiment
keeps the tag (older UIs) and every link advisor prints carries ``workflowType=machine_learning``
(:func:`experiment_url`, :func:`run_url`). The run page's description is the tag
``mlflow.note.content``; the "Datasets" column lists ``mlflow.data`` inputs. Nothing here changes a
result: these are views onto what the rest of :mod:`advisor.tracking` logs.
"""

from __future__ import annotations

import json
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
    "MLFLOW_UI_URL",
    "WORKFLOW_QUERY",
    "browse_hint",
    "dataset_frame",
    "experiment_url",
    "log_dataset_inputs",
    "log_test_tokens",
    "mlflow_ui_command",
    "run_url",
    "server_url",
    "set_description",
    "tag_experiment_kind",
    "test_set",
]

EXPERIMENT_KIND_TAG = "mlflow.experimentKind"
#: The value the MLflow 3 UI maps to its training-runs view (``CUSTOM_MODEL_DEVELOPMENT``).
EXPERIMENT_KIND = "custom_model_development"
#: The query that makes MLflow 3.17's UI show an experiment as model training (its runs table).
WORKFLOW_QUERY = "workflowType=machine_learning"
#: Where ``mlflow ui`` listens unless told otherwise.
MLFLOW_UI_URL = "http://127.0.0.1:5000"
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


def experiment_url(experiment_id: str, base: str = MLFLOW_UI_URL) -> str:
    """The experiment's runs table in the MLflow UI at ``base`` (as model training, not GenAI)."""
    return f"{base.rstrip('/')}/#/experiments/{experiment_id}/runs?{WORKFLOW_QUERY}"


def run_url(experiment_id: str, run_id: str, base: str = MLFLOW_UI_URL) -> str:
    """One run's page in the MLflow UI at ``base`` (as model training, not GenAI)."""
    return f"{base.rstrip('/')}/#/experiments/{experiment_id}/runs/{run_id}?{WORKFLOW_QUERY}"


def browse_hint(tracking_uri: str | None, experiment_id: str) -> str:
    """How to open the experiment's runs table: the server's URL, else ``mlflow ui …`` and the URL to open."""
    server = server_url(tracking_uri)
    if server:
        return experiment_url(experiment_id, server)
    return f"{mlflow_ui_command(tracking_uri)}, then open {experiment_url(experiment_id)}"


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


def test_set(run: Any) -> dict[str, Any]:
    """What an analysis was scored on, read from its parent run: the test file's name (``split from
    train`` when held out of the training file), its size and the split (so two analyses of one file
    with different test sets are told apart)."""
    params = run.data.params
    try:
        info = json.loads(params.get("dataset_info") or "{}")
    except ValueError:  # a hand-edited or truncated param: the rest still reads
        info = {}
    split = str(info.get("split_method", ""))
    name = ""
    inputs = getattr(getattr(run, "inputs", None), "dataset_inputs", None) or []
    for logged in inputs:
        if any(t.key == _CONTEXT_TAG and t.value == "test" for t in logged.tags):
            name = str(logged.dataset.name)
    if name.endswith(" split)") or split.startswith("test:") or "; test:" in split:
        source = "split from train"
    else:
        source = name.removesuffix(" (test)") or ("given file" if split == "given" else "")
    size = str(params.get("n_test", info.get("n_test", "")))
    return {"test_set": source, "test_items": int(size) if size.isdigit() else None, "split": split}


def log_test_tokens(client: Any, run_id: str, splits: Any) -> None:
    """NER: the evaluation sentences' tokens as ``analysis/test_tokens.json`` (the app's item explorer
    shows each entity in its sentence; logged at the start, so a killed run has them too)."""
    if splits.test.task != "ner":
        return
    tokens = [" ".join(t) for t in splits.test.tokens]
    frame = pd.DataFrame({"item": range(len(tokens)), "tokens": tokens})
    log_table(client, run_id, frame, TEST_TOKENS_TABLE)
