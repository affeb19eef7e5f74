"""Every command's ``--help`` renders cleanly: click-style metavars, no Python types, no raw markup."""

from __future__ import annotations

import re
from pathlib import Path

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


def _option_help(command: str, flag: str) -> str | None:
    """The help text of ``flag`` of ``advisor command`` (None: the command has no such option)."""
    import typer.main

    group = typer.main.get_command(app)
    params = group.commands[command].params  # type: ignore[attr-defined]
    return next((p.help for p in params if flag in getattr(p, "opts", [])), None)


def test_every_tracking_uri_option_names_the_one_default_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, advisor_cli
) -> None:
    from advisor.tracking import DEFAULT_TRACKING_URI

    helps = {c[0]: _option_help(c[0], "--tracking-uri") for c in COMMANDS if c}
    helps = {command: text for command, text in helps.items() if text is not None}
    assert {"run", "report", "predict-gain", "layers", "contextuality", "ui", "demo"} <= set(helps)
    assert len(set(helps.values())) == 1 and DEFAULT_TRACKING_URI in helps["predict-gain"], helps
    # and it is the store predict-gain reads when none is named
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    (tmp_path / "texts.txt").write_text("a line of text\n", encoding="utf-8")
    code, _, err = advisor_cli("predict-gain", "latest", "texts.txt")
    expected = DEFAULT_TRACKING_URI.removeprefix("sqlite:///")
    assert code == 2 and str((tmp_path / expected).resolve()) in " ".join(err.split()), err


def test_profile_defaults_in_help_are_the_profiles_own() -> None:
    """``--random-dim`` and ``--workers`` say what an unset value becomes (issue 29: the help said the
    static width, 50, while the default profile uses 800)."""
    from advisor.grid import profiles
    from advisor.pipeline._execute import worker_count

    text = _option_help("run", "--random-dim") or ""
    for name in profiles.names():
        dim = profiles.get(name).random_dim
        assert re.search(rf"{dim} for [a-z ]*\b{name}\b", text), (name, dim, text)
    workers = _option_help("run", "--workers") or ""
    assert "at most 8" in workers and "on a GPU they share it" in workers
    assert worker_count(None, "cpu", 100) <= 8


def test_column_options_say_positions_and_that_a_digit_header_name_wins() -> None:
    for flag in ("--text-col", "--label-col"):
        text = _option_help("inspect", flag) or ""
        assert "0-based position" in text and "by content" in text, text
    assert "name made of digits is the name" in (_option_help("run", "--text-col") or "")
