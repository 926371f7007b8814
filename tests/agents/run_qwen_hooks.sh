#!/bin/bash
# Hooks path with the real Qwen Code: `git fabro hooks install --qwen` in a run's worktree
# (.qwen/settings.json, beside the user's own settings there), then `qwen --approval-mode
# auto-edit PROMPT` against fake_llm.py (read_file, edit, final text). Checks with git that the
# edit hook snapshotted notes.txt before the edit, that the turn was checkpointed with its
# transcript and the user's prompt alone (Qwen calls the prompt hook before each model call),
# that no checkpoint holds .qwen/, and that uninstall gives the settings file back byte for byte.
# Needs: Qwen Code under $AGENTS_ROOT/npm; git-fabro on PATH or $GIT_FABRO. Exit 0 when all
# checks pass.
source "$(dirname "$0")/common.sh" qwen
source "$(dirname "$0")/agent_env.sh" qwen
PROMPT="Change 'original line' to 'edited by the agent' in notes.txt"
new_run
cd "$WT"
mkdir -p .qwen
printf '{\n  "ui": { "hideTips": true }\n}\n' >.qwen/settings.json
cp .qwen/settings.json "$WORLD/settings.before"
git fabro hooks install --qwen
echo "--- .qwen/settings.json as installed"; cat .qwen/settings.json
timeout 180 qwen --approval-mode auto-edit "$PROMPT" </dev/null >"$WORLD/agent.out" 2>"$WORLD/agent.err"
echo "qwen exit $?; stdout: $(cat "$WORLD/agent.out")"
echo "--- qwen stderr (last lines)"; tail -5 "$WORLD/agent.err"
echo "--- requests the agent sent"; show_requests
echo "--- hook calls"; cut -c1-400 "$HOOKLOG" 2>/dev/null || echo "(none)"
check_run; status=$?
git -C "$REPO" log --format=%B "fabro/run/$RUN" | grep -q '^Fabro-Snapshot: before edit notes.txt' &&
  echo "OK the edit hook's snapshot" || { echo "MISSING a snapshot before edit notes.txt"; status=1; }
stage=$(git -C "$REPO" ls-tree --name-only "fabro/meta/$RUN:stages" | grep 'turn@1' | head -1)
if [ "$(git -C "$REPO" show "fabro/meta/$RUN:stages/$stage/prompt.md")" = "$PROMPT" ]; then
  echo "OK the turn's prompt.md holds the user's prompt alone"
else
  echo "DIFFERENT prompt.md:"; git -C "$REPO" show "fabro/meta/$RUN:stages/$stage/prompt.md"; status=1
fi
check_never_captured '^\.qwen/' || status=1
cd "$WT" && git fabro hooks uninstall --qwen
if cmp -s .qwen/settings.json "$WORLD/settings.before"; then
  echo "OK uninstall gave the settings back byte for byte"
else
  echo "DIFFERENT settings after uninstall"; status=1
fi
exit $status
