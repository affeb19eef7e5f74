"""Every command's ``--help`` renders cleanly: click-style metavars, no Python types, no raw markup."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from advisor.cli import app

COMMANDS = [(), *((c.name or c.callback.__name__.replace("_", "-"),) for c in app.registered_commands)]


@pytest.mark.parametrize("command", COMMANDS)
def test_help_has_no_python_types_braces_or_backticks(command: tuple[str, ...]) -> None:
    result = CliRunner().invoke(app, [*command, "--help"], env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    text = result.output
    assert not re.search(r"<(bool|str|int|float|path|list\[\w+\])>", text), text
    assert "``" not in text and not re.search(r"\{[a-z_]+\}", text), text


def test_run_help_shows_arguments_and_flags_the_click_way() -> None:
    text = CliRunner().invoke(app, ["run", "--help"], env={"COLUMNS": "120"}).output
    assert "Usage: advisor run [OPTIONS] DATA" in " ".join(text.split())
    assert re.search(r"--sizes\s+TEXT", text) and re.search(r"--seeds\s+INTEGER", text)
    assert re.search(r"--force\s+recompute", text) and "--verbose" in text
