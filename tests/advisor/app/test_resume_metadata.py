"""Resuming from the app never rewrites another process's run metadata (owner, session tag, end time)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from advisor.app import SESSION_TAG
from advisor.runner import run_analysis
from advisor.tracking import OWNER_TAGS, AnalysisTracker, Owner, client_for
from tests.helpers import FinishedRun, NewStore


def test_the_app_resuming_a_finished_cli_analysis_leaves_it_as_it_was(
    finished_run_copy: FinishedRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings, run_id = finished_run_copy.settings, finished_run_copy.outcome.run_id
    client = client_for(settings.tracking_uri)
    before = client.get_run(run_id)
    app = Owner("app-host", 4242, 1.0)  # the app's subprocess: another process than the CLI run's
    monkeypatch.setattr(Owner, "current", classmethod(lambda cls: app))
    tagged = dataclasses.replace(
        settings, tags={**settings.tags, SESSION_TAG: "app-session"}
    )  # as run_command
    again = run_analysis(tagged)
    assert again.run_id == run_id and again.resumed and again.computed == []
    after = client.get_run(run_id)
    assert (after.info.status, after.info.end_time) == (before.info.status, before.info.end_time)
    assert after.data.tags == before.data.tags  # owner, no session tag added, nothing else either
    assert all(after.data.tags[t] == before.data.tags[t] for t in OWNER_TAGS)


def test_a_resume_with_work_keeps_the_creators_tags(tmp_path: Path, new_store: NewStore) -> None:
    first = AnalysisTracker(new_store(tmp_path), "resume")
    run_id = first.open("k", "run", {"task": "ner"}, {SESSION_TAG: "cli", "team": "a", "advisor.task": "ner"})
    first.close("KILLED")  # cells left to compute: the next process claims the run
    second = AnalysisTracker(first.tracking_uri, "resume")
    second.open(
        "k", "run", {"task": "ner"}, {SESSION_TAG: "app", "team": "b", "advisor.task": "ner", "new": "x"}
    )
    tags = second.client.get_run(run_id).data.tags
    assert (tags[SESSION_TAG], tags["team"], tags["new"]) == ("cli", "a", "x")  # kept; an unknown one added
    owner = Owner.from_tags(tags)
    assert owner is not None and owner.same(Owner.current())  # the live process owns it while it computes
    second.close("FINISHED")


def test_an_idle_resume_wakes_when_it_has_work_after_all(tmp_path: Path, new_store: NewStore) -> None:
    first = AnalysisTracker(new_store(tmp_path), "idle")
    run_id = first.open("k", "run", {"task": "ner"}, {})
    first.child("static", 0, {"embedding": "static"})
    first.log_cell("static", 20, 0, {"score": 0.5})
    first.mark_analysis("complete")
    first.close("FINISHED")
    end = first.client.get_run(run_id).info.end_time
    second = AnalysisTracker(first.tracking_uri, "idle")
    second.open("k", "run", {"task": "ner"}, {}, planned=[("static", 20, 0)])
    assert second.idle and second._heartbeat is None
    second.close("FINISHED")
    assert second.client.get_run(run_id).info.end_time == end  # an idle close ends nothing
    third = AnalysisTracker(first.tracking_uri, "idle")
    third.open("k", "run", {"task": "ner"}, {}, planned=[("static", 20, 0)])
    third.child("static", 0)  # a cell to compute after all: the run is claimed
    assert not third.idle and third.client.get_run(run_id).info.status == "RUNNING"
    third.close("FINISHED")
    assert third.client.get_run(run_id).info.end_time >= end
