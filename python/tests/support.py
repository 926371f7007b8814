"""Helpers for the tests: git and git-fabro in a directory, repositories, helper processes."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path
from typing import Any

#: The folder of the tests and of the helper scripts they start.
HERE = Path(__file__).resolve().parent


def git(cwd: Path, *args: str) -> str:
    """Run git in `cwd` and return its output; a failure fails the test with git's stderr."""
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout


def fabro(cwd: Path, *args: str) -> str:
    """Run git-fabro in `cwd` and return its output."""
    done = subprocess.run(
        [os.environ["GIT_FABRO"], *args], cwd=cwd, capture_output=True, text=True
    )
    assert done.returncode == 0, f"git fabro {' '.join(args)}: {done.stderr}"
    return done.stdout


def init_repo(path: Path) -> Path:
    """A git repository at `path` with an identity and one commit on `main`."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", "Test User")
    git(path, "config", "user.email", "test@example.com")
    (path / "README").write_text("a repository for the tests\n")
    git(path, "add", "README")
    git(path, "commit", "-q", "-m", "init")
    return path


def thread_run(repo: Path, thread_id: str) -> dict[str, Any]:
    """The run of `git fabro ps --json` that holds `thread_id`."""
    runs = json.loads(fabro(repo, "ps", "--json"))
    found = [run for run in runs if run["labels"].get("thread_id") == thread_id]
    assert len(found) == 1, f"runs labelled thread_id={thread_id}: {runs}"
    run: dict[str, Any] = found[0]
    return run


def python(*args: str, cwd: Path | None = None) -> subprocess.Popen[str]:
    """A Python helper process (a script beside the tests) with piped output."""
    return subprocess.Popen(
        [sys.executable, *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def read_line(proc: subprocess.Popen[str], timeout: float) -> str:
    """The next line `proc` prints, waiting at most `timeout` seconds for it."""
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    assert ready, f"no output from {proc.args!r} in {timeout} s"
    line = proc.stdout.readline()
    if not line:
        assert proc.stderr is not None
        raise AssertionError(f"{proc.args!r} ended ({proc.wait()}): {proc.stderr.read()}")
    return line
