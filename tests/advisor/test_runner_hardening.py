"""``advisor run`` keeps its promises at the edges (issue 28): the readers' warnings are shown and
recorded, an analysis interrupted after some of its stages is completed by the re-run, and the
children of a resumed parent end with the parent's state."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor import runner
from advisor.pipeline import ANALYSIS_STAGES
from advisor.runner import ProgressEvent, run_analysis
from advisor.settings import RunSettings
from advisor.tracking import (
    ANALYSIS_COMPLETE,
    ANALYSIS_STATE_TAG,
    READER_WARNINGS_TABLE,
    READER_WARNINGS_TAG,
    VERDICT_TAG,
    client_for,
    read_json_table,
)


def _small(settings: RunSettings) -> RunSettings:
    settings.embeddings = ["random", "static"]
    settings.sizes = [20, 40]
    settings.seeds = 1
    return settings


def _add_unseen_entity_type(path: str) -> None:
    """A test sentence with an entity type (FOOD) that the training file never has."""
    with Path(path).open("a", encoding="utf-8") as handle:
        handle.write("John\tB-PER\nlikes\tO\nsushi\tB-FOOD\n\n")


def test_a_run_shows_and_records_the_readers_warnings(run_settings: RunSettings) -> None:
    settings = _small(run_settings)
    _add_unseen_entity_type(str(settings.test))
    events: list[ProgressEvent] = []
    outcome = run_analysis(settings, progress=events.append)
    warnings = [e.message for e in events if e.stage == "warning"]
    assert any("FOOD" in w and "never seen in training" in w for w in warnings), warnings
    client = client_for(settings.tracking_uri)
    parent = client.get_run(outcome.run_id)
    assert parent.data.tags[READER_WARNINGS_TAG] == str(len(warnings))
    table = read_json_table(client, outcome.run_id, READER_WARNINGS_TABLE)
    assert list(table["warning"]) == warnings


def test_the_cli_prints_the_readers_warnings_on_stderr(run_settings: RunSettings, advisor_cli) -> None:
    settings = _small(run_settings)
    _add_unseen_entity_type(str(settings.test))
    code, _out, err = advisor_cli(
        "run", str(settings.data), "--task", "ner", "--dev", str(settings.dev), "--test", str(settings.test),
        "--embeddings", "random,static", "--static", str(settings.static), "--sizes", "20,40", "--seeds", "1",
        "--profile", "quick", "--max-steps", "3", "--random-dim", "16", "--device", "cpu",
        "--tracking-uri", str(settings.tracking_uri), "--experiment", "test", "--cache-dir", str(settings.cache_dir),
    )  # fmt: skip
    assert code == 0, err
    assert "warning:" in err and "'FOOD' (1)" in err.replace("\n", " ")


def _stop_after(last: str):
    """``run_stages`` that records the stages up to ``last`` and is then killed (Ctrl-C / kill)."""
    names = [stage.__name__ for stage in ANALYSIS_STAGES]
    kept = ANALYSIS_STAGES[: names.index(last) + 1]

    def run_stages(ctx):
        for stage in kept:
            stage(ctx)
        raise KeyboardInterrupt

    return run_stages


def test_a_run_killed_inside_the_analysis_is_completed_by_the_rerun(
    run_settings: RunSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed after the curves table (before the verdict): the re-run trains nothing, completes the
    analysis (verdict, report) and every run ends FINISHED, children of the killed run included."""
    settings = _small(run_settings)
    monkeypatch.setattr(runner, "run_stages", _stop_after("curves"))
    with pytest.raises(KeyboardInterrupt):
        run_analysis(settings)
    client = client_for(settings.tracking_uri)
    killed = client.search_runs([client.get_experiment_by_name("test").experiment_id])
    assert {r.info.status for r in killed} == {"KILLED"}
    parent_id = next(r.info.run_id for r in killed if r.data.tags.get("advisor.kind") == "analysis")
    assert VERDICT_TAG not in client.get_run(parent_id).data.tags
    monkeypatch.undo()

    outcome = run_analysis(settings)
    assert outcome.computed == [] and outcome.run_id == parent_id
    assert outcome.analysis is not None  # analysed again, although no cell was missing
    parent = client.get_run(parent_id)
    assert parent.data.tags[ANALYSIS_STATE_TAG] == ANALYSIS_COMPLETE and VERDICT_TAG in parent.data.tags
    assert {a.path for a in client.list_artifacts(parent_id, "report")} >= {"report/report.md"}
    runs = client.search_runs([client.get_experiment_by_name("test").experiment_id])
    assert {r.info.status for r in runs} == {"FINISHED"}

    again = run_analysis(settings)  # complete now: nothing is analysed twice
    assert again.computed == [] and again.analysis is None


def test_a_run_killed_while_its_estimate_times_training_is_closed_killed(
    run_settings: RunSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Timing training for the first estimate takes seconds after the parent run exists: a Ctrl-C then
    closes the run KILLED (never left RUNNING), and the re-run resumes it."""
    settings = _small(run_settings)

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "estimate_run", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_analysis(settings)
    client = client_for(settings.tracking_uri)
    killed = client.search_runs([client.get_experiment_by_name("test").experiment_id])
    assert [r.info.status for r in killed] == ["KILLED"]  # the parent alone: no cell had started
    monkeypatch.undo()
    outcome = run_analysis(settings)
    assert outcome.run_id == killed[0].info.run_id and len(outcome.computed) == 4
    assert client.get_run(outcome.run_id).info.status == "FINISHED"
