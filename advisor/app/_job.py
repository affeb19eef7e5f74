"""The run as an ``advisor run`` subprocess: Streamlit has no background jobs, and a separate process
can be stopped with SIGTERM (``advisor run`` then ends its MLflow runs KILLED and keeps finished cells).

Jobs live in a registry of the server process keyed by the page's session id (kept in the URL), so
a page refresh finds its run and its Stop button again. stdout and stderr go to a log file and the
latest progress event to ``progress.json`` (see :mod:`advisor.progress`), both in the upload folder:
polling a live run reads that one small file, not MLflow.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from advisor import vocabulary
from advisor.settings import RunSettings, to_argv

__all__ = [
    "SESSION_TAG",
    "RunJob",
    "display_command",
    "job_for",
    "parse_list",
    "run_command",
    "session_memory",
    "start_run",
    "tail",
]

#: Parent-run tag that lets a page find the analysis its subprocess opened.
SESSION_TAG = "app.session"
_LAUNCH = "from advisor.cli import main; main()"


def parse_list(text: str, cast: type[int] | type[float], what: str) -> list | None:
    """``"100, 200,400"`` -> ``[100, 200, 400]``; empty text -> None (the profile decides); positive only."""
    return vocabulary.parse_list(text, cast, what, positive=True)


def display_command(command: list[str]) -> str:
    """The subprocess command as a user would type it (``advisor run ...``), shell-quoted."""
    import shlex

    args = command[3:] if command[1:3] == ["-c", _LAUNCH] else command[1:]
    return shlex.join(["advisor", *args])


def run_command(settings: RunSettings, session_id: str, python: str | None = None) -> list[str]:
    """The ``advisor run`` argument list for ``settings`` (every setting, from the schema), tagged with the session."""
    tagged = dataclasses.replace(settings, tags={**settings.tags, SESSION_TAG: session_id})
    return [python or sys.executable, "-c", _LAUNCH, "run", *to_argv(tagged)]


@dataclass
class RunJob:
    """A running (or ended) ``advisor run`` subprocess and where its output goes."""

    process: subprocess.Popen
    command: list[str]
    log_path: Path
    session_id: str
    started_at: float = field(default_factory=time.time)
    stop_requested: bool = False
    progress_path: Path | None = None

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def returncode(self) -> int | None:
        return self.process.poll()

    @property
    def running(self) -> bool:
        return self.process.poll() is None

    def stop(self, grace_seconds: float = 30.0) -> int | None:
        """SIGTERM (the run ends KILLED, finished cells kept); SIGKILL only if it ignores that for ``grace_seconds``."""
        self.stop_requested = True
        if not self.running:
            return self.returncode
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=grace_seconds)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()

    def log_tail(self, lines: int = 30) -> str:
        return tail(self.log_path, lines)

    def progress(self) -> dict | None:
        """The latest progress event the run wrote (stage, done, total, text, run_id, eta), if any."""
        from advisor.progress import read_progress_file

        return read_progress_file(self.progress_path) if self.progress_path else None


#: Jobs of this server process by page session id: a refreshed page gets its run (and Stop) back.
_JOBS: dict[str, RunJob] = {}


def job_for(session_id: str) -> RunJob | None:
    """The newest job started from the page session ``session_id`` in this server process."""
    return _JOBS.get(session_id)


#: What a page session chose (its dataset), kept by the server so a refresh does not lose it.
_MEMORY: dict[str, dict] = {}


def session_memory(session_id: str) -> dict:
    """A dict kept per page session for the life of the server process."""
    return _MEMORY.setdefault(session_id, {})


def start_run(
    command: list[str], log_path: Path, session_id: str, env: dict[str, str] | None = None
) -> RunJob:
    """Start ``command`` in its own process group with stdout+stderr appended to ``log_path``.

    The run writes its progress next to the log; the job is registered under ``session_id``.
    """
    from advisor.progress import PROGRESS_FILE_ENV

    log_path.parent.mkdir(parents=True, exist_ok=True)
    progress_path = log_path.with_name("progress.json")
    progress_path.unlink(missing_ok=True)  # a previous run's progress must not show as this one's
    child_env = {
        **os.environ,
        "PYTHONUNBUFFERED": "1",
        "HF_HUB_OFFLINE": "1",
        PROGRESS_FILE_ENV: str(progress_path),
        **(env or {}),
    }
    with log_path.open("ab") as log:
        process = subprocess.Popen(
            command,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=child_env,
            start_new_session=True,  # a Ctrl-C meant for the UI server does not kill the run mid-cell
        )
    job = RunJob(
        process=process,
        command=command,
        log_path=log_path,
        session_id=session_id,
        progress_path=progress_path,
    )
    _JOBS[session_id] = job
    return job


def tail(path: Path, lines: int = 30, max_bytes: int = 64_000) -> str:
    """The last ``lines`` lines of a (possibly growing) log file; empty when it does not exist yet."""
    try:
        with Path(path).open("rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - max_bytes))
            data = handle.read()
    except FileNotFoundError:
        return ""
    return "\n".join(data.decode("utf-8", errors="replace").splitlines()[-lines:])
