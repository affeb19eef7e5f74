"""bench_encoder_device.py's distance between two precisions' cached rows."""

from __future__ import annotations

import numpy as np
import pytest

from tests.helpers import load_experiment


def test_deviation_is_the_relative_distance_per_vector_and_skips_empty_ones() -> None:
    bench = load_experiment("bench_encoder_device")
    reference = np.array([[[3.0, 4.0], [0.0, 0.0]], [[1.0, 0.0], [0.0, 2.0]]])
    rows = reference.copy()
    rows[0, 0] = [3.0, 4.5]  # 0.5 / 5 = 0.1 away; the zero vector is skipped, not divided by
    mean, p99 = bench.deviation(reference, rows)
    assert mean == pytest.approx(0.1 / 3) and p99 == pytest.approx(0.1, rel=0.05)
    assert bench.deviation(reference, reference) == (0.0, 0.0)
