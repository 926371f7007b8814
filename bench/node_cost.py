#!/usr/bin/env python3
"""What one engine node costs, by part: `perf record` of `git fabro run` of N `true` command
nodes and of the same run with no node, each CPU sample put in the first part its call stack
names, the difference divided by N.  CPU time only: waiting (for a core on a busy machine, for
the disk) is not in it.

    python3 bench/node_cost.py BINARY REPO [--nodes 200]

REPO is a git repository to run in (a scratch copy: runs are left in it).  Needs `perf` with
DWARF call graphs and a binary built with debug info (the release profile has it).
"""

import argparse
import collections
import subprocess
import sys
import tempfile
from pathlib import Path

HZ = 999

# First match wins: a sample in the checkpoint's snapshot counts as the status scan, not as
# building the records around it.
PARTS = [
    ("process (bash -c true)", lambda comm, st: comm == "bash" or "process::shell" in st),
    ("start and finish (once per run)", lambda comm, st: any(
        k in st for k in ("gix_worktree_state", "ops::start", "ops::finish", "worktree_removal"))),
    ("index write", lambda comm, st: "write_index" in st),
    ("status scan", lambda comm, st: comm.startswith("gix_status") or any(
        k in st for k in ("gix_status", "gix_dir", "snapshot::<impl", "Workspace::snapshot"))),
    ("objects", lambda comm, st: any(
        k in st for k in ("gix_odb", "TreeEdit", "write_commit", "write_file_blob", "write_blob"))),
    ("refs", lambda comm, st: any(
        k in st for k in ("update_refs", "refs::<impl", "ref_writer", "reflog", "gix_ref"))),
    ("events", lambda comm, st: "append_event" in st or "events::<impl" in st),
    ("run directory", lambda comm, st: "RunDir" in st or "record_locally" in st),
    ("reading the run back", lambda comm, st: any(
        k in st for k in ("RunState::load", "read_record", "RunRecord::from_json", "linked_checkpoint"))),
    ("building the records", lambda comm, st: "ops::checkpoint" in st),
]


def workflow(nodes: int) -> str:
    lines = ["digraph chain {", "  start [shape=Mdiamond]", "  exit [shape=Msquare]"]
    lines += [f'  n{i:03d} [shape=parallelogram, script="true"]' for i in range(nodes)]
    lines.append("  " + " -> ".join(["start", *(f"n{i:03d}" for i in range(nodes)), "exit"]))
    return "\n".join(lines + ["}", ""])


def profile(binary: str, repo: str, flow: Path, data: Path) -> collections.Counter:
    subprocess.run(["perf", "record", "-q", "-o", str(data), "-F", str(HZ), "--call-graph", "dwarf,32768",
                    binary, "run", "-q", str(flow)], cwd=repo, check=True, stdout=subprocess.DEVNULL)
    script = subprocess.run(["perf", "script", "-i", str(data), "-F", "comm,ip,sym"],
                            capture_output=True, text=True, check=True).stdout
    counts: collections.Counter = collections.Counter()
    for block in script.split("\n\n"):
        lines = block.strip().split("\n")
        if not lines[0].strip():
            continue
        comm, stack = lines[0].split()[0], "\n".join(lines[1:])
        part = next((name for name, hit in PARTS if hit(comm, stack)), "other")
        counts[part] += 1
        counts["total"] += 1
    return counts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binary")
    ap.add_argument("repo")
    ap.add_argument("--nodes", type=int, default=200)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        chain, empty = Path(tmp, "chain.fabro"), Path(tmp, "empty.fabro")
        chain.write_text(workflow(args.nodes))
        empty.write_text(workflow(0))
        binary = str(Path(args.binary).resolve())  # the run starts in REPO
        with_nodes = profile(binary, args.repo, chain, Path(tmp, "chain.data"))
        without = profile(binary, args.repo, empty, Path(tmp, "empty.data"))
    print(f"| part | CPU ms per node | samples ({args.nodes} nodes / none) |")
    print("|---|---|---|")
    for name in [p[0] for p in PARTS] + ["other", "total"]:
        per_node = (with_nodes[name] - without[name]) / args.nodes / HZ * 1000
        print(f"| {name} | {per_node:.2f} | {with_nodes[name]} / {without[name]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
