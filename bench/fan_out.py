#!/usr/bin/env python3
"""A pool run's fan-out across machines (docs/many-machines.md, "Fan-out across machines"):
the wall time of one run whose parallel node has B branches of `sleep S`, run one at a time
on the holder (`max_parallel=1`), with 0 or more idle helper workers on other clones, set up
as bench/pool.py sets up its machines (a `git daemon` remote, one clone and home each).

    python3 bench/fan_out.py --binary PATH [--branches 4] [--sleep 2] [--helpers 0,3] [--reps 3]

The time runs from the holder's start (`worker --run RUN`) to its exit; the helpers
(`worker --exit-when-idle`) start first. Each trial checks with plain git on the remote that
every branch's work is on its branch and that no pool ref is left. Python 3.11 standard
library only.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

from pool import Bench, Failed, base_env, free_port, make_template, start_daemon, stop, wait_all, worker
from run import ROOT


def fan_out(branches: int, sleep: float) -> str:
    names = [f"b{i}" for i in range(1, branches + 1)]
    lines = ["digraph fan {", "  start [shape=Mdiamond]", "  exit [shape=Msquare]",
             "  fan [shape=component, max_parallel=1]", "  join [shape=tripleoctagon]", "  start -> fan"]
    for name in names:
        lines.append(f'  {name} [shape=parallelogram, script="sleep {sleep}; echo {name} > {name}.txt"]')
        lines.append(f"  fan -> {name} -> join")
    return "\n".join(lines + ["  join -> exit", "}"]) + "\n"


def trial(bench: Bench, branches: int, sleep: float, helpers: int) -> float:
    remote = bench.remote(0)
    submitter, senv = remote.clone("submitter")
    [id] = remote.submit(submitter, senv, fan_out(branches, sleep), 1)
    machines = [remote.clone(f"helper{i}") for i in range(helpers)]
    logs = [remote.dir / f"helper{i}.log" for i in range(helpers)]
    procs = [worker(clone, env, log, "--exit-when-idle") for (clone, env), log in zip(machines, logs)]
    holder_clone, holder_env = remote.clone("holder")
    holder_log = remote.dir / "holder.log"
    time.sleep(0.5)
    start = time.perf_counter()
    holder = worker(holder_clone, holder_env, holder_log, "--run", id)
    try:
        wait_all([holder], [holder_log], time.monotonic() + 300)
    except Failed:
        stop(procs)
        raise
    wall = time.perf_counter() - start
    wait_all(procs, logs, time.monotonic() + 60)
    for i in range(1, branches + 1):
        got = remote.git("show", f"fabro/run/parallel/{id}/fan/pass1/b{i}:b{i}.txt").strip()
        if got != f"b{i}":
            raise Failed(f"branch b{i} holds {got!r}")
    if remote.git("for-each-ref", "refs/fabro/"):
        raise Failed(f"pool refs left: {remote.git('for-each-ref', 'refs/fabro/')}")
    return wall


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", required=True, help="the git-fabro to measure")
    ap.add_argument("--branches", type=int, default=4)
    ap.add_argument("--sleep", type=float, default=2.0, help="seconds each branch sleeps")
    ap.add_argument("--helpers", default="0,3", help="idle helper workers, a list (default 0,3)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--work", default=str(ROOT / "bench" / "work" / "fan_out"))
    args = ap.parse_args()
    work = Path(args.work).resolve()
    shutil.rmtree(work, ignore_errors=True)
    (work / "bin").mkdir(parents=True)
    (work / "git").mkdir()
    shutil.copy2(Path(args.binary).resolve(), work / "bin" / "git-fabro")
    env = base_env(work)
    port = free_port()
    daemon = start_daemon(work / "git", port, work / "daemon.log")
    try:
        bench = Bench(work, env, port, {0: make_template(work, 0, env)})
        print(f"{args.branches} branches of `sleep {args.sleep}`, max_parallel=1, load {os.getloadavg()[0]:.2f}")
        print("| idle helpers | wall s, min / median / max |\n|---|---|")
        for helpers in [int(h) for h in args.helpers.split(",")]:
            walls = [trial(bench, args.branches, args.sleep, helpers) for _ in range(args.reps)]
            print(f"| {helpers} | {min(walls):.1f} / {statistics.median(walls):.1f} / {max(walls):.1f} |")
    except Failed as e:
        print(f"FAILED: {e}", file=sys.stderr)
        return 1
    finally:
        daemon.terminate()
        daemon.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
