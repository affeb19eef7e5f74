"""``advisor run`` output: third-party progress bars (transformers' "Loading weights") only with --verbose."""

from __future__ import annotations

import os

import pytest


def test_third_party_bars_are_off_unless_verbose(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    import huggingface_hub.utils as hub
    import transformers.utils.logging as hf_logging

    from advisor.cli.run import _third_party_output

    hub_bars = importlib.import_module(
        "huggingface_hub.utils.tqdm"
    )  # the module; ``utils.tqdm`` is the class
    monkeypatch.setenv("HF_HUB_DISABLE_PROGRESS_BARS", "0")
    monkeypatch.setenv("TRANSFORMERS_VERBOSITY", "info")
    # huggingface_hub reads the variable once, at import, and then lets nothing override it: a CLI process
    # sets it before that import, but here an earlier in-process `advisor run` may have imported the hub
    # under "1". Start from an import without it, where the switches this function flips decide.
    monkeypatch.setattr(hub_bars, "HF_HUB_DISABLE_PROGRESS_BARS", None)
    try:
        _third_party_output(verbose=False)
        assert os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] == "1"
        assert not hf_logging.is_progress_bar_enabled() and hub.are_progress_bars_disabled()
        _third_party_output(verbose=True)
        assert hf_logging.is_progress_bar_enabled() and not hub.are_progress_bars_disabled()
    finally:
        _third_party_output(verbose=False)
