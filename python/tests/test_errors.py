"""Bad requests get error replies and the store goes on; the saver turns them, and a store
that died, into exceptions, and never hangs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import empty_checkpoint

from langgraph.checkpoint.gitfabro import GitFabroSaver, GitFabroStoreError, GitFabroStoreExited


class Store:
    """`git fabro store` driven by hand, one line each way."""

    def __init__(self, repo: Path) -> None:
        self.proc = subprocess.Popen(
            [os.environ["GIT_FABRO"], "store"],
            cwd=repo,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def send(self, line: str) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        reply: dict[str, Any] = json.loads(self.proc.stdout.readline())
        return reply


def test_bad_requests_get_error_replies_and_the_store_goes_on(repo: Path) -> None:
    store = Store(repo)
    put: dict[str, Any] = {
        "op": "put",
        "thread": "t",
        "ns": "",
        "checkpoint_id": "1",
        "parent_id": None,
        "checkpoint": {"type": "msgpack", "data": "AAH/"},
        "metadata": {"step": 1},
        "channel_versions": {},
        "blobs": [],
    }
    for bad in [
        "this is not JSON",
        "[1, 2]",
        json.dumps({"op": "drop_everything"}),
        json.dumps({"thread": "t"}),
        json.dumps({"op": "put", "thread": "t"}),
        json.dumps({**put, "checkpoint": {"type": "msgpack", "data": "@@"}}),
        json.dumps({**put, "metadata": "not an object"}),
        json.dumps({"op": "list", "limit": -1}),
    ]:
        reply = store.send(bad)
        assert reply["ok"] is False and reply["code"] == "usage", (bad, reply)
        assert reply["error"]

    assert store.send(json.dumps({"op": "hello"}))["protocol"] == 1
    assert store.send(json.dumps(put)) == {"ok": True}
    assert store.send(json.dumps({"op": "get", "thread": "t"}))["checkpoint"]["metadata"] == {
        "step": 1
    }

    assert store.proc.stdin is not None and store.proc.stdout is not None
    store.proc.stdin.close()
    assert store.proc.wait(timeout=60) == 0
    assert store.proc.stdout.read() == ""


def a_checkpoint(saver: GitFabroSaver, thread_id: str) -> RunnableConfig:
    config: RunnableConfig = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}
    return saver.put(config, empty_checkpoint(), {"source": "input", "step": -1}, {})


def test_a_refused_request_raises_with_its_code_and_the_saver_goes_on(repo: Path) -> None:
    with GitFabroSaver(repo) as saver:
        a_checkpoint(saver, "source")
        a_checkpoint(saver, "target")
        with pytest.raises(GitFabroStoreError) as refused:
            saver.copy_thread("source", "target")
        assert refused.value.code == "usage"
        assert "target" in str(refused.value)
        assert saver.get_tuple({"configurable": {"thread_id": "source"}}) is not None


def test_metadata_that_is_not_json_is_refused_before_it_is_sent(repo: Path) -> None:
    config: RunnableConfig = {"configurable": {"thread_id": "t", "checkpoint_ns": ""}}
    with GitFabroSaver(repo) as saver:
        with pytest.raises(TypeError, match="JSON"):
            saver.put(config, empty_checkpoint(), {"step": object()}, {})  # type: ignore[typeddict-item]
        with pytest.raises(TypeError, match="JSON"):
            saver.put(config, empty_checkpoint(), {"step": float("nan")}, {})  # type: ignore[typeddict-item]
        assert saver.get_tuple(config) is None
        a_checkpoint(saver, "t")
        assert saver.get_tuple(config) is not None


def test_a_store_that_cannot_start_raises_with_its_stderr(tmp_path: Path, repo: Path) -> None:
    broken = tmp_path / "broken-git-fabro"
    broken.write_text("#!/bin/sh\necho 'no store here' >&2\nexit 3\n")
    broken.chmod(0o755)
    saver = GitFabroSaver(repo, binary=broken)
    with pytest.raises(GitFabroStoreExited) as exited:
        saver.get_tuple({"configurable": {"thread_id": "t"}})
    assert exited.value.code == "exited"
    assert exited.value.returncode == 3
    assert "no store here" in exited.value.stderr
    assert "no store here" in str(exited.value)

    with pytest.raises(FileNotFoundError):
        GitFabroSaver(repo, binary=tmp_path / "missing").get_tuple(
            {"configurable": {"thread_id": "t"}}
        )


def test_a_killed_store_raises_once_and_the_next_request_starts_another(
    tmp_path: Path, repo: Path
) -> None:
    pids = tmp_path / "pids"
    wrapper = tmp_path / "git-fabro"
    wrapper.write_text(f'#!/bin/sh\necho $$ >> "{pids}"\nexec "{os.environ["GIT_FABRO"]}" "$@"\n')
    wrapper.chmod(0o755)
    config: RunnableConfig = {"configurable": {"thread_id": "t"}}
    with GitFabroSaver(repo, binary=wrapper) as saver:
        stored = a_checkpoint(saver, "t")
        os.kill(int(pids.read_text().split()[0]), signal.SIGKILL)
        with pytest.raises(GitFabroStoreExited) as exited:
            saver.get_tuple(config)
        assert exited.value.returncode == -signal.SIGKILL
        found = saver.get_tuple(config)
        assert found is not None and found.config == stored
    assert len(pids.read_text().split()) == 2


def test_close_ends_the_store_and_a_closed_saver_starts_a_new_one(repo: Path) -> None:
    config: RunnableConfig = {"configurable": {"thread_id": "t"}}
    saver = GitFabroSaver(repo)
    saver.close()
    stored = a_checkpoint(saver, "t")
    saver.close()
    saver.close()
    found = saver.get_tuple(config)
    assert found is not None and found.config == stored
    saver.close()
