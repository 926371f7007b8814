#!/usr/bin/env python3
"""LangGraph's checkpointers on one graph (docs/langgraph.md): the time of each `put` and
`get_tuple` with `InMemorySaver`, `SqliteSaver` and git-fabro's `GitFabroSaver`, and
`GitFabroSaver(track_files=True)` on a checkout of 1,000 files.

    python bench/checkpointers.py --binary PATH [--threads 100] [--steps 20] [--json OUT]

The graph is one node looping `--steps` times; each step replaces the state's payload (1 KB
or 100 KB of random hex), so that every checkpoint stores a new value, and with files it
rewrites one file of the checkout. Every thread is invoked once with durability "sync" (the
checkpoint is written before the next step runs, as a crash-safe harness wants), then its
newest checkpoint is read `--steps` times. Each call to `put` and `get_tuple` is timed where
LangGraph makes it; the graph's final state is checked on every thread. Needs the packages of
python/requirements-ci.txt and python/ installed (python/ci makes such a venv).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypedDict

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph

from langgraph.checkpoint.gitfabro import GitFabroSaver

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import machine_facts, say  # noqa: E402


class State(TypedDict):
    step: int
    data: str


def graph(saver: BaseCheckpointSaver, size: int, steps: int, files: Path | None) -> Any:
    def work(state: State) -> dict[str, Any]:
        step = state["step"] + 1
        if files is not None:
            (files / "src" / f"f{step * 37 % 1000:04}.txt").write_text(f"step {step}\n")
        return {"step": step, "data": os.urandom(size // 2).hex()}

    builder = StateGraph(State)
    builder.add_node("work", work)
    builder.add_edge(START, "work")
    builder.add_conditional_edges("work", lambda s: END if s["step"] >= steps else "work")
    return builder.compile(checkpointer=saver)


def timed(saver: BaseCheckpointSaver, name: str, into: list[float]) -> None:
    """Makes `saver.<name>` record how long each call takes, in milliseconds."""
    method = getattr(saver, name)

    def call(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return method(*args, **kwargs)
        finally:
            into.append((time.perf_counter() - start) * 1000)

    setattr(saver, name, call)


def git(args: list[str], cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def checkout(root: Path, files: int) -> Path:
    """A repository with one commit of `files` small files (and a README)."""
    repo = root / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "README.md").write_text("bench\n")
    for i in range(files):
        (repo / "src" / f"f{i:04}.txt").write_text(f"file {i}\n")
    git(["init", "-q", "-b", "main"], repo)
    # A `git gc --auto` that the store starts in the background would land in one row's
    # time and outlive the trial's folder: off, as in the tests.
    git(["config", "gc.auto", "0"], repo)
    git(["add", "-A"], repo)
    git(["-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-qm", "files"], repo)
    return repo


@contextmanager
def saver_for(kind: str, root: Path, binary: str) -> Iterator[tuple[BaseCheckpointSaver, Path | None]]:
    if kind == "InMemorySaver":
        yield InMemorySaver(), None
    elif kind == "SqliteSaver":
        conn = sqlite3.connect(root / "checkpoints.sqlite", check_same_thread=False)
        try:
            yield SqliteSaver(conn), None
        finally:
            conn.close()
    else:
        # The runs' directories go to the trial's folder, not to the fabro home of whoever runs it.
        os.environ["FABRO_HOME"] = str(root / "fabro-home")
        track = kind.endswith("files")
        repo = checkout(root, 1000 if track else 0)
        with GitFabroSaver(repo, track_files=track, binary=binary) as saver:
            yield saver, repo if track else None


def trial(kind: str, size: int, threads: int, steps: int, binary: str, root: Path) -> dict[str, Any]:
    puts: list[float] = []
    gets: list[float] = []
    root.mkdir()
    with saver_for(kind, root, binary) as (saver, files):
        timed(saver, "put", puts)
        timed(saver, "get_tuple", gets)
        app = graph(saver, size, steps, files)
        start = time.perf_counter()
        for t in range(threads):
            config = {"configurable": {"thread_id": f"thread-{t}"}}
            final = app.invoke({"step": 0, "data": ""}, config, durability="sync")
            if final["step"] != steps or len(final["data"]) != size // 2 * 2:
                raise SystemExit(f"{kind}: thread {t} ended at {final['step']}")
            for _ in range(steps):
                saver.get_tuple(config)
        wall = time.perf_counter() - start
    return {"saver": kind, "state_bytes": size, "threads": threads, "steps": steps,
            "puts": len(puts), "gets": len(gets), "wall_s": round(wall, 2),
            "put_ms": summary(puts), "get_tuple_ms": summary(gets)}


def summary(ms: list[float]) -> dict[str, float]:
    ordered = sorted(ms)
    return {"median": round(statistics.median(ordered), 3),
            "p90": round(ordered[int(len(ordered) * 0.9)], 3),
            "mean": round(statistics.fmean(ordered), 3)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", required=True, help="the git-fabro to measure")
    parser.add_argument("--threads", type=int, default=100)
    parser.add_argument("--file-threads", type=int, default=20, help="threads of the run with files")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args()
    binary = str(Path(args.binary).resolve())
    rows: list[dict[str, Any]] = []
    plan: list[tuple[str, int, int]] = [(kind, size, args.threads) for size in (1000, 100_000)
                                        for kind in ("InMemorySaver", "SqliteSaver", "GitFabroSaver")]
    plan.append(("GitFabroSaver, files", 1000, args.file_threads))
    load_start = " ".join(f"{x:.2f}" for x in os.getloadavg())
    # Every trial's files stay until the end: ext4 makes a new file slowly for a while after
    # many were deleted (its inode allocator skips recently freed inodes), and a trial that
    # followed the deletion of the one before would pay for it.
    with tempfile.TemporaryDirectory(prefix="gf-checkpointers-") as tmp:
        for number, (kind, size, threads) in enumerate(plan):
            row = trial(kind, size, threads, args.steps, binary, Path(tmp) / str(number))
            say(f"{kind:22} {size // 1000:>4} KB  put {row['put_ms']['median']:.3f} ms  "
                f"get_tuple {row['get_tuple_ms']['median']:.3f} ms  ({row['puts']} puts, {row['wall_s']} s)")
            rows.append(row)
    with tempfile.TemporaryDirectory() as tmp:
        facts = machine_facts(Path(tmp), [binary], dict(os.environ))
    facts["load average at start"] = load_start
    facts["load average at end"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    facts["langgraph"] = version("langgraph")
    data = {"facts": facts, "args": {"threads": args.threads, "file_threads": args.file_threads,
                                     "steps": args.steps, "binary": Path(args.binary).name}, "rows": rows}
    if args.json:
        args.json.write_text(json.dumps(data, indent=2) + "\n")
    return 0


def version(package: str) -> str:
    from importlib.metadata import version as installed
    return installed(package)


if __name__ == "__main__":
    sys.exit(main())
