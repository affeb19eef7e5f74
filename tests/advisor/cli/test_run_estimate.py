"""``advisor run`` says the expected duration before training, as the app does before Run: after the
settings are checked, before any model loads, from the speeds recorded on this machine (no second
load of the encoder to time it), and not on a resume."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from advisor.settings import RunSettings, to_argv
from tests.helpers import tiny_run_settings


@pytest.fixture()
def settings(
    tmp_path: Path,
    ner_files: dict[str, str],
    tiny_bert_dir: Path,
    tiny_vectors_file: Path,
    new_store,
) -> RunSettings:
    """Every family, one seed, a fixed rate (no learning-rate trials): a few seconds of training."""
    uri = new_store(tmp_path / "mlruns")
    tiny = tiny_run_settings(tmp_path, ner_files, tiny_bert_dir, tiny_vectors_file, uri)
    return replace(tiny, seeds=1, lr=0.01)


def _no_calibration(*args: object, **kwargs: object) -> None:
    raise AssertionError("advisor run timed the encoder: it would load it twice")


def test_run_prints_the_estimate_before_it_featurizes(
    settings: RunSettings, advisor_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    import advisor.pipeline._estimate as estimate_module
    from advisor.pipeline import estimate_run
    from advisor.pipeline._speed import record_training_speed
    from advisor.progress import CellClock

    with monkeypatch.context() as patched:  # a planted training speed, under the run's own cache root
        patched.setenv("ADVISOR_CACHE_DIR", str(settings.cache_dir))
        clock = CellClock(lambda size: 100)
        clock.finished += [("static", 20, 3.0, 100)]
        record_training_speed("ner", "cpu", clock)
    monkeypatch.setattr(estimate_module, "load_now", lambda: (0.5, 2))  # the same load in the run
    expected = estimate_run(settings, calibrate=False).text()
    assert "encoder speed constant" in expected and "recorded by earlier ner runs" in expected
    monkeypatch.setattr(estimate_module, "calibrate_encoder", _no_calibration)  # no encoder speed recorded

    code, out, err = advisor_cli("run", *to_argv(settings))
    assert code == 0, err[-3000:]
    lines = out.splitlines()
    said = [i for i, line in enumerate(lines) if line.startswith("Expected duration:")]
    assert [lines[i] for i in said] == [expected]  # once, the very sentence the app shows
    first_model = next(i for i, line in enumerate(lines) if line.startswith("featurizing"))
    first_cell = next(i for i, line in enumerate(lines) if line.startswith("training cells"))
    assert said[0] < first_model < first_cell
    assert "Expected duration" not in err

    code, again, err = advisor_cli("run", *to_argv(settings))  # every cell finished: a resume
    assert code == 0, err[-3000:]
    assert "0 cells computed" in again and "Expected duration" not in again


def test_a_rejected_run_prints_no_estimate(settings: RunSettings, advisor_cli) -> None:
    """Validation comes first: bad input is said, with no estimate (and so no data-dependent work) before it."""
    code, out, err = advisor_cli("run", *to_argv(replace(settings, sizes=[5000])))
    assert code == 2
    assert "outside 1.." in err and "Traceback" not in err
    assert "Expected duration" not in out + err
