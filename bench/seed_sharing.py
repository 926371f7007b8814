#!/usr/bin/env python3
"""What seeding a run's worktree costs when it shares nothing with the checkout.

Makes a scratch repository whose ignored node_modules/ holds 20,000 small files in 2,000
packages and 2,200 symbolic links (2,000 relative ones in .bin/, 100 absolute ones into the
checkout, 100 to /usr/lib), then times `git fabro start` with fabro.seedBuild = copy for each
binary given (wall and CPU time of the process, medians), and `cp -a` of the same folder.

    python3 bench/seed_sharing.py [--reps N] BINARY [BINARY ...]
"""

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import time


def make_repo(root: str, env: dict) -> str:
    repo = os.path.join(root, "repo")
    os.makedirs(repo)

    def git(*args):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    git("config", "user.name", "Bench")
    git("config", "user.email", "bench@example.com")
    with open(os.path.join(repo, ".gitignore"), "w") as f:
        f.write("node_modules/\n")
    with open(os.path.join(repo, "a.txt"), "w") as f:
        f.write("a\n")
    git("add", "-A")
    git("commit", "-qm", "init")
    git("config", "fabro.seedBuild", "copy")
    modules = os.path.join(repo, "node_modules")
    os.makedirs(os.path.join(modules, ".bin"))
    for p in range(2000):
        lib = os.path.join(modules, f"pkg{p}", "lib")
        os.makedirs(lib)
        for n in range(10):
            with open(os.path.join(lib, f"f{n}.js"), "w") as f:
                f.write(f"module.exports = {n}\n")
        os.symlink(f"../pkg{p}/lib/f0.js", os.path.join(modules, ".bin", f"pkg{p}"))
    for p in range(100):
        os.symlink(os.path.join(repo, "a.txt"), os.path.join(modules, f"pkg{p}", "abs-in"))
        os.symlink("/usr/lib/os-release", os.path.join(modules, f"pkg{p}", "abs-out"))
    return repo


def timed(argv: list, cwd: str, env: dict) -> tuple:
    """Runs argv; returns its wall and CPU seconds and its output."""
    subprocess.run(["sync"])
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run(argv, cwd=cwd, env=env, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu, out


def summary(name: str, walls: list, cpus: list, note: str = "") -> str:
    return (f"{name}: wall median {statistics.median(walls):.3f} s "
            f"[{min(walls):.3f}-{max(walls):.3f}], CPU median {statistics.median(cpus):.3f} s {note}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("binaries", nargs="+")
    args = ap.parse_args()
    root = tempfile.mkdtemp(prefix="seed-sharing-")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "FABRO_"))}
    env.update(HOME=root, FABRO_HOME=os.path.join(root, "fabro-home"),
               GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null")
    repo = make_repo(root, env)
    results = {b: ([], [], "") for b in args.binaries}
    for _ in range(args.reps):
        for binary in args.binaries:
            wall, cpu, out = timed([binary, "start", "--json"], repo, env)
            walls, cpus, _ = results[binary]
            walls.append(wall)
            cpus.append(cpu)
            results[binary] = (walls, cpus, out.stderr.strip())
            run = json.loads(out.stdout)["run_id"]
            subprocess.run([binary, "finish", "--run", run], cwd=repo, env=env, capture_output=True)
    for binary, (walls, cpus, note) in results.items():
        print(summary(binary, walls, cpus, f"({note})"))
    walls, cpus = [], []
    for _ in range(args.reps):
        copy = os.path.join(root, "copy")
        shutil.rmtree(copy, ignore_errors=True)
        wall, cpu, _ = timed(["cp", "-a", os.path.join(repo, "node_modules"), copy], root, env)
        walls.append(wall)
        cpus.append(cpu)
    print(summary("cp -a node_modules", walls, cpus))
    shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
