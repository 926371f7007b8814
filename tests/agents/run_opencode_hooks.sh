#!/bin/bash
# Hooks path with the real OpenCode, which has plugins instead of hooks: `git fabro hooks
# install --opencode` in a run's worktree writes git-fabro's plugin,
# .opencode/plugins/git-fabro.js, beside a plugin of the user's, then `opencode run PROMPT`
# against fake_llm.py (read, edit, final text). OpenCode installs its plugin API into .opencode/
# at startup (package.json, a lock file, node_modules, a .gitignore). Checks with git that the
# plugin snapshotted notes.txt before the edit, that the turn was checkpointed with its
# transcript and prompt, that no checkpoint holds the plugin or what OpenCode installed (the
# user's own plugin is their work, and is checkpointed), and that uninstall removes the plugin
# and leaves the user's byte for byte.
# Needs: OpenCode under $AGENTS_ROOT/npm; git-fabro on PATH or $GIT_FABRO. Exit 0 when all
# checks pass.
source "$(dirname "$0")/common.sh" opencode
source "$(dirname "$0")/agent_env.sh" opencode
PROMPT="Change 'original line' to 'edited by the agent' in notes.txt"
new_run
cd "$WT"
mkdir -p .opencode/plugins
printf 'export const Mine = async () => ({})\n' >.opencode/plugins/mine.js
cp .opencode/plugins/mine.js "$WORLD/mine.before"
git fabro hooks install --opencode
git fabro hooks status | grep '^opencode'
export TMPDIR="$WORLD/tmp" && mkdir -p "$TMPDIR"
timeout 240 opencode run "$PROMPT" </dev/null >"$WORLD/agent.out" 2>"$WORLD/agent.err"
echo "opencode exit $?; stdout: $(tail -3 "$WORLD/agent.out")"
echo "--- opencode stderr (last lines)"; tail -5 "$WORLD/agent.err"
echo "--- requests the agent sent"; show_requests
echo "--- hook calls"; cut -c1-400 "$HOOKLOG" 2>/dev/null || echo "(none)"
echo "--- what OpenCode put in .opencode/"; ls -a .opencode
check_run; status=$?
git -C "$REPO" log --format=%B "fabro/run/$RUN" | grep -q '^Fabro-Snapshot: before edit notes.txt' &&
  echo "OK the plugin's snapshot before the edit" || { echo "MISSING a snapshot before edit notes.txt"; status=1; }
stage=$(git -C "$REPO" ls-tree --name-only "fabro/meta/$RUN:stages" | grep 'turn@1' | head -1)
# `opencode run` quotes a message holding spaces before it sends it.
git -C "$REPO" show "fabro/meta/$RUN:stages/$stage/prompt.md" | grep -qF "$PROMPT" &&
  echo "OK the turn's prompt" || { echo "MISSING the prompt in prompt.md"; status=1; }
[ -z "$(ls "$TMPDIR" | grep git-fabro)" ] && echo "OK no transcript left in TMPDIR" ||
  { echo "LEFT in TMPDIR: $(ls "$TMPDIR")"; status=1; }
check_never_captured '^\.opencode/(plugins/git-fabro\.js|package|bun\.lock|\.gitignore|node_modules/)' || status=1
git -C "$REPO" ls-tree -r --name-only "fabro/run/$RUN" | grep -qx '.opencode/plugins/mine.js' &&
  echo "OK the user's own plugin is in the checkpoint" || { echo "MISSING the user's plugin"; status=1; }
cd "$WT" && git fabro hooks uninstall --opencode
if [ ! -e .opencode/plugins/git-fabro.js ] && cmp -s .opencode/plugins/mine.js "$WORLD/mine.before"; then
  echo "OK uninstall removed the plugin and left the user's as it was"
else
  echo "DIFFERENT .opencode/plugins after uninstall: $(ls .opencode/plugins)"; status=1
fi
exit $status
