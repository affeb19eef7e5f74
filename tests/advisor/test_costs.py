"""Serving costs come from a dedicated pass from raw text, so the verdict's cost ratios do not depend
on the feature cache or on the order of runs."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from advisor.costs import price_per_million
from advisor.runner import run_analysis
from advisor.settings import RunSettings
from advisor.tracking import SERVING_ARTIFACT, client_for, load_analysis
from advisor.verdict import compare_costs
from tests.helpers import NewStore, write_ner


@pytest.fixture()
def light(tmp_path: Path, tiny_bert_dir: Path, tiny_vectors_file: Path, new_store: NewStore) -> RunSettings:
    files = {part: str(write_ner(tmp_path / f"{part}.conll", n, i)) for i, (part, n) in
             enumerate((("train", 30), ("dev", 8), ("test", 10)))}  # fmt: skip
    return RunSettings(
        data=files["train"], task="ner", dev=files["dev"], test=files["test"],
        embeddings=["static", "contextual"], sizes=[30], seeds=1, profile="quick",
        contextual=str(tiny_bert_dir), static=str(tiny_vectors_file), max_steps=1, workers=1,
        tracking_uri=new_store(tmp_path, "cold.db"), experiment="t", cache_dir=str(tmp_path / "cache"),
        device="cpu", difficulty=False,
    )  # fmt: skip


def _ratios(run_id: str, uri: str) -> tuple[float, float, dict]:
    costs = compare_costs(load_analysis(run_id, uri))
    assert costs.serving_measured
    pair = "contextual/static"
    return costs.ratio(pair, "latency_ms_per_item"), costs.ratio(pair, "serving_memory_mb"), costs.provenance


@pytest.mark.slow  # four small runs end to end: about 20 s on 2 idle cores, more on a busy machine
def test_cost_ratios_agree_for_cold_warm_forced_and_resumed_runs(
    light: RunSettings, tmp_path: Path, new_store: NewStore
) -> None:
    cold = run_analysis(light)  # empty feature cache
    forced = run_analysis(dataclasses.replace(light, force=True))  # warm cache, every cell recomputed
    resumed_settings = dataclasses.replace(light, tracking_uri=new_store(tmp_path, "resumed.db"))
    with pytest.raises(RuntimeError, match="injected failure"):
        run_analysis(resumed_settings, fail_after=1)
    resumed = run_analysis(resumed_settings)  # finishes the grid, warm cache
    assert resumed.resumed and len(resumed.computed) == 1
    ratios = [
        _ratios(cold.run_id, light.tracking_uri),
        _ratios(forced.run_id, light.tracking_uri),
        _ratios(resumed.run_id, resumed_settings.tracking_uri),
    ]
    latency = [r[0] for r in ratios]
    assert min(latency) > 0 and max(latency) / min(latency) < 3, latency  # same order of magnitude
    assert ratios[0][1] == pytest.approx(ratios[1][1]) == pytest.approx(ratios[2][1])  # memory: counted
    assert ratios[0][2] == ratios[2][2] and ratios[0][2]["torch_threads"] == 1

    # A plain re-run keeps the stored measurement: nothing is re-logged over it.
    client = client_for(light.tracking_uri)

    def stored(folder: str) -> dict:
        local = client.download_artifacts(forced.run_id, SERVING_ARTIFACT, str(tmp_path / folder))
        return json.loads(Path(local).read_text(encoding="utf-8"))

    before = stored("a")
    again = run_analysis(light)
    assert again.run_id == forced.run_id and again.computed == []
    assert stored("b") == before


def test_price_per_million_items() -> None:
    assert price_per_million(3.6, 1.0) == pytest.approx(1.0)  # 3.6 ms/item: 1M items take one hour
    assert price_per_million(0.36, 2.5) == pytest.approx(0.25)
