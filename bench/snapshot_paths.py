#!/usr/bin/env python3
"""`git fabro snapshot PATH...`, a full `git fabro snapshot` and `git add -A && git commit` on a
copy of the harness's 20,000-file repository, 3 files changed each time. Run `bench/run.py`
once first (it builds `bench/work/base/20000` and the release binary)."""

import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
BASE = ROOT / "work" / "base" / "20000"
BIN = ROOT.parent / "target" / "release" / "git-fabro"


def main() -> int:
    if not BASE.is_dir() or not BIN.is_file():
        print("run `python3 bench/run.py` first: it builds the base repository and the binary", file=sys.stderr)
        return 1
    scratch = Path(tempfile.mkdtemp(prefix="fabro-snap-"))
    repo = scratch / "repo"
    shutil.copytree(BASE, repo, symlinks=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "FABRO_"))}
    env.update(HOME=str(scratch), FABRO_HOME=str(scratch / "home"), GIT_CONFIG_NOSYSTEM="1",
               GIT_CONFIG_GLOBAL="/dev/null", GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@b",
               GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@b", LC_ALL="C")

    def run(args, cwd):
        started = time.perf_counter()
        p = subprocess.run(args, cwd=cwd, capture_output=True, env=env)
        if p.returncode:
            raise SystemExit(f"{args} failed: {p.stderr.decode()}")
        return (time.perf_counter() - started) * 1000, p.stdout.decode()

    run(["git", "config", "gc.auto", "0"], repo)
    _, out = run([str(BIN), "start", "--json"], repo)
    fabro_wt = Path(__import__("json").loads(out)["worktree"])
    git_wt = scratch / "git-worktree"
    run(["git", "worktree", "add", "-q", "-b", "bench/git", str(git_wt)], repo)
    files = run(["git", "ls-files"], fabro_wt)[1].split()
    rng = random.Random(7)
    results = {"snapshot PATHS": [], "snapshot (all)": [], "git add -A && git commit": []}
    for rep in range(9):
        picks = rng.sample(files, 3)
        for root in (fabro_wt, git_wt):
            for f in picks:
                with open(root / f, "a") as fh:
                    fh.write(f"change {rep}\n")
        time.sleep(1.2)  # past git's racy-timestamp window, for both sides alike
        paths_ms, _ = run([str(BIN), "snapshot", *picks], fabro_wt)
        git_ms = run(["git", "add", "-A"], git_wt)[0] + run(["git", "commit", "-qm", "x"], git_wt)[0]
        if rep:
            results["snapshot PATHS"].append(paths_ms)
            results["git add -A && git commit"].append(git_ms)
    for rep in range(9):
        for f in rng.sample(files, 3):
            with open(fabro_wt / f, "a") as fh:
                fh.write(f"more {rep}\n")
        time.sleep(1.2)
        all_ms, _ = run([str(BIN), "snapshot"], fabro_wt)
        if rep:
            results["snapshot (all)"].append(all_ms)
    for name in ("snapshot PATHS", "snapshot (all)", "git add -A && git commit"):
        v = results[name]
        print(f"{name}: median {statistics.median(v):.1f} ms [min {min(v):.1f}, max {max(v):.1f}] over {len(v)} runs")
    shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
