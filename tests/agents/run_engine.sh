#!/bin/bash
# Engine path: `git fabro run wf.fabro --agent AGENT` (the preset) with a real agent CLI against
# fake_llm.py. One agent node edits notes.txt. Checks with git that the node's checkpoint
# holds the edit and its stage folder prompt.md, response.md and diff.patch.
# Usage: run_engine.sh claude|codex|gemini|aider|copilot|qwen|opencode [COMMAND] (default: the
# preset of that name). The preset alone must log the agent in: the engine passes an agent node
# only the variables on its list.
# Exit 0 when the run succeeded and everything is in place.
AGENT="$1"
case "$AGENT" in
  claude|codex|gemini|aider|copilot|qwen|opencode) ;;
  *) echo "unknown agent $AGENT" >&2; exit 2 ;;
esac
source "$(dirname "$0")/common.sh" "engine-$AGENT"
RECIPE="${2:-$AGENT}"
source "$(dirname "$0")/agent_env.sh" "$AGENT"

REPO="$WORLD/repo"
mkdir -p "$REPO" && cd "$REPO" && git init -q
printf '%s\n' "${FAKE_OLD:-original line}" >notes.txt
cat >wf.fabro <<'EOF'
digraph agent_edit {
  graph [goal="Have an agent edit notes.txt"]
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  edit  [shape=box, label="Edit", prompt="Change 'original line' to 'edited by the agent' in notes.txt"]
  start -> edit -> exit
}
EOF
git add -A && git commit -qm initial
echo "--- git fabro run wf.fabro --agent '$RECIPE'"
git fabro run wf.fabro --agent "$RECIPE" >"$WORLD/run.out" 2>"$WORLD/run.err"
rc=$?
echo "git fabro run exit $rc"; cat "$WORLD/run.out"; tail -20 "$WORLD/run.err"
RUN=$(git for-each-ref --format='%(refname)' refs/heads/fabro/run | sed 's#refs/heads/fabro/run/##' | head -1)
echo "--- requests the agent sent"
show_requests 2>/dev/null
ok=$rc
echo "--- git log fabro/run/$RUN"
git log --format='%h %s' "fabro/run/$RUN"
git fabro log "$RUN"
echo "--- metadata tree"; git ls-tree -r --name-only "fabro/meta/$RUN"
stage=$(git ls-tree -d --name-only "fabro/meta/$RUN:stages" | grep 'edit@1' | head -1)
for f in prompt.md response.md stderr.log diff.patch; do
  echo "--- stages/$stage/$f"
  git show "fabro/meta/$RUN:stages/$stage/$f" 2>&1 | head -30
done
if git show "fabro/run/$RUN:notes.txt" | grep -q "${FAKE_NEW:-edited by the agent}"; then
  echo "OK the edit is in the run branch"
else
  echo "MISSING the edit in the run branch"; ok=1
fi
git show "fabro/meta/$RUN:stages/$stage/prompt.md" | grep -q "original line" || { echo "MISSING prompt.md"; ok=1; }
git show "fabro/meta/$RUN:stages/$stage/diff.patch" 2>/dev/null | grep -q "^+${FAKE_NEW:-edited by the agent}" ||
  { echo "MISSING the edit in diff.patch"; ok=1; }
echo "--- files the agent left in the run's last commit"
git ls-tree -r --name-only "fabro/run/$RUN"
exit $ok
