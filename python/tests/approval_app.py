"""A small LangGraph app with a human-in-the-loop step, run as its own process by the tests.

    python approval_app.py DIR THREAD start      runs until the approval interrupt, says so
                                                 on stdout, then waits to be killed
    python approval_app.py DIR THREAD resume ANSWER
                                                 resumes with ANSWER and prints the final
                                                 state as JSON

The graph drafts a change, asks a person to approve it (`interrupt`), then applies it or
not. No LLM: each node is plain Python, so the test knows the final state exactly.
"""

from __future__ import annotations

import json
import operator
import sys
import time
from typing import Annotated, Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command, interrupt

from langgraph.checkpoint.gitfabro import GitFabroSaver


class State(TypedDict, total=False):
    """What the graph holds: the input names only the request (and no steps yet)."""

    request: str
    steps: Annotated[list[str], operator.add]
    approved: bool
    result: str


def draft(state: State) -> dict[str, Any]:
    return {"steps": ["draft"], "result": f"draft of {state['request']}"}


def approve(state: State) -> dict[str, Any]:
    answer = interrupt({"question": "apply this?", "draft": state["result"]})
    return {"steps": ["approve"], "approved": answer == "yes"}


def apply(state: State) -> dict[str, Any]:
    outcome = "applied" if state["approved"] else "dropped"
    return {"steps": ["apply"], "result": f"{state['result']}: {outcome}"}


def build(saver: GitFabroSaver) -> CompiledStateGraph[State, None, State, State]:
    builder = StateGraph(State)
    builder.add_node("draft", draft)
    builder.add_node("approve", approve)
    builder.add_node("apply", apply)
    builder.add_edge(START, "draft")
    builder.add_edge("draft", "approve")
    builder.add_edge("approve", "apply")
    builder.add_edge("apply", END)
    return builder.compile(checkpointer=saver)


def main(directory: str, thread_id: str, command: str, *args: str) -> None:
    config: Any = {"configurable": {"thread_id": thread_id}}
    saver = GitFabroSaver(directory)
    graph = build(saver)
    if command == "start":
        graph.invoke({"request": "rename the module", "steps": []}, config)
        state = graph.get_state(config)
        print(json.dumps({"interrupted": state.next, "checkpoint": state.config}), flush=True)
        # Stay alive with the store open, as a crashed app would be when it is killed.
        while True:
            time.sleep(1)
    elif command == "resume":
        final = graph.invoke(Command(resume=args[0]), config)
        print(json.dumps(final), flush=True)
        saver.close()
    else:
        raise SystemExit(f"unknown command {command!r}")


if __name__ == "__main__":
    main(*sys.argv[1:])
