"""``advisor run --until decided`` and ``--budget`` (issue 31): round by round, evidence first, stopped once
settled or once the next round does not fit the budget.

A planted clear gap: the label is carried by a word the static vectors leave out ("yes" -> pos, "you" ->
neg get the zero vector), so static scores the prior while contextual reads the word. With three seeds
the first look (one seed) is shown from test items alone and never stops; the second settles "use
contextual". The run then trains static's remaining cells (the "label more data" rule reads its curve)
and stops with contextual's third seed and smaller sizes untrained, records both on the parent, and
states them in the verdict. A re-run trains nothing and gives the same verdict.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import pytest

from advisor.runner import ProgressEvent, run_analysis
from advisor.settings import RunSettings
from advisor.tracking import (
    BUDGET_STOP_TAG,
    BUDGET_TAG,
    EARLY_STOP_TAG,
    EARLY_VERDICT_TAG,
    client_for,
    find_analyses,
    load_analysis,
)
from advisor.verdict import recommend, render
from tests.helpers import NewStore

FILLER = "the a of in on with went saw said visited likes lives".split()


def write_cued(path: Path, n: int, seed: int) -> str:
    """``text,label`` rows whose label only a word outside the static vectors tells ("yes" / "you")."""
    rng = random.Random(seed)
    rows = ["text,label"]
    for i in range(n):
        label = "pos" if i % 2 else "neg"
        words = [rng.choice(FILLER) for _ in range(rng.randint(3, 5))]
        words.insert(rng.randrange(len(words) + 1), "yes" if label == "pos" else "you")
        rows.append(f"{' '.join(words)},{label}")
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return str(path)


@pytest.fixture()
def settings(
    tmp_path: Path, tiny_bert_dir: Path, tiny_vectors_file: Path, new_store: NewStore
) -> RunSettings:
    return RunSettings(
        data=write_cued(tmp_path / "train.csv", 200, 0),
        task="classify",
        dev=write_cued(tmp_path / "dev.csv", 40, 1),
        test=write_cued(tmp_path / "test.csv", 120, 2),
        embeddings=["static", "contextual"],
        sizes=[50, 100, 200],
        seeds=3,
        profile="quick",
        contextual=str(tiny_bert_dir),
        static=str(tiny_vectors_file),
        max_steps=60,
        lr=0.01,
        workers=1,
        difficulty=False,
        tracking_uri=new_store(tmp_path / "mlruns"),
        experiment="until",
        cache_dir=str(tmp_path / "cache"),
        device="cpu",
        until="decided",
    )


def test_decided_stops_when_settled_states_what_was_not_run_and_resumes_to_the_same_verdict(
    settings: RunSettings,
) -> None:
    events: list[ProgressEvent] = []
    outcome = run_analysis(settings, progress=events.append)
    trained = [c.key for c in outcome.computed]
    looks = [(e, 200, s) for s in (0, 1) for e in ("static", "contextual")]  # two looks, settled
    static = [("static", 200, 2)] + [("static", z, s) for z in (100, 50) for s in range(3)]  # evidence first
    assert sorted(trained[:4]) == sorted(looks) and trained[4:] == static

    early = [e.message for e in events if e.stage == "early"]
    assert len(early) == 3
    assert (
        early[0].startswith("early verdict after 2 of 18 cells: ")
        and "(one seed: test items only)" in early[0]
    )
    assert early[0].endswith("— refining")
    assert early[1].startswith("early verdict after 4 of 18 cells: USE CONTEXTUAL, P(gap > loss) = ")
    assert early[1].endswith("— settled")
    assert early[2] == "settled; training static at every size for the 'label more data' option (7 cells)"

    tags = client_for(settings.tracking_uri).get_run(outcome.run_id).data.tags
    assert tags[EARLY_VERDICT_TAG] == early[1]
    assert tags["advisor.until"] == "decided"
    stop = json.loads(tags[EARLY_STOP_TAG])
    assert stop["verdict"] == "use contextual" and (stop["size"], stop["seeds"], stop["looks"]) == (200, 2, 3)
    not_run = sorted(tuple(k) for k in stop["not_run"])
    assert not_run == sorted(
        [("contextual", 200, 2)] + [("contextual", z, s) for z in (50, 100) for s in range(3)]
    )
    assert "advisor.extension" not in tags  # a settled stop trains no smaller size

    assert outcome.analysis is not None
    words = render(recommend(outcome.analysis))
    assert words.verdict == "use contextual"
    assert not any("Inconclusive" in s for s in [words.headline, *words.reasons])
    (caveat,) = [s for s in words.caveats if "stopping rule" in s]
    assert caveat.startswith("the curve of contextual below 200 items not measured: the decision was settled")
    assert "static then trained at every size" in caveat and "7 of 18 cells were not run" in caveat
    assert words.efficiency == []  # contextual at one size: not computed, and the caveat says so
    verdict_tag = client_for(settings.tracking_uri).get_run(outcome.run_id).data.tags["advisor.verdict"]
    assert verdict_tag == "use contextual"

    again = run_analysis(settings)
    assert again.resumed and again.computed == []
    reread = load_analysis(outcome.run_id, settings.tracking_uri)
    assert reread.params["until"] == "decided" and json.loads(reread.params["early_stop"]) == stop
    assert render(recommend(reread)).headline == words.headline
    assert (
        client_for(settings.tracking_uri).get_run(outcome.run_id).data.tags[EARLY_STOP_TAG]
        == tags[EARLY_STOP_TAG]
    )


def test_a_run_killed_inside_a_round_resumes_to_the_same_stop(settings: RunSettings) -> None:
    with pytest.raises(RuntimeError, match="injected failure"):
        run_analysis(settings, fail_after=3)  # the first round, then static's second seed only

    events: list[ProgressEvent] = []
    resumed = run_analysis(settings, progress=events.append)
    assert resumed.resumed and resumed.computed[0].key == ("contextual", 200, 1)
    assert len(resumed.computed) == 8  # the round's last cell, then static's 7
    early = [e.message for e in events if e.stage == "early"]
    assert len(early) == 3 and early[0].endswith("— refining") and early[1].endswith("— settled")
    stop = json.loads(client_for(settings.tracking_uri).get_run(resumed.run_id).data.tags[EARLY_STOP_TAG])
    assert (stop["seeds"], len(stop["not_run"])) == (2, 7)


def test_a_run_killed_after_it_settled_resumes_the_cheaper_curves_without_redoing_a_cell(
    settings: RunSettings,
) -> None:
    with pytest.raises(RuntimeError, match="injected failure"):
        run_analysis(settings, fail_after=6)  # settled after 4 cells, then 2 of static's 7
    stop = json.loads(
        client_for(settings.tracking_uri).get_run(_only_run(settings)).data.tags[EARLY_STOP_TAG]
    )
    assert len(stop["not_run"]) == 14  # recorded when it settled: every cell not yet trained

    resumed = run_analysis(settings)
    assert resumed.resumed and len(resumed.computed) == 5
    assert {c.embedding for c in resumed.computed} == {"static"}
    stop = json.loads(client_for(settings.tracking_uri).get_run(resumed.run_id).data.tags[EARLY_STOP_TAG])
    assert {k[0] for k in stop["not_run"]} == {"contextual"} and len(stop["not_run"]) == 7


def _only_run(settings: RunSettings) -> str:
    """The id of the one analysis of the experiment (a failed run returns no outcome)."""
    (run,) = find_analyses(settings.tracking_uri, settings.experiment)
    return str(run.info.run_id)


@pytest.fixture()
def planted(settings: RunSettings, tiny_bert_dir: Path, monkeypatch: pytest.MonkeyPatch) -> RunSettings:
    """``settings`` on a machine that recorded slow speeds: 60 s a static cell, 120 s a contextual one
    (1 and 2 s per step, 60 steps), an encoder too fast to count, an idle load. The real cells take a
    second or two, so the plan, not the clock, decides what fits: 3 rounds of 180 s in 10 minutes."""
    import advisor.pipeline._estimate as estimate_module
    import advisor.pipeline._speed as speed_module
    from advisor.cache import using_cache_root
    from advisor.grid import expected_steps, profiles
    from advisor.pipeline._speed import record_encoder_speed, record_training_speed
    from advisor.progress import CellClock

    monkeypatch.setattr(speed_module, "machine_load", lambda: (0.0, 2))
    monkeypatch.setattr(estimate_module, "load_now", lambda: (0.0, 2))
    with using_cache_root(settings.cache_dir):
        record_encoder_speed(str(tiny_bert_dir), "cpu", 1e9)
        clock = CellClock(lambda size: expected_steps(size, profiles.get("quick")))
        clock.finished += [("static", 100, 400.0, 400), ("contextual", 100, 800.0, 400)]
        record_training_speed("classify", "cpu", clock)
    return replace(settings, until="complete", budget="10m")


def test_a_budget_trains_the_rounds_that_fit_says_what_it_left_out_and_a_resume_finishes(
    planted: RunSettings,
) -> None:
    events: list[ProgressEvent] = []
    outcome = run_analysis(planted, progress=events.append)
    assert sorted(c.key for c in outcome.computed) == [
        (e, 200, s) for e in ("contextual", "static") for s in range(3)
    ]
    said = [e.message for e in events if e.stage == "budget"]
    assert said[0] == "budget 10 min: about 6 of the 18 cells to compute fit (evidence first)"
    assert said[1].startswith("budget 10 min: 6 of 18 cells run after ") and "12 cells left out" in said[1]

    tags = client_for(planted.tracking_uri).get_run(outcome.run_id).data.tags
    stop = json.loads(tags[BUDGET_STOP_TAG])
    assert tags[BUDGET_TAG] == "10 min" and (stop["run"], stop["total"], len(stop["not_run"])) == (6, 18, 12)
    assert "advisor.extension" not in tags  # a budget stop trains no smaller size

    assert outcome.analysis is not None
    words = render(recommend(outcome.analysis))
    assert words.verdict == "use contextual"  # judged at the largest size: the sizes gate is waived
    caveat = [s for s in words.caveats if s.startswith("budget 10 min: ")]
    assert caveat == [
        "budget 10 min: 6 of 18 cells run; curves below 200 items not measured; the budget left out 12 cells, "
        "so the data efficiency and the 'label more data' option were not assessed (resume with a larger "
        "--budget, or none, to train them: finished cells are kept)"
    ]
    assert render(recommend(load_analysis(outcome.run_id, planted.tracking_uri))).caveats == words.caveats

    rest = run_analysis(replace(planted, budget=None))
    assert rest.resumed and len(rest.computed) == 12
    assert not {c.key for c in rest.computed} & {c.key for c in outcome.computed}  # nothing redone
    tags = client_for(planted.tracking_uri).get_run(outcome.run_id).data.tags
    assert tags[BUDGET_STOP_TAG] == "" and tags[BUDGET_TAG] == ""
    assert rest.analysis is not None
    assert not any(s.startswith("budget") for s in render(recommend(rest.analysis)).caveats)


def test_decided_tunes_on_every_tuning_seed_though_its_first_round_holds_one(settings: RunSettings) -> None:
    """Round one trains seed 0 at the largest size; the learning-rate trials train seeds 0 and 1 at the
    middle size, so the per-seed features they need (random's table for seed 1) are made for them too."""
    from advisor.pipeline import TUNING_TABLE
    from advisor.tracking import read_json_table

    tuned = replace(settings, embeddings=["random", "static"], lr=None, max_steps=10, sizes=[50, 100])
    outcome = run_analysis(tuned)
    table = read_json_table(client_for(tuned.tracking_uri), outcome.run_id, TUNING_TABLE)
    assert set(table["seed"]) == {0, 1} and set(table["embedding"]) == {"random", "static"}
    assert client_for(tuned.tracking_uri).get_run(outcome.run_id).info.status == "FINISHED"


def test_a_budget_that_ends_inside_the_cheaper_curves_keeps_the_settled_claim_and_says_both(
    planted: RunSettings,
) -> None:
    """Settled after two rounds (360 s of the planned 600), static's remaining cells train while they fit;
    the budget's stop keeps the settled stop, and the verdict states both and that "label more data"
    was not assessed."""
    decided = replace(planted, until="decided")
    events: list[ProgressEvent] = []
    outcome = run_analysis(decided, progress=events.append)
    assert [c.key for c in outcome.computed][4:] == [
        ("static", 200, 2),
        ("static", 100, 0),
        ("static", 100, 1),
    ]
    said = [e.message for e in events if e.stage in ("early", "budget")]
    assert said[3] == "settled; training static at every size for the 'label more data' option (7 cells)"
    assert said[4].startswith("budget 10 min: 7 of 18 cells run after ") and "11 cells left out" in said[4]

    tags = client_for(decided.tracking_uri).get_run(outcome.run_id).data.tags
    assert json.loads(tags[EARLY_STOP_TAG])["verdict"] == "use contextual"  # the budget keeps the stop
    assert len(json.loads(tags[BUDGET_STOP_TAG])["not_run"]) == 11
    assert outcome.analysis is not None
    words = render(recommend(outcome.analysis))
    assert words.verdict == "use contextual" and "Labelling more" not in words.headline  # not assessed
    assert any(s.startswith("budget 10 min: 7 of 18 cells run;") for s in words.caveats)
    (settled,) = [s for s in words.caveats if "stopping rule" in s]
    assert (
        settled.startswith("curves below 200 items not measured") and "11 of 18 cells were not run" in settled
    )
    assert "the data efficiency and the 'label more data' option were not assessed" in settled
