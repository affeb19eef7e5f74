"""Tables as MLflow JSON artifacts (``{"columns": [...], "data": [...]}``): the one reader, and an exact writer.

MLflow's ``log_table`` layout is what the UI shows as a table (:func:`log_table` logs through it, so
the UI lists the table; :func:`write_json_table` writes the same layout at full float precision). JSON has no NaN, so missing numbers
travel as ``null``; the reader turns such columns back into floats, so every caller computes on
the same frame whichever module wrote the table.
"""

from __future__ import annotations

import json
import math
import posixpath
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = [
    "as_logged",
    "as_written",
    "log_table",
    "read_json_table",
    "table_payload",
    "write_json_table",
]


def _numeric_again(frame: pd.DataFrame) -> pd.DataFrame:
    """Object columns of numbers and None (NaN that went through JSON) become float columns again."""
    for column in frame.columns:
        values = frame[column]
        if values.dtype == object and values.map(lambda v: v is None or isinstance(v, int | float)).all():
            if values.map(lambda v: v is None or not isinstance(v, bool)).all():
                frame[column] = pd.to_numeric(values, errors="coerce").astype(float)
    return frame


def _frame(payload: dict[str, Any]) -> pd.DataFrame:
    return _numeric_again(pd.DataFrame(payload["data"], columns=payload["columns"]))


def read_json_table(client: Any, run_id: str, artifact_file: str) -> pd.DataFrame:
    """A table logged as a JSON artifact of ``run_id``, with missing numbers as NaN."""
    with tempfile.TemporaryDirectory() as tmp:
        local = client.download_artifacts(run_id, artifact_file, tmp)
        payload = json.loads(Path(local).read_text(encoding="utf-8"))
    return _frame(payload)


def as_logged(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` exactly as :func:`read_json_table` returns it after ``log_table`` logged it, without the store."""
    return _frame(json.loads(frame.to_json(orient="split", index=False, date_format="iso")))


def table_payload(frame: pd.DataFrame) -> dict[str, list[Any]]:
    """``frame`` in the table layout, floats at full precision (``to_json`` keeps only 10 digits)."""

    def clean(value: Any) -> Any:
        value = value.item() if hasattr(value, "item") else value
        if isinstance(value, float) and not math.isfinite(value):
            return None
        return value

    return {
        "columns": [str(c) for c in frame.columns],
        "data": [[clean(v) for v in row] for row in frame.itertuples(index=False, name=None)],
    }


def as_written(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` exactly as :func:`read_json_table` returns it after :func:`write_json_table`, without the store."""
    return _frame(json.loads(json.dumps(table_payload(frame))))


def write_json_table(client: Any, run_id: str, frame: pd.DataFrame, artifact_file: str) -> None:
    """Log ``frame`` at ``artifact_file``, replacing any earlier version (``log_table`` would append)."""
    with tempfile.TemporaryDirectory() as tmp:
        local = Path(tmp) / posixpath.basename(artifact_file)
        local.write_text(json.dumps(table_payload(frame)), encoding="utf-8")
        client.log_artifact(run_id, str(local), posixpath.dirname(artifact_file) or None)


def log_table(client: Any, run_id: str, frame: pd.DataFrame, artifact_file: str) -> None:
    """Log ``frame`` as a JSON table artifact, *replacing* any earlier one of that name.

    ``MlflowClient.log_table`` appends to an existing artifact, so a resumed or ``--force`` run would
    double the rows of every table it logs again. The first write goes through ``log_table`` (MLflow's
    UI lists it as a table); later ones overwrite the file in the same format.
    """
    folder = posixpath.dirname(artifact_file) or None
    if artifact_file not in {f.path for f in client.list_artifacts(run_id, folder)}:
        client.log_table(run_id, data=frame, artifact_file=artifact_file)
        return
    with tempfile.TemporaryDirectory() as tmp:
        local = Path(tmp) / posixpath.basename(artifact_file)
        frame.to_json(local, orient="split", index=False, date_format="iso")
        client.log_artifact(run_id, str(local), folder)
