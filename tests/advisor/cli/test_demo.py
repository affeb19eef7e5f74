"""``advisor demo --task TASK``: the bundled files of that task are found and handed to the run."""

from __future__ import annotations

import sys

import pytest

from advisor.settings import RunSettings


@pytest.mark.parametrize(("task", "suffix"), [("pair", "tsv"), ("classify", "csv")])
def test_demo_runs_on_the_bundled_files_of_the_task(
    task: str, suffix: str, monkeypatch: pytest.MonkeyPatch, advisor_cli
) -> None:
    handed: list[RunSettings] = []
    monkeypatch.setattr(
        sys.modules["advisor.cli.run"], "execute", lambda settings, verbose=False: handed.append(settings)
    )
    code, _, err = advisor_cli("demo", "--task", task, "--profile", "quick")
    assert code == 0, err
    (settings,) = handed
    assert settings.task == task and settings.profile == "quick" and settings.experiment == "advisor-demo"
    for value, part in ((settings.data, "train"), (settings.dev, "dev"), (settings.test, "test")):
        assert value is not None and value.endswith(f"advisor/demo/{task}_{part}.{suffix}")
    assert f"demo: {task} on" in err
