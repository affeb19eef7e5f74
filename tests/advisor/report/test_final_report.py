"""The report ``advisor run`` logs is written after the run is closed: it states FINISHED, not RUNNING,
and the parent run's MLflow description carries the same verdict summary."""

from __future__ import annotations

import tempfile
from pathlib import Path

from advisor.report import partial_notice
from advisor.tracking import DESCRIPTION_TAG, EXPERIMENT_KIND_TAG, client_for
from tests.helpers import FinishedRun


def test_stored_report_of_a_finished_run_says_finished(finished_run: FinishedRun) -> None:
    settings, outcome = finished_run.settings, finished_run.outcome
    client = client_for(settings.tracking_uri)
    parent = client.get_run(outcome.run_id)
    assert parent.info.status == "FINISHED"
    with tempfile.TemporaryDirectory() as tmp:
        md = Path(client.download_artifacts(outcome.run_id, "report/report.md", tmp)).read_text("utf-8")
        html = Path(client.download_artifacts(outcome.run_id, "report/report.html", tmp)).read_text("utf-8")
    for text in (md, html):
        assert "status FINISHED" in text
        assert "RUNNING" not in text and "Partial result" not in text
    assert "report" in outcome.timings

    description = parent.data.tags[DESCRIPTION_TAG]
    verdict = parent.data.tags["advisor.verdict"]
    assert f"**Verdict: {verdict.upper()}**" in description and "Partial result" not in description
    assert client.get_experiment(parent.info.experiment_id).tags[EXPERIMENT_KIND_TAG] == (
        "custom_model_development"
    )
    contexts = sorted(t.value for d in parent.inputs.dataset_inputs for t in d.tags)
    assert contexts == ["dev", "test", "train"]


def test_partial_notice_names_the_status_and_is_empty_when_finished() -> None:
    assert partial_notice("FINISHED") == "" and partial_notice(None) == ""
    assert partial_notice("KILLED").startswith("Partial result (run killed)")
    assert "still running" in partial_notice("RUNNING") and "not final" in partial_notice("FAILED")
