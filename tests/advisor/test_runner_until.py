"""``advisor run --until decided`` (issue 31): round by round at the largest size, stopped once settled.

A planted clear gap: the label is carried by a word the static vectors leave out ("yes" -> pos, "you" ->
neg get the zero vector), so static scores the prior while contextual reads the word. With three seeds
the first look (one seed) is shown from test items alone and never stops; the second settles "use
contextual", the run stops with the third seed and every smaller size untrained, records both on the
parent, and states them in the verdict. A re-run trains nothing and gives the same verdict.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from advisor.runner import ProgressEvent, run_analysis
from advisor.settings import RunSettings
from advisor.tracking import EARLY_STOP_TAG, EARLY_VERDICT_TAG, client_for, load_analysis
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
    trained = sorted(c.key for c in outcome.computed)
    assert trained == [(e, 200, s) for e in ("contextual", "static") for s in (0, 1)]  # two looks, then stop

    early = [e.message for e in events if e.stage == "early"]
    assert len(early) == 2
    assert (
        early[0].startswith("early verdict after 2 of 18 cells: ")
        and "(one seed: test items only)" in early[0]
    )
    assert early[0].endswith("— refining")
    assert early[1].startswith("early verdict after 4 of 18 cells: USE CONTEXTUAL, P(gap > loss) = ")
    assert early[1].endswith("— settled")

    tags = client_for(settings.tracking_uri).get_run(outcome.run_id).data.tags
    assert tags[EARLY_VERDICT_TAG] == early[1]
    assert tags["advisor.until"] == "decided"
    stop = json.loads(tags[EARLY_STOP_TAG])
    assert stop["verdict"] == "use contextual" and (stop["size"], stop["seeds"], stop["looks"]) == (200, 2, 3)
    not_run = sorted(tuple(k) for k in stop["not_run"])
    assert len(not_run) == 14 and ("contextual", 200, 2) in not_run and ("static", 50, 0) in not_run
    assert "advisor.extension" not in tags  # a settled stop trains no smaller size

    assert outcome.analysis is not None
    words = render(recommend(outcome.analysis))
    assert words.verdict == "use contextual"
    assert not any("Inconclusive" in s for s in [words.headline, *words.reasons])
    assert any(
        s.startswith("curves below 200 items not measured: the decision was settled") for s in words.caveats
    )
    assert words.efficiency == []  # one size: not computed, and the caveat says so
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
    assert resumed.resumed and [c.key for c in resumed.computed] == [("contextual", 200, 1)]
    early = [e.message for e in events if e.stage == "early"]
    assert len(early) == 2 and early[0].endswith("— refining") and early[1].endswith("— settled")
    stop = json.loads(client_for(settings.tracking_uri).get_run(resumed.run_id).data.tags[EARLY_STOP_TAG])
    assert (stop["seeds"], len(stop["not_run"])) == (2, 14)
