#!/usr/bin/env python3
"""A pool of workers against one remote: checkpoints per second and takeover time, against the
number of workers and of unrelated refs on the remote (docs/many-machines.md).

A bare remote served by `git daemon` on 127.0.0.1, a submitter clone and one clone per worker,
each a machine of its own (HOME, fabro home and global git config), as tests/slurm/run.sh sets
them up. The remote also holds 0, 2,000 or 20,000 unrelated branches, packed, all at one
commit: every push downloads the remote's whole list of refs, so they show what that costs.

- checkpoints: W workers run 2*W queued runs of a chain of command nodes that run `true`, from
  the first worker's start to the last one's exit (`worker --exit-when-idle`).
- takeover: a worker holding a run of `sleep 1` nodes under a 2 s lease is killed with SIGKILL
  while waiting workers watch; from the kill to the taker's claim (its lease commit of epoch 2
  on the remote) and to its first checkpoint there, by polling the remote with `git ls-remote`.

    python3 bench/pool.py [--binary PATH] [--quick] [--json FILE] [--wait-load SECONDS]

Every trial checks what it left with plain git on the remote: each run succeeded, each node
once in its timeline, no queue or lease ref left. Python 3.11 standard library only; the
report goes to stdout, progress to stderr, and the exit status is non-zero when a check failed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

from run import ROOT, _first_line, machine_facts, say

DEADLINE = 300.0  # seconds a trial may take before its workers count as hanging
POLL = 0.02  # seconds between two listings of the remote while timing a takeover


class Failed(Exception):
    """A check of what a trial left did not hold, or a process did not end as it should."""


class HolderStopped(Exception):
    """The holder stopped on its own (exit 3) before the kill: it could not renew its lease
    within half its life, as a worker must then (docs/many-machines.md)."""


# --------------------------------------------------------------------------------------------
# Machines


def base_env(work: Path) -> dict[str, str]:
    """The harness's own environment: no configuration but git's defaults."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "FABRO_"))}
    env.update(HOME=str(work), GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null", GIT_TERMINAL_PROMPT="0",
               LC_ALL="C", TZ="UTC", PATH=f"{work / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")
    return env


def machine(base: dict[str, str], dir: Path, name: str) -> dict[str, str]:
    """The environment of a machine of its own under `dir`: home, fabro home, git config."""
    home = dir / "home"
    home.mkdir(parents=True)
    (home / ".gitconfig").write_text(f"[user]\n\tname = {name}\n\temail = {name}@example.invalid\n")
    return {**base, "HOME": str(home), "FABRO_HOME": str(dir / "fabro"),
            "GIT_CONFIG_GLOBAL": str(home / ".gitconfig")}


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> str:
    p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        raise Failed(f"`{' '.join(argv)}` exited {p.returncode}: {p.stderr.strip()[-2000:]}")
    return p.stdout


# --------------------------------------------------------------------------------------------
# The remote


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_daemon(base_path: Path, port: int, log: Path) -> subprocess.Popen:
    daemon = subprocess.Popen(
        ["git", "daemon", "--listen=127.0.0.1", f"--port={port}", f"--base-path={base_path}",
         "--export-all", "--enable=receive-pack", "--reuseaddr", str(base_path)],
        stdout=subprocess.DEVNULL, stderr=log.open("wb"))
    for _ in range(100):
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return daemon
        time.sleep(0.05)
    daemon.kill()
    raise Failed("git daemon did not start listening")


def make_template(work: Path, refs: int, env: dict[str, str]) -> Path:
    """A bare remote with `main` (one commit) and `refs` more branches at it, packed."""
    bare = work / "templates" / f"refs-{refs}.git"
    run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], work, env)
    seed = work / "templates" / "seed"
    if not seed.exists():
        run(["git", "init", "-q", "-b", "main", str(seed)], work, env)
        (seed / "README.md").write_text("a project\n")
        run(["git", "add", "README.md"], seed, env)
        run(["git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "-m", "a project"], seed, env)
    run(["git", "push", "-q", str(bare), "main"], seed, env)
    commit = run(["git", "rev-parse", "main"], bare, env).strip()
    lines = "".join(f"create refs/heads/other/{i} {commit}\n" for i in range(refs))
    subprocess.run(["git", "update-ref", "--stdin"], cwd=bare, env=env, input=lines, text=True, check=True)
    run(["git", "pack-refs", "--all"], bare, env)
    return bare


class Remote:
    """A fresh copy of a template remote, served by the daemon, with its clones."""

    def __init__(self, bench: Bench, refs: int, name: str):
        self.bench = bench
        self.dir = bench.work / "trials" / name
        self.bare = bench.work / "git" / f"{name}.git"
        shutil.copytree(bench.templates[refs], self.bare, symlinks=True)
        self.url = f"git://127.0.0.1:{bench.port}/{name}.git"

    def clone(self, name: str) -> tuple[Path, dict[str, str]]:
        """A machine called `name` with a clone of the remote's `main` alone, as `origin`."""
        env = machine(self.bench.env, self.dir / name, name)
        clone = self.dir / name / "clone"
        run(["git", "clone", "-q", "--single-branch", "-b", "main", self.url, str(clone)], self.dir, env)
        return clone, env

    def submit(self, clone: Path, env: dict[str, str], workflow: str, runs: int) -> list[str]:
        flow = self.dir / "flow.fabro"
        flow.write_text(workflow)
        return [json.loads(run(["git", "fabro", "submit", str(flow), "--remote", "origin", "--json"],
                               clone, env))["run_id"] for _ in range(runs)]

    def git(self, *args: str) -> str:
        return run(["git", *args], self.bare, self.bench.env)

    def tips(self, *refs: str) -> dict[str, str]:
        """The remote's commit of each of `refs` that exists, as a worker reads them."""
        out = run(["git", "ls-remote", self.url, *refs], self.dir, self.bench.env)
        return {ref: sha for sha, ref in (line.split("\t") for line in out.splitlines())}

    def epoch(self, lease: str | None) -> int | None:
        """The epoch of the lease commit `lease` (FORMAT.md, Leases)."""
        for line in self.git("cat-file", "commit", lease).splitlines() if lease else []:
            if line.startswith("Fabro-Lease-Epoch: "):
                return int(line.split(": ", 1)[1])
        return None

    def check_succeeded(self, ids: list[str], nodes: list[str], submitter: Path, env: dict[str, str]) -> None:
        """Each run succeeded with each node once in its timeline, and left the queue."""
        left = json.loads(run(["git", "fabro", "ps", "--remote", "origin", "--json"], submitter, env))
        if left:
            raise Failed(f"runs left on the remote: {left}")
        if self.git("for-each-ref", "refs/fabro/"):
            raise Failed(f"queue or lease refs left: {self.git('for-each-ref', 'refs/fabro/')}")
        for id in ids:
            subjects = self.git("log", "--format=%s", f"fabro/run/{id}", "^main").splitlines()
            want = [f"fabro({id}): {node} (succeeded)" for node in reversed(nodes)]
            if subjects != want:
                raise Failed(f"run {id}: timeline {subjects}, not one checkpoint per node")
        run(["git", "fabro", "fetch", "origin"], submitter, env)
        status = {r["run_id"]: r["status"] for r in json.loads(run(["git", "fabro", "ps", "--json"], submitter, env))}
        wrong = {id: status.get(id) for id in ids if status.get(id) != "succeeded"}
        if wrong:
            raise Failed(f"runs fetched that did not succeed: {wrong}")


def chain(nodes: list[str], script: str) -> str:
    """A linear workflow of command nodes that each run `script`."""
    lines = ["digraph chain {", "  start [shape=Mdiamond]", "  exit [shape=Msquare]"]
    lines += [f'  {node} [shape=parallelogram, script="{script}"]' for node in nodes]
    lines.append(f"  start -> {' -> '.join(nodes)} -> exit")
    return "\n".join(lines + ["}"]) + "\n"


def worker(clone: Path, env: dict[str, str], log: Path, *extra: str) -> subprocess.Popen:
    """A worker, git-fabro itself rather than `git fabro`, so that a signal reaches it."""
    return subprocess.Popen(["git-fabro", "worker", "--remote", "origin", "--trust", *extra],
                            cwd=clone, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=log.open("wb"))


def wait_all(workers: list[subprocess.Popen], logs: list[Path], deadline: float) -> None:
    """Waits for every worker to exit 0; kills them all and fails should one hang or fail."""
    try:
        for w, log in zip(workers, logs):
            rc = w.wait(timeout=max(deadline - time.monotonic(), 0.1))
            if rc != 0:
                raise Failed(f"a worker exited {rc}: {log.read_text()[-2000:]}")
    except subprocess.TimeoutExpired:
        raise Failed(f"a worker still ran after {DEADLINE:.0f} s: {[log.read_text()[-500:] for log in logs]}")
    finally:
        stop(workers)


def stop(workers: list[subprocess.Popen]) -> None:
    for w in workers:
        if w.poll() is None:
            w.kill()
        w.wait()


def wait_for_remote(remote: Remote, refs: tuple[str, ...], done, alive: list[subprocess.Popen]) -> dict[str, str]:
    """Lists `refs` on the remote every POLL seconds until `done(tips)`; fails if a worker
    of `alive` ends first, or after DEADLINE."""
    deadline = time.monotonic() + DEADLINE
    while True:
        tips = remote.tips(*refs)
        if done(tips):
            return tips
        ended = [w.returncode for w in alive if w.poll() is not None]
        if ended or time.monotonic() > deadline:
            stop(alive)
            raise Failed(f"the remote never got there: workers ended {ended}, refs {tips}")
        time.sleep(POLL)


# --------------------------------------------------------------------------------------------
# Trials


class Bench:
    def __init__(self, work: Path, env: dict[str, str], port: int, templates: dict[int, Path]):
        self.work, self.env, self.port, self.templates = work, env, port, templates
        self.trials = 0

    def remote(self, refs: int) -> Remote:
        self.trials += 1
        return Remote(self, refs, f"t{self.trials}")

    def checkpoints(self, refs: int, workers: int, runs: int, nodes: int) -> float:
        """Seconds from the first worker's start to the last one's exit, all runs done."""
        remote = self.remote(refs)
        submitter, senv = remote.clone("submitter")
        names = [f"n{i}" for i in range(1, nodes + 1)]
        ids = remote.submit(submitter, senv, chain(names, "true"), runs)
        machines = [remote.clone(f"worker{i}") for i in range(workers)]
        logs = [remote.dir / f"worker{i}.log" for i in range(workers)]
        start = time.perf_counter()
        procs = [worker(clone, env, log, "--exit-when-idle") for (clone, env), log in zip(machines, logs)]
        wait_all(procs, logs, time.monotonic() + DEADLINE)
        wall = time.perf_counter() - start
        remote.check_succeeded(ids, names, submitter, senv)
        return wall

    def takeover(self, refs: int, waiting: int, ttl: float) -> tuple[float, float]:
        """Seconds from the SIGKILL of a run's holder to the taker's claim and to its first
        checkpoint on the remote."""
        remote = self.remote(refs)
        submitter, senv = remote.clone("submitter")
        names = ["s1", "s2"]
        [id] = remote.submit(submitter, senv, chain(names, "sleep 1"), 1)
        lease, meta = f"refs/fabro/lease/{id}", f"refs/heads/fabro/meta/{id}"
        refs = (lease, meta)
        machines = [remote.clone(f"worker{i}") for i in range(waiting + 1)]
        logs = [remote.dir / f"worker{i}.log" for i in range(waiting + 1)]
        ttl_arg = f"{int(ttl * 1000)}ms"
        holder = worker(*machines[0], logs[0], "--once", "--ttl", ttl_arg)
        waiters: list[subprocess.Popen] = []
        try:
            queued = wait_for_remote(remote, refs, lambda t: lease in t, [holder])[meta]
            waiters = [worker(clone, env, log, "--exit-when-idle", "--ttl", ttl_arg)
                       for (clone, env), log in zip(machines[1:], logs[1:])]
            # The start node's checkpoint landed: s1's `sleep 1` runs, and nothing is pushed
            # but renewals until it ends.
            started = wait_for_remote(remote, refs, lambda t: t.get(meta) != queued, [holder, *waiters])[meta]
            time.sleep(0.4)
        except Failed:
            if holder.poll() != 3:
                raise
        if holder.poll() == 3:
            stop([holder, *waiters])
            raise HolderStopped(logs[0].read_text().strip().splitlines()[-1])
        holder.send_signal(signal.SIGKILL)
        killed = time.perf_counter()
        holder.wait()
        wait_for_remote(remote, refs, lambda t: remote.epoch(t.get(lease)) == 2, waiters)
        claimed = time.perf_counter() - killed
        wait_for_remote(remote, refs, lambda t: t.get(meta) != started, waiters)
        checkpoint = time.perf_counter() - killed
        wait_all(waiters, logs[1:], time.monotonic() + DEADLINE)
        remote.check_succeeded([id], names, submitter, senv)
        return claimed, checkpoint


# --------------------------------------------------------------------------------------------
# Results


def spread(values: list[float]) -> dict[str, float]:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def measure_checkpoints(bench: Bench, args, refs: int, workers: int) -> dict:
    runs = 2 * workers
    walls, loads = [], []
    for rep in range(args.reps):
        loads.append(os.getloadavg()[0])
        walls.append(bench.checkpoints(refs, workers, runs, args.nodes))
        say(f"checkpoints: {refs} refs, {workers} workers, rep {rep + 1}: {walls[-1]:.2f} s")
    total = runs * args.nodes
    per_s = [total / wall for wall in walls]
    return {"refs": refs, "workers": workers, "runs": runs, "nodes": args.nodes, "checkpoints": total,
            "wall_s": walls, "checkpoints_per_s": spread(per_s),
            "per_worker_per_s": spread([p / workers for p in per_s]), "load_1m": loads}


def measure_takeover(bench: Bench, args, refs: int, waiting: int) -> dict:
    claims, checkpoints, loads, stopped = [], [], [], []
    while len(claims) < args.reps:
        loads.append(os.getloadavg()[0])
        try:
            claimed, checkpoint = bench.takeover(refs, waiting, args.ttl)
        except HolderStopped as e:
            # Counted, and the trial made again: there was nothing to kill.
            stopped.append(str(e))
            say(f"takeover: {refs} refs, {waiting} waiting: the holder stopped before the kill: {e}")
            if len(stopped) > 2 * args.reps:
                raise Failed(f"the holder stopped on its own in {len(stopped)} trials: {e}")
            continue
        claims.append(claimed)
        checkpoints.append(checkpoint)
        say(f"takeover: {refs} refs, {waiting} waiting, rep {len(claims)}: claim {claimed:.2f} s, "
            f"checkpoint {checkpoint:.2f} s")
    return {"refs": refs, "waiting": waiting, "ttl_s": args.ttl, "claim_s": claims, "checkpoint_s": checkpoints,
            "holder_stopped_itself": stopped,
            "claim_past_ttl_s": spread([c - args.ttl for c in claims]),
            "checkpoint_past_ttl_s": spread([c - args.ttl for c in checkpoints]), "load_1m": loads}


def report(data: dict) -> str:
    facts = data["facts"]
    out = [f"- {name}: {value}" for name, value in facts.items()]
    out += ["", "| refs | workers | checkpoints | checkpoints/s, min / median / max | per worker |",
            "|---|---|---|---|---|"]
    for row in data["checkpoints"]:
        c, w = row["checkpoints_per_s"], row["per_worker_per_s"]
        out.append(f"| {row['refs']:,} | {row['workers']} | {row['checkpoints']} | {c['min']:.1f} / "
                   f"{c['median']:.1f} / {c['max']:.1f} | {w['median']:.1f} |")
    out += ["", "| refs | waiting workers | kill to claim, s | kill to first checkpoint, s | claim past the ttl, s "
            "| holders that stopped before the kill |", "|---|---|---|---|---|---|"]
    for row in data["takeover"]:
        claim, ckpt = spread(row["claim_s"]), spread(row["checkpoint_s"])
        out.append(f"| {row['refs']:,} | {row['waiting']} | {claim['min']:.2f} / {claim['median']:.2f} / "
                   f"{claim['max']:.2f} | {ckpt['min']:.2f} / {ckpt['median']:.2f} / {ckpt['max']:.2f} | "
                   f"{row['claim_past_ttl_s']['median']:.2f} | {len(row['holder_stopped_itself'])} |")
    if data["failures"]:
        out += ["", "FAILURES:"] + [f"- {f}" for f in data["failures"]]
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------------


def wait_for_load(limit: float) -> float:
    """Waits up to `limit` seconds for a 1-minute load average below 2; returns the wait."""
    start = time.monotonic()
    while os.getloadavg()[0] >= 2 and time.monotonic() - start < limit:
        say(f"waiting for a load average below 2 (now {os.getloadavg()[0]:.2f})")
        time.sleep(15)
    return time.monotonic() - start


def quick_binary() -> Path:
    """`cargo build --profile quick`: release speed for a fraction of its build time."""
    say("cargo build --locked --profile quick")
    subprocess.run(["cargo", "build", "--locked", "--profile", "quick"], cwd=ROOT, check=True,
                   stdout=sys.stderr)
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return (target if target.is_absolute() else ROOT / target) / "quick" / "git-fabro"


def numbers(text: str) -> list[int]:
    return [int(n) for n in text.split(",")]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", help="the git-fabro to measure (default: cargo build --profile quick)")
    ap.add_argument("--quick", action="store_true", help="check it works: 1 repetition, fewer points")
    ap.add_argument("--reps", type=int, help="repetitions of each point (default 3; 1 with --quick)")
    ap.add_argument("--refs", type=numbers, help="unrelated refs on the remote (default 0,2000,20000)")
    ap.add_argument("--workers", type=numbers, help="workers for checkpoints/s (default 1,2,4,8)")
    ap.add_argument("--waiting", type=numbers, help="waiting workers at a takeover (default 1,4)")
    ap.add_argument("--nodes", type=int, default=10, help="nodes in each run's chain (default 10)")
    ap.add_argument("--ttl", type=float, default=2.0, help="the lease's life in s at a takeover (default 2)")
    ap.add_argument("--wait-load", type=float, default=0, metavar="SECONDS",
                    help="wait up to SECONDS for a 1-minute load average below 2 first")
    ap.add_argument("--json", help="write the results to this file")
    ap.add_argument("--work", default=str(ROOT / "bench" / "work" / "pool"), help="work dir (emptied first)")
    args = ap.parse_args()
    args.reps = args.reps or (1 if args.quick else 3)
    args.refs = args.refs or ([0, 2000] if args.quick else [0, 2000, 20000])
    args.workers = args.workers or ([1, 2] if args.quick else [1, 2, 4, 8])
    args.waiting = args.waiting or ([1] if args.quick else [1, 4])

    work = Path(args.work).resolve()
    shutil.rmtree(work, ignore_errors=True)
    (work / "bin").mkdir(parents=True)
    (work / "git").mkdir()
    # A private copy, so that a concurrent build cannot swap the binary mid-run.
    shutil.copy2(Path(args.binary).resolve() if args.binary else quick_binary(), work / "bin" / "git-fabro")
    env = base_env(work)
    waited = wait_for_load(args.wait_load)
    facts = machine_facts(work, [str(work / "bin" / "git-fabro")], env)
    facts["waited for a load average below 2"] = f"{waited:.0f} s"
    # Every push fsyncs the refs it moves on the remote: other processes' writes slow it.
    facts["IO pressure at start"] = _first_line("/proc/pressure/io")
    templates = {refs: make_template(work, refs, env) for refs in args.refs}
    port = free_port()
    daemon = start_daemon(work / "git", port, work / "daemon.log")
    data = {"facts": facts, "args": shown_args(args), "checkpoints": [], "takeover": [], "failures": []}
    try:
        bench = Bench(work, env, port, templates)
        for refs in args.refs:
            for workers in args.workers:
                data["checkpoints"].append(measure_checkpoints(bench, args, refs, workers))
            for waiting in args.waiting:
                data["takeover"].append(measure_takeover(bench, args, refs, waiting))
    except Failed as e:
        # A failed check is a finding: measuring on would only hide it.
        data["failures"].append(str(e))
    finally:
        daemon.terminate()
        daemon.wait()
    facts["load average at end"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    facts["IO pressure at end"] = _first_line("/proc/pressure/io")
    if args.json:
        Path(args.json).write_text(json.dumps(data, indent=2) + "\n")
    sys.stdout.write(report(data))
    return 1 if data["failures"] else 0


def shown_args(args) -> dict:
    """The options as the JSON keeps them, with no machine's paths."""
    shown = {k: v for k, v in vars(args).items() if k not in ("work", "json")}
    shown["binary"] = Path(args.binary).name if args.binary else "quick profile"
    return shown


if __name__ == "__main__":
    sys.exit(main())
