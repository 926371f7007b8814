#!/usr/bin/env python3
"""Benchmark harness for git-fabro: every measurement is a ratio against the `git` CLI doing
the same job on an identical copy, in the same run.  See BENCHMARKS.md for what each benchmark
measures and how to read the output.

Python 3.11 standard library only.  Progress goes to stderr; the report (machine facts and a
Markdown table) goes to stdout.  Exit status is non-zero if any command failed.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GEN_VERSION = 1  # bump when the synthetic repository layout or content changes
RACY_WAIT = 1.1  # seconds; git's racy-timestamp window is 1 s at second granularity
# Seconds; ext4 without a journal avoids reusing an inode freed in the last 60 s, or 360 s while
# its inode-table block is dirty (fs/ext4/ialloc.c, recently_deleted()), and finds out by
# walking them, so file creation right after a mass deletion is very slow.
SETTLE = 361.0
LAST_DELETE = ".last-delete"  # in the work dir: when the harness last deleted its trash
TARGET_FILES = 300  # untracked, ignored files in each worktree's target/
WARMUP, RSS_RUN = -1, -2  # repetition markers
NODES = ["plan", "implement", "test", "review", "fix"]
BENCH_NAMES = [
    "checkpoint-10", "snapshot-10", "checkpoint-touch-all", "restore", "fork", "start",
    "ps", "checkpoint-growth", "fork-growth", "log", "disk", "engine", "checkpoint-unchanged", "hooks",
]
PER_SIZE = {"checkpoint-10", "snapshot-10", "checkpoint-touch-all", "restore", "fork", "start", "engine",
            "checkpoint-unchanged", "hooks"}
ENGINE_NODES = 200  # command nodes in the engine benchmark's linear workflow
PS_FILES = 10  # files in the repository that holds the runs `ps` lists
HOOK_SESSION = "5f0c4c1e-8d7a-4b8e-9a61-2f3d0b6c7e91"  # the agent session of the hooks benchmark


class CommandFailed(Exception):
    pass


def say(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------
# Processes


@dataclass
class Proc:
    argv: list[str]
    rc: int
    ms: float
    rss_kb: int
    out: str
    err: str


TIME = "/usr/bin/time"


def gnu_time_works() -> bool:
    try:
        with tempfile.NamedTemporaryFile() as f:
            subprocess.run([TIME, "-f", "%M", "-o", f.name, "true"], check=True, capture_output=True)
            return f.read().strip().isdigit()
    except (OSError, subprocess.CalledProcessError):
        return False


class Runner:
    """Spawns commands in a scratch environment and measures wall time and peak RSS.

    Wall time is perf_counter around spawn + wait of the command itself, nothing in between.

    Peak RSS: Linux carries a process's high-water RSS across exec, and a child spawned from
    Python starts from Python's own mm (vfork), so ru_maxrss of a direct child is never below
    this interpreter's RSS (~15 MB), whatever the command used.  So peak RSS comes from a
    separate, untimed run under GNU `/usr/bin/time -f %M` (a small C parent whose child starts
    from a ~2 MB image).  The wrapper costs about 1 ms per process, which is why it is never on
    a timed run.  Without GNU time, os.wait4()'s ru_maxrss is used and is only an upper bound.
    """

    def __init__(self, env: dict[str, str], fabro: list[str]):
        self.env = env
        self.fabro = fabro
        self.devnull = open(os.devnull, "wb")
        self.gnu_time = gnu_time_works()
        self.rss_source = (
            f"GNU {TIME} -f %M on one extra untimed repetition" if self.gnu_time
            else "os.wait4 ru_maxrss on one extra untimed repetition (upper bound: includes the spawning Python's RSS)"
        )

    def run(self, argv: list[str], cwd: Path, discard_stdout: bool = False, rss: bool = False,
            stdin: bytes | None = None, env: dict[str, str] | None = None) -> Proc:
        """`stdin`, when given, is what the command reads on its standard input (from a file
        written before the clock starts), else it reads /dev/null; `env` adds variables."""
        out = self.devnull if discard_stdout else tempfile.TemporaryFile()
        err = tempfile.TemporaryFile()
        feed = subprocess.DEVNULL
        if stdin is not None:
            feed = tempfile.TemporaryFile()
            feed.write(stdin)
            feed.seek(0)
        rss_file = None
        spawn = argv
        if rss and self.gnu_time:
            rss_file = tempfile.NamedTemporaryFile(prefix="rss-")
            spawn = [TIME, "-f", "%M", "-o", rss_file.name, *argv]
        full_env = {**self.env, **env} if env else self.env
        try:
            t0 = time.perf_counter()
            p = subprocess.Popen(spawn, cwd=cwd, env=full_env, stdin=feed, stdout=out, stderr=err)
            _, status, usage = os.wait4(p.pid, 0)
            elapsed = (time.perf_counter() - t0) * 1000.0
            p.returncode = os.waitstatus_to_exitcode(status)
            peak = usage.ru_maxrss
            if rss_file is not None:
                lines = rss_file.read().decode().split()
                peak = int(lines[-1]) if lines and lines[-1].isdigit() else 0
            text = ""
            if not discard_stdout:
                out.seek(0)
                text = out.read().decode("utf-8", "replace")
            err.seek(0)
            etext = err.read().decode("utf-8", "replace")
        finally:
            if not discard_stdout:
                out.close()
            err.close()
            if rss_file is not None:
                rss_file.close()
            if stdin is not None:
                feed.close()
        proc = Proc(argv, p.returncode, elapsed, peak, text, etext)
        if proc.rc != 0:
            raise CommandFailed(
                f"command failed (exit {proc.rc}) in {cwd}: {' '.join(argv)}\n"
                f"stdout: {text.strip()[:2000]}\nstderr: {etext.strip()[:2000]}"
            )
        return proc

    def git(self, *args: str, cwd: Path, discard_stdout: bool = False, rss: bool = False) -> Proc:
        return self.run(["git", *args], cwd, discard_stdout, rss)

    def gitout(self, *args: str, cwd: Path) -> str:
        return self.git(*args, cwd=cwd).out.strip()

    def fab(self, *args: str, cwd: Path, discard_stdout: bool = False, rss: bool = False,
            stdin: bytes | None = None, env: dict[str, str] | None = None) -> Proc:
        return self.run([*self.fabro, *args], cwd, discard_stdout, rss, stdin, env)


def scratch_env(work: Path, fabro_home: Path, fabro_bin: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not (k.startswith("GIT_") or k.startswith("FABRO_") or k in ("XDG_CONFIG_HOME", "PAGER", "LESS"))
    }
    home = work / "home"
    home.mkdir(parents=True, exist_ok=True)
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        FABRO_HOME=str(fabro_home),
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL="/dev/null",
        GIT_AUTHOR_NAME="b",
        GIT_AUTHOR_EMAIL="b@b",
        GIT_COMMITTER_NAME="b",
        GIT_COMMITTER_EMAIL="b@b",
        GIT_PAGER="cat",
        PAGER="cat",
        GIT_TERMINAL_PROMPT="0",
        LC_ALL="C",
        TZ="UTC",
        PATH=f"{fabro_bin.parent}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    return env


# --------------------------------------------------------------------------------------------
# Synthetic repositories

WORDS = (
    "run checkpoint node stage tree blob commit index worktree branch trailer meta graph "
    "status record timeline context value retry visit outcome fork rewind resume finish"
).split()


def layout(nfiles: int) -> list[str]:
    """src/modNN/subN/fileNNN.rs: 100 files per sub dir, 10 sub dirs per module."""
    return [f"src/mod{i // 1000:02d}/sub{(i // 100) % 10}/file{i % 100:03d}.rs" for i in range(nfiles)]


def file_text(rng: random.Random, tag: str) -> str:
    """0.1-1 KB of Rust-looking text."""
    target = rng.randint(100, 1000)
    lines = [f"// {tag}\n"]
    size = len(lines[0])
    n = 0
    while size < target:
        kind = rng.random()
        if kind < 0.3:
            line = "// " + " ".join(rng.choices(WORDS, k=rng.randint(3, 9))) + "\n"
        elif kind < 0.8:
            a, b = rng.choice(WORDS), rng.choice(WORDS)
            line = f"pub fn {a}_{b}_{n}(x: u64) -> u64 {{ x.wrapping_mul({rng.randint(1, 99999)}) }}\n"
        else:
            line = f"const {rng.choice(WORDS).upper()}_{n}: u32 = {rng.randint(0, 1 << 30)};\n"
        lines.append(line)
        size += len(line)
        n += 1
    text = "".join(lines)
    return text[:1000] if len(text) > 1000 else text


def populate_target(worktree: Path, n: int = TARGET_FILES) -> list[str]:
    """An untracked, .gitignore'd target/ dir, as a cargo build leaves behind."""
    rng = random.Random(4242)
    paths = []
    for k in range(n):
        if k % 3 == 0:
            rel = f"target/debug/deps/libcrate{k:04d}-{rng.getrandbits(32):08x}.rlib"
        elif k % 3 == 1:
            rel = f"target/debug/.fingerprint/crate{k % 40:02d}-{k:04d}/lib-crate.json"
        else:
            rel = f"target/debug/build/crate{k % 25:02d}/out/gen{k:04d}.rs"
        p = worktree / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(rng.randbytes(rng.randint(200, 2000)))
        paths.append(rel)
    return paths


def generate_base(r: Runner, dest: Path, nfiles: int) -> None:
    stamp = dest / ".git" / "bench-stamp"
    want = f"v{GEN_VERSION} files={nfiles} target={TARGET_FILES}\n"
    if stamp.is_file() and stamp.read_text() == want:
        say(f"reusing synthetic repo {dest} ({nfiles} files)")
        return
    if dest.exists():
        discard(dest.parent.parent, dest)
    say(f"generating synthetic repo with {nfiles} files in {dest}")
    t0 = time.monotonic()
    dest.mkdir(parents=True)
    rng = random.Random(nfiles)
    made = set()
    for rel in layout(nfiles):
        d = rel.rpartition("/")[0]
        if d not in made:
            (dest / d).mkdir(parents=True, exist_ok=True)
            made.add(d)
        with open(dest / rel, "w") as f:
            f.write(file_text(rng, rel))
    (dest / ".gitignore").write_text("target/\n")
    r.git("init", "-q", "-b", "main", cwd=dest)
    configure(r, dest)
    r.git("add", "-A", cwd=dest)
    r.git("commit", "-q", "-m", f"synthetic repository, {nfiles} files", cwd=dest)
    r.git("gc", "-q", cwd=dest)
    populate_target(dest)
    stamp.write_text(want)
    say(f"  generated in {time.monotonic() - t0:.1f} s")


def configure(r: Runner, repo: Path) -> None:
    for key, value in (("gc.auto", "0"), ("maintenance.auto", "false"), ("core.autocrlf", "false")):
        r.git("config", key, value, cwd=repo)


def discard(work: Path, path: Path) -> None:
    """Moves `path` into work/trash, emptied when the harness ends: deleting many files
    mid-run makes later file creation slow on ext4 without a journal (BENCHMARKS.md)."""
    if path.exists():
        trash = work / "trash"
        trash.mkdir(exist_ok=True)
        path.rename(trash / f"{time.monotonic_ns()}-{path.name}")


def create_canary(work: Path, n: int = 5000) -> float:
    """Milliseconds to create `n` empty files: slow when the filesystem must skip many recently
    freed inodes (see SETTLE).  The files go to the trash."""
    d = work / f"canary-{time.monotonic_ns()}"
    d.mkdir()
    t0 = time.perf_counter()
    for i in range(n):
        os.close(os.open(d / f"f{i}", os.O_CREAT | os.O_WRONLY, 0o644))
    ms = (time.perf_counter() - t0) * 1000
    discard(work, d)
    return ms


def empty_trash(work: Path) -> None:
    if (work / "trash").exists():
        shutil.rmtree(work / "trash", ignore_errors=True)
        os.sync()
        (work / LAST_DELETE).write_text(f"{time.time()}\n")


def copy_repo(base: Path, dest: Path) -> Path:
    if dest.exists():
        raise CommandFailed(f"{dest} already exists")
    dest.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cp", "-a", str(base), str(dest)], check=True)
    return dest


# --------------------------------------------------------------------------------------------
# Measurement bookkeeping


@dataclass
class Result:
    bench: str
    size: str
    fabro_ms: list[float] = field(default_factory=list)
    git_ms: list[float] = field(default_factory=list)
    fabro_rss_kb: list[int] = field(default_factory=list)
    git_rss_kb: list[int] = field(default_factory=list)
    warmup: dict = field(default_factory=dict)
    baseline: str = "git"  # what git_ms holds
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        # What the set-up wrote is flushed before the meter starts: the kernel's flusher
        # threads writing it back are the set-up's cost, not other processes' during the
        # measurement (each pair syncs again before it starts).
        os.sync()
        self._meter = CpuMeter()

    def to_json(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}


class Racy:
    """Makes sure no index entry is racy when a measurement starts: the measurement waits until
    RACY_WAIT seconds have passed since the last file change and the last index write on
    either side."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.last = 0.0

    def mark(self) -> None:
        self.last = time.monotonic()

    def wait(self) -> None:
        if self.enabled:
            delay = self.last + RACY_WAIT - time.monotonic()
            if delay > 0:
                time.sleep(delay)


class Tree:
    """The tracked files of a worktree, and the edits every repetition applies to all sides."""

    def __init__(self, files: list[str]):
        self.files = list(files)
        self.counter = 0

    def change10(self, worktrees: list[Path]) -> None:
        """Modify 6 files, add 2, delete 2; the same change in every worktree."""
        self.counter += 1
        rng = random.Random(self.counter * 7919)
        picked = rng.sample(self.files, 8)
        modified, deleted = picked[:6], picked[6:]
        added = []
        for k in range(2):
            d = rng.choice(self.files).rpartition("/")[0]
            added.append(f"{d}/new{self.counter:05d}_{k}.rs")
        texts = [file_text(rng, a) for a in added]
        for wt in worktrees:
            for rel in modified:
                with open(wt / rel, "a") as f:
                    f.write(f"// edit {self.counter}\n")
            for rel in deleted:
                os.remove(wt / rel)
            for rel, text in zip(added, texts):
                (wt / rel).write_text(text)
        dead = set(deleted)
        self.files = [f for f in self.files if f not in dead] + added

    def modify(self, worktrees: list[Path], k: int) -> list[str]:
        """Append a line to `k` tracked files picked at random (fixed seed); the same change in
        every worktree.  Returns the files changed."""
        self.counter += 1
        picked = random.Random(self.counter * 7919).sample(self.files, k)
        for wt in worktrees:
            for rel in picked:
                with open(wt / rel, "a") as f:
                    f.write(f"// edit {self.counter}\n")
        return picked

    def change1(self, worktree: Path) -> None:
        self.counter += 1
        rel = self.files[self.counter % len(self.files)]
        with open(worktree / rel, "a") as f:
            f.write(f"// edit {self.counter}\n")

    def touch_all(self, worktrees: list[Path], others: list[str]) -> None:
        for wt in worktrees:
            for rel in self.files:
                os.utime(wt / rel)
            for rel in others:
                os.utime(wt / rel)


class Bench:
    def __init__(self, args, r: Runner, work: Path, fabro_home: Path):
        self.args = args
        self.r = r
        self.work = work
        self.fabro_home = fabro_home
        self.results: list[Result] = []
        self.failures: list[str] = []
        self.problems: list[str] = []
        self.racy = Racy(not args.no_racy_wait)

    def discard(self, path: Path) -> None:
        discard(self.work, path)

    def add(self, res: Result) -> None:
        res.extra["other_cpu"] = res._meter.background()
        res.extra["other_cpu_share"] = res._meter.share
        self.results.append(res)

    def problem(self, msg: str) -> None:
        if msg not in self.problems:
            say("PROBLEM: " + msg)
            self.problems.append(msg)

    def note_stderr(self, what: str, proc: Proc, expected_prefixes: tuple[str, ...] = ()) -> None:
        for line in proc.err.splitlines():
            if line.strip() and not line.startswith(expected_prefixes):
                self.problem(f"{what} wrote to stderr: {line.strip()}")

    # ---- helpers --------------------------------------------------------------------------

    def base(self, nfiles: int) -> Path:
        path = self.work / "base" / str(nfiles)
        generate_base(self.r, path, nfiles)
        return path

    def fabro_start(self, repo: Path) -> tuple[str, Path]:
        p = self.r.fab("start", "--json", cwd=repo)
        info = json.loads(p.out)
        return info["run_id"], Path(info["worktree"])

    def reps(self) -> list[int]:
        """The discarded warm-up, the untimed RSS run, then the timed repetitions 0..reps-1."""
        return [WARMUP, RSS_RUN, *range(self.args.reps)]

    def paired(self, res: Result, rep: int, fabro_fn, git_fn, racy: bool = True) -> None:
        """One repetition of both sides, order alternating per repetition.  With `racy`, first
        wait out the racy-timestamp window (for commands that read and write an index)."""
        order = [("fabro", fabro_fn), ("git", git_fn)]
        if rep % 2 == 1:
            order.reverse()
        os.sync()
        if racy:
            self.racy.wait()
        rss_run = rep == RSS_RUN
        for side, fn in order:
            ms, rss = fn(rss_run)
            self.racy.mark()
            if rep == WARMUP:
                res.warmup[side] = ms
            elif rss_run:
                getattr(res, f"{side}_rss_kb").append(rss)
            else:
                getattr(res, f"{side}_ms").append(ms)

    def git_commit(self, wt: Path, *extra: str):
        """The git side of a checkpoint: `git add -A && git commit -q -m x` in `wt`, timed
        together."""
        def fn(rss):
            a = self.r.git("add", "-A", cwd=wt, rss=rss)
            c = self.r.git("commit", "-q", *extra, "-m", "x", cwd=wt, rss=rss)
            return a.ms + c.ms, max(a.rss_kb, c.rss_kb)
        return fn

    def same_tree(self, repo: Path, a: str, b: str, what: str) -> None:
        ta, tb = self.r.gitout("rev-parse", f"{a}^{{tree}}", f"{b}^{{tree}}", cwd=repo).split()
        if ta != tb:
            raise CommandFailed(f"{what}: git-fabro's run commit {a} has tree {ta}, git's commit {b} has tree {tb}")

    # ---- checkpoint-10, checkpoint-touch-all, start ---------------------------------------

    def per_size(self, nfiles: int, wanted: set[str]) -> None:
        r = self.r
        base = self.base(nfiles)
        repo = copy_repo(base, self.work / "runs" / f"files-{nfiles}" / "repo")
        label = f"{nfiles:,} files"
        if wanted & (PER_SIZE - {"start", "hooks"}):
            say(f"[{label}] setting up the run worktree and the git worktree")
            run_id, fwt = self.fabro_start(repo)
            gwt = repo.parent / "git-worktree"
            r.git("worktree", "add", "-q", "-b", "bench/git", str(gwt), cwd=repo)
            targets = populate_target(fwt)
            populate_target(gwt)
            self.racy.mark()
            tree = Tree(layout(nfiles))
            nodes = iter(range(10**9))
            state: dict[str, str] = {}

            def fabro_ckpt(rss):
                node = NODES[next(nodes) % len(NODES)]
                p = r.fab("checkpoint", "--run", run_id, "--node", node, cwd=fwt, rss=rss)
                self.note_stderr("git fabro checkpoint", p)
                state["fabro_commit"] = p.out.strip()
                return p.ms, p.rss_kb

            def git_commit(*extra):
                return self.git_commit(gwt, *extra)

            if "checkpoint-10" in wanted:
                say(f"[{label}] checkpoint-10")
                res = Result("checkpoint-10", label)
                for rep in self.reps():
                    tree.change10([fwt, gwt])
                    self.racy.mark()
                    self.paired(res, rep, fabro_ckpt, git_commit())
                    self.same_tree(repo, state["fabro_commit"], "bench/git", "checkpoint-10")
                self.add(res)
            if "snapshot-10" in wanted:
                # A snapshot (`git fabro snapshot`, no node, no metadata) against the same commit.
                say(f"[{label}] snapshot-10")
                res = Result("snapshot-10", label)

                def fabro_snap(rss):
                    p = r.fab("snapshot", "--run", run_id, cwd=fwt, rss=rss)
                    self.note_stderr("git fabro snapshot", p)
                    state["fabro_commit"] = p.out.strip()
                    return p.ms, p.rss_kb

                for rep in self.reps():
                    tree.change10([fwt, gwt])
                    self.racy.mark()
                    self.paired(res, rep, fabro_snap, git_commit())
                    self.same_tree(repo, state["fabro_commit"], "bench/git", "snapshot-10")
                self.add(res)
            if "checkpoint-touch-all" in wanted:
                say(f"[{label}] checkpoint-touch-all")
                res = Result("checkpoint-touch-all", label)
                for rep in self.reps():
                    tree.touch_all([fwt, gwt], [".gitignore", *targets])
                    self.racy.mark()
                    self.paired(res, rep, fabro_ckpt, git_commit("--allow-empty"))
                    self.same_tree(repo, state["fabro_commit"], "bench/git", "checkpoint-touch-all")
                # Diagnostic: with nothing changed since the last touch-all checkpoint, both sides
                # should be back to stat-only cost (the index must have recorded the new stats).
                after = Result("after-touch", label)
                self.paired(after, 0, fabro_ckpt, git_commit("--allow-empty"))
                res.extra["next_unchanged_ms"] = {"fabro": after.fabro_ms[0], "git": after.git_ms[0]}
                self.add(res)
            if "checkpoint-unchanged" in wanted:
                self.bench_unchanged(label, fabro_ckpt, git_commit("--allow-empty"))
            if "restore" in wanted:
                self.bench_restore(label, run_id, fwt, gwt, tree)
            if "fork" in wanted:
                self.bench_fork(repo, label, run_id)
            status = r.gitout("status", "--porcelain", cwd=fwt)
            if status:
                self.problem(f"`git status` in the run worktree is not clean after checkpoints: {status[:300]}")
        if "start" in wanted:
            say(f"[{label}] start")
            self.bench_start(repo, label)
        if "hooks" in wanted:
            self.bench_hooks(base, nfiles, label)
        if "engine" in wanted:
            say(f"[{label}] engine: {ENGINE_NODES} command nodes")
            self.bench_engine(repo, label)

    def bench_hooks(self, base: Path, nfiles: int, label: str) -> None:
        """The agent hooks of a session in the user's own checkout (`hooks install --claude`,
        the session's run in place started by its first hook), against `git add -A && git
        commit` of the same change in an identical repository: a turn that changed 3 files
        (`hooks run agent-prompt claude` as it starts and `hooks run agent-turn claude` as it
        ends, a checkpoint of the whole checkout with the prompt and the transcript attached:
        what the agent waits for in a turn, both hooks' times added), and the hook before a file
        write after 1 file changed (`hooks run agent-edit claude` naming it, a snapshot of that
        file)."""
        r = self.r
        say(f"[{label}] hooks: setting up the checkout and the git repository")
        home = self.work / "runs" / f"files-{nfiles}" / "hooks"
        checkout = copy_repo(base, home / "checkout")
        gco = copy_repo(base, home / "git")
        r.fab("hooks", "install", "--claude", cwd=checkout)
        # The turn hook reads a transcript only in Claude Code's own folder for sessions.
        claude_dir = Path(r.env.get("CLAUDE_CONFIG_DIR") or Path(r.env["HOME"]) / ".claude")
        transcript = claude_dir / "projects" / f"bench-{nfiles}" / "transcript.jsonl"
        transcript.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps({"type": "assistant", "message": {"content": "x" * 300}}) + "\n"
        transcript.write_text(line * 50)

        def hook(name: str, payload: dict, rss: bool = False) -> tuple[float, int]:
            payload = {"session_id": HOOK_SESSION, "cwd": str(checkout), **payload}
            p = r.fab("hooks", "run", name, "claude", cwd=checkout, rss=rss, stdin=json.dumps(payload).encode())
            # A hook exits 0 whatever happens: what went wrong is only on stderr.
            self.note_stderr(f"git fabro hooks run {name}", p)
            return p.ms, p.rss_kb

        def turn(rss: bool) -> tuple[float, int]:
            start_ms, start_rss = hook("agent-prompt", {"prompt": "change three files"}, rss)
            end_ms, end_rss = hook("agent-turn", {"transcript_path": str(transcript)}, rss)
            return start_ms + end_ms, max(start_rss, end_rss)

        # The session's first hook starts its run; the git side commits the same files.
        turn(False)
        listed = json.loads(r.fab("ps", "--json", "--label", f"agent_session={HOOK_SESSION}", cwd=checkout).out)
        if len(listed) != 1:
            raise CommandFailed(f"hooks: the session's first hook started {len(listed)} runs, expected 1")
        branch = f"fabro/run/{listed[0]['run_id']}"
        self.git_commit(gco, "--allow-empty")(False)
        self.racy.mark()
        tree = Tree(layout(nfiles))

        def check(what: str) -> None:
            ours = r.gitout("rev-parse", f"{branch}^{{tree}}", cwd=checkout)
            theirs = r.gitout("rev-parse", "HEAD^{tree}", cwd=gco)
            if ours != theirs:
                raise CommandFailed(f"{what}: the run's tip has tree {ours}, git's commit {theirs}")

        say(f"[{label}] hooks: agent-prompt and agent-turn after 3 files changed")
        res = Result("hook turn-3", label)
        for rep in self.reps():
            with open(transcript, "a") as f:
                f.write(line)
            tree.modify([checkout, gco], 3)
            self.racy.mark()
            self.paired(res, rep, turn, self.git_commit(gco))
            check("hook turn-3")
        self.add(res)

        say(f"[{label}] hooks: agent-edit after 1 file changed")
        res = Result("hook edit-1", label)
        for rep in self.reps():
            (rel,) = tree.modify([checkout, gco], 1)
            self.racy.mark()
            edit = {"tool_name": "Edit", "tool_input": {"file_path": str(checkout / rel)}}
            self.paired(res, rep, lambda rss: hook("agent-edit", edit, rss), self.git_commit(gco))
            check("hook edit-1")
        self.add(res)

    def bench_unchanged(self, label: str, fabro_ckpt, git_commit) -> None:
        """A checkpoint with nothing changed since the last one (a node that only read files)
        against `git add -A && git commit --allow-empty` with nothing to add: both sides find
        every file unchanged through the index's stat data and write one commit; git-fabro also
        its metadata commit."""
        say(f"[{label}] checkpoint-unchanged")
        res = Result("checkpoint-unchanged", label)
        # Both sides start from a recorded, settled state.
        self.paired(Result("before-unchanged", label), 0, fabro_ckpt, git_commit)
        for rep in self.reps():
            self.paired(res, rep, fabro_ckpt, git_commit)
        self.add(res)

    def bench_restore(self, label: str, run_id: str, fwt: Path, gwt: Path, tree: "Tree") -> None:
        """Throw away a 10-file change, keeping it somewhere first: `git fabro restore` (recovery
        commit, then the worktree back at the latest checkpoint) against `git stash push -u`
        (stash commits, then the worktree back at HEAD)."""
        r = self.r
        say(f"[{label}] restore")
        res = Result("restore", label)
        # A checkpoint and a commit of the same files, so both sides go back to the same tree.
        ckpt = r.fab("checkpoint", "--run", run_id, "--node", "plan", cwd=fwt).out.strip()
        r.git("add", "-A", cwd=gwt)
        r.git("commit", "-q", "--allow-empty", "-m", "x", cwd=gwt)
        self.same_tree(gwt, ckpt, "HEAD", "restore")
        for rep in self.reps():
            files = list(tree.files)
            tree.change10([fwt, gwt])
            self.racy.mark()

            def fabro_restore(rss):
                p = r.fab("restore", "--run", run_id, cwd=fwt, rss=rss)
                self.note_stderr("git fabro restore", p, ("restored ", "to get back: "))
                return p.ms, p.rss_kb

            def git_stash(rss):
                p = r.git("stash", "push", "-u", "-q", cwd=gwt, rss=rss)
                return p.ms, p.rss_kb

            self.paired(res, rep, fabro_restore, git_stash)
            tree.files = files
            for wt in (fwt, gwt):
                left = r.gitout("status", "--porcelain", cwd=wt)
                if left:
                    raise CommandFailed(f"restore: {wt.name} is not back at its commit: {left[:300]}")
            r.git("stash", "drop", "-q", cwd=gwt)
        self.add(res)

    def bench_fork(self, repo: Path, label: str, run_id: str) -> None:
        """`git fabro fork RUN` (a new run at the latest checkpoint: run branch, metadata
        branch, run directory) against `git branch NEW fabro/run/RUN`."""
        r = self.r
        say(f"[{label}] fork")
        if not r.gitout("log", "--format=%H", "--grep=^Fabro-Checkpoint:", f"fabro/run/{run_id}", cwd=repo):
            # Measured alone (`--bench fork`), the run has no checkpoint to fork at yet.
            blocks = r.gitout("worktree", "list", "--porcelain", cwd=repo).split("\n\n")
            wt = next(Path(b.splitlines()[0].removeprefix("worktree "))
                      for b in blocks if f"branch refs/heads/fabro/run/{run_id}" in b)
            (wt / "fork-base.txt").write_text("fork\n")
            r.fab("checkpoint", "--run", run_id, "--node", "plan", cwd=wt)
        res = Result("fork", label)
        for seq, rep in enumerate(self.reps()):
            def fabro_fork(rss):
                p = r.fab("fork", run_id, cwd=repo, rss=rss)
                self.note_stderr("git fabro fork", p, ("forked run ",))
                return p.ms, p.rss_kb

            def git_branch(rss):
                p = r.git("branch", f"bench/fork-{seq}", f"fabro/run/{run_id}", cwd=repo, rss=rss)
                return p.ms, p.rss_kb

            self.paired(res, rep, fabro_fork, git_branch, racy=False)
        self.add(res)

    def bench_ps(self, nruns: int) -> None:
        """`git fabro ps` in a repository with `nruns` finished runs, against `git for-each-ref`
        (which lists the same refs without reading what they point at)."""
        r = self.r
        repo = copy_repo(self.base(PS_FILES), self.work / "runs" / "ps" / "repo")
        say(f"[{nruns:,} runs] creating the runs")
        for k in range(nruns):
            run_id, wt = self.fabro_start(repo)
            (wt / "result.txt").write_text(f"run {k}\n")
            r.fab("checkpoint", "--run", run_id, "--node", "plan", cwd=wt)
            # The worktree stays on disk (moved to the trash at the end), see "ext4 without a journal".
            r.fab("finish", "--run", run_id, "--keep-worktree", cwd=repo)
        say(f"[{nruns:,} runs] ps")
        res = Result("ps", f"{nruns:,} runs")

        def fabro_ps(rss):
            p = r.fab("ps", cwd=repo, discard_stdout=True, rss=rss)
            self.note_stderr("git fabro ps", p)
            return p.ms, p.rss_kb

        def git_refs(rss):
            p = r.git("for-each-ref", cwd=repo, discard_stdout=True, rss=rss)
            return p.ms, p.rss_kb

        for rep in self.reps():
            self.paired(res, rep, fabro_ps, git_refs, racy=False)
        listed = json.loads(r.fab("ps", "--json", cwd=repo).out)
        if len(listed) != nruns:
            raise CommandFailed(f"git fabro ps listed {len(listed)} runs, expected {nruns}")
        self.add(res)

        # Every field of every run (JSON, archived included) against git printing each ref's
        # commit subject and trailers, which reads the object behind every ref as `ps` must.
        say(f"[{nruns:,} runs] ps --all --json")
        res = Result("ps --all --json", f"{nruns:,} runs")

        def fabro_ps_json(rss):
            p = r.fab("ps", "--all", "--json", cwd=repo, discard_stdout=True, rss=rss)
            self.note_stderr("git fabro ps --all --json", p)
            return p.ms, p.rss_kb

        def git_refs_trailers(rss):
            p = r.git("for-each-ref", "--format=%(refname) %(objectname) %(subject) %(trailers)",
                      "refs/heads/fabro/", cwd=repo, discard_stdout=True, rss=rss)
            return p.ms, p.rss_kb

        for rep in self.reps():
            self.paired(res, rep, fabro_ps_json, git_refs_trailers, racy=False)
        self.add(res)

    def bench_start(self, repo: Path, label: str) -> None:
        r = self.r
        res = Result("start", label)
        res.extra = {"fabro_finish_keep_worktree_ms": []}
        wt_before = self.worktree_count(repo)
        for seq, rep in enumerate(self.reps()):
            started = {}

            def fabro_start(rss):
                p = r.fab("start", cwd=repo, rss=rss)
                self.note_stderr("git fabro start", p, ("started run ",))
                started["id"] = p.out.strip()
                return p.ms, p.rss_kb

            gdir = repo.parent / f"start-git-{seq}"

            def git_add(rss):
                p = r.git("worktree", "add", "-b", f"bench/start-{seq}", str(gdir), cwd=repo, rss=rss)
                return p.ms, p.rss_kb

            self.paired(res, rep, fabro_start, git_add, racy=False)
            # Cleanup, timed for information only (not the same job on both sides).
            run_id = started["id"]
            dirs = glob.glob(str(self.fabro_home / "runs" / f"*-{run_id}"))
            if len(dirs) != 1 or not (Path(dirs[0]) / "worktree").is_dir():
                raise CommandFailed(f"git fabro start printed {run_id!r} but no run dir with a worktree exists: {dirs}")
            # `finish --keep-worktree` exercises finish's metadata part; the files are then moved
            # to the trash instead of deleted (see BENCHMARKS.md, "ext4 without a journal").
            f = r.fab("finish", "--run", run_id, "--keep-worktree", cwd=repo)
            self.note_stderr("git fabro finish", f, ("finished run ",))
            self.discard(Path(dirs[0]))
            self.discard(gdir)
            r.git("worktree", "prune", cwd=repo)
            r.git("update-ref", "-d", f"refs/heads/fabro/run/{run_id}", cwd=repo)
            r.git("update-ref", "-d", f"refs/heads/fabro/meta/{run_id}", cwd=repo)
            r.git("branch", "-q", "-D", f"bench/start-{seq}", cwd=repo)
            if rep >= 0:
                res.extra["fabro_finish_keep_worktree_ms"].append(f.ms)
            if self.worktree_count(repo) != wt_before:
                self.problem("worktrees registered in the repository changed across a start/finish cycle")
                r.git("worktree", "prune", cwd=repo)
        self.add(res)

    # ---- engine ----------------------------------------------------------------------------

    def bench_engine(self, repo: Path, label: str) -> None:
        """`git fabro run` of a linear workflow of ENGINE_NODES `true` commands against a shell
        loop doing the same in a new worktree: each `true` followed by `git add -A && git
        commit`, the worktree added first and removed at the end, as the run's is.  Beside it,
        the same `run` with no command node (start and finish alone) and single checkpoints
        with nothing changed, so that the engine's own cost per node can be read off."""
        r = self.r
        res = Result("engine", label)
        flows = repo.parent / "workflows"
        flows.mkdir(exist_ok=True)
        chain = flows / "chain.fabro"
        empty = flows / "empty.fabro"
        nodes = "\n".join(f'  n{i:03d} [shape=parallelogram, script="true"]' for i in range(ENGINE_NODES))
        edges = " -> ".join(["start", *(f"n{i:03d}" for i in range(ENGINE_NODES)), "exit"])
        head = '  start [shape=Mdiamond]\n  exit [shape=Msquare]\n'
        chain.write_text(f"digraph chain {{\n{head}{nodes}\n  {edges}\n}}\n")
        empty.write_text(f"digraph empty {{\n{head}  start -> exit\n}}\n")
        loop = flows / "loop.sh"
        loop.write_text(
            'set -e\ngit worktree add -q -b "$1" "$2"\ncd "$2"\n'
            f'for i in $(seq {ENGINE_NODES}); do true; git add -A && git commit -q --allow-empty -m "node $i"; done\n'
            'cd - >/dev/null\ngit worktree remove --force "$2"\n'
        )
        res.extra.update(empty_run_ms=[], checkpoint_ms=[])
        for seq, rep in enumerate(self.reps()):
            def fabro_run(rss):
                p = r.fab("run", "-q", str(chain), cwd=repo, rss=rss)
                run_id = p.out.split()[0]
                count = r.gitout("rev-list", "--count", f"fabro/run/{run_id}", "^main", cwd=repo)
                if int(count) != ENGINE_NODES:
                    raise CommandFailed(f"git fabro run made {count} run commits, expected {ENGINE_NODES}")
                return p.ms, p.rss_kb

            def shell_loop(rss):
                p = r.run(["bash", str(loop), f"bench/engine-{seq}", str(repo.parent / f"loop-{seq}")], repo, rss=rss)
                return p.ms, p.rss_kb

            self.paired(res, rep, fabro_run, shell_loop, racy=False)
            if rep >= 0:
                res.extra["empty_run_ms"].append(r.fab("run", "-q", str(empty), cwd=repo).ms)
                run_id, wt = self.fabro_start(repo)
                for node in NODES:
                    res.extra["checkpoint_ms"].append(r.fab("checkpoint", "--run", run_id, "--node", node, cwd=wt).ms)
                r.fab("finish", "--run", run_id, cwd=repo)
        fabro, empty_ms = statistics.median(res.fabro_ms), statistics.median(res.extra["empty_run_ms"])
        per_node = (fabro - empty_ms) / ENGINE_NODES
        checkpoint = statistics.median(res.extra["checkpoint_ms"])
        res.extra.update(per_node_ms=per_node, checkpoint_median_ms=checkpoint, empty_run_median_ms=empty_ms)
        self.add(res)

    def worktree_count(self, repo: Path) -> int:
        out = self.r.gitout("worktree", "list", "--porcelain", cwd=repo)
        return sum(1 for line in out.splitlines() if line.startswith("worktree "))

    # ---- checkpoint-growth and log ---------------------------------------------------------

    def growth_and_log(self, wanted: set[str]) -> None:
        r = self.r
        nfiles = self.args.growth_files
        long_run = self.args.checkpoints
        label = f"{nfiles:,} files"
        repo = copy_repo(self.base(nfiles), self.work / "runs" / "growth" / "repo")
        run_id, wt = self.fabro_start(repo)
        populate_target(wt)
        tree = Tree(layout(nfiles))
        count = 0
        build_ms = []
        series: list[list[float]] = []  # [ordinal, ms] of the build-up checkpoints

        def ckpt(measured: bool, rss: bool = False):
            nonlocal count
            p = r.fab("checkpoint", "--run", run_id, "--node", NODES[count % len(NODES)], cwd=wt, rss=rss)
            self.note_stderr("git fabro checkpoint", p)
            count += 1
            if not measured:
                build_ms.append(p.ms)
                series.append([count, round(p.ms, 2)])
            return p

        def build_to(n: int) -> None:
            if n > count:
                say(f"  building the run up to {n} checkpoints (now {count})")
            while count < n:
                tree.change1(wt)
                ckpt(False)
            self.racy.mark()

        def window(end: int) -> Result:
            """warm-up + reps checkpoints (10 files changed each) ending at checkpoint `end`."""
            first = max(count + 1, end - self.args.reps - 1)  # the warm-up's ordinal
            build_to(first - 1)
            res = Result("checkpoint-growth", label)
            for rep in self.reps():
                tree.change10([wt])
                self.racy.mark()
                os.sync()
                self.racy.wait()
                p = ckpt(True, rss=rep == RSS_RUN)
                self.racy.mark()
                if rep == WARMUP:
                    res.warmup["fabro"] = p.ms
                elif rep == RSS_RUN:
                    res.fabro_rss_kb.append(p.rss_kb)
                else:
                    res.fabro_ms.append(p.ms)
            res.extra["checkpoints"] = [first + 2, count]
            return res

        def bench_log(n: int, packed: bool = False, cold: bool = False, gix: bool = False) -> None:
            """`log` of the run at exactly `n` checkpoints; `packed` after `git gc` has packed
            its objects (they are loose until then, as checkpoints write them); `cold` with
            the run's commit cache removed before each one, as for the first log of a run;
            `gix` with GIT_FABRO_OBJECT_READER=gix, commits read through gix alone (what the
            commit cache buys, docs/decisions.md)."""
            build_to(n)
            name = (f"log-{n}" + (" packed" if packed else "") + (" no cache" if cold else "")
                    + (" gix reader" if gix else ""))
            reader = {"GIT_FABRO_OBJECT_READER": "gix"} if gix else None
            say(f"[{n:,} checkpoints] {name}")
            res = Result(name, f"{n:,} ckpts")
            branch = f"fabro/run/{run_id}"
            cache = repo / ".git" / "fabro" / "commits" / run_id

            def fabro_log(rss):
                if cold:
                    cache.unlink(missing_ok=True)
                p = r.fab("log", run_id, cwd=repo, discard_stdout=True, rss=rss, env=reader)
                self.note_stderr("git fabro log", p)
                return p.ms, p.rss_kb

            def git_log(rss):
                p = r.git("log", "--format=%H %(trailers)", branch, cwd=repo, discard_stdout=True, rss=rss)
                return p.ms, p.rss_kb

            for rep in self.reps():
                self.paired(res, rep, fabro_log, git_log, racy=False)
            out = r.fab("log", run_id, cwd=repo).out.splitlines()
            entries = json.loads(r.fab("log", "--json", run_id, cwd=repo).out)
            if len(out) != n + 1 or len(entries) != n or [e["ordinal"] for e in entries] != list(range(1, n + 1)):
                raise CommandFailed(
                    f"git fabro log {run_id}: expected {n} entries, got {len(out)} lines and {len(entries)} JSON entries"
                )
            self.add(res)

        targets = [long_run]
        if self.args.large:
            targets.append(self.args.large_checkpoints)

        def fork_window() -> Result:
            """`git fabro fork RUN` (at the latest checkpoint), warm-up + reps times, now."""
            res = Result("fork-growth", label)
            res.extra["at"] = count
            for rep in self.reps():
                p = r.fab("fork", run_id, cwd=repo, rss=rep == RSS_RUN)
                self.note_stderr("git fabro fork", p, ("forked run ",))
                if rep == WARMUP:
                    res.warmup["fabro"] = p.ms
                elif rep == RSS_RUN:
                    res.fabro_rss_kb.append(p.rss_kb)
                else:
                    res.fabro_ms.append(p.ms)
            return res

        early_fork = None
        if "checkpoint-growth" in wanted:
            say(f"[{label}] checkpoint-growth")
            early = window(10)
            if "fork-growth" in wanted:
                say(f"[{label}] fork at {count} checkpoints")
                early_fork = fork_window()
            for end in targets:
                late = window(end)
                late.bench = f"checkpoint-growth {end}/10"
                late.baseline = f"git-fabro at checkpoints {early.extra['checkpoints'][0]}–{early.extra['checkpoints'][1]}"
                late.git_ms = list(early.fabro_ms)
                late.git_rss_kb = list(early.fabro_rss_kb)
                late.warmup["baseline"] = early.warmup.get("fabro")
                self.add(late)
                if "log" in wanted:
                    bench_log(count)  # the run has exactly `end` checkpoints here
                    bench_log(count, gix=True)
        elif "log" in wanted:
            for end in targets:
                bench_log(end)
                bench_log(end, gix=True)
        if "fork-growth" in wanted and early_fork is None:
            build_to(10)
            say(f"[{label}] fork at 10 checkpoints")
            early_fork = fork_window()
        if early_fork is not None:
            for end in targets:
                build_to(end)
                say(f"[{label}] fork at {end:,} checkpoints")
                late = fork_window()
                late.bench = f"fork-growth {end}/10"
                late.baseline = f"git-fabro forking the same run at {early_fork.extra['at']} checkpoints"
                late.git_ms = list(early_fork.fabro_ms)
                late.git_rss_kb = list(early_fork.fabro_rss_kb)
                self.add(late)
        if "log" in wanted:
            say(f"[{count:,} checkpoints] git gc")
            r.git("gc", "-q", cwd=repo)
            bench_log(count, packed=True)
            bench_log(count, packed=True, cold=True)
            bench_log(count, packed=True, gix=True)
        if build_ms:
            self.build_stats = {
                "checkpoints": len(build_ms),
                "median_ms": statistics.median(build_ms),
                "first_100_median_ms": statistics.median(build_ms[:100]),
                "last_100_median_ms": statistics.median(build_ms[-100:]),
                "series": series,
            }


    # ---- disk -----------------------------------------------------------------------------

    def disk(self) -> None:
        """The repository's size as one run grows: the objects checkpoints leave loose with
        automatic gc off, the same history once `git gc` packed it, and a second run built the
        same way with git's automatic gc on (`git gc --auto` started behind the checkpoints
        that pass its threshold).  Sizes are `du -sk .git/objects` after any gc has finished."""
        r = self.r
        nfiles = self.args.growth_files
        ends = [self.args.checkpoints] + ([self.args.large_checkpoints] if self.args.large else [])
        base = self.base(nfiles)
        loose = copy_repo(base, self.work / "runs" / "disk" / "loose")
        auto = copy_repo(base, self.work / "runs" / "disk" / "auto")
        for key in ("gc.auto", "maintenance.auto"):
            r.git("config", "--unset", key, cwd=auto)
        rows = {end: {"checkpoints": end} for end in ends}
        for side, repo in (("loose", loose), ("auto", auto)):
            run_id, wt = self.fabro_start(repo)
            tree = Tree(layout(nfiles))
            build_ms: list[float] = []
            for end in ends:
                say(f"[disk, gc {'on' if side == 'auto' else 'off'}] building the run up to {end:,} checkpoints")
                while len(build_ms) < end:
                    tree.change1(wt)
                    p = r.fab("checkpoint", "--run", run_id, "--node", NODES[len(build_ms) % len(NODES)], cwd=wt)
                    self.note_stderr("git fabro checkpoint", p)
                    build_ms.append(p.ms)
                row = rows[end]
                row[f"{side}_ms"] = statistics.median(build_ms)
                row[f"{side}_max_ms"] = max(build_ms)
                if side == "auto":
                    wait_for_gc(repo)
                    row["auto_kb"] = objects_kb(repo)
                    row["auto_loose"] = loose_count(r, repo)
                    continue
                row["loose_kb"] = objects_kb(repo)
                if end == ends[-1]:
                    r.git("gc", "-q", cwd=repo)
                    row["packed_kb"] = objects_kb(repo)
                else:
                    packed = copy_repo(repo, repo.parent / f"packed-{end}")
                    r.git("gc", "-q", cwd=packed)
                    row["packed_kb"] = objects_kb(packed)
                    self.discard(packed)
        self.disk_rows = [rows[end] for end in ends]


def objects_kb(repo: Path) -> int:
    """`du -sk` of the repository's object store: what the files take on disk."""
    out = subprocess.run(["du", "-sk", str(repo / ".git" / "objects")], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[0])


def loose_count(r: Runner, repo: Path) -> int:
    counts = dict(line.split(": ") for line in r.gitout("count-objects", "-v", cwd=repo).splitlines())
    return int(counts["count"])


def wait_for_gc(repo: Path, limit: float = 1800.0) -> None:
    """Waits until no gc runs in `repo`: one started behind the last checkpoint holds gc.pid
    until it is done (a second, for one spawned just before, to have taken it)."""
    time.sleep(1.0)
    deadline = time.monotonic() + limit
    while (repo / ".git" / "gc.pid").exists() and time.monotonic() < deadline:
        time.sleep(0.5)


# --------------------------------------------------------------------------------------------
# Report


class CpuMeter:
    """How busy the machine was with work that is not this harness or its children: system-wide
    busy time from /proc/stat minus our own and our children's CPU time."""

    def __init__(self):
        self.wall = time.monotonic()
        self.busy = self._busy()
        self.ours = self._ours()

    @staticmethod
    def _busy() -> float:
        try:
            fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        except (OSError, ValueError):
            return float("nan")
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
        return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")

    @staticmethod
    def _ours() -> float:
        import resource

        total = 0.0
        for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
            u = resource.getrusage(who)
            total += u.ru_utime + u.ru_stime
        return total

    def background(self) -> str:
        wall = time.monotonic() - self.wall
        other = (self._busy() - self.busy) - (self._ours() - self.ours)
        cpus = len(os.sched_getaffinity(0))
        share = max(other, 0.0) / (wall * cpus) * 100 if wall > 0 else 0.0
        self.share = share
        return f"{max(other, 0.0):.0f} CPU-s over {wall:.0f} s, {share:.0f}% of {cpus} CPUs (0% = quiet machine)"


def wait_quiet(limit: float) -> None:
    deadline = time.monotonic() + limit
    while True:
        meter = CpuMeter()
        time.sleep(10)
        meter.background()
        if meter.share < 10:
            say(f"machine quiet (other processes: {meter.share:.0f}% CPU)")
            return
        if time.monotonic() > deadline:
            say(f"machine still busy (other processes: {meter.share:.0f}% CPU); measuring anyway")
            return
        say(f"waiting for a quiet machine (other processes: {meter.share:.0f}% CPU)")


def cmd_text(argv: list[str], env: dict | None = None) -> str:
    try:
        return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60).stdout.strip()
    except Exception as e:  # noqa: BLE001 - facts are best effort
        return f"unknown ({e})"


def machine_facts(work: Path, fabro: list[str], env: dict) -> dict:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "unknown"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    return {
        "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "nproc": len(os.sched_getaffinity(0)),
        "cpu": cpu,
        "memory": mem,
        "kernel": f"{platform.system()} {platform.release()} {platform.machine()}",
        "git": cmd_text(["git", "--version"]),
        "rustc": cmd_text(["rustc", "--version"]),
        "python": platform.python_version(),
        "git-fabro": cmd_text([*fabro, "--version"], env),
        "source": cmd_text(["git", "-C", str(ROOT), "describe", "--always", "--dirty"]),
        "work dir filesystem": filesystem(work),
        "load average at start": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "CPU pressure at start": _first_line("/proc/pressure/cpu"),
    }


def shared_libraries(binary: Path) -> str:
    """The libraries the binary loads at every start (`libgcc_s.so.1` among them means the
    unwinder was not linked in, see build.rs)."""
    dynamic = cmd_text(["readelf", "-d", str(binary)])
    needed = [line.split("[", 1)[1].rstrip("]") for line in dynamic.splitlines() if "(NEEDED)" in line]
    return ", ".join(needed) or dynamic


def filesystem(path: Path) -> str:
    """The filesystem type of `path`, and whether an ext4 file system runs without a journal."""
    kind = cmd_text(["stat", "-f", "-c", "%T", str(path)])
    dev = os.stat(path).st_dev
    try:
        name = ""
        for line in Path(f"/sys/dev/block/{os.major(dev)}:{os.minor(dev)}/uevent").read_text().splitlines():
            if line.startswith("DEVNAME="):
                name = line.split("=", 1)[1]
        journal = Path(f"/sys/fs/ext4/{name}/journal_task").read_text().strip()
    except OSError:
        return kind
    if journal == "<none>":
        return f"ext4 without a journal ({name}); see BENCHMARKS.md on deleted inodes"
    return f"ext4 with a journal ({name})"


def _first_line(path: str) -> str:
    try:
        return Path(path).read_text().splitlines()[0]
    except (OSError, IndexError):
        return "n/a"


def shown_command(argv: list[str]) -> str:
    """The command as the report shows it: paths inside the repository made relative to it, so
    no machine's layout ends up in a pasted report."""
    root = str(Path(__file__).resolve().parent.parent) + os.sep
    return " ".join(a[len(root):] if a.startswith(root) else a for a in argv)


def shown_args(args) -> dict:
    """The options as the JSON keeps them: a path inside the repository relative to it, any
    other by its name alone, so that no machine's layout ends up in a checked-in result."""
    root = Path(__file__).resolve().parent.parent
    shown = {}
    for name, value in vars(args).items():
        if name in ("work", "json", "binary", "compare") and isinstance(value, str):
            path = Path(value).resolve()
            value = str(path.relative_to(root)) if path.is_relative_to(root) else path.name
        shown[name] = value
    return shown


def fmt_ms(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{statistics.median(values):.1f} [{min(values):.1f}–{max(values):.1f}]"


def fmt_mb(kb: list[int]) -> str:
    return f"{max(kb) / 1024:.1f} MB" if kb else "-"


def report(bench: Bench, facts: dict, args, total_s: float) -> str:
    out = ["## Machine", ""]
    out += [f"- {k}: {v}" for k, v in facts.items()]
    mode = "quick" if args.quick else ("large" if args.large else "default")
    out += [
        "",
        f"Mode: {mode}; {args.reps} repetitions after 1 discarded warm-up; "
        f"racy-timestamp wait {'off' if args.no_racy_wait else f'{RACY_WAIT} s before every index-writing measurement'}; "
        f"settle {args.settle:.0f} s after the previous run's deletions; "
        f"git-fabro invoked as `{shown_command(bench.r.fabro)}`; peak RSS: {bench.r.rss_source}.",
        "",
        "| benchmark | size | git-fabro median [min–max] ms | git median [min–max] ms | ratio | git-fabro peak RSS | git peak RSS |",
        "|---|---|---|---|---|---|---|",
    ]
    notes = []
    for res in bench.results:
        ratio = "-"
        if res.fabro_ms and res.git_ms:
            ratio = f"{statistics.median(res.fabro_ms) / statistics.median(res.git_ms):.2f}"
        baseline = fmt_ms(res.git_ms)
        git_rss = fmt_mb(res.git_rss_kb)
        if res.baseline != "git":
            baseline += " ¹"
            git_rss = "-"
            if "checkpoints" in res.extra:
                a, b = res.extra["checkpoints"]
                notes.append(
                    f"¹ {res.bench}: git-fabro column = checkpoints {a}–{b} of one run; "
                    f"git column = {res.baseline} of the same run; ratio = late/early (1.00 = flat)."
                )
            else:
                notes.append(f"¹ {res.bench}: git column = {res.baseline}; ratio = late/early (1.00 = flat).")
        out.append(
            f"| {res.bench} | {res.size} | {fmt_ms(res.fabro_ms)} | {baseline} | {ratio} | "
            f"{fmt_mb(res.fabro_rss_kb)} | {git_rss} |"
        )
    if notes:
        out += [""] + notes
    engines = [res for res in bench.results if res.bench == "engine"]
    if engines:
        out += ["", f"engine: `git fabro run` of {ENGINE_NODES} `true` command nodes against a shell loop of "
                f"`true; git add -A && git commit` in a new worktree; per node = (run − run with no node) / {ENGINE_NODES}; "
                "a checkpoint = `git fabro checkpoint` with nothing changed, as its own process:"]
        for res in engines:
            e = res.extra
            out.append(
                f"- {res.size}: run with no node {e['empty_run_median_ms']:.0f} ms; per node {e['per_node_ms']:.1f} ms, "
                f"of which a checkpoint process {e['checkpoint_median_ms']:.1f} ms"
            )
    touched = [res for res in bench.results if "next_unchanged_ms" in res.extra]
    if touched:
        out += ["", "Next checkpoint after the last touch-all one, nothing changed (one sample, diagnostic):"]
        for res in touched:
            d = res.extra["next_unchanged_ms"]
            out.append(f"- {res.size}: git-fabro {d['fabro']:.1f} ms, git {d['git']:.1f} ms")
    busy = [res for res in bench.results if res.extra.get("other_cpu_share", 0) > 10]
    if busy:
        out += ["", "Measured while other processes (or kernel threads, e.g. writeback) used > 10% CPU:"]
        out += [f"- {res.bench} {res.size}: {res.extra['other_cpu']}" for res in busy]
    starts = [res for res in bench.results if res.bench == "start"]
    if starts:
        out += ["", "`git fabro finish --keep-worktree` on each fresh run of `start` (information only):"]
        for res in starts:
            out.append(f"- {res.size}: {fmt_ms(res.extra['fabro_finish_keep_worktree_ms'])} ms")
    if getattr(bench, "build_stats", None):
        s = bench.build_stats
        out += [
            "",
            f"Growth run build-up (1 file changed per checkpoint, no racy wait): {s['checkpoints']} checkpoints, "
            f"median {s['median_ms']:.1f} ms; first 100 median {s['first_100_median_ms']:.1f} ms, "
            f"last 100 median {s['last_100_median_ms']:.1f} ms.",
        ]
    if getattr(bench, "disk_rows", None):
        out += [
            "",
            "Repository size (`du -sk .git/objects`) of one run, 1 file changed per checkpoint:",
            "",
            "| checkpoints | gc off (loose) | same history after `git gc` | automatic gc on (loose objects left) "
            "| checkpoint median / max ms, gc off | gc on |",
            "|---|---|---|---|---|---|",
        ]
        for row in bench.disk_rows:
            out.append(
                f"| {row['checkpoints']:,} | {row['loose_kb'] / 1024:.1f} MB | {row['packed_kb'] / 1024:.1f} MB "
                f"| {row['auto_kb'] / 1024:.1f} MB ({row['auto_loose']:,}) "
                f"| {row['loose_ms']:.1f} / {row['loose_max_ms']:.0f} | {row['auto_ms']:.1f} / {row['auto_max_ms']:.0f} |"
            )
    if bench.problems:
        out += ["", "Problems noticed in git-fabro:"] + [f"- {p}" for p in bench.problems]
    if bench.failures:
        out += ["", "FAILURES:"] + [f"- {f}" for f in bench.failures]
    t = args.timing
    parts = [f"build {t['build_s']:.0f} s"]
    if "wait_quiet_s" in t:
        parts.append(f"waiting for a quiet machine {t['wait_quiet_s']:.0f} s")
    if "settle_after_previous_run_s" in t:
        parts.append(f"waiting out the previous run's deletions {t['settle_after_previous_run_s']:.0f} s")
    out += ["", f"Total harness time: {total_s:.0f} s ({', '.join(parts)}; load average at end: "
            + " ".join(f"{x:.2f}" for x in os.getloadavg()) + ")"]
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------------


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, help="measured repetitions per benchmark (default 7; 3 with --quick)")
    ap.add_argument("--sizes", help="comma-separated file counts (default 1000,20000; +100000 with --large)")
    ap.add_argument("--large", action="store_true", help="add the 100,000-file repo and log-10000")
    ap.add_argument("--quick", action="store_true", help="smoke mode: 1,000 files, 3 reps, 100-checkpoint runs")
    ap.add_argument("--checkpoints", type=int, help="length of the growth/log run (default 1000; 100 with --quick)")
    ap.add_argument("--large-checkpoints", type=int, default=10_000,
                    help="length the growth/log run is extended to with --large (default 10000)")
    ap.add_argument("--runs", type=int, help="finished runs in the repository `ps` lists (default 1000; 100 with --quick)")
    ap.add_argument("--growth-files", type=int, default=1000, help="files in the growth/log repo (default 1000)")
    ap.add_argument("--bench", help=f"comma-separated subset of {','.join(BENCH_NAMES)}")
    ap.add_argument("--work", default=str(ROOT / "bench" / "work"), help="work dir (default bench/work)")
    ap.add_argument("--json", metavar="FILE", help="write raw results to FILE")
    ap.add_argument("--compare", metavar="BASELINE",
                    help="print each ratio against BASELINE (bench/baseline.json) and flag those more than "
                         "its budget (15%%) worse; the exit status does not change (BENCHMARKS.md)")
    ap.add_argument("--no-build", action="store_true", help="do not run cargo build --release")
    ap.add_argument("--binary", help="git-fabro binary to use (default target/release/git-fabro)")
    ap.add_argument("--via-git", action="store_true", help="invoke as `git fabro` instead of the binary's path")
    ap.add_argument("--no-racy-wait", action="store_true",
                    help="measure right after each change instead of waiting out the racy-timestamp window")
    ap.add_argument("--keep", action="store_true", help="keep the scratch repos of this run (work/runs)")
    ap.add_argument("--wait-quiet", type=float, default=0, metavar="SECONDS",
                    help="before measuring, wait up to SECONDS for 10 s in which other processes use < 10%% CPU")
    ap.add_argument("--settle", type=float,
                    help=f"seconds that must have passed since the previous run deleted its files: "
                         f"default {SETTLE:.0f} on ext4 without a journal, 0 elsewhere and with --quick")
    args = ap.parse_args()

    if args.reps is None:
        args.reps = 3 if args.quick else 7
    if args.runs is None:
        args.runs = 100 if args.quick else 1000
    if args.checkpoints is None:
        args.checkpoints = 100 if args.quick else 1000
    if args.sizes is None:
        args.sizes = "1000" if args.quick else ("1000,20000,100000" if args.large else "1000,20000")
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]
    wanted = set(BENCH_NAMES)
    if args.bench:
        wanted = {b.strip() for b in args.bench.split(",")}
        unknown = wanted - set(BENCH_NAMES)
        if unknown:
            ap.error(f"unknown benchmark(s) {sorted(unknown)}; choose from {BENCH_NAMES}")
    if args.reps < 1 or args.checkpoints <= 10 or (args.large and args.large_checkpoints <= args.checkpoints):
        ap.error("--reps must be >= 1, --checkpoints > 10 and --large-checkpoints > --checkpoints")

    t_start = time.monotonic()
    if not args.no_build:
        say("cargo build --release")
        b = subprocess.run(["cargo", "build", "--release"], cwd=ROOT, stdout=sys.stderr, stderr=sys.stderr)
        if b.returncode != 0:
            say("cargo build --release failed")
            return 1
    if args.binary:
        binary = Path(args.binary).resolve()
    else:
        target_dir = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
        binary = (target_dir if target_dir.is_absolute() else ROOT / target_dir) / "release" / "git-fabro"
    if not binary.is_file():
        say(f"no git-fabro binary at {binary}")
        return 1
    timing = {"build_s": time.monotonic() - t_start}

    work = Path(args.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    if args.settle is None:
        args.settle = SETTLE if (not args.quick and "without a journal" in filesystem(work)) else 0.0
    try:
        since = time.time() - float((work / LAST_DELETE).read_text())
    except (OSError, ValueError):
        since = float("inf")
    if args.settle > 0 and since < args.settle:
        say(f"the last run deleted its files {since:.0f} s ago; waiting {args.settle - since:.0f} s (see --settle)")
        time.sleep(args.settle - since)
        timing["settle_after_previous_run_s"] = args.settle - since
    fabro_home = work / "fabro-home"
    for d in (fabro_home, work / "runs", work / "bin"):
        discard(work, d)
    fabro_home.mkdir()
    # A private copy, so a concurrent `cargo build` cannot swap the binary in mid-run.
    (work / "bin").mkdir()
    shutil.copy2(binary, work / "bin" / "git-fabro")
    binary = work / "bin" / "git-fabro"
    env = scratch_env(work, fabro_home, binary)
    if args.wait_quiet > 0:
        t0 = time.monotonic()
        wait_quiet(args.wait_quiet)
        timing["wait_quiet_s"] = time.monotonic() - t0
    canary = {"start": create_canary(work)}
    cpu0 = CpuMeter()
    fabro = ["git", "fabro"] if args.via_git else [str(binary)]
    r = Runner(env, fabro)
    facts = machine_facts(work, fabro, env)
    facts["shared libraries"] = shared_libraries(binary)
    bench = Bench(args, r, work, fabro_home)

    for n in sizes:
        if wanted & PER_SIZE:
            try:
                bench.per_size(n, wanted)
            except (CommandFailed, OSError, ValueError, KeyError, subprocess.CalledProcessError) as e:
                bench.failures.append(f"{n:,} files: {e}")
                say(f"FAILED: {e}")
    if "ps" in wanted:
        try:
            bench.bench_ps(args.runs)
        except (CommandFailed, OSError, ValueError, KeyError, subprocess.CalledProcessError) as e:
            bench.failures.append(f"ps: {e}")
            say(f"FAILED: {e}")
    if wanted & {"checkpoint-growth", "fork-growth", "log"}:
        try:
            bench.growth_and_log(wanted)
        except (CommandFailed, OSError, ValueError, KeyError, subprocess.CalledProcessError) as e:
            bench.failures.append(f"growth/log: {e}")
            say(f"FAILED: {e}")
    if "disk" in wanted:
        try:
            bench.disk()
        except (CommandFailed, OSError, ValueError, KeyError, subprocess.CalledProcessError) as e:
            bench.failures.append(f"disk: {e}")
            say(f"FAILED: {e}")

    total = time.monotonic() - t_start
    timing["total_s"] = total
    args.timing = timing
    facts["CPU used by other processes and kernel threads during the run"] = cpu0.background()
    canary["end"] = create_canary(work)
    slow = max(canary.values()) > 1000
    facts["file-creation canary (5,000 empty files) at start / end"] = (
        f"{canary['start']:.0f} ms / {canary['end']:.0f} ms"
        + (" — SLOW: file creation is held up by recently freed inodes, distrust `start`" if slow else " (healthy)")
    )
    text = report(bench, facts, args, total)
    data = {
        "facts": facts,
        "args": shown_args(args),
        "racy_wait_s": None if args.no_racy_wait else RACY_WAIT,
        "rss_source": r.rss_source + " (KiB)",
        "results": [res.to_json() for res in bench.results],
        "growth_build": getattr(bench, "build_stats", None),
        "disk": getattr(bench, "disk_rows", None),
        "problems": bench.problems,
        "failures": bench.failures,
        "total_seconds": total,
    }
    if args.compare:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import table  # noqa: E402 - bench/table.py, beside this file

        text += "\n" + table.compare_report(Path(args.compare), data)
    sys.stdout.write(text)
    sys.stdout.flush()
    if args.json:
        Path(args.json).write_text(json.dumps(data, indent=2) + "\n")
    if not args.keep and not bench.failures:
        discard(work, work / "runs")
        discard(work, fabro_home)
    say("emptying the trash")
    empty_trash(work)
    say(f"done in {time.monotonic() - t_start:.0f} s, trash included")
    return 1 if bench.failures else 0


if __name__ == "__main__":
    sys.exit(main())
