"""The package as a user gets it: a wheel installed in a fresh venv, used from outside the checkout.

Installing torch and the rest into a fresh venv takes minutes, so the venv gets the wheel alone
(``pip install --no-deps``) and sees the checkout venv's dependencies through one plain path line in
a ``.pth`` file. The ``.pth`` files inside that added folder are not processed, so the checkout's
editable install stays inactive: the tests check that ``advisor`` comes from the fresh venv.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEMO_FILES = [
    f"{task}_{part}.{suffix}"
    for task, suffix in (("ner", "conll"), ("classify", "csv"), ("pair", "tsv"))
    for part in ("train", "dev", "test")
]


@dataclass(frozen=True)
class Installed:
    wheel: Path
    python: Path
    advisor: Path
    site_packages: Path
    outside: Path  # a working directory outside the checkout
    env: dict[str, str]

    def run(self, *args: str | Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(a) for a in args],
            cwd=self.outside,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )


def _build_wheel(work: Path) -> Path:
    """Build from a copy of the working tree (the build writes build/ and egg-info beside its sources)."""
    source = work / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    for package in ("advisor", "trainers"):
        shutil.copytree(ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-w",
            str(work / "dist"),
            str(source),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = (work / "dist").glob("advisor-*.whl")
    return wheel


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    work = tmp_path_factory.mktemp("wheel")
    wheel = _build_wheel(work)
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    site_packages = Path(
        subprocess.check_output([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
        .decode()
        .strip()
    )
    (site_packages / "checkout_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    outside = work / "elsewhere"
    outside.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(
        MLFLOW_TRACKING_URI=f"sqlite:///{work / 'mlflow.db'}",
        ADVISOR_CACHE_DIR=str(work / "cache"),
        HF_HUB_OFFLINE="1",
        COLUMNS="400",  # Rich wraps at 80 columns otherwise, and long paths would be split
    )
    return Installed(wheel, python, venv / "bin" / "advisor", site_packages, outside, env)


def test_the_wheel_holds_the_app_page_and_the_demo_data(installed: Installed) -> None:
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    assert "advisor/app/page.py" in names
    assert {f"advisor/demo/{name}" for name in DEMO_FILES} <= names
    assert "advisor/templates/report.html.j2" in names


def test_advisor_is_imported_from_the_fresh_venv_not_the_checkout(installed: Installed) -> None:
    result = installed.run(installed.python, "-c", "import advisor; print(advisor.__file__)")
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()).is_relative_to(installed.site_packages)
    assert not installed.outside.is_relative_to(ROOT)


@pytest.mark.parametrize("command", ["demo", "ui"])
def test_demo_and_ui_help_from_outside_the_checkout(installed: Installed, command: str) -> None:
    result = installed.run(installed.advisor, command, "--help")
    assert result.returncode == 0, result.stderr
    assert f"Usage: advisor {command}" in result.stdout


def test_the_installed_page_renders_with_the_bundled_demo_data(installed: Installed) -> None:
    """The page from site-packages runs (no checkout on the path) and finds the demo data beside it."""
    page = installed.site_packages / "advisor" / "app" / "page.py"
    script = (
        "from streamlit.testing.v1 import AppTest\n"
        f"app = AppTest.from_file({str(page)!r}, default_timeout=120)\n"
        "app.run()\n"
        "assert not app.exception, app.exception\n"
        "app.radio(key='source').set_value('Bundled demo data').run()\n"
        "assert not app.exception, app.exception\n"
        "print(app.title[0].value)\n"
        "print('\\n'.join(c.value for c in app.caption))\n"
    )
    result = installed.run(installed.python, "-c", script, timeout=180)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Are contextual embeddings worth it on your data?" in result.stdout
    assert f"from {installed.site_packages / 'advisor' / 'demo'}" in result.stdout


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status
    except OSError:
        return 0


def test_advisor_ui_serves_the_page_from_site_packages(installed: Installed) -> None:
    port = _free_port()
    server = subprocess.Popen(
        [installed.advisor, "ui", "--port", str(port)],
        cwd=installed.outside,
        env=installed.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.time() + 90
        while _get(f"http://127.0.0.1:{port}/_stcore/health") != 200 and time.time() < deadline:
            assert server.poll() is None, "advisor ui exited"
            time.sleep(0.5)
        assert _get(f"http://127.0.0.1:{port}/") == 200
        # `advisor ui` became the Streamlit server (exec): its command line names the script it serves.
        argv = Path(f"/proc/{server.pid}/cmdline").read_bytes().split(b"\0")
        page = installed.site_packages / "advisor" / "app" / "page.py"
        assert str(page).encode() in argv
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


@pytest.mark.slow
def test_a_quick_demo_runs_from_the_wheel(installed: Installed) -> None:
    """`advisor demo` end to end from the wheel: its data from site-packages, a verdict, exit 0."""
    result = installed.run(installed.advisor, "demo", "--task", "classify", "--profile", "quick", timeout=900)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-3000:]
    train = installed.site_packages / "advisor" / "demo" / "classify_train.csv"
    assert f"demo: classify on {train}" in output
    assert "Verdict: " in output and "report: advisor report" in output
