#!/bin/bash
# Taking back what Claude Code did in the user's own checkout, with the real CLI offline:
# `git fabro hooks install --claude` once, then
#   1. a session edits, ends, and is undone from a subdirectory (and redone, and undone in a
#      second clone), then landed: the commit's subject is the session's prompt (Claude Code
#      itself starts at the checkout's root, where it reads .claude/);
#   2. a session kept open (`--input-format stream-json`) whose edit is undone while it runs:
#      its end records the checkout as it is, and landing commits nothing the checkout lacks;
#   3. an agent killed with SIGKILL mid-turn (a user hook holds it after its write): `ps` says
#      `interrupted`, the next session goes on beside it, and `undo` takes the cut-off turn back.
# Needs: the Claude Code CLI under $AGENTS_ROOT (install.sh) and git-fabro on PATH or
# $GIT_FABRO. Exit 0 when all checks pass.
source "$(dirname "$0")/common.sh" claude-undo
source "$HERE/agent_env.sh" claude
echo "claude $(claude --version)"
status=0
ok() { echo "OK $*"; }
bad() { echo "FAILED $*"; status=1; }
json() { python3 -c "import json,sys;print(json.load(sys.stdin)$1)"; }
PROMPT="Change 'original line' to 'edited by the agent' in notes.txt"
latest_run() { git fabro ps --all --json | json '[0]["run_id"]'; }

ORIGIN="$WORLD/origin.git" REPO="$WORLD/repo"
git init -q --bare "$ORIGIN"
git clone -q "$ORIGIN" "$REPO" 2>/dev/null && cd "$REPO"
mkdir sub && printf 'original line\n' >notes.txt && printf 'kept\n' >sub/kept.txt
git add -A && git commit -qm "initial" && git push -q origin main
git fabro hooks install --claude >/dev/null

echo "--- 1. a session that edits and ends, undone from a subdirectory, then landed"
timeout 180 claude -p "$PROMPT" --permission-mode acceptEdits </dev/null >"$WORLD/s1.out" 2>&1
echo "claude exit $?: $(cat "$WORLD/s1.out")"
cd "$REPO/sub"   # git-fabro from a subdirectory, as git runs there
RUN=$(latest_run)
grep -qx 'edited by the agent' ../notes.txt && ok "the agent edited the file" || bad "no edit: $(cat ../notes.txt)"
[ "$(git fabro status "$RUN" --json | json '["status"]')" = succeeded ] && ok "the session ended" || bad "not ended"
[ "$(git fabro ps --json | json '[0]["goal"]')" = "$PROMPT" ] && ok "named by its prompt" || bad "goal $(git fabro ps --json | json '[0]["goal"]')"
git fabro undo >"$WORLD/undo.out" 2>&1 || bad "undo failed: $(cat "$WORLD/undo.out")"
cat "$WORLD/undo.out"
grep -qx 'original line' ../notes.txt && ok "undo after the session took its edit back" || bad "after undo: $(cat ../notes.txt)"
redo=$(sed -n 's/^to redo: git fabro //p' "$WORLD/undo.out")
# shellcheck disable=SC2086
git fabro $redo >/dev/null 2>&1 && grep -qx 'edited by the agent' ../notes.txt && ok "the printed redo brought it back" || bad "redo: $(cat ../notes.txt)"
git fabro undo >/dev/null 2>&1
git fabro undo >/dev/null 2>&1 && bad "undo before the start succeeded" || ok "nothing to undo before the session's start"
git fabro restore --run "$RUN" >/dev/null 2>&1
grep -qx 'edited by the agent' ../notes.txt && ok "restore of the latest turn" || bad "restore: $(cat ../notes.txt)"
git fabro push "$RUN" >/dev/null 2>&1
git clone -q "$ORIGIN" "$WORLD/clone2" && (cd "$WORLD/clone2" && git fabro fetch origin "$RUN" >/dev/null 2>&1 &&
  printf 'edited by the agent\n' >notes.txt && cd sub && git fabro undo "$RUN" >/dev/null 2>&1 &&
  grep -qx 'original line' ../notes.txt) && ok "undo in a second clone" || bad "undo in a second clone"
git fabro land >"$WORLD/land.out" 2>&1 || bad "land: $(cat "$WORLD/land.out")"
[ "$(git log -1 --format=%s)" = "$PROMPT" ] && ok "landed with the prompt as subject" || bad "subject $(git log -1 --format=%s)"
git log -1 --format=%b | grep -q "turn@1 succeeded: $PROMPT" && ok "the body lists the turn's prompt" || bad "body $(git log -1 --format=%b)"
[ -z "$(git status --short --untracked-files=no)" ] && ok "the checkout matches the landed commit" || bad "git status: $(git status --short)"
git fabro ps | grep -q "landed on main" && ok "ps marks it landed" || bad "ps: $(git fabro ps)"

echo "--- 2. an open session whose edit is undone while it runs, then ended and landed"
cd "$REPO" && printf 'original line\n' >notes.txt && git commit -qam "back to the original"
mkfifo "$WORLD/in"
(claude -p --input-format stream-json --output-format stream-json --verbose \
  --permission-mode acceptEdits <"$WORLD/in" >"$WORLD/s2.jsonl" 2>"$WORLD/s2.err") &
CLAUDE=$!
exec 3>"$WORLD/in"
printf '{"type":"user","message":{"role":"user","content":"%s"}}\n' "$PROMPT" >&3
for _ in $(seq 120); do grep -q '"type":"result"' "$WORLD/s2.jsonl" && break; sleep 0.5; done
RUN2=$(latest_run)
[ "$(git fabro status "$RUN2" --json | json '["agent_session"]')" = running ] && ok "the session is open" || bad "not open"
git fabro undo >/dev/null 2>&1 && grep -qx 'original line' notes.txt && ok "undo during the session" || bad "undo during: $(cat notes.txt)"
exec 3>&-
wait "$CLAUDE"
git fabro log "$RUN2" | grep -q ' end@1 ' && ok "its end recorded the checkout as it is" || bad "log: $(git fabro log "$RUN2")"
git fabro land "$RUN2" >"$WORLD/land2.out" 2>&1; cat "$WORLD/land2.out"
[ "$(git show HEAD:notes.txt)" = "original line" ] && ok "land committed nothing the checkout lacks" || bad "HEAD holds $(git show HEAD:notes.txt)"
[ -z "$(git status --short --untracked-files=no)" ] && ok "git status is clean" || bad "git status: $(git status --short)"

echo "--- 3. an agent killed mid-turn"
python3 - .claude/settings.local.json <<'EOF'
import json, sys
path = sys.argv[1]
settings = json.load(open(path))
settings["hooks"]["PostToolUse"] = [{"matcher": "Edit", "hooks": [{"type": "command", "command": "sleep 60"}]}]
json.dump(settings, open(path, "w"), indent=2)
EOF
(exec claude -p "$PROMPT" --permission-mode acceptEdits </dev/null >"$WORLD/s3.out" 2>&1) &
CLAUDE=$!
for _ in $(seq 120); do grep -qx 'edited by the agent' notes.txt && break; sleep 0.5; done
kill -9 "$CLAUDE"; wait "$CLAUDE" 2>/dev/null
grep -qx 'edited by the agent' notes.txt && ok "the agent wrote, then was killed" || bad "no write before the kill"
RUN3=$(latest_run)
[ "$(git fabro status "$RUN3" --json | json '["agent_session"]')" = interrupted ] && ok "status says interrupted" || bad "status: $(git fabro status "$RUN3" --json)"
git fabro ps | grep "${RUN3:0:8}" | grep -q interrupted && ok "ps says interrupted" || bad "ps: $(git fabro ps)"
python3 - .claude/settings.local.json <<'EOF'
import json, sys
path = sys.argv[1]
settings = json.load(open(path))
del settings["hooks"]["PostToolUse"]
json.dump(settings, open(path, "w"), indent=2)
EOF
timeout 180 claude -p "Say hello" --permission-mode acceptEdits </dev/null >"$WORLD/s4.out" 2>&1
[ "$(latest_run)" != "$RUN3" ] && ok "the next session is a run of its own" || bad "no new run"
git fabro undo "$RUN3" >/dev/null 2>&1 && grep -qx 'original line' notes.txt && ok "undo took the cut-off turn back" || bad "undo: $(cat notes.txt)"
git fsck --strict 2>&1 | grep -v '^dangling' | grep . && bad "git fsck --strict" || ok "git fsck --strict"
git fabro hooks uninstall --claude >/dev/null
[ $status = 0 ] && echo "all checks passed" || echo "some checks FAILED"
exit $status
