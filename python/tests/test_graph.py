"""Real LangGraph graphs on the saver: an interrupt survives a killed process, the history
matches the in-memory saver's, time travel branches off an older checkpoint, and with
`track_files` going back to a checkpoint gives back its files (and rebuilding a delta
channel from the ancestors moves none)."""

from __future__ import annotations

import json
import operator
import os
import signal
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, TypedDict

from approval_app import build
from langchain_core.runnables import RunnableConfig
from langgraph.channels.delta import DeltaChannel
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command, StateSnapshot, interrupt
from support import HERE, fabro, git, python, read_line, thread_run

from langgraph.checkpoint.gitfabro import GitFabroSaver


def test_an_interrupted_graph_resumes_in_a_new_process_after_a_kill(repo: Path) -> None:
    app = str(HERE / "approval_app.py")
    first = python(app, str(repo), "t-approve", "start")
    try:
        reached = json.loads(read_line(first, timeout=120))
    finally:
        os.kill(first.pid, signal.SIGKILL)
        first.communicate()
    assert reached["interrupted"] == ["approve"]

    with GitFabroSaver(repo) as saver:
        state = build(saver).get_state({"configurable": {"thread_id": "t-approve"}})
    assert state.next == ("approve",)
    assert state.config == reached["checkpoint"]
    assert [i.value for i in state.interrupts] == [
        {"question": "apply this?", "draft": "draft of rename the module"}
    ]

    second = python(app, str(repo), "t-approve", "resume", "yes")
    out, err = second.communicate(timeout=120)
    assert second.returncode == 0, err
    assert json.loads(out) == {
        "request": "rename the module",
        "steps": ["draft", "approve", "apply"],
        "approved": True,
        "result": "draft of rename the module: applied",
    }


class Steps(TypedDict):
    steps: Annotated[list[str], operator.add]


def three_steps(
    saver: BaseCheckpointSaver[Any],
) -> CompiledStateGraph[Steps, None, Steps, Steps]:
    builder = StateGraph(Steps)
    for name in ("a", "b", "c"):
        builder.add_node(name, lambda _, name=name: {"steps": [name]})
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("b", "c")
    return builder.compile(checkpointer=saver)


def with_a_subgraph(
    saver: BaseCheckpointSaver[Any],
) -> CompiledStateGraph[Steps, None, Steps, Steps]:
    """`a`, then a subgraph that asks a question (an interrupt in a child namespace), then `c`."""

    def ask(state: Steps) -> dict[str, Any]:
        return {"steps": [f"answer {interrupt('go on?')}"]}

    inner = StateGraph(Steps)
    inner.add_node("ask", ask)
    inner.add_edge(START, "ask")
    builder = StateGraph(Steps)
    builder.add_node("a", lambda _: {"steps": ["a"]})
    builder.add_node("sub", inner.compile())
    builder.add_node("c", lambda _: {"steps": ["c"]})
    builder.add_edge(START, "a")
    builder.add_edge("a", "sub")
    builder.add_edge("sub", "c")
    return builder.compile(checkpointer=saver)


def replay(saver: BaseCheckpointSaver[Any]) -> list[tuple[Any, ...]]:
    """Runs both graphs on `saver`, through the interrupt, forking once; what the history
    shows, without the ids that differ from one run to another."""
    config: RunnableConfig = {"configurable": {"thread_id": "t-same"}}
    subgraph = with_a_subgraph(saver)
    subgraph.invoke({"steps": []}, config)
    subgraph.invoke(Command(resume="yes"), config)
    other: RunnableConfig = {"configurable": {"thread_id": "t-other"}}
    steps = three_steps(saver)
    steps.invoke({"steps": []}, other)
    after_a = next(s for s in steps.get_state_history(other) if s.next == ("b",))
    steps.invoke(None, steps.update_state(after_a.config, {"steps": ["edited"]}))
    return [
        shown(snapshot)
        for graph, cfg in ((subgraph, config), (steps, other))
        for snapshot in graph.get_state_history(cfg)
    ]


def shown(snapshot: StateSnapshot) -> tuple[Any, ...]:
    return (
        snapshot.values,
        snapshot.next,
        snapshot.metadata and snapshot.metadata["source"],
        snapshot.metadata and snapshot.metadata["step"],
        [task.name for task in snapshot.tasks],
        [i.value for i in snapshot.interrupts],
        snapshot.parent_config is None,
    )


def test_graphs_see_the_same_history_as_with_the_in_memory_saver(repo: Path) -> None:
    with GitFabroSaver(repo) as saver:
        assert replay(saver) == replay(InMemorySaver())


def ancestors(saver: GitFabroSaver, config: RunnableConfig) -> list[str]:
    """The checkpoint ids from `config`'s back to the thread's first, by parent."""
    chain = []
    tup = saver.get_tuple(config)
    while tup is not None:
        chain.append(tup.config["configurable"]["checkpoint_id"])
        tup = saver.get_tuple(tup.parent_config) if tup.parent_config else None
    return chain


def test_time_travel_forks_from_an_older_checkpoint(repo: Path) -> None:
    config: RunnableConfig = {"configurable": {"thread_id": "t-travel"}}
    with GitFabroSaver(repo) as saver:
        graph = three_steps(saver)
        assert graph.invoke({"steps": []}, config) == {"steps": ["a", "b", "c"]}
        history = list(graph.get_state_history(config))
        old_head = history[0].config
        after_a = next(s for s in history if s.next == ("b",))
        after_a_id = after_a.config["configurable"]["checkpoint_id"]

        # Going on from after `a` runs b and c again, on a branch of its own.
        assert graph.invoke(None, after_a.config) == {"steps": ["a", "b", "c"]}
        replayed = graph.get_state(config)
        chain = ancestors(saver, replayed.config)
        assert after_a_id in chain
        assert old_head["configurable"]["checkpoint_id"] not in chain
        assert chain[chain.index(after_a_id) + 1 :] == ancestors(saver, after_a.config)[1:]

        # Changing the state there forks too, and the new branch goes on from the change.
        forked = graph.update_state(after_a.config, {"steps": ["edited"]})
        fork = saver.get_tuple(forked)
        assert fork is not None and fork.parent_config is not None
        assert fork.parent_config["configurable"]["checkpoint_id"] == after_a_id
        assert fork.metadata["source"] == "update"
        assert graph.invoke(None, forked) == {"steps": ["a", "edited", "b", "c"]}

        # Nothing was lost: the first run's checkpoints are all still there.
        ids = {s.config["configurable"]["checkpoint_id"] for s in graph.get_state_history(config)}
        assert {s.config["configurable"]["checkpoint_id"] for s in history} <= ids
        assert graph.get_state(config).values == {"steps": ["a", "edited", "b", "c"]}


class Notes(TypedDict):
    seen: Annotated[list[str], operator.add]


def notes_graph(
    saver: GitFabroSaver, notes: Path
) -> CompiledStateGraph[Notes, None, Notes, Notes]:
    """`write` creates the file, `change` records what it found there and rewrites it."""

    def write(state: Notes) -> dict[str, Any]:
        notes.write_text("first draft\n")
        return {}

    def change(state: Notes) -> dict[str, Any]:
        found = notes.read_text()
        notes.write_text("second draft\n")
        return {"seen": [found]}

    builder = StateGraph(Notes)
    builder.add_node("write", write)
    builder.add_node("change", change)
    builder.add_edge(START, "write")
    builder.add_edge("write", "change")
    return builder.compile(checkpointer=saver)


def test_track_files_gives_back_the_files_of_an_older_checkpoint(repo: Path) -> None:
    notes = repo / "notes.txt"
    config: RunnableConfig = {"configurable": {"thread_id": "t-files"}}
    with GitFabroSaver(repo, track_files=True) as saver:
        graph = notes_graph(saver, notes)
        # "sync": each checkpoint is stored, files and all, before the next step runs.
        graph.invoke({"seen": []}, config, durability="sync")
        assert notes.read_text() == "second draft\n"
        history = list(graph.get_state_history(config))
        before_change = next(s for s in history if s.next == ("change",))

        # Going on from before `change`: `change` finds the file as `write` left it.
        final = graph.invoke(None, before_change.config, durability="sync")
        assert final == {"seen": ["first draft\n"]}
        assert notes.read_text() == "second draft\n"

        # Updating the state there puts the file back as it was then too.
        graph.update_state(before_change.config, {"seen": ["by hand"]})
        assert notes.read_text() == "first draft\n"
        root = list(saver.list({"configurable": {"thread_id": "t-files", "checkpoint_ns": ""}}))

    # The thread is a run, and each of its checkpoints a checkpoint of the run.
    run = thread_run(repo, "t-files")
    rows = [line for line in fabro(repo, "log", run["run_id"]).splitlines() if line[:1] == "@"]
    assert len(rows) == len(root) == run["completed"]
    assert all(" succeeded " in row for row in rows), rows
    git(repo, "fsck", "--strict")


def extend(items: list[int] | None, batches: Sequence[list[int]]) -> list[int]:
    return [*(items or []), *(item for batch in batches for item in batch)]


class Counted(TypedDict):
    # Stored as the writes of each step, rebuilt from the ancestors' writes when read.
    items: Annotated[list[int], DeltaChannel(extend, list)]


def counting(
    saver: BaseCheckpointSaver[Any], marker: Path
) -> CompiledStateGraph[Counted, None, Counted, Counted]:
    """Four steps, each adding its number to a delta channel and writing it to `marker`."""
    builder = StateGraph(Counted)
    previous = START
    for step in range(4):

        def add(state: Counted, step: int = step) -> dict[str, Any]:
            marker.write_text(f"step {step}\n")
            return {"items": [step]}

        builder.add_node(f"n{step}", add)
        builder.add_edge(previous, f"n{step}")
        previous = f"n{step}"
    return builder.compile(checkpointer=saver)


def test_delta_channels_are_rebuilt_without_moving_tracked_files(
    tmp_path: Path, repo: Path
) -> None:
    config: RunnableConfig = {"configurable": {"thread_id": "t-delta"}}

    def run(saver: BaseCheckpointSaver[Any], marker: Path) -> list[Any]:
        graph = counting(saver, marker)
        graph.invoke({"items": []}, config, durability="sync")
        seen = [graph.get_state(config).values, marker.read_text()]
        middle = next(s for s in graph.get_state_history(config) if s.next == ("n2",))
        seen.append(middle.values)
        seen.append(graph.invoke(None, middle.config, durability="sync"))
        return seen

    expected = run(InMemorySaver(), tmp_path / "marker.txt")
    assert expected[:2] == [{"items": [0, 1, 2, 3]}, "step 3\n"]
    with GitFabroSaver(repo, track_files=True) as saver:
        assert run(saver, repo / "marker.txt") == expected
