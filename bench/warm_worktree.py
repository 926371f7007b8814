#!/usr/bin/env python3
"""Time to the first `cargo build` in a new run's worktree, cold vs warm (issue 24).

Makes a small dependency-free crate in a scratch directory, builds it in the checkout, then
starts runs with `fabro.seedBuild` set to `never` (cold), `copy` and `auto`, and times the start
(which seeds) and the first `cargo build` in each run's worktree.  No network: the crate has no
dependencies.  Python 3.11 standard library only; the report goes to stdout.

    cargo build --locked && python3 bench/warm_worktree.py [--modules 40] [--reps 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def module(n: int) -> str:
    """One module with enough generic code that rustc has real work to do."""
    items = []
    for i in range(40):
        items.append(
            f"pub fn f{i}<T: Clone + std::fmt::Debug>(xs: &[T]) -> Vec<String> {{\n"
            f"    xs.iter().cloned().map(|x| format!(\"{{:?}}-{n}-{i}\", x)).collect()\n}}\n"
            f"pub struct S{i} {{ pub a: u64, pub b: String }}\n"
            f"impl S{i} {{ pub fn sum(&self) -> u64 {{ self.a + self.b.len() as u64 + {i} }} }}\n"
        )
    return "".join(items)


def make_crate(root: Path, modules: int) -> None:
    (root / "src").mkdir(parents=True)
    (root / "Cargo.toml").write_text(
        '[package]\nname = "warm"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n'
    )
    (root / ".gitignore").write_text("/target\n")
    lib = "".join(f"pub mod m{n};\n" for n in range(modules))
    (root / "src/lib.rs").write_text(lib)
    for n in range(modules):
        (root / f"src/m{n}.rs").write_text(module(n))
    (root / "src/main.rs").write_text('fn main() { println!("{:?}", warm::m0::f0(&[1, 2])); }\n')
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "crate")


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    out = subprocess.run(cmd, cwd=cwd, env=env, check=True, capture_output=True, text=True)
    return time.perf_counter() - start, out.stderr


def reflinks(directory: Path) -> bool:
    a, b = directory / ".reflink-a", directory / ".reflink-b"
    a.write_text("x")
    ok = subprocess.run(["cp", "--reflink=always", a, b], capture_output=True).returncode == 0
    for p in (a, b):
        p.unlink(missing_ok=True)
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modules", type=int, default=40)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--fabro", default=str(ROOT / "target/debug/git-fabro"))
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="fabro-warm-"))
    repo = scratch / "crate"
    env = dict(os.environ, FABRO_HOME=str(scratch / "home"), CARGO_TERM_COLOR="never")
    env.pop("CARGO_TARGET_DIR", None)
    make_crate(repo, args.modules)
    build = ["cargo", "build", "--offline", "--quiet"]
    checkout_build, _ = timed(build, repo, env)
    target_mib = sum(f.stat().st_size for f in (repo / "target").rglob("*") if f.is_file()) >> 20
    print(f"load: {os.getloadavg()}, reflinks here: {reflinks(scratch)}", file=sys.stderr)
    rows = []
    for mode in ["never", "copy", "auto"]:
        git(repo, "config", "fabro.seedBuild", mode)
        starts, builds = [], []
        for _ in range(args.reps):
            start_s, note = timed([args.fabro, "start"], repo, env)
            worktree = next((scratch / "home/runs").glob("*/worktree"))
            build_s, _ = timed(build, worktree, env)
            starts.append(start_s)
            builds.append(build_s)
            run_id = worktree.parent.name.split("-", 1)[1]
            timed([args.fabro, "finish", "--run", run_id], repo, env)
            subprocess.run(["rm", "-rf", str(worktree.parent)], check=True)
        rows.append((mode, statistics.median(starts), statistics.median(builds), note.strip()))
    print(f"crate: {args.modules} modules, checkout `cargo build` {checkout_build:.1f} s, "
          f"target/ {target_mib} MiB; reflinks on this filesystem: {reflinks(scratch)}; "
          f"load average {os.getloadavg()[0]:.1f}; median of {args.reps}")
    print("\n| fabro.seedBuild | `git fabro start` | first `cargo build` in the run | start + build |")
    print("|---|---|---|---|")
    for mode, start_s, build_s, _ in rows:
        print(f"| {mode} | {start_s:.2f} s | {build_s:.2f} s | {start_s + build_s:.2f} s |")
    for mode, _, _, note in rows:
        print(f"\n{mode}: {note or '(no note)'}")
    subprocess.run(["rm", "-rf", str(scratch)], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
