"""A thread moves between clones as its run does: pushed from one, fetched into another,
resumed there, and fetched back."""

from __future__ import annotations

from pathlib import Path

from approval_app import build
from langchain_core.runnables import RunnableConfig
from langgraph.types import Command
from support import fabro, git, init_repo, thread_run

from langgraph.checkpoint.gitfabro import GitFabroSaver


def test_a_thread_pushed_from_one_clone_resumes_in_another(tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    first = init_repo(tmp_path / "first")
    git(first, "remote", "add", "origin", str(remote))
    git(first, "push", "-q", "origin", "main")
    git(tmp_path, "clone", "-q", str(remote), "second")
    second = tmp_path / "second"
    git(second, "config", "user.name", "Second User")
    git(second, "config", "user.email", "second@example.com")

    config: RunnableConfig = {"configurable": {"thread_id": "t-shared"}}
    with GitFabroSaver(first) as saver:
        build(saver).invoke({"request": "rename the module", "steps": []}, config)
        interrupted = saver.get_tuple(config)
    assert interrupted is not None

    run = thread_run(first, "t-shared")["run_id"]
    fabro(first, "push", "origin", run)
    fabro(second, "fetch", "origin")
    assert thread_run(second, "t-shared")["run_id"] == run

    with GitFabroSaver(second) as saver:
        fetched = saver.get_tuple(config)
        assert fetched is not None
        assert fetched.config == interrupted.config
        assert fetched.checkpoint == interrupted.checkpoint
        assert fetched.pending_writes == interrupted.pending_writes
        final = build(saver).invoke(Command(resume="no"), config)
    assert final == {
        "request": "rename the module",
        "steps": ["draft", "approve", "apply"],
        "approved": False,
        "result": "draft of rename the module: dropped",
    }
    git(second, "fsck", "--strict")

    # And back: the first clone fetches where the second took the thread.
    fabro(second, "push", "origin", run)
    fabro(first, "fetch", "origin")
    with GitFabroSaver(first) as saver:
        assert build(saver).get_state(config).values == final
