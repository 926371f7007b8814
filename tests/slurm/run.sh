#!/bin/bash
# run.sh: runs on a three-node Slurm cluster, placed by Slurm, while their workers fail.
#
# RUNS runs (default 20) of a workflow with a side effect that counts itself in a file outside
# every repository, a parallel fan-out and a human gate, are queued on a git daemon's
# repository, and two more with `submit --executor slurm`, which starts a job for each; six
# `git fabro worker` jobs (tests/slurm/worker-job.sh) take the rest. Meanwhile a worker holding a
# run is killed with SIGKILL, another is stopped with SIGSTOP past its lease and woken, node n2
# is cut off from the git server, and node n3's slurmd is killed (its jobs live on, and Slurm
# requeues them elsewhere). Then two more workers are started, as an operator would.
#
# Checks: every run that stopped at its side effect for a decision goes on once an operator
# decides (recorded as done when it ran, run again when it did not) and every run blocked at
# its gate once a reviewer on another clone answers, each taken on by the next Slurm workers;
# then every run succeeded, each side effect ran exactly once, each run's timeline holds each
# node once (no stale write landed), `git fsck --strict` on the remote and `git fabro fsck` on
# a clone of it pass, and `gc --remote` moves every run off the remote into that clone.
#
# Usage (root, Debian with slurm-wlm, munge and iproute2): GF=<git-fabro binary> run.sh
# Bounded by DEADLINE seconds (default 600). S=<scratch folder> keeps what it made.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
GF=${GF:?the git-fabro binary}
S=${S:-$(mktemp -d)}
RUNS=${RUNS:-20}
TTL=${TTL:-6}
DEADLINE=${DEADLINE:-600}
export S SLURM_CONF=$S/slurm/slurm.conf
REMOTE=git://10.200.0.1/runs.git
started=$(date +%s)
say() { echo "slurm: $(($(date +%s) - started))s: $*"; }
fail() { say "FAILED: $*"; exit 1; }

cleanup() {
  [ -f "$S/daemon.pid" ] && kill "$(cat "$S/daemon.pid")" 2> /dev/null || true
  scancel --quiet -u root 2> /dev/null || true
  "$HERE/cluster.sh" down 2> /dev/null || true
}
trap cleanup EXIT
"$HERE/cluster.sh" up > /dev/null
say "cluster up"

mkdir -p "$S/bin" "$S/git" "$S/counters" "$S/submit/home"
cp "$GF" "$S/bin/git-fabro"
git init -q --bare -b main "$S/git/runs.git"
git daemon --listen=10.200.0.1 --base-path="$S/git" --export-all --enable=receive-pack \
  --reuseaddr --detach --pid-file="$S/daemon.pid" "$S/git"

# The submitter: a machine of its own.
export HOME=$S/submit/home FABRO_HOME=$S/submit/fabro GIT_CONFIG_GLOBAL=$S/submit/home/.gitconfig
export PATH=$S/bin:$PATH
git config --global user.name submitter
git config --global user.email submitter@example.invalid
for _ in $(seq 50); do git ls-remote "$REMOTE" > /dev/null 2>&1 && break; sleep 0.1; done
git init -q -b main "$S/submit/repo"
cd "$S/submit/repo"
echo "a project" > README.md
git add README.md && git commit -q -m "a project"
git remote add origin "$REMOTE"
git push -q origin main
cat > "$S/submit/flow.fabro" <<FLOW
digraph flow {
  graph [goal="A run placed by Slurm"]
  start [shape=Mdiamond]
  exit [shape=Msquare]
  prep [shape=parallelogram, script="echo prep > prep.txt"]
  pay [shape=parallelogram, side_effect=true, script="echo once >> $S/counters/\$FABRO_RUN_ID; sleep 2"]
  fork [shape=component]
  a [shape=parallelogram, script="echo a > a.txt; sleep 1"]
  b [shape=parallelogram, script="echo b > b.txt"]
  merge [shape=tripleoctagon]
  after [shape=parallelogram, script="ls *.txt > seen.txt; sleep 3"]
  approve [shape=hexagon, label="Ship it?"]
  ship [shape=parallelogram, script="echo shipped > shipped.txt"]
  drop [shape=parallelogram, script="echo dropped > dropped.txt"]
  start -> prep -> pay -> fork
  fork -> a
  fork -> b
  a -> merge
  b -> merge
  merge -> after -> approve
  approve -> ship [label="[A] Approve"]
  approve -> drop [label="[D] Drop"]
  ship -> exit
  drop -> exit
}
FLOW
for _ in $(seq "$RUNS"); do git fabro submit "$S/submit/flow.fabro" --remote origin > /dev/null 2>&1; done
say "queued $RUNS runs"
# Two more, each with a Slurm job of its own that `submit --executor slurm` starts: a machine of
# its own (its home, no fabro home), told what the submitter approved.
mkdir -p "$FABRO_HOME"
cat > "$FABRO_HOME/settings.toml" <<SETTINGS
[lease]
ttl = "${TTL}s"
[executor.slurm]
sbatch = ["--export=PATH=$S/bin:/usr/local/bin:/usr/bin:/bin,HOME=$S/executed/home", "-N1", "-n1"]
SETTINGS
for _ in 1 2; do
  git fabro submit "$S/submit/flow.fabro" --remote origin --executor slurm > "$S/executed.log" 2>&1 ||
    fail "submit --executor slurm: $(cat "$S/executed.log")"
done
say "queued 2 runs with a Slurm job each"

workers() {
  sbatch --quiet --array="1-$1" --requeue -N1 -n1 -o "$S/job-%A_%a.out" \
    --export="ALL,S=$S,REMOTE=$REMOTE,TTL=${TTL}s" "$HERE/worker-job.sh"
}
workers 6

# The pid of a worker on node $1 that holds a run now, from the leases' owners (node/pid/nonce).
holder_on() {
  git fabro ps --remote origin --json 2> /dev/null | python3 -c '
import json, sys
for run in json.load(sys.stdin):
    node, pid, _ = (run.get("owner") or "//").split("/")
    if run["state"] == "running" and node == sys.argv[1]:
        print(pid); break' "$1"
}
wait_holder() {
  for _ in $(seq 600); do
    pid=$(holder_on "$1")
    [ -n "$pid" ] && { echo "$pid"; return; }
    sleep 0.1
  done
  fail "no worker on $1 held a run"
}

victim=$(wait_holder n1)
kill -9 "$victim"
say "killed worker $victim on n1 with SIGKILL"
stalled=$(wait_holder n3)
kill -STOP "$stalled"
say "stopped worker $stalled on n3"
ip link set gfveth2 down
say "cut n2 off"
sleep $((TTL * 2 + 2))
kill -CONT "$stalled"
say "woke worker $stalled"
ip link set gfveth2 up
say "joined n2 again"
kill -9 "$(cat "$S/slurm/slurmd-n3.pid")"
say "killed slurmd of n3"
workers 2

left() { git fabro ps --remote origin --json 2> /dev/null | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))'; }
# The runs that wait for a person, as `STATE RUN` lines.
waiting() {
  git fabro ps --remote origin --json | python3 -c '
import json, sys
for run in json.load(sys.stdin):
    if run["state"].startswith("needs-"):
        print(run["state"], run["run_id"])'
}
# Until no worker job is left, then until the queue holds only runs that wait for a person.
drain() {
  while squeue -h | grep -q .; do
    [ $(($(date +%s) - started)) -lt "$DEADLINE" ] || { squeue; git fabro ps --remote origin; fail "runs still queued at the deadline"; }
    sleep 2
  done
}

# A reviewer's clone, a machine of its own, answers the gates.
reviewer() {
  (export HOME=$S/reviewer/home FABRO_HOME=$S/reviewer/fabro GIT_CONFIG_GLOBAL=$S/reviewer/home/.gitconfig
   cd "$S/reviewer/repo" && git fabro "$@")
}
mkdir -p "$S/reviewer/home"
HOME=$S/reviewer/home GIT_CONFIG_GLOBAL=$S/reviewer/home/.gitconfig git config --global user.name reviewer
HOME=$S/reviewer/home GIT_CONFIG_GLOBAL=$S/reviewer/home/.gitconfig git config --global user.email reviewer@example.invalid
git clone -q "$REMOTE" "$S/reviewer/repo"

# Each round: the operator decides on the side effects cut short (recorded as done when it
# ran, run again when it did not), the reviewer approves the runs at their gate, both through
# `resume --remote`, and new Slurm workers go on with them.
for round in 1 2 3; do
  drain
  [ "$(left)" = 0 ] && break
  [ "$(waiting | wc -l)" = "$(left)" ] || { git fabro ps --remote origin; fail "runs queued with no worker left"; }
  waiting | while read -r state rid; do
    if [ "$state" = needs-decision ]; then
      paid=$(grep -c once "$S/counters/$rid" 2> /dev/null || true)
      decision=--rerun
      [ "${paid:-0}" = 1 ] && decision=--assume-done
      git fabro resume "$rid" --remote origin "$decision" pay > "$S/decision-$rid.log" 2>&1 ||
        fail "the decision $decision on $rid was refused: $(tail -3 "$S/decision-$rid.log")"
    else
      reviewer resume "$rid" --remote origin --answer approve=A > "$S/answer-$rid.log" 2>&1 ||
        fail "the answer to $rid was refused: $(tail -3 "$S/answer-$rid.log")"
    fi
  done
  say "round $round: decided and answered; workers go on"
  workers 3
done
[ "$(left)" = 0 ] || { git fabro ps --remote origin; fail "runs still waiting after three rounds"; }
say "every run ended"

# Checks, on a clone of the remote.
git clone -q "$REMOTE" "$S/check"
cd "$S/check"
git fabro fetch origin > /dev/null
python3 - "$S" <<'CHECK'
import json, os, subprocess, sys
S = sys.argv[1]
def fabro(*args):
    return json.loads(subprocess.check_output(["git", "fabro", *args]))
runs = fabro("ps", "--json")
problems, succeeded = [], 0
for run in runs:
    rid = run["run_id"]
    count_file = os.path.join(S, "counters", rid)
    paid = open(count_file).read().count("once") if os.path.exists(count_file) else 0
    nodes = [e["node_id"] for e in fabro("log", rid, "--json")]
    if run["status"] == "succeeded":
        succeeded += 1
    else:
        problems.append(f"{rid}: {run['status']}")
    if nodes != ["prep", "pay", "fork", "merge", "after", "approve", "ship"]:
        problems.append(f"{rid}: timeline {nodes}")
    if paid != 1:
        problems.append(f"{rid}: the side effect ran {paid} times")
print(f"slurm: {succeeded} of {len(runs)} runs succeeded, {len(problems)} problems")
for p in problems:
    print("  " + p)
sys.exit(1 if problems or not runs else 0)
CHECK
git --git-dir="$S/git/runs.git" fsck --strict --no-dangling
git fabro fsck
# The finished runs move off the run store into the checking clone, leaving it nothing of them.
git fabro gc --remote origin > "$S/gc-remote.log"
[ "$(grep -c '^moved run ' "$S/gc-remote.log")" = "$((RUNS + 2))" ] || fail "gc --remote: $(cat "$S/gc-remote.log")"
left=$(git --git-dir="$S/git/runs.git" for-each-ref refs/heads/fabro/ refs/fabro/ | wc -l)
[ "$left" = 0 ] || fail "gc --remote left $left refs on the remote"
git fabro fsck

# A fan-out across the cluster: one run whose parallel node keeps one branch on the worker that
# holds the run (max_parallel=1) and offers the other two, and three workers, so that the two
# that hold no run take them.
cat > "$S/submit/fan.fabro" <<'FLOW'
digraph fan {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  fan [shape=component, max_parallel=1]
  a [shape=parallelogram, script="echo a > a.txt; sleep 3"]
  b [shape=parallelogram, script="echo b > b.txt; sleep 3"]
  c [shape=parallelogram, script="echo c > c.txt; sleep 3"]
  join [shape=tripleoctagon]
  start -> fan
  fan -> a -> join
  fan -> b -> join
  fan -> c -> join
  join -> exit
}
FLOW
before=$(cat "$S"/job-*.out | grep -c '^worker .*: running branch ' || true)
fan=$(cd "$S/submit/repo" && git fabro submit "$S/submit/fan.fabro" --remote origin 2> /dev/null)
workers 3
drain
elsewhere=$(($(cat "$S"/job-*.out | grep -c '^worker .*: running branch ' || true) - before))
say "fan-out: $elsewhere of 3 branches ran on a worker that did not hold the run"
[ "$elsewhere" -ge 1 ] || fail "no branch of the fan-out ran on another worker"
git fabro fetch origin "$fan" > /dev/null
[ "$(git fabro ps --json | python3 -c 'import json,sys; print({r["run_id"]: r["status"] for r in json.load(sys.stdin)}[sys.argv[1]])' "$fan")" = succeeded ] ||
  fail "the fan-out run did not succeed"
for branch in a b c; do
  [ "$(git --git-dir="$S/git/runs.git" show "fabro/run/parallel/$fan/fan/pass1/$branch:$branch.txt")" = "$branch" ] ||
    fail "branch $branch lost its work"
done
git --git-dir="$S/git/runs.git" fsck --strict --no-dangling
git fabro gc --remote origin > /dev/null
left=$(git --git-dir="$S/git/runs.git" for-each-ref refs/heads/fabro/ refs/fabro/ | wc -l)
[ "$left" = 0 ] || fail "gc --remote left $left refs on the remote after the fan-out"
say "all checks passed"
