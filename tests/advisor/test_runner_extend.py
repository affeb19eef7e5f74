"""``advisor run`` extends its grid downwards when contextual already matches at the smallest size.

A task every family solves at every size (all scores 1.0): contextual matches static's full-data score
at 100 items (the quick profile's smallest of 400). The cells stop at their 20-step ceiling while dev
loss still falls, so they are under-trained and the real run does not chase static's match (one test);
with the flags ignored, the run adds 50 items, the floor, and tags the extension as censored
(identical curves are not judged by the verdict: no figure is stated). A run killed inside the
extension resumes with only the missing cells of it, and a third run computes nothing.
"""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path

import pytest

from advisor import runner
from advisor.pipeline import finished_scores, next_extension
from advisor.runner import ProgressEvent, run_analysis
from advisor.settings import RunSettings
from advisor.tracking import client_for, load_analysis
from tests.helpers import NewStore

FILLER = "the a of in on with went saw said visited likes works lives".split()


def write_sentiment(path: Path, n: int, seed: int, share_negative: float) -> str:
    """``text,label`` rows: "good" marks pos, "bad" marks neg; easy enough for every family."""
    rng = random.Random(seed)
    rows = ["text,label"]
    for _ in range(n):
        label = "neg" if rng.random() < share_negative else "pos"
        words = [rng.choice(FILLER) for _ in range(rng.randint(3, 6))]
        words.insert(rng.randrange(len(words) + 1), "good" if label == "pos" else "bad")
        rows.append(f"{' '.join(words)},{label}")
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return str(path)


@pytest.fixture()
def settings(
    tmp_path: Path, tiny_bert_dir: Path, tiny_vectors_file: Path, new_store: NewStore
) -> RunSettings:
    return RunSettings(
        data=write_sentiment(tmp_path / "train.csv", 400, 0, 0.1),
        task="classify",
        dev=write_sentiment(tmp_path / "dev.csv", 20, 1, 0.1),
        test=write_sentiment(tmp_path / "test.csv", 20, 2, 0.0),  # all pos: the prior alone scores 1.0
        embeddings=["static", "contextual"],
        seeds=2,
        profile="quick",  # 100, 200, 400 items
        contextual=str(tiny_bert_dir),
        static=str(tiny_vectors_file),
        max_steps=20,
        workers=1,
        difficulty=False,
        tracking_uri=new_store(tmp_path / "mlruns"),
        experiment="extend",
        cache_dir=str(tmp_path / "cache"),
        device="cpu",
    )


def _verdict(client: object, run_id: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        path = client.download_artifacts(run_id, "analysis/verdict.json", tmp)  # type: ignore[attr-defined]
        return json.loads(Path(path).read_text(encoding="utf-8"))


def test_under_trained_full_data_cells_are_not_chased(settings: RunSettings) -> None:
    events: list[ProgressEvent] = []
    outcome = run_analysis(settings, progress=events.append)
    assert sorted({c.size for c in outcome.computed}) == [100, 200, 400] and len(outcome.computed) == 12
    tags = client_for(settings.tracking_uri).get_run(outcome.run_id).data.tags
    assert tags["advisor.extended_sizes"] == "" and tags["advisor.total_cells"] == "12"
    text = "not extended below 100 items: static's full-data cells are under-trained"
    assert tags["advisor.extension"].startswith(text) and "not chased" in tags["advisor.extension"]
    assert any(e.stage == "plan" and e.message.startswith(text) for e in events)


def test_the_grid_extends_to_the_floor_resumes_inside_it_and_reports_censored(
    settings: RunSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    def ignoring_flags(grid: object, rows: dict, floor: int) -> object:
        return next_extension(grid, finished_scores(rows), floor)  # type: ignore[arg-type]

    monkeypatch.setattr(runner, "step_from_rows", ignoring_flags)
    with pytest.raises(RuntimeError, match="injected failure"):
        run_analysis(settings, fail_after=12 + 2)  # the 12 planned cells, then 2 of the 4 at 50 items

    events: list[ProgressEvent] = []
    resumed = run_analysis(settings, progress=events.append)
    assert resumed.resumed
    assert sorted((c.embedding, c.size, c.seed) for c in resumed.computed) == [
        ("contextual", 50, 1),
        ("static", 50, 1),
    ]
    assert len(resumed.reused) == 14
    plans = [e.message for e in events if e.stage == "plan"]
    assert any(m.startswith("extended down to 50 items: contextual already reaches static's") for m in plans)
    assert any("not extended below 50 items (floor 50)" in m and "censored" in m for m in plans)
    assert [e.total for e in events if e.stage == "cell"] == [16, 16]

    again = run_analysis(settings)
    assert again.computed == [] and len(again.reused) == 16 and again.run_id == resumed.run_id

    client = client_for(settings.tracking_uri)
    parent = client.get_run(resumed.run_id)
    assert parent.info.status == "FINISHED"
    assert parent.data.tags["advisor.extended_sizes"] == "50"
    assert parent.data.tags["advisor.total_cells"] == "16"
    assert "censored" in parent.data.tags["advisor.extension"]
    analysis = load_analysis(resumed.run_id, settings.tracking_uri)
    assert analysis.sizes == [50, 100, 200, 400] and len(analysis.curves) == 16
    # Every family scores 1.0 at every size and seed: the verdict does not judge identical curves
    # (issue 28's degenerate-curve gate), so no efficiency figure is stated; the censored figure's
    # wording is tested on planted curves in tests/advisor/verdict/test_efficiency.py.
    verdict = _verdict(client, resumed.run_id)
    assert verdict["efficiency"] == []
    assert "every size" in " ".join(verdict["reasons"])


def test_an_explicit_grid_is_not_extended(settings: RunSettings) -> None:
    settings.sizes = [100, 400]
    outcome = run_analysis(settings)
    assert sorted({c.size for c in outcome.computed}) == [100, 400] and len(outcome.computed) == 8
    tags = client_for(settings.tracking_uri).get_run(outcome.run_id).data.tags
    assert "advisor.extended_sizes" not in tags
