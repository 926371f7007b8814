//! Zero-ceremony sessions: `git fabro hooks install --claude` once in the user's own checkout,
//! and each agent session becomes a run in place of its own, keyed by the session id: started by
//! its first hook, a checkpoint per turn, a snapshot before each write, finished when the
//! session ends. Sessions at once in one checkout do not mix; a run in place started by hand
//! keeps the hooks and is never finished by a session's end.

use std::io::Write;
use std::process::Stdio;

use serde_json::{Value, json};

use crate::agent_hooks::{our_command, run_hook};
use crate::common::{
    TestRepo, agent_transcript, assert_success, path_with_fabro, read_file, run_ok, write_file,
};

const SESSION_A: &str = "6cf09616-4697-4570-b3d5-11fde3c02b8a";
const SESSION_B: &str = "3ddcece6-f7d2-41aa-a8b3-93ab6874ecef";

fn settings(repo: &TestRepo) -> Value {
    let text = read_file(repo.path.join(".claude/settings.local.json"));
    serde_json::from_str(&text).unwrap()
}

/// What Claude Code sends to the hook of `event` in session `session`.
fn claude_event(repo: &TestRepo, session: &str, event: &str) -> Value {
    let transcript = agent_transcript(&repo.root, "claude", &format!("{session}.jsonl"));
    std::fs::write(&transcript, "{\"type\":\"user\"}\n").unwrap();
    let mut input = json!({
        "session_id": session,
        "transcript_path": transcript,
        "cwd": repo.path,
        "permission_mode": "acceptEdits",
        "hook_event_name": event,
    });
    match event {
        "PreToolUse" => {
            input["tool_name"] = json!("Edit");
            input["tool_input"] = json!({
                "file_path": repo.path.join("src/lib.rs"),
                "old_string": "a",
                "new_string": "b"
            });
        }
        "Stop" => input["stop_hook_active"] = json!(false),
        _ => input["reason"] = json!("other"),
    }
    input
}

fn fire(repo: &TestRepo, session: &str, event: &str) {
    let input = claude_event(repo, session, event);
    let out = run_hook(
        repo,
        &repo.path,
        &our_command(&settings(repo), event),
        &input,
    );
    assert!(
        out.status.success() && out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The runs of `session`, from `ps --all --json`.
fn runs_of(repo: &TestRepo, session: &str) -> Vec<Value> {
    let ps: Vec<Value> = serde_json::from_str(&repo.ok(&["ps", "--all", "--json"])).unwrap();
    ps.into_iter()
        .filter(|r| r["labels"]["agent_session"] == session)
        .collect()
}

fn only_run(repo: &TestRepo, session: &str) -> String {
    let runs = runs_of(repo, session);
    assert_eq!(runs.len(), 1, "one run for session {session}: {runs:?}");
    assert_eq!(runs[0]["labels"]["agent"], "claude");
    runs[0]["run_id"].as_str().unwrap().to_owned()
}

#[test]
fn each_session_in_the_users_checkout_is_a_run_of_its_own() {
    let repo = TestRepo::new();
    let out = repo.output(&["hooks", "install", "--claude"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("run in place of its own"));
    repo.write("src/lib.rs", "pub fn f() -> u8 { 1 }\n"); // unrecorded work

    // Session A's first hook starts its run, holding the file as it was before the write.
    fire(&repo, SESSION_A, "PreToolUse");
    let a = only_run(&repo, SESSION_A);
    let before = repo.git(&["show", &format!("fabro/run/{a}:src/lib.rs")]);
    assert_eq!(before, "pub fn f() -> u8 { 1 }\n");

    // Session B, at the same time in the same checkout, gets a run of its own.
    fire(&repo, SESSION_B, "PreToolUse");
    let b = only_run(&repo, SESSION_B);
    assert_ne!(a, b);

    repo.write("src/lib.rs", "pub fn f() -> u8 { 2 }\n");
    fire(&repo, SESSION_A, "Stop");
    assert_eq!(repo.log_json(&a).len(), 1, "A's turn is A's checkpoint");
    assert_eq!(repo.log_json(&b).len(), 0, "and not B's");
    let log = repo.ok(&["log", &a]);
    assert!(log.contains("turn@1"), "{log}");

    // A's next write is preceded by a snapshot of A's run.
    repo.write("src/lib.rs", "pub fn f() -> u8 { 3 }\n");
    fire(&repo, SESSION_A, "PreToolUse");
    let message = repo.git(&["log", "-1", "--format=%B", &format!("fabro/run/{a}")]);
    assert!(
        message.contains("Fabro-Snapshot: before Edit src/lib.rs"),
        "{message}"
    );

    // B's first write can be taken back: its run's start holds the file as it was.
    let b_start = repo.git(&["rev-parse", &format!("fabro/run/{b}")]);
    run_ok(
        repo.fabro()
            .args(["restore", "--run", &b, b_start.trim(), "--", "src/lib.rs"]),
    );
    assert_eq!(
        read_file(repo.path.join("src/lib.rs")),
        "pub fn f() -> u8 { 1 }\n"
    );
    repo.write("src/lib.rs", "pub fn f() -> u8 { 3 }\n");

    // A ends: its run is finished; B's goes on, and the user's files stay as they are.
    fire(&repo, SESSION_A, "SessionEnd");
    assert_eq!(runs_of(&repo, SESSION_A)[0]["status"], "succeeded");
    assert_eq!(runs_of(&repo, SESSION_B)[0]["status"], "running");
    assert_eq!(
        read_file(repo.path.join("src/lib.rs")),
        "pub fn f() -> u8 { 3 }\n"
    );
    // The hooks' settings are never captured.
    let files = repo.files_in(&format!("fabro/run/{a}"));
    assert!(!files.contains(".claude"), "{files}");
}

#[test]
fn hooks_of_one_session_at_once_start_one_run() {
    let repo = TestRepo::new();
    run_ok(repo.fabro().args(["hooks", "install", "--claude"]));
    let command = our_command(&settings(&repo), "PreToolUse");
    let input = claude_event(&repo, SESSION_A, "PreToolUse").to_string();
    let path = path_with_fabro();
    // Parallel tool calls: the agent runs their hooks at once.
    let children: Vec<_> = (0..4)
        .map(|_| {
            let mut child = repo
                .command("sh")
                .args(["-c", &command])
                .env("PATH", &path)
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            child
                .stdin
                .take()
                .unwrap()
                .write_all(input.as_bytes())
                .unwrap();
            child
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_success(&out);
    }
    only_run(&repo, SESSION_A);
}

#[test]
fn a_run_in_place_started_by_hand_keeps_the_hooks_and_outlives_the_session() {
    let repo = TestRepo::new();
    let mine = repo.ok(&["start", "--in-place"]).trim().to_owned();
    run_ok(repo.fabro().args(["hooks", "install", "--claude"]));
    repo.write("src/lib.rs", "pub fn f() -> u8 { 1 }\n");
    fire(&repo, SESSION_A, "PreToolUse");
    fire(&repo, SESSION_A, "Stop");
    fire(&repo, SESSION_A, "SessionEnd");
    assert!(runs_of(&repo, SESSION_A).is_empty(), "no session run");
    assert_eq!(
        repo.log_json(&mine).len(),
        1,
        "the turn is the user's run's"
    );
    let status: Value = serde_json::from_str(&repo.ok(&["status", "--json", &mine])).unwrap();
    assert_eq!(status["status"], "running");

    // Uninstalled, sessions are off: a new session starts nothing.
    run_ok(repo.fabro().args(["hooks", "uninstall", "--claude"]));
    repo.ok(&["finish", &mine]);
    let hooks = json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "git fabro hooks run agent-edit claude"}]}]}});
    write_file(
        &repo.path.join(".claude/settings.local.json"),
        &hooks.to_string(),
    );
    fire(&repo, SESSION_B, "PreToolUse");
    assert!(runs_of(&repo, SESSION_B).is_empty());
}
