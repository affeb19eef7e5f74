"""One rule, one wording, for verdicts of runs that did not finish (the CLI, the report and the app).

A run that is still running, was killed (Ctrl-C, Stop, a dead owner process) or failed has a verdict
computed from the cells finished so far. It is shown, but always with these words and never in the
style of a final verdict.
"""

from __future__ import annotations

__all__ = ["FINAL_STATUS", "is_partial", "partial_label", "partial_notice"]

FINAL_STATUS = "FINISHED"
_STATE = {"RUNNING": "still running", "KILLED": "killed", "FAILED": "failed", "SCHEDULED": "not started"}


def is_partial(status: str | None) -> bool:
    """True unless the run ended FINISHED (None: an analysis not read from MLflow, judged as given)."""
    return status is not None and status != FINAL_STATUS


def _state(status: str | None) -> str:
    return _STATE.get(str(status), str(status).lower())


def partial_label(status: str | None) -> str:
    """The short tag beside a verdict in lists: ``partial: run killed`` ('' for a finished run)."""
    return f"partial: run {_state(status)}" if is_partial(status) else ""


def partial_notice(status: str | None) -> str:
    """The sentence shown above a partial verdict ('' for a finished run)."""
    if not is_partial(status):
        return ""
    return (
        f"Partial result (run {_state(status)}): this verdict uses only the cells finished so far "
        "and is not final; run the same command again to resume."
    )
