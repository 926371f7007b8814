"""Writers racing on one thread lose nothing: the store retries when the thread's ref moved
under a write, and a write it gives up on is refused whole (`conflict`), never half done."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from langchain_core.runnables import RunnableConfig
from put_many import put_checkpoints
from support import HERE, git, python, thread_run

from langgraph.checkpoint.gitfabro import GitFabroSaver

COUNT = 50


def race(repo: Path, names: list[str]) -> dict[str, int]:
    """Each writer in its own process with its own saver, all started at once; how many
    puts the store acknowledged to each."""
    go = repo.parent / "go"
    writers = {
        name: python(str(HERE / "put_many.py"), str(repo), "shared", name, str(COUNT), str(go))
        for name in names
    }
    go.touch()
    acknowledged = {}
    for name, writer in writers.items():
        out, err = writer.communicate(timeout=300)
        assert writer.returncode == 0, err
        outcome = json.loads(out)
        # A writer may be told `conflict` (the store gave up retrying), nothing else.
        assert outcome["error"] in (None, "conflict"), outcome
        acknowledged[name] = outcome["acknowledged"]
    return acknowledged


def check_thread(repo: Path, acknowledged: dict[str, int]) -> None:
    """The thread is one run, holding every acknowledged checkpoint of every writer, each
    the child of that writer's previous one."""
    assert thread_run(repo, "shared")["labels"] == {"thread_id": "shared"}
    config: RunnableConfig = {"configurable": {"thread_id": "shared"}}
    with GitFabroSaver(repo) as saver:
        found = list(saver.list(config))
    for writer, count in acknowledged.items():
        mine = sorted(
            (t for t in found if t.metadata.get("writer") == writer),
            key=lambda t: t.checkpoint["id"],
        )
        assert [t.checkpoint["channel_values"]["value"] for t in mine] == [
            f"{writer}-{step}" for step in range(count)
        ]
        parents = [
            t.parent_config and t.parent_config["configurable"]["checkpoint_id"] for t in mine
        ]
        assert parents[1:] == [t.checkpoint["id"] for t in mine[:-1]]
    git(repo, "fsck", "--strict")


def test_two_processes_starting_one_thread_make_one_run(repo: Path) -> None:
    acknowledged = race(repo, ["left", "right"])
    check_thread(repo, acknowledged)
    assert acknowledged == {"left": COUNT, "right": COUNT}


def test_two_processes_putting_into_one_thread_lose_nothing(repo: Path) -> None:
    with GitFabroSaver(repo) as saver:
        assert put_checkpoints(saver, "shared", "first", 1) == (1, None)
    acknowledged = race(repo, ["left", "right"])
    check_thread(repo, {"first": 1, **acknowledged})
    assert acknowledged == {"left": COUNT, "right": COUNT}


def test_threads_sharing_one_saver_lose_nothing(repo: Path) -> None:
    outcomes: dict[str, tuple[int, str | None]] = {}
    with GitFabroSaver(repo) as saver:

        def write(name: str) -> None:
            outcomes[name] = put_checkpoints(saver, "shared", name, COUNT)

        threads = [threading.Thread(target=write, args=(n,)) for n in ("one", "two", "three")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert outcomes == {name: (COUNT, None) for name in ("one", "two", "three")}
    check_thread(repo, {"one": COUNT, "two": COUNT, "three": COUNT})
