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
