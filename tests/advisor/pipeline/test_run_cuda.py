"""A whole ``advisor run`` on a CUDA device: every family's cells train there and the run says so.

Runs only where CUDA is visible (``-m cuda`` selects these tests); elsewhere it is skipped.
"""

from __future__ import annotations

from dataclasses import replace

import mlflow
import pytest
import torch

from advisor.runner import run_analysis
from advisor.settings import RunSettings
from advisor.tracking import load_analysis

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]


def test_a_run_on_cuda_trains_every_cell_there_and_records_the_gpu(run_settings: RunSettings) -> None:
    outcome = run_analysis(replace(run_settings, device="cuda", difficulty=False))
    assert outcome.device.startswith("cuda")
    analysis = load_analysis(outcome.run_id, outcome.tracking_uri)
    families = sorted(analysis.curves["embedding"].unique())
    assert families == ["contextual", "random", "static"]
    assert len(analysis.curves) == len(families) * 2 * 2  # 2 sizes x 2 seeds each
    assert analysis.curves["score"].notna().all()
    run = mlflow.MlflowClient(outcome.tracking_uri).get_run(outcome.run_id)
    assert run.info.status == "FINISHED"
    assert torch.cuda.get_device_name(0) in str(run.data.params) + str(run.data.tags)


def test_cells_trained_side_by_side_on_one_gpu_score_as_one_at_a_time(run_settings: RunSettings) -> None:
    """Spawned workers share the GPU (advisor.pipeline._spawn); a cell's seed, not its worker, decides."""
    settings = replace(run_settings, device="cuda", difficulty=False, lr=0.01)
    outcomes = [
        run_analysis(replace(settings, workers=workers, experiment=f"workers-{workers}"))
        for workers in (1, 2)
    ]
    curves = [load_analysis(o.run_id, o.tracking_uri).curves for o in outcomes]
    columns = ["embedding", "size", "seed", "score", "steps"]
    first, second = (c.sort_values(columns[:3])[columns].reset_index(drop=True) for c in curves)
    assert first.equals(second)
