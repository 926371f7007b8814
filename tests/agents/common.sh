# Sourced by the drivers. Sets up a private world under $AGENTS_ROOT (default $TMPDIR/agents):
# HOME, FABRO_HOME, git identity, PATH with git-fabro (from $GIT_FABRO, else the one on PATH)
# wrapped so that every `git fabro hooks run ...` call keeps the JSON the agent sent on stdin,
# and the agent CLIs installed under $AGENTS_ROOT (npm/ and venv/). Then starts fake_llm.py on
# $FAKE_PORT.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
AGENTS_ROOT="${AGENTS_ROOT:-${TMPDIR:-/tmp}/agents}"
WORLD="$AGENTS_ROOT/world-$1"            # one world per driver, made afresh
rm -rf "$WORLD" && mkdir -p "$WORLD/home" "$WORLD/bin" "$WORLD/fabro"
export HOME="$WORLD/home" FABRO_HOME="$WORLD/fabro"
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=Tester GIT_AUTHOR_EMAIL=t@example.invalid
export GIT_COMMITTER_NAME=Tester GIT_COMMITTER_EMAIL=t@example.invalid
git config --global user.name Tester && git config --global user.email t@example.invalid
git config --global init.defaultBranch main

REAL_FABRO="${GIT_FABRO:-$(command -v git-fabro || true)}"
[ -x "$REAL_FABRO" ] || { echo "git-fabro not found: set GIT_FABRO" >&2; exit 1; }
HOOKLOG="$WORLD/hook-calls.jsonl"
cat >"$WORLD/bin/git-fabro" <<EOF
#!/bin/bash
# Records what an agent hook received, then runs the real git-fabro with the same input.
if [ "\${1:-}" = hooks ] && [ "\${2:-}" = run ]; then
  input=\$(cat)
  printf '{"argv":"%s","cwd":"%s","stdin":%s}\n' "\$*" "\$PWD" "\$(printf '%s' "\$input" | python3 -c 'import json,sys;print(json.dumps(sys.stdin.read()))')" >>"$HOOKLOG"
  printf '%s' "\$input" | "$REAL_FABRO" "\$@"
  rc=\$?
  echo "{\"argv\":\"\$*\",\"rc\":\$rc}" >>"$HOOKLOG"
  exit \$rc
fi
exec "$REAL_FABRO" "\$@"
EOF
chmod +x "$WORLD/bin/git-fabro"
export PATH="$WORLD/bin:$AGENTS_ROOT/npm/node_modules/.bin:$AGENTS_ROOT/venv/bin:$PATH"

export FAKE_PORT="${FAKE_PORT:-$((18000 + RANDOM % 2000))}"
export FAKE_LOG="$WORLD/requests.jsonl" FAKE_BODIES="$WORLD/bodies"
# The agent's working directory, for fake_llm.py when the agent's prompt does not name it.
export FAKE_CWD_FILE="$WORLD/agent-cwd"
python3 "$HERE/fake_llm.py" 2>"$WORLD/fake_llm.stderr" &
FAKE_PID=$!
trap 'kill $FAKE_PID 2>/dev/null' EXIT
for _ in $(seq 50); do
  python3 -c "import socket,sys;socket.create_connection(('127.0.0.1',$FAKE_PORT),0.2)" 2>/dev/null && break
  sleep 0.1
done

# A repository with one file the agent is scripted to edit, and a run started in a worktree.
new_run() {
  REPO="$WORLD/repo"
  mkdir -p "$REPO" && cd "$REPO" && git init -q
  printf 'base line\n' >notes.txt
  git add notes.txt && git commit -qm "initial"
  RUN=$(git fabro start --goal "agent edits notes.txt")
  WT=$(git fabro path "$RUN")
  echo "$WT" >"$FAKE_CWD_FILE"
  # An unrecorded change the agent's write would lose: the edit hook's snapshot must save it.
  printf '%s\n' "${FAKE_OLD:-original line}" >"$WT/notes.txt"
  echo "run $RUN worktree $WT"
}

# Exit status 0 when the run branch has a snapshot holding the file as before the write (the
# prompt hook's at the turn's start, or the edit hook's),
# a checkpoint of node turn taken by the turn hook, and the turn's transcript on the metadata
# branch; prints what it found either way.
check_run() {
  local ok=0
  cd "$REPO"
  echo "--- git log fabro/run/$RUN"
  git log --format='%h %s%n%(trailers:only,unfold)' "fabro/run/$RUN"
  echo "--- git fabro log --all"
  git fabro log --all "$RUN"
  echo "--- git fabro status"
  git fabro status "$RUN"
  echo "--- metadata tree"
  git ls-tree -r --name-only "fabro/meta/$RUN"
  local snap
  # Saved by the write hook, or already by the prompt hook when the turn started.
  snap=$(git log --format=%H -E --grep='^Fabro-Snapshot: (before |start of a turn)' "fabro/run/$RUN" | head -1)
  if [ -n "$snap" ] && git show "$snap:notes.txt" | grep -qx "${FAKE_OLD:-original line}"; then
    echo "OK snapshot before the write: $(git log -1 --format='%h %(trailers:key=Fabro-Snapshot)' "$snap")"
  else
    echo "MISSING a snapshot taken before the write"; ok=1
  fi
  if git log --format=%B "fabro/run/$RUN" | grep -q '^Fabro-Checkpoint:' &&
     git log --format=%s "fabro/run/$RUN" | grep -q 'turn'; then
    echo "OK turn checkpoint"
  else
    echo "MISSING a turn checkpoint"; ok=1
  fi
  if git show "fabro/run/$RUN:notes.txt" 2>/dev/null | grep -q "${FAKE_NEW:-edited by the agent}"; then
    echo "OK the agent's edit is in the last checkpoint"
  else
    echo "MISSING the agent's edit in the run branch"; ok=1
  fi
  if git ls-tree -r --name-only "fabro/meta/$RUN" | grep -q 'turn@1/transcript'; then
    echo "OK transcript attached"
  else
    echo "MISSING transcript on the metadata branch"; ok=1
  fi
  local failures="$FABRO_HOME/runs"/*"$RUN"/hook-failures.jsonl
  # shellcheck disable=SC2086
  if ls $failures >/dev/null 2>&1; then echo "--- hook-failures.jsonl"; cat $failures; fi
  return $ok
}

# Exit status 0 when no commit of the run branch holds a path matching the extended regex $1
# (the files git-fabro wrote for the agent, and what the agent wrote beside them).
check_never_captured() {
  local found
  found=$(git -C "$REPO" log --format=%H "fabro/run/$RUN" | while read -r c; do
    git -C "$REPO" ls-tree -r --name-only "$c"; done | grep -E "$1" | sort -u)
  if [ -z "$found" ]; then
    echo "OK no checkpoint holds $1"
  else
    echo "CAPTURED in a checkpoint: $found"; return 1
  fi
}

# Prints the requests the agent sent to fake_llm.py, one a line.
show_requests() {
  python3 -c "
import json,sys
for l in open(sys.argv[1]):
    e=json.loads(l); print(e['n'], e['method'], e['path'], e.get('model') or '', e.get('kind') or '', str(e.get('reply') or '')[:110])
" "$FAKE_LOG"
}
