//! What each turn of an agent and each agent node cost: the model, the tokens of each kind and
//! the tool calls, read from the agent's own transcript, kept in the stage's `status.json`
//! and in Fabro's `usage` shape in `run.json`, and shown by `show`, `log --usage`, `ps` and
//! `status`.

use std::path::Path;

use git_fabro::format::time::Timestamp;
use serde_json::{Value, json};

use crate::agent_hooks::run_hook;
use crate::common::{TestRepo, agent_transcript, run_ok, write_file};
use crate::engine_run::{meta_file, run, run_json, workflow};
use crate::format_contract::assert_fabro_shapes;

/// One Claude Code response: written as two lines (a text block, then a tool use) that repeat
/// its usage, as Claude Code writes them.
fn claude_response(id: &str, model: &str, input: u64, output: u64, tool: Option<&str>) -> String {
    let at = Timestamp::now().rfc3339();
    let usage = json!({"input_tokens": input, "output_tokens": output,
        "cache_read_input_tokens": 100, "cache_creation_input_tokens": 5});
    let mut lines = vec![json!({"type": "assistant", "timestamp": at, "message":
        {"id": id, "model": model, "usage": usage, "content": [{"type": "text", "text": "ok"}]}})];
    if let Some(tool) = tool {
        lines.push(json!({"type": "assistant", "timestamp": at, "message":
            {"id": id, "model": model, "usage": usage,
             "content": [{"type": "tool_use", "id": tool, "name": "Edit"}]}}));
    }
    lines.iter().map(|l| format!("{l}\n")).collect()
}

fn append(path: &Path, text: &str) {
    let mut all = std::fs::read_to_string(path).unwrap_or_default();
    all.push_str(text);
    write_file(path, &all);
}

fn turn(repo: &TestRepo, dir: &Path, transcript: &Path) {
    let out = run_hook(
        repo,
        dir,
        "git fabro hooks run agent-turn claude",
        &json!({"session_id": "s-1", "transcript_path": transcript, "cwd": dir}),
    );
    assert!(out.status.success(), "{out:?}");
}

fn status_json(repo: &TestRepo, id: &str, stage: &str) -> Value {
    serde_json::from_str(&meta_file(repo, id, &format!("stages/{stage}/status.json"))).unwrap()
}

#[test]
fn each_turn_records_its_own_models_tokens_and_tool_calls_and_every_view_shows_them() {
    let (repo, run) = TestRepo::with_run();
    let wt = &run.worktree;
    let transcript = agent_transcript(&repo.root, "claude", "session.jsonl");

    append(
        &transcript,
        &claude_response("m1", "claude-opus-4-8", 10, 20, Some("t1")),
    );
    append(
        &transcript,
        &claude_response("m2", "claude-haiku-4-5", 3, 1, None),
    );
    write_file(&wt.join("a.txt"), "one\n");
    turn(&repo, wt, &transcript);

    // The second turn's lines come after the first turn's checkpoint: only they count.
    std::thread::sleep(std::time::Duration::from_millis(5));
    append(
        &transcript,
        &claude_response("m3", "claude-opus-4-8", 7, 9, Some("t2")),
    );
    append(
        &transcript,
        &claude_response("m4", "claude-opus-4-8", 1, 2, Some("t3")),
    );
    write_file(&wt.join("a.txt"), "two\n");
    turn(&repo, wt, &transcript);

    let first = status_json(&repo, &run.id, "001-turn@1");
    assert_eq!(
        first["usage"],
        json!({"models": [
            {"model": {"provider": "anthropic", "model_id": "claude-opus-4-8"},
             "tokens": {"input_tokens": 10, "output_tokens": 20, "reasoning_tokens": 0,
                        "cache_read_tokens": 100, "cache_write_tokens": 5}},
            {"model": {"provider": "anthropic", "model_id": "claude-haiku-4-5"},
             "tokens": {"input_tokens": 3, "output_tokens": 1, "reasoning_tokens": 0,
                        "cache_read_tokens": 100, "cache_write_tokens": 5}}],
            "tool_calls": 1})
    );
    let second = status_json(&repo, &run.id, "002-turn@2");
    assert_eq!(second["usage"]["models"][0]["tokens"]["input_tokens"], 8);
    assert_eq!(second["usage"]["tool_calls"], 2);
    assert!(second["duration_ms"].is_u64(), "{second}");

    // run.json: Fabro's `BilledModelUsage` of the turn's model in its outcome, and the run's
    // totals so far.
    let checkpoint = &run_json(&repo, &run.id)["checkpoint"];
    let billed = &checkpoint["node_outcomes"]["turn"]["usage"];
    assert_eq!(
        billed["input"]["usage"]["model"]["model_id"],
        "claude-opus-4-8"
    );
    assert_eq!(billed["input"]["usage"]["tokens"]["output_tokens"], 11);
    assert_eq!(billed["input"]["facts"]["provider"], "anthropic");
    assert_eq!(
        checkpoint["usage_total"],
        json!({"input_tokens": 21, "output_tokens": 32, "reasoning_tokens": 0,
               "cache_read_tokens": 400, "cache_write_tokens": 20, "tool_calls": 3,
               "stages": 2})
    );

    let log = run_ok(repo.fabro_in(wt).args(["log", "--usage"]));
    assert_eq!(
        log,
        "\
#   STAGE   STATUS     IN  OUT  CACHE  TOOLS  MODEL
@1  turn@1  succeeded  13  21   210    1      claude-opus-4-8
@2  turn@2  succeeded  8   11   210    2      claude-opus-4-8
"
    );
    let entries: Vec<Value> = serde_json::from_str(&run_ok(
        repo.fabro_in(wt).args(["log", "--usage", "--json"]),
    ))
    .unwrap();
    assert_eq!(entries[1]["usage"], second["usage"]);

    let show = run_ok(repo.fabro_in(wt).args(["show", "@2"]));
    let took = second["duration_ms"].as_u64().unwrap();
    let usage_lines: Vec<&str> = show
        .lines()
        .filter(|l| {
            ["took", "model", "tool calls"]
                .iter()
                .any(|k| l.starts_with(k))
        })
        .collect();
    assert_eq!(
        usage_lines,
        [
            format!("took         {took}ms").as_str(),
            "model        claude-opus-4-8 (anthropic): 8 in, 11 out, 200 cache read, 10 cache write",
            "tool calls   2",
        ]
    );

    let status = run_ok(repo.fabro_in(wt).arg("status"));
    let tokens = status.lines().find(|l| l.starts_with("tokens")).unwrap();
    assert_eq!(
        tokens,
        "tokens    21 in, 32 out, 400 cache read, 20 cache write; 3 tool calls in 2 stages"
    );
    let standing: Value =
        serde_json::from_str(&run_ok(repo.fabro_in(wt).args(["status", "--json"]))).unwrap();
    assert_eq!(standing["usage"], checkpoint["usage_total"]);

    let ps = run_ok(repo.fabro().arg("ps"));
    let cells: Vec<Vec<&str>> = ps.lines().map(|l| l.split_whitespace().collect()).collect();
    assert_eq!(
        cells[0],
        [
            "RUN", "STATUS", "DONE", "TOKENS", "STARTED", "WORKFLOW", "GOAL"
        ]
    );
    assert_eq!(cells[1][1..4], ["running", "2", "473"], "{ps}");
    let listed: Vec<Value> =
        serde_json::from_str(&run_ok(repo.fabro().args(["ps", "--json"]))).unwrap();
    assert_eq!(listed[0]["usage"], checkpoint["usage_total"]);
    assert_fabro_shapes(&repo);
}

#[test]
fn a_turn_without_a_readable_transcript_records_no_usage_and_ps_shows_no_tokens() {
    let (repo, run) = TestRepo::with_run();
    let wt = &run.worktree;
    let transcript = agent_transcript(&repo.root, "claude", "notes.jsonl");
    write_file(&transcript, "not a transcript\n");
    turn(&repo, wt, &transcript);
    let status = status_json(&repo, &run.id, "001-turn@1");
    assert!(status.get("usage").is_none(), "{status}");
    assert!(
        run_json(&repo, &run.id)["checkpoint"]
            .get("usage_total")
            .is_none()
    );
    let ps = run_ok(repo.fabro().arg("ps"));
    assert!(!ps.contains("TOKENS"), "{ps}");
    let log = run_ok(repo.fabro_in(wt).args(["log", "--usage"]));
    assert_eq!(
        log,
        "\
#   STAGE   STATUS     IN  OUT  CACHE  TOOLS  MODEL
@1  turn@1  succeeded  -   -    -      -      -
"
    );
}

/// An agent CLI as the engine runs it: it answers, and records its session the way Claude
/// Code does, in its project folder for the directory it runs in.
const CLAUDE_LIKE: &str = r#"cat >/dev/null
dir="$HOME/.claude/projects/$(pwd -P | sed 's/[^A-Za-z0-9]/-/g')"
mkdir -p "$dir"
at=$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)
printf '{"type":"assistant","timestamp":"%s","message":{"id":"r1","model":"claude-sonnet-4-6","usage":{"input_tokens":40,"output_tokens":12,"cache_read_input_tokens":0,"cache_creation_input_tokens":0},"content":[{"type":"tool_use","id":"u1"}]}}\n' "$at" >> "$dir/$FABRO_NODE_ID.jsonl"
echo done
"#;

#[test]
fn an_agent_nodes_usage_is_read_from_the_session_it_recorded_in_its_worktree() {
    let repo = TestRepo::new();
    let agent = repo.write_beside("agent.sh", CLAUDE_LIKE);
    let path = workflow(
        &repo,
        "one",
        "digraph one {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  \
         code [prompt=\"write it\"]\n  start -> code -> exit\n}\n",
    );
    let ran = run(
        &repo,
        &path,
        &["--agent", &format!("bash {}", agent.display())],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let status = status_json(&repo, &ran.id, "002-code@1");
    assert_eq!(
        status["usage"]["models"][0]["model"],
        json!({"provider": "anthropic", "model_id": "claude-sonnet-4-6"})
    );
    assert_eq!(status["usage"]["tool_calls"], 1);
    let outcome = &run_json(&repo, &ran.id)["checkpoint"]["node_outcomes"]["code"];
    assert_eq!(
        outcome["usage"]["input"]["usage"]["tokens"]["input_tokens"],
        40
    );
    assert_eq!(outcome["status"], "succeeded");
    assert_fabro_shapes(&repo);
}

#[test]
fn a_harness_reports_its_nodes_usage_with_checkpoint_and_bad_usage_writes_nothing() {
    let (repo, run) = TestRepo::with_run();
    let wt = &run.worktree;
    let usage = r#"{"models": [{"model": {"provider": "open_ai", "model_id": "gpt-5.5"},
        "tokens": {"input_tokens": 1200, "output_tokens": 300}}], "tool_calls": 4}"#;
    run_ok(repo.fabro_in(wt).args([
        "checkpoint",
        "--node",
        "plan",
        "--usage",
        usage,
        "--duration-ms",
        "4200",
    ]));
    let status = status_json(&repo, &run.id, "001-plan@1");
    assert_eq!(status["usage"]["models"][0]["model"]["provider"], "openai");
    assert_eq!(status["duration_ms"], 4200);
    let show = run_ok(repo.fabro_in(wt).args(["show", "@1"]));
    assert!(
        show.contains("took         4.2s\nmodel        gpt-5.5 (openai): 1,200 in, 300 out, 0 cache read, 0 cache write\ntool calls   4\n"),
        "{show}"
    );

    let before = repo.git(&["rev-parse", &format!("fabro/meta/{}", run.id)]);
    let out = repo
        .fabro_in(wt)
        .args(["checkpoint", "--node", "code", "--usage", "{\"models\": 3}"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: --usage is not usage JSON"),
        "{stderr}"
    );
    assert_eq!(
        repo.git(&["rev-parse", &format!("fabro/meta/{}", run.id)]),
        before
    );
    assert_fabro_shapes(&repo);
}
