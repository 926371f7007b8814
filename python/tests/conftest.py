"""Fixtures shared by the tests: git-fabro from `$GIT_FABRO`, an isolated git, fresh repos."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support import init_repo


@pytest.fixture(scope="session")
def binary() -> str:
    """The git-fabro under test. A missing one fails the tests: none is skipped."""
    path = os.environ.get("GIT_FABRO")
    if not path:
        pytest.fail("GIT_FABRO is not set: point it at a built git-fabro (python/ci does)")
    if not os.access(path, os.X_OK):
        pytest.fail(f"GIT_FABRO={path} is not an executable")
    return os.path.abspath(path)


@pytest.fixture(autouse=True)
def isolated_git(
    binary: str, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A HOME and a global git config of the test's own, so the machine's never count,
    and `GIT_FABRO` absolute for the savers and the helper processes."""
    home = tmp_path_factory.mktemp("home")
    (home / ".gitconfig").write_text("")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_FABRO", binary)
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "FABRO_RUN_ID", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A fresh repository with one commit."""
    return init_repo(tmp_path / "repo")
