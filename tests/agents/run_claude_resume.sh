#!/bin/bash
# A Claude Code conversation resumed from a turn's checkpoint, with the real Claude Code, on a
# second clone. `git fabro hooks install --claude` in a checkout of the user's own, then a
# session of two turns (`claude -p`, then `claude --resume <id> -p`): the first turn's
# checkpoint holds the transcript as it was then. The run is pushed, fetched into a second
# clone at another path, where `git fabro restore --run RUN turn@1` puts the files back and
# writes the turn's transcript back for Claude under a new session id, printing the command
# that continues it; `claude --resume <new id> -p` in the clone must send the first turn's
# conversation to the model, and not the second's. The same again in the first checkout, where
# the session's own file lies beside the copy. Checks too that the session's own transcript is
# never changed.
# Needs: the Claude Code CLI under $AGENTS_ROOT (install.sh) and git-fabro on PATH or
# $GIT_FABRO. Exit 0 when all checks pass.
source "$(dirname "$0")/common.sh" claude-resume
source "$HERE/agent_env.sh" claude
echo "claude $(claude --version)"
status=0
ok() { echo "OK $*"; }
bad() { echo "FAILED $*"; status=1; }
json() { python3 -c "import json,sys;print(json.load(sys.stdin)$1)"; }
project_dir() { # Claude's folder for a directory (verified in ops::conversation's tests)
  python3 -c 'import os,re,sys;print(os.path.join(os.environ["HOME"],".claude","projects",re.sub("[^A-Za-z0-9]","-",os.path.realpath(sys.argv[1]))))' "$1"
}
# The body of the last request that carried Claude's tools and names $1 (a side request,
# such as a title, has no tools); prints nothing when none did.
last_main_body() {
  python3 - "$FAKE_BODIES" "$1" <<'EOF'
import glob, json, sys
found = None
for path in sorted(glob.glob(sys.argv[1] + "/*.json")):
    body = json.load(open(path))
    if "Edit" in [t.get("name") for t in body.get("tools") or []] and sys.argv[2] in json.dumps(body.get("messages")):
        found = path
print(found or "")
EOF
}
# What the conversation of request body $1 holds: each message's role and kinds of content.
summary() {
  python3 - "$1" <<'EOF'
import json, sys
for m in json.load(open(sys.argv[1]))["messages"]:
    c = m["content"]
    kinds = "text" if isinstance(c, str) else ",".join(p.get("type", "?") for p in c)
    text = json.dumps(c)
    marks = [w for w in ("MARKER-ONE", "MARKER-TWO", "MARKER-THREE", "MARKER-FOUR") if w in text]
    print("  %-9s %-28s %s" % (m["role"], kinds, " ".join(marks)))
EOF
}
has() { grep -q -- "$2" "$1"; }

ORIGIN="$WORLD/origin.git" REPO="$WORLD/repo" CLONE="$WORLD/elsewhere/second-clone"
git init -q --bare "$ORIGIN"
git clone -q "$ORIGIN" "$REPO" 2>/dev/null && cd "$REPO"
printf 'original line\n' >notes.txt
git add notes.txt && git commit -qm "initial" && git push -q origin main
git fabro hooks install --claude

timeout 180 claude -p "Change 'original line' to 'edited by the agent' in notes.txt (MARKER-ONE)" \
  --permission-mode acceptEdits </dev/null >"$WORLD/turn1.out" 2>"$WORLD/turn1.err"
echo "turn 1 exit $?: $(cat "$WORLD/turn1.out")"
RUN=$(git fabro ps --all --json | json '[0]["run_id"]')
SID=$(git fabro ps --all --json | json '[0]["labels"]["agent_session"]')
echo "session $SID became run $RUN"
timeout 180 claude --resume "$SID" -p "Now a second turn (MARKER-TWO)" \
  --permission-mode acceptEdits </dev/null >"$WORLD/turn2.out" 2>"$WORLD/turn2.err"
echo "turn 2 exit $?: $(cat "$WORLD/turn2.out")"
OWN="$(project_dir "$REPO")/$SID.jsonl"
has "$OWN" MARKER-TWO && ok "the session's own transcript has both turns" || bad "no second turn in $OWN"
own_sum=$(sha256sum <"$OWN")

echo "--- second clone at another path"
git fabro push "$RUN" >/dev/null
mkdir -p "$(dirname "$CLONE")" && git clone -q "$ORIGIN" "$CLONE" && cd "$CLONE"
git fabro fetch origin "$RUN" >/dev/null
stage=$(git ls-tree -r --name-only "fabro/meta/$RUN" | grep 'turn@1/transcript.jsonl$')
echo "turn 1's transcript: fabro/meta/$RUN:$stage"
git show "fabro/meta/$RUN:$stage" >"$WORLD/turn1.jsonl"
if has "$WORLD/turn1.jsonl" MARKER-ONE && ! has "$WORLD/turn1.jsonl" MARKER-TWO; then
  ok "the checkpoint holds the first turn only"
else bad "the turn@1 transcript is not the first turn's"; fi

# $1: the checkout to resume in; $2: the marker of the new prompt. Sets NEW and BODY.
resume_in() {
  local out; NEW="" BODY=""
  out=$(cd "$1" && git fabro restore --run "$RUN" turn@1 2>&1) || { bad "restore in $1: $out"; return; }
  echo "restored: $out"
  local cmd path
  cmd=$(printf '%s' "$out" | grep -o 'claude --resume [0-9a-f-]*')
  NEW=${cmd##* }
  [ -n "$NEW" ] && ok "restore printed the command that continues the conversation" || { bad "no claude --resume printed"; return; }
  path="$(project_dir "$1")/$NEW.jsonl"
  grep -qx 'edited by the agent' "$1/notes.txt" && ok "the files are as at turn@1" || bad "notes.txt: $(cat "$1/notes.txt")"
  [ -f "$path" ] && ok "written in Claude's folder for $1" || bad "not written at $path"
  [ "$(stat -c %a "$path")" = 600 ] && ok "readable by its owner only" || bad "mode $(stat -c %a "$path")"
  [ "$(grep -c "\"sessionId\":\"$NEW\"" "$path")" = "$(grep -c '"sessionId":' "$WORLD/turn1.jsonl")" ] &&
    ok "every line carries the new session id" || bad "lines with the old session id in $path"
  (cd "$1" && timeout 180 claude --resume "$NEW" -p "Go on from the first turn ($2)" \
    --permission-mode acceptEdits </dev/null >"$WORLD/resume-$2.out" 2>"$WORLD/resume-$2.err")
  echo "claude --resume $NEW (printed as: $cmd) exit $?: $(cat "$WORLD/resume-$2.out") $(head -c 300 "$WORLD/resume-$2.err")"
  BODY=$(last_main_body "$2")
  [ -n "$BODY" ] || { bad "no request to the model carried $2"; return; }
  echo "the conversation Claude sent ($BODY):"; summary "$BODY"
  if has "$BODY" MARKER-ONE && grep -q '"tool_result"' "$BODY" && ! has "$BODY" MARKER-TWO; then
    ok "it went on from turn 1: the first turn's prompt, tool calls and results were sent, not the second turn"
  else bad "the resumed request is not the first turn's conversation"; fi
  has "$path" "$2" && ok "Claude appended the new turn to the copy" || bad "the new turn is not in $path"
}
resume_in "$CLONE" MARKER-THREE
[ ! -e "$(project_dir "$REPO")/$NEW.jsonl" ] && ok "nothing written under the first checkout's folder" || bad "a copy under the first checkout's folder"

echo "--- the first checkout, beside the session's own file"
resume_in "$REPO" MARKER-FOUR
[ "$(sha256sum <"$OWN")" = "$own_sum" ] && ok "the session's own transcript is unchanged" || bad "$OWN changed"
ls "$(project_dir "$REPO")" "$(project_dir "$CLONE")"
cd "$REPO" && git fabro hooks uninstall --claude >/dev/null
[ $status = 0 ] && echo "all checks passed" || echo "some checks FAILED"
exit $status
