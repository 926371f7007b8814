"""The saver's own behaviour: writes that overtake their checkpoint, the async saver under
`ainvoke`, and channel versions that sort."""

from __future__ import annotations

import asyncio
from pathlib import Path

from approval_app import build
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.types import Command

from langgraph.checkpoint.gitfabro import AsyncGitFabroSaver, GitFabroSaver


def test_writes_that_come_before_their_checkpoint_are_stored_with_it(repo: Path) -> None:
    checkpoint = empty_checkpoint()
    config: RunnableConfig = {"configurable": {"thread_id": "t", "checkpoint_ns": ""}}
    at_it: RunnableConfig = {
        "configurable": {**config["configurable"], "checkpoint_id": checkpoint["id"]}
    }
    with GitFabroSaver(repo) as saver:
        saver.put_writes(at_it, [("x", 1), ("y", 2)], "task-1")
        assert saver.get_tuple(at_it) is None
        saver.put(config, checkpoint, {"source": "input", "step": -1}, {})
        found = saver.get_tuple(at_it)
        assert found is not None
        assert found.pending_writes == [("task-1", "x", 1), ("task-1", "y", 2)]
    # Kept by the store, not by the saver: a new process finds them too.
    with GitFabroSaver(repo) as again:
        later = again.get_tuple(at_it)
        assert later is not None and len(later.pending_writes or []) == 2


def test_the_async_saver_runs_a_graph_through_an_interrupt(repo: Path) -> None:
    config: RunnableConfig = {"configurable": {"thread_id": "t-async"}}

    async def run() -> dict[str, object]:
        async with AsyncGitFabroSaver(repo) as saver:
            graph = build(saver)
            await graph.ainvoke({"request": "rename the module", "steps": []}, config)
            assert (await graph.aget_state(config)).next == ("approve",)
            result: dict[str, object] = await graph.ainvoke(Command(resume="yes"), config)
            history = [s async for s in graph.aget_state_history(config)]
            assert history[0].values == result
            return result

    assert asyncio.run(run())["result"] == "draft of rename the module: applied"
    with GitFabroSaver(repo) as saver:
        assert build(saver).get_state(config).values["steps"] == ["draft", "approve", "apply"]


def test_concurrent_graphs_share_one_async_saver(repo: Path) -> None:
    threads = [f"t-{n}" for n in range(6)]

    async def run() -> list[dict[str, object]]:
        async with AsyncGitFabroSaver(repo) as saver:
            graph = build(saver)
            configs: list[RunnableConfig] = [{"configurable": {"thread_id": t}} for t in threads]
            await asyncio.gather(
                *(graph.ainvoke({"request": c["configurable"]["thread_id"]}, c) for c in configs)
            )
            finished: list[dict[str, object]] = await asyncio.gather(
                *(graph.ainvoke(Command(resume="yes"), c) for c in configs)
            )
            return finished

    results = asyncio.run(run())
    assert [r["result"] for r in results] == [f"draft of {t}: applied" for t in threads]


def test_channel_versions_sort_as_strings(repo: Path) -> None:
    saver = GitFabroSaver(repo)
    versions = [saver.get_next_version(None, None)]
    for _ in range(12):
        versions.append(saver.get_next_version(versions[-1], None))
    assert sorted(versions) == versions
    assert len(set(versions)) == len(versions)
    assert int(versions[-1].split(".")[0]) == 13
    assert saver.get_next_version(41, None).startswith("0" * 30 + "42.")  # type: ignore[arg-type]
