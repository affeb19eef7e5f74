"""What MLflow's runs table shows at a glance: every child's params and the parent's headline metrics."""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from advisor.tracking import AnalysisTracker, child_runs, client_for, headline_metrics, load_analysis
from tests.helpers import FinishedRun, NewStore


def test_every_child_logs_family_seed_size_width_and_training_settings(finished_run: FinishedRun) -> None:
    settings, run_id = finished_run.settings, finished_run.outcome.run_id
    client = client_for(settings.tracking_uri)
    parent = client.get_run(run_id)
    children = child_runs(client, parent.info.experiment_id, run_id)
    assert len(children) == 6  # random, static, contextual x 2 seeds
    widths = {}
    for child in children:
        params, tags = child.data.params, child.data.tags
        family = tags["advisor.embedding"]
        assert params["embedding"] == params["family"] == family
        assert params["seed"] == tags["advisor.seed"]
        assert params["max_size"] == "40"
        assert params["lr"] == parent.data.tags[f"advisor.lr.{family}"]  # the rate chosen on dev
        assert (params["max_steps"], params["batch_size"]) == ("3", "64")
        assert {"min_steps", "patience", "projection", "hidden", "classifier"} <= set(params)
        assert "precision" in params and "num_threads" not in params  # settings, not the machine
        widths[family] = int(params["dim"])
    assert widths == {"random": 16, "static": 8, "contextual": 32}  # --random-dim; the vectors; the encoder
    contextual = next(c for c in children if c.data.tags["advisor.embedding"] == "contextual")
    assert {"layer", "pooling", "model"} <= set(contextual.data.params)


def test_the_parent_logs_the_answer_as_metrics(finished_run: FinishedRun) -> None:
    from advisor.verdict import recommend

    settings, run_id = finished_run.settings, finished_run.outcome.run_id
    metrics = client_for(settings.tracking_uri).get_run(run_id).data.metrics
    analysis = load_analysis(run_id, settings.tracking_uri)
    for family in ("random", "static", "contextual"):
        expected = analysis.score_matrix(family).loc[40].mean()
        assert metrics[f"full_score.{family}"] == pytest.approx(expected)
    gaps = [g for g in recommend(analysis).gaps if g.a == "contextual"]
    main = min(gaps, key=lambda g: g.gap)
    pair = f"contextual_vs_{main.b}"
    assert metrics[f"gap_pts.{pair}"] == pytest.approx(100 * main.gap)
    if main.has_interval:
        assert metrics[f"gap_pts_lo.{pair}"] <= metrics[f"gap_pts.{pair}"] <= metrics[f"gap_pts_hi.{pair}"]
    assert metrics[f"latency_ratio.{pair}"] > 0  # serving costs are measured in every run


def _gap(a: str, b: str, gap: float, lo: float, hi: float) -> SimpleNamespace:
    return SimpleNamespace(a=a, b=b, gap=gap, lo=lo, hi=hi)


class _Costs:
    def ratio(self, pair: str, column: str) -> float:
        planted = {
            ("contextual/static", "latency_ms_per_item"): 20.9,
            ("contextual/static", "batch_ms_per_item"): 216.0,
        }
        return planted.get((pair, column), math.nan)


def _planted(tradeoff_pair: str | None) -> tuple[SimpleNamespace, SimpleNamespace]:
    gaps = [
        _gap("contextual", "random", 0.10, 0.08, 0.12),
        _gap("contextual", "static", 0.019, 0.010, 0.029),
        _gap("static", "random", 0.08, 0.06, 0.10),
    ]
    rec = SimpleNamespace(
        gaps=gaps,
        costs=_Costs(),
        tradeoff=SimpleNamespace(values={"pair": tradeoff_pair}) if tradeoff_pair else None,
        gap=lambda pair: next((g for g in gaps if f"{g.a}-{g.b}" == pair), None),
    )
    curves = pd.DataFrame(
        [(e, 100, seed, score) for e, scores in (("static", (0.5, 0.7)), ("contextual", (0.6, 0.8)))
         for seed, score in enumerate(scores)] + [("random", 50, 0, 0.4)],
        columns=["embedding", "size", "seed", "score"],
    )  # fmt: skip
    matrix = lambda e: curves[curves.embedding == e].pivot_table(index="size", columns="seed", values="score")  # noqa: E731
    analysis = SimpleNamespace(
        full_size=100, embedding_names=["random", "static", "contextual"], score_matrix=matrix
    )
    return rec, analysis


def test_headline_metrics_name_the_gap_the_verdict_turned_on() -> None:
    rec, analysis = _planted(None)  # no trade-off stated: contextual's smallest gap
    metrics = headline_metrics(rec, analysis)  # type: ignore[arg-type]
    assert metrics == pytest.approx(
        {
            "full_score.static": 0.6,
            "full_score.contextual": 0.7,
            "gap_pts.contextual_vs_static": 1.9,
            "gap_pts_lo.contextual_vs_static": 1.0,
            "gap_pts_hi.contextual_vs_static": 2.9,
            "latency_ratio.contextual_vs_static": 20.9,
            "batch_ratio.contextual_vs_static": 216.0,
        }
    )  # random has no cell at the full size: no full score; NaN ratios are left out
    rec, analysis = _planted("contextual-random")  # the trade-off's pair wins
    metrics = headline_metrics(rec, analysis)  # type: ignore[arg-type]
    assert metrics["gap_pts.contextual_vs_random"] == pytest.approx(10.0)
    assert not any(k.endswith("contextual_vs_static") for k in metrics)
    assert "latency_ratio.contextual_vs_random" not in metrics  # not measured: not logged as NaN


def test_a_resumed_child_gets_the_params_it_lacks(tmp_path: Path, new_store: NewStore) -> None:
    tracker = AnalysisTracker(new_store(tmp_path), "children")
    tracker.open("k", "run", {"task": "ner"}, {})
    child = tracker.child("static", 0, {"embedding": "static", "path": "v.txt"})  # as older runs logged
    tracker.close("KILLED")
    again = AnalysisTracker(tracker.tracking_uri, "children")
    again.open("k", "run", {"task": "ner"}, {})
    assert (
        again.child("static", 0, {"embedding": "static", "path": "other.txt", "seed": 0, "lr": 0.01}) == child
    )
    params = again.client.get_run(child).data.params
    assert params == {
        "embedding": "static",
        "path": "v.txt",
        "seed": "0",
        "lr": "0.01",
    }  # immutable ones kept
    again.close("FINISHED")
