#!/usr/bin/env python3
"""A pool run's fan-out across machines (docs/many-machines.md, "Fan-out across machines"):
how long a parallel node of B branches of `sleep S`, run one at a time on the run's worker
(`max_parallel=1`), takes with 0 or more idle helper workers on other clones, set up as
bench/pool.py sets up its machines (a `git daemon` remote, one clone and home each).

    python3 bench/fan_out.py --binary PATH [--branches 4] [--sleep 2] [--helpers 0,1,3] [--reps 3]

The holder (`worker --run RUN`) claims the run and waits at a first node until the helpers
(`worker --exit-when-idle`) are started, so that none of them takes the run itself; the time
is the parallel node's stage as the holder reports it (offers, claims, the branches, the
join). Each trial checks with plain git on the remote that every branch's work is on its
branch and that no pool ref is left. Python 3.11 standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import sys
import time
from pathlib import Path

from pool import Bench, Failed, base_env, free_port, make_template, start_daemon, wait_all, wait_for_remote, worker
from run import ROOT, machine_facts, say


def fan_out(branches: int, sleep: float, go: Path) -> str:
    names = [f"b{i}" for i in range(1, branches + 1)]
    lines = ["digraph fan {", "  start [shape=Mdiamond]", "  exit [shape=Msquare]",
             f'  wait [shape=parallelogram, script="while [ ! -e {go} ]; do sleep 0.02; done"]',
             "  fan [shape=component, max_parallel=1]", "  join [shape=tripleoctagon]", "  start -> wait -> fan"]
    for name in names:
        lines.append(f'  {name} [shape=parallelogram, script="sleep {sleep}; echo {name} > {name}.txt"]')
        lines.append(f"  fan -> {name} -> join")
    return "\n".join(lines + ["  join -> exit", "}"]) + "\n"


def trial(bench: Bench, branches: int, sleep: float, helpers: int) -> float:
    remote = bench.remote(0)
    submitter, senv = remote.clone("submitter")
    go = remote.dir / "go"
    [id] = remote.submit(submitter, senv, fan_out(branches, sleep, go), 1)
    holder_clone, holder_env = remote.clone("holder")
    holder_log = remote.dir / "holder.log"
    holder = worker(holder_clone, holder_env, holder_log, "--run", id)
    wait_for_remote(remote, (f"refs/fabro/lease/{id}",), lambda tips: tips, [holder])
    machines = [remote.clone(f"helper{i}") for i in range(helpers)]
    logs = [remote.dir / f"helper{i}.log" for i in range(helpers)]
    procs = [worker(clone, env, log, "--exit-when-idle") for (clone, env), log in zip(machines, logs)]
    time.sleep(0.5)
    go.write_text("")
    try:
        wait_all([holder], [holder_log], time.monotonic() + 300)
    finally:
        wait_all(procs, logs, time.monotonic() + 60)
    for i in range(1, branches + 1):
        got = remote.git("show", f"fabro/run/parallel/{id}/fan/pass1/b{i}:b{i}.txt").strip()
        if got != f"b{i}":
            raise Failed(f"branch b{i} holds {got!r}")
    if remote.git("for-each-ref", "refs/fabro/"):
        raise Failed(f"pool refs left: {remote.git('for-each-ref', 'refs/fabro/')}")
    stage = re.search(r"fan@1 +succeeded +([0-9.]+)s", holder_log.read_text())
    if not stage:
        raise Failed(f"the holder reported no fan@1 stage: {holder_log.read_text()[-2000:]}")
    return float(stage.group(1))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", required=True, help="the git-fabro to measure")
    ap.add_argument("--branches", type=int, default=4)
    ap.add_argument("--sleep", type=float, default=2.0, help="seconds each branch sleeps")
    ap.add_argument("--helpers", default="0,1,3", help="idle helper workers, a list (default 0,1,3)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--json", help="write the results to this file (bench/table.py shows them)")
    ap.add_argument("--work", default=str(ROOT / "bench" / "work" / "fan_out"))
    args = ap.parse_args()
    work = Path(args.work).resolve()
    shutil.rmtree(work, ignore_errors=True)
    (work / "bin").mkdir(parents=True)
    (work / "git").mkdir()
    shutil.copy2(Path(args.binary).resolve(), work / "bin" / "git-fabro")
    env = base_env(work)
    facts = machine_facts(work, [str(work / "bin" / "git-fabro")], env)
    shown = {k: v for k, v in vars(args).items() if k not in ("work", "json", "binary")}
    data = {"facts": facts, "args": {**shown, "binary": Path(args.binary).name}, "rows": []}
    port = free_port()
    daemon = start_daemon(work / "git", port, work / "daemon.log")
    try:
        bench = Bench(work, env, port, {0: make_template(work, 0, env)})
        for helpers in [int(h) for h in args.helpers.split(",")]:
            stages = [trial(bench, args.branches, args.sleep, helpers) for _ in range(args.reps)]
            data["rows"].append({"helpers": helpers, "stage_s": stages, "load_1m": os.getloadavg()[0]})
            say(f"{helpers} helpers: {stages}")
    except Failed as e:
        print(f"FAILED: {e}", file=sys.stderr)
        return 1
    finally:
        daemon.terminate()
        daemon.wait()
    facts["load average at end"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    if args.json:
        Path(args.json).write_text(json.dumps(data, indent=2) + "\n")
    print(f"{args.branches} branches of `sleep {args.sleep:g}`, max_parallel=1")
    for row in data["rows"]:
        print(f"{row['helpers']} idle helpers: {min(row['stage_s']):.1f} / "
              f"{statistics.median(row['stage_s']):.1f} / {max(row['stage_s']):.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
