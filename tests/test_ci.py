"""CI runs the README's test command, character for character: the front door never drifts from CI."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _readme_test_command() -> str:
    """The bash block right after "Install and run the tests" in the README."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("Install and run the tests", 1)[1]
    match = re.search(r"```bash\n(.+?)\n```", section, flags=re.DOTALL)
    assert match, "no bash block after 'Install and run the tests'"
    return match.group(1).strip()


def test_ci_runs_exactly_the_readme_test_command() -> None:
    command = _readme_test_command()
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    assert command in ci_lines, f".ci/run does not run the README's test command: {command}"
    assert command.endswith("python -m pytest") and "pip install -q torch==2.13.0" in command
