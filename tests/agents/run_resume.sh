#!/bin/bash
# An agent's conversation resumed from a turn's checkpoint, with the real agent CLI, on a
# second clone. Usage: run_resume.sh claude|codex|gemini (default claude).
# `git fabro hooks install --AGENT` in a checkout of the user's own, then a session of two
# turns (the agent run non-interactively, then its session continued): the first turn's
# checkpoint holds the transcript as it was then. The run is pushed, fetched into a second
# clone at another path, where `git fabro restore --run RUN turn@1` puts the files back and
# writes the turn's transcript back for the agent as a session of its own, printing the
# command that continues it (`claude --resume <id>`, `codex resume <id>`, `gemini
# --session-file <path>`); that command, in its non-interactive form, run in the clone, must
# send the first turn's conversation to the model, and not the second's. The same again in the
# first checkout, where the session's own file lies beside the copy. Checks too that the
# session's own transcript is never changed.
# Needs: the agent's CLI under $AGENTS_ROOT (install.sh) and git-fabro on PATH or $GIT_FABRO.
# Exit 0 when all checks pass.
AGENT="${1:-claude}"
case "$AGENT" in claude | codex | gemini) ;; *) echo "usage: $0 claude|codex|gemini" >&2; exit 2 ;; esac
source "$(dirname "$0")/common.sh" "$AGENT-resume"
source "$HERE/agent_env.sh" "$AGENT"
echo "$AGENT $("$AGENT" --version)"
status=0
ok() { echo "OK $*"; }
bad() { echo "FAILED $*"; status=1; }
json() { python3 -c "import json,sys;print(json.load(sys.stdin)$1)"; }
has() { grep -q -- "$2" "$1"; }
mode() { stat -c %a "$1"; }
EDIT="Change 'original line' to 'edited by the agent' in notes.txt"

# The agent run non-interactively (for at most 180 s): `agent_turn PROMPT` starts a session,
# `agent_turn PROMPT --session ID` continues the session ID, `agent_turn PROMPT --command
# WORD...` runs the command restore printed with the prompt added (its non-interactive form).
agent_turn() {
  local prompt=$1 how=${2:-} run=()
  shift $(($# < 2 ? $# : 2))
  local codex=(codex exec --sandbox workspace-write --trust --dangerously-bypass-hook-trust)
  case "$AGENT:$how:${2:-}" in
    claude::) run=(claude -p "$prompt" --permission-mode acceptEdits) ;;
    claude:--session:*) run=(claude --resume "$1" -p "$prompt" --permission-mode acceptEdits) ;;
    claude:--command:--resume) run=(claude --resume "$3" -p "$prompt" --permission-mode acceptEdits) ;;
    codex::) run=("${codex[@]}" "$prompt") ;;
    codex:--session:*) run=("${codex[@]}" resume "$1" "$prompt") ;;
    codex:--command:resume) run=("${codex[@]}" resume "$3" "$prompt") ;;
    gemini::) run=(gemini --yolo -p "$prompt") ;;
    gemini:--session:*) run=(gemini --resume latest --yolo -p "$prompt") ;;
    # Headless Gemini refuses a folder never trusted (the second clone); it would ask.
    gemini:--command:--session-file) run=(gemini --session-file "$3" --skip-trust --yolo -p "$prompt") ;;
    *) echo "not a command of $AGENT's: $*" >&2; return 2 ;;
  esac
  timeout 180 "${run[@]}" </dev/null
}
# The pattern of the command restore prints, and what the copy it wrote is: $1 the command's
# last word (the new session id, or the copy's path), $2 the checkout.
case "$AGENT" in
  claude) PRINTED='claude --resume [0-9a-f-]*' ;;
  codex) PRINTED='codex resume [0-9a-f-]*' ;;
  gemini) PRINTED='gemini --session-file [^ ]*' ;;
esac
project_dir() { # Claude's folder for a directory (verified in ops::conversation's tests)
  python3 -c 'import os,re,sys;print(os.path.join(os.environ["HOME"],".claude","projects",re.sub("[^A-Za-z0-9]","-",os.path.realpath(sys.argv[1]))))' "$1"
}
copy_of() {
  case "$AGENT" in
    claude) echo "$(project_dir "$2")/$1.jsonl" ;;
    codex) find "$HOME/.codex/sessions" -name "rollout-*-$1.jsonl" ;;
    gemini) echo "$1" ;;
  esac
}
# The session's own transcript: $1 its id.
own_transcript() {
  case "$AGENT" in
    claude) echo "$(project_dir "$REPO")/$1.jsonl" ;;
    codex) find "$HOME/.codex/sessions" -name "rollout-*-$1.jsonl" ;;
    gemini) grep -l "\"sessionId\":\"$1\"" "$HOME"/.gemini/tmp/*/chats/session-*.jsonl | head -1 ;;
  esac
}
# The body of the last request that carried the agent's tools and names $1 (a side request,
# such as a title, has no tools); prints nothing when none did.
last_main_body() {
  python3 - "$FAKE_BODIES" "$1" "$AGENT" <<'EOF'
import glob, json, sys
folder, marker, agent = sys.argv[1:]
found = None
for path in sorted(glob.glob(folder + "/*.json")):
    body = json.load(open(path))
    if agent == "claude":
        tools, talk = [t.get("name") for t in body.get("tools") or []], body.get("messages")
        main = "Edit" in tools
    elif agent == "codex":
        main, talk = bool(body.get("tools")), body.get("input")
    else:
        decls = [d for t in body.get("tools") or [] for d in t.get("functionDeclarations") or []]
        main, talk = bool(decls), body.get("contents")
    if main and marker in json.dumps(talk):
        found = path
print(found or "")
EOF
}
# What the conversation of request body $1 holds: each message's role and kinds of content.
summary() {
  python3 - "$1" "$AGENT" <<'EOF'
import json, sys
body, agent = json.load(open(sys.argv[1])), sys.argv[2]
def marks(x):
    text = json.dumps(x)
    return " ".join(w for w in ("MARKER-ONE", "MARKER-TWO", "MARKER-THREE", "MARKER-FOUR") if w in text)
if agent == "claude":
    for m in body["messages"]:
        c = m["content"]
        kinds = "text" if isinstance(c, str) else ",".join(p.get("type", "?") for p in c)
        print("  %-9s %-28s %s" % (m["role"], kinds, marks(c)))
elif agent == "codex":
    for item in body["input"]:
        print("  %-9s %-28s %s" % (item.get("role", ""), item.get("type", "?"), marks(item)))
else:
    for c in body["contents"]:
        kinds = ",".join(next(iter(p), "?") for p in c.get("parts") or [])
        print("  %-9s %-28s %s" % (c.get("role"), kinds, marks(c)))
EOF
}
TOOL_RESULT=$(case "$AGENT" in claude) echo '"tool_result"' ;; codex) echo '_call_output"' ;; gemini) echo '"functionResponse"' ;; esac)

ORIGIN="$WORLD/origin.git" REPO="$WORLD/repo" CLONE="$WORLD/elsewhere/second-clone"
git init -q --bare "$ORIGIN"
git clone -q "$ORIGIN" "$REPO" 2>/dev/null && cd "$REPO"
printf 'original line\n' >notes.txt
git add notes.txt && git commit -qm "initial" && git push -q origin main
git fabro hooks install "--$AGENT"

agent_turn "$EDIT (MARKER-ONE)" >"$WORLD/turn1.out" 2>"$WORLD/turn1.err"
echo "turn 1 exit $?: $(cat "$WORLD/turn1.out")"
RUN=$(git fabro ps --all --json | json '[0]["run_id"]')
SID=$(git fabro ps --all --json | json '[0]["labels"]["agent_session"]')
echo "session $SID became run $RUN"
agent_turn "Now a second turn (MARKER-TWO)" --session "$SID" >"$WORLD/turn2.out" 2>"$WORLD/turn2.err"
echo "turn 2 exit $?: $(cat "$WORLD/turn2.out")"
OWN=$(own_transcript "$SID")
[ -n "$OWN" ] && has "$OWN" MARKER-TWO && ok "the session's own transcript has both turns" || bad "no second turn in the session's transcript ($OWN)"
own_sum=$(sha256sum <"$OWN")

echo "--- second clone at another path"
# Codex has no session-end event: its session's run is still `running` in what is pushed,
# and restores on the second clone all the same (a session never goes on in another clone).
git fabro push "$RUN" >/dev/null
mkdir -p "$(dirname "$CLONE")" && git clone -q "$ORIGIN" "$CLONE" && cd "$CLONE"
git fabro fetch origin "$RUN" >/dev/null
stage=$(git ls-tree -r --name-only "fabro/meta/$RUN" | grep 'turn@1/transcript.jsonl$')
echo "turn 1's transcript: fabro/meta/$RUN:$stage"
git show "fabro/meta/$RUN:$stage" >"$WORLD/turn1.jsonl"
if has "$WORLD/turn1.jsonl" MARKER-ONE && ! has "$WORLD/turn1.jsonl" MARKER-TWO; then
  ok "the checkpoint holds the first turn only"
else bad "the turn@1 transcript is not the first turn's"; fi

# What the copy must be, beside the checkpoint's transcript: $1 the copy, $2 the new id.
check_copy() {
  case "$AGENT" in
    claude)
      [ "$(grep -c "\"sessionId\":\"$2\"" "$1")" = "$(grep -c '"sessionId":' "$WORLD/turn1.jsonl")" ] &&
        ok "every line carries the new session id" || bad "lines with the old session id in $1" ;;
    codex)
      [ "$(grep -o -- "$2" "$1" | wc -l)" = "$(grep -o -- "$SID" "$WORLD/turn1.jsonl" | wc -l)" ] && ! has "$1" "$SID" &&
        ok "the new session id where the recorded one was, and the recorded one nowhere" || bad "the session ids in $1"
      [ "$(head -1 "$1" | json '["payload"]["id"]')" = "$2" ] && ok "its session_meta names the new session" || bad "session_meta of $1" ;;
    gemini)
      cmp -s "$1" "$WORLD/turn1.jsonl" && ok "the copy is the checkpoint's transcript byte for byte" || bad "$1 differs from the checkpoint" ;;
  esac
}

# $1: the checkout to resume in; $2: the marker of the new prompt. Sets NEW and BODY.
resume_in() {
  local out; NEW="" BODY=""
  out=$(cd "$1" && git fabro restore --run "$RUN" turn@1 2>&1) || { bad "restore in $1: $out"; return; }
  echo "restored: $out"
  local cmd path sum
  cmd=$(printf '%s' "$out" | grep -o -- "$PRINTED")
  NEW=${cmd##* }
  [ -n "$NEW" ] && ok "restore printed the command that continues the conversation: $cmd" || { bad "no command printed"; return; }
  path=$(copy_of "$NEW" "$1")
  grep -qx 'edited by the agent' "$1/notes.txt" && ok "the files are as at turn@1" || bad "notes.txt: $(cat "$1/notes.txt")"
  [ -f "$path" ] && ok "written at $path" || { bad "no copy for $NEW"; return; }
  [ "$(mode "$path")" = 600 ] && ok "readable by its owner only" || bad "mode $(mode "$path")"
  check_copy "$path" "$NEW"
  sum=$(sha256sum <"$path")
  # shellcheck disable=SC2086 # the printed command's words (no quoting in these paths)
  (cd "$1" && agent_turn "Go on from the first turn ($2)" --command $cmd \
    >"$WORLD/resume-$2.out" 2>"$WORLD/resume-$2.err")
  echo "$cmd, non-interactively, exit $?: $(cat "$WORLD/resume-$2.out") $(head -c 300 "$WORLD/resume-$2.err")"
  BODY=$(last_main_body "$2")
  [ -n "$BODY" ] || { bad "no request to the model carried $2"; return; }
  echo "the conversation $AGENT sent ($BODY):"; summary "$BODY"
  if has "$BODY" MARKER-ONE && grep -q -- "$TOOL_RESULT" "$BODY" && ! has "$BODY" MARKER-TWO; then
    ok "it went on from turn 1: the first turn's prompt, tool calls and results were sent, not the second turn"
  else bad "the resumed request is not the first turn's conversation"; fi
  if [ "$AGENT" = gemini ]; then
    [ "$(sha256sum <"$path")" = "$sum" ] && ok "Gemini left the copy as it was" || bad "Gemini changed $path"
    grep -l -- "$2" "$HOME"/.gemini/tmp/*/chats/session-*.jsonl >/dev/null && ok "Gemini went on in a session of its own" || bad "no Gemini session holds $2"
  else
    has "$path" "$2" && ok "$AGENT appended the new turn to the copy" || bad "the new turn is not in $path"
  fi
}
resume_in "$CLONE" MARKER-THREE
if [ "$AGENT" = claude ]; then
  [ ! -e "$(project_dir "$REPO")/$NEW.jsonl" ] && ok "nothing written under the first checkout's folder" || bad "a copy under the first checkout's folder"
fi

echo "--- the first checkout, beside the session's own file"
resume_in "$REPO" MARKER-FOUR
[ "$(sha256sum <"$OWN")" = "$own_sum" ] && ok "the session's own transcript is unchanged" || bad "$OWN changed"
case "$AGENT" in
  claude) ls "$(project_dir "$REPO")" "$(project_dir "$CLONE")" ;;
  codex) find "$HOME/.codex/sessions" -name 'rollout-*' ;;
  gemini) ls "$HOME"/.gemini/tmp/*/chats "$(git -C "$REPO" rev-parse --git-common-dir)/fabro/conversations"/* ;;
esac
cd "$REPO" && git fabro hooks uninstall "--$AGENT" >/dev/null
[ $status = 0 ] && echo "all checks passed" || echo "some checks FAILED"
exit $status
