#!/bin/bash
# Hooks path with the real GitHub Copilot CLI: Copilot runs Claude Code's hooks
# (.claude/settings.local.json), so `git fabro hooks install --claude` in a run's worktree,
# then `copilot -p --trust-folder` (without it Copilot loads no project hook in -p mode)
# against fake_llm.py (view, edit, final text). Checks with git that the edit hook
# snapshotted notes.txt before Copilot's edit (its tool input names the file `path`), that the
# turn was checkpointed with its transcript, that no checkpoint holds .claude/, and that
# uninstall gives the user's settings file back byte for byte.
# Needs: Copilot CLI under $AGENTS_ROOT/npm; git-fabro on PATH or $GIT_FABRO. Exit 0 when all
# checks pass.
source "$(dirname "$0")/common.sh" copilot
source "$(dirname "$0")/agent_env.sh" copilot
new_run
cd "$WT"
mkdir -p .claude
printf '{\n  "permissions": { "allow": ["Bash(ls:*)"] }\n}\n' >.claude/settings.local.json
cp .claude/settings.local.json "$WORLD/settings.before"
git fabro hooks install --claude
timeout 180 copilot -p "Change 'original line' to 'edited by the agent' in notes.txt" \
  --allow-tool=write --no-auto-update --trust-folder \
  </dev/null >"$WORLD/agent.out" 2>"$WORLD/agent.err"
echo "copilot exit $?; stdout: $(cat "$WORLD/agent.out")"
echo "--- copilot stderr (last lines)"; tail -5 "$WORLD/agent.err"
echo "--- requests the agent sent"; show_requests
echo "--- hook calls"; cut -c1-400 "$HOOKLOG" 2>/dev/null || echo "(none)"
check_run; status=$?
git -C "$REPO" log --format=%B "fabro/run/$RUN" | grep -q '^Fabro-Snapshot: before Edit notes.txt' &&
  echo "OK the edit hook's snapshot names Copilot's file" || { echo "MISSING a snapshot before Edit notes.txt"; status=1; }
check_never_captured '^\.claude/' || status=1
cd "$WT" && git fabro hooks uninstall --claude
if cmp -s .claude/settings.local.json "$WORLD/settings.before"; then
  echo "OK uninstall gave the settings back byte for byte"
else
  echo "DIFFERENT settings after uninstall"; status=1
fi
exit $status
