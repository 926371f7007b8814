"""Puts checkpoints into one thread, as one of several writers, for test_concurrency.

    python put_many.py DIR THREAD WRITER COUNT GO_FILE

Waits until GO_FILE exists, so that the writers start together, then puts COUNT checkpoints,
each the child of the one before, with metadata naming WRITER and the step. Prints how many
puts the store acknowledged, and the code of the error that stopped it early, if one did:
`{"acknowledged": N, "error": null | "conflict" | ...}`.
"""

from __future__ import annotations

import json
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import Checkpoint
from langgraph.checkpoint.base.id import uuid6

from langgraph.checkpoint.gitfabro import GitFabroSaver, GitFabroStoreError


def put_checkpoints(
    saver: GitFabroSaver, thread_id: str, writer: str, count: int
) -> tuple[int, str | None]:
    """Puts `count` chained checkpoints: how many the store acknowledged, and the code of
    the error that stopped the writer early, if one did."""
    config: RunnableConfig = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}
    for step in range(count):
        version = saver.get_next_version(None, None)
        checkpoint = Checkpoint(
            v=1,
            id=str(uuid6(clock_seq=step)),
            ts=datetime.now(timezone.utc).isoformat(),
            channel_values={"value": f"{writer}-{step}"},
            channel_versions={"value": version},
            versions_seen={},
            updated_channels=None,
        )
        try:
            config = saver.put(
                {"configurable": {**config["configurable"], "writer": writer}},
                checkpoint,
                {"source": "loop", "step": step},
                {"value": version},
            )
        except GitFabroStoreError as error:
            return step, error.code
    return count, None


def main(directory: str, thread_id: str, writer: str, count: str, go_file: str) -> None:
    with GitFabroSaver(directory) as saver:
        while not Path(go_file).exists():
            time.sleep(0.01)
        acknowledged, error = put_checkpoints(saver, thread_id, writer, int(count))
    print(json.dumps({"acknowledged": acknowledged, "error": error}), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
