//! `git fabro hooks install --claude` (and `--codex`, `--gemini`): the agent's settings file
//! gets git-fabro's hooks next to the user's own, the hook commands turn the JSON the agent
//! sends into snapshots and checkpoints, and uninstall gives the file back byte for byte.
//! GitHub Copilot CLI runs Claude Code's hooks with inputs of its own.

use std::io::Write;
use std::path::Path;
use std::process::{Output, Stdio};

use serde_json::{Value, json};

use crate::common::{
    TestRepo, agent_transcript, assert_success, path_with_fabro, read_file, run_ok, write_file,
};

/// The user's own Claude Code settings, written the way they like it (four spaces).
const USER_SETTINGS: &str = r#"{
    "permissions": {
        "allow": ["Bash(cargo test:*)"]
    },
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{ "type": "command", "command": "echo bash-check >&2" }]
            }
        ]
    },
    "env": { "RUST_LOG": "info" }
}
"#;

/// Runs a hook command the way the agent does: through the shell, in the work tree, with the
/// event's JSON on stdin and git-fabro on PATH.
pub fn run_hook(repo: &TestRepo, dir: &Path, command: &str, input: &Value) -> Output {
    let path = path_with_fabro();
    let mut child = repo
        .command("sh")
        .args(["-c", command])
        .current_dir(dir)
        .env("PATH", path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.to_string().as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// The command of git-fabro's hook for `event` in the settings file.
pub fn our_command(settings: &Value, event: &str) -> String {
    settings["hooks"][event]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|group| group["hooks"].as_array().unwrap())
        .filter_map(|hook| hook["command"].as_str())
        .find(|c| c.starts_with("git fabro hooks run"))
        .unwrap_or_else(|| panic!("no git-fabro hook for {event}: {settings}"))
        .to_owned()
}

/// What an agent does in [`agent_that_exits`]: a hook command with the JSON it reads, or a
/// write of a file.
pub enum Step<'a> {
    Hook(String, Value),
    Write(&'a Path, &'a str),
}

/// Runs `steps` in `dir` from an agent process of their own, which exits when done, as an
/// agent not at a terminal does without a session-end event (Qwen Code, OpenCode).
pub fn agent_that_exits(repo: &TestRepo, dir: &Path, steps: &[Step]) {
    let steps: Vec<Value> = steps
        .iter()
        .map(|step| match step {
            Step::Hook(command, input) => json!(["hook", command, input.to_string()]),
            Step::Write(path, text) => json!(["write", path, text]),
        })
        .collect();
    let script = r#"import json, subprocess, sys
for kind, a, b in json.loads(sys.argv[1]):
    if kind == "write":
        open(a, "w").write(b)
        continue
    r = subprocess.run(["sh", "-c", a], input=b.encode(), capture_output=True)
    if r.returncode or r.stdout:
        sys.exit("%s: %d %r %r" % (a, r.returncode, r.stdout, r.stderr))
"#;
    let path = path_with_fabro();
    let out = repo
        .command("python3")
        .args(["-c", script, &Value::from(steps).to_string()])
        .current_dir(dir)
        .env("PATH", path)
        .output()
        .unwrap();
    assert_success(&out);
}

pub fn git_lines(repo: &TestRepo, args: &[&str]) -> Vec<String> {
    repo.git(args).lines().map(str::to_owned).collect()
}

#[test]
fn claude_hooks_snapshot_each_write_checkpoint_each_turn_and_uninstall_restores_the_file() {
    let (repo, run) = TestRepo::with_run();
    let wt = &run.worktree;
    let settings_path = wt.join(".claude/settings.local.json");
    write_file(&settings_path, USER_SETTINGS);

    run_ok(repo.fabro_in(wt).args(["hooks", "install", "--claude"]));
    run_ok(repo.fabro_in(wt).args(["hooks", "install", "--claude"]));
    let settings: Value = serde_json::from_str(&read_file(&settings_path)).unwrap();
    assert_eq!(settings["permissions"]["allow"][0], "Bash(cargo test:*)");
    assert_eq!(settings["env"]["RUST_LOG"], "info");
    let pre = settings["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(
        pre.len(),
        2,
        "the user's Bash hook and ours, once: {settings}"
    );
    assert_eq!(pre[0]["matcher"], "Bash");
    assert_eq!(pre[1]["matcher"], "Write|Edit|MultiEdit|NotebookEdit|Bash");
    assert_eq!(settings["hooks"]["Stop"].as_array().unwrap().len(), 1);
    let status: Vec<Value> = serde_json::from_str(&run_ok(
        repo.fabro_in(wt).args(["hooks", "status", "--json"]),
    ))
    .unwrap();
    let claude = status.iter().find(|s| s["hook"] == "claude").unwrap();
    assert_eq!(claude["installed"], true);
    assert_eq!(claude["chained"], true);
    let table = run_ok(repo.fabro_in(wt).args(["hooks", "status"]));
    let row = table.lines().find(|l| l.starts_with("claude")).unwrap();
    assert!(row.contains("installed (beside your settings)"), "{table}");

    // Claude Code is about to edit src/lib.rs, which already holds unrecorded work.
    let lib = wt.join("src/lib.rs");
    std::fs::write(&lib, "pub fn f() -> u8 { 1 }\n").unwrap();
    let transcript = agent_transcript(&repo.root, "claude", "transcript.jsonl");
    std::fs::write(
        &transcript,
        "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"make f return 1\"}}\n",
    )
    .unwrap();
    let pre_tool_use = json!({
        "session_id": "8c35adc1-5b6e-4f0a-9d1c-2f3e4a5b6c7d",
        "transcript_path": transcript,
        "cwd": wt,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {
            "file_path": lib,
            "old_string": "pub fn f() -> u8 { 1 }",
            "new_string": "pub fn f() -> u8 { 2 }"
        },
        "tool_use_id": "toolu_01DU8nZ3kqX1"
    });
    let out = run_hook(
        &repo,
        wt,
        &our_command(&settings, "PreToolUse"),
        &pre_tool_use,
    );
    assert_success(&out);
    assert!(out.stdout.is_empty(), "a hook prints nothing on stdout");
    let branch = format!("fabro/run/{}", run.id);
    let message = repo.git(&["log", "-1", "--format=%B", &branch]);
    assert!(
        message.contains("Fabro-Snapshot: before Edit src/lib.rs"),
        "{message}"
    );
    assert_eq!(
        repo.git(&["show", &format!("{branch}:src/lib.rs")]),
        "pub fn f() -> u8 { 1 }\n"
    );

    // The turn ends: a checkpoint of node `turn`, with the transcript attached.
    std::fs::write(&lib, "pub fn f() -> u8 { 2 }\n").unwrap();
    let stop = json!({
        "session_id": "8c35adc1-5b6e-4f0a-9d1c-2f3e4a5b6c7d",
        "transcript_path": transcript,
        "cwd": wt,
        "permission_mode": "default",
        "hook_event_name": "Stop",
        "stop_hook_active": false
    });
    let out = run_hook(&repo, wt, &our_command(&settings, "Stop"), &stop);
    assert_success(&out);
    let message = repo.git(&["log", "-1", "--format=%B", &branch]);
    assert!(message.contains("Fabro-Completed: 1"), "{message}");
    assert_eq!(
        repo.git(&["show", &format!("{branch}:src/lib.rs")]),
        "pub fn f() -> u8 { 2 }\n"
    );
    let files = git_lines(&repo, &["ls-tree", "-r", "--name-only", &branch]);
    assert!(
        !files.iter().any(|f| f.starts_with(".claude")),
        "the settings file is never captured: {files:?}"
    );
    let meta = format!("fabro/meta/{}", run.id);
    let stored = git_lines(&repo, &["ls-tree", "-r", "--name-only", &meta]);
    let attached = stored
        .iter()
        .find(|f| f.ends_with("turn@1/transcript.jsonl"))
        .unwrap_or_else(|| panic!("no transcript in {stored:?}"));
    assert_eq!(
        repo.git(&["show", &format!("{meta}:{attached}")]),
        read_file(&transcript)
    );

    run_ok(repo.fabro_in(wt).args(["hooks", "uninstall", "--claude"]));
    assert_eq!(
        read_file(&settings_path),
        USER_SETTINGS,
        "uninstall gives the user's file back byte for byte"
    );
}

#[test]
fn a_failing_agent_hook_exits_0_and_status_shows_the_failure() {
    let (repo, run) = TestRepo::with_run();
    let wt = &run.worktree;
    run_ok(repo.fabro_in(wt).args(["hooks", "install", "--claude"]));
    let stop = json!({
        "session_id": "s1",
        "transcript_path": repo.root.join("gone.jsonl"),
        "cwd": wt,
        "hook_event_name": "Stop",
        "stop_hook_active": false
    });
    let out = run_hook(&repo, wt, "git fabro hooks run agent-turn claude", &stop);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("without the transcript"), "{stderr}");
    let status: Value =
        serde_json::from_str(&run_ok(repo.fabro_in(wt).args(["status", "--json"]))).unwrap();
    assert_eq!(status["hook_failures"], 1);
    assert_eq!(status["last_hook_failure"]["hook"], "agent-turn");
    assert_eq!(status["last_hook_failure"]["agent"], "claude");
    let human = run_ok(repo.fabro_in(wt).arg("status"));
    assert!(human.contains("hooks     failed once"), "{human}");
    assert_eq!(
        repo.log_json(&run.id).len(),
        1,
        "the turn was still checkpointed"
    );

    // Not JSON, and outside any run: still exit 0, with a message.
    let out = run_hook(
        &repo,
        &repo.path,
        "git fabro hooks run agent-turn claude",
        &json!("x"),
    );
    assert!(out.status.success());
    let out = run_hook(
        &repo,
        &repo.path,
        "git fabro hooks run agent-edit claude",
        &json!({}),
    );
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no run here"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn codex_and_gemini_hooks_round_trip_and_created_files_go_away() {
    let (repo, run) = TestRepo::with_run();
    let wt = &run.worktree;
    run_ok(
        repo.fabro_in(wt)
            .args(["hooks", "install", "--codex", "--gemini"]),
    );
    // Codex reads a linked worktree's hooks from the main checkout's file.
    let codex: Value =
        serde_json::from_str(&read_file(repo.path.join(".codex/hooks.json"))).unwrap();
    assert_eq!(
        codex["hooks"]["PreToolUse"][0]["matcher"],
        "apply_patch|Bash"
    );
    let gemini: Value = serde_json::from_str(&read_file(wt.join(".gemini/settings.json"))).unwrap();
    assert_eq!(
        gemini["hooks"]["BeforeTool"][0]["matcher"],
        "write_file|replace|run_shell_command"
    );
    assert!(!wt.join(".claude").exists(), "only the named agents");

    // Codex sends the patch it is about to apply.
    std::fs::write(wt.join("README.md"), "unrecorded\n").unwrap();
    let apply_patch = json!({
        "session_id": "019a-codex",
        "transcript_path": null,
        "cwd": wt,
        "hook_event_name": "PreToolUse",
        "model": "gpt-5-codex",
        "tool_name": "apply_patch",
        "tool_input": {
            "command": "*** Begin Patch\n*** Update File: README.md\n@@\n-unrecorded\n+patched\n*** End Patch\n"
        }
    });
    let out = run_hook(&repo, wt, &our_command(&codex, "PreToolUse"), &apply_patch);
    assert_success(&out);
    let branch = format!("fabro/run/{}", run.id);
    assert_eq!(
        repo.git(&["show", &format!("{branch}:README.md")]),
        "unrecorded\n"
    );
    let files = git_lines(&repo, &["ls-tree", "-r", "--name-only", &branch]);
    assert!(
        !files
            .iter()
            .any(|f| f.starts_with(".codex") || f.starts_with(".gemini"))
    );

    run_ok(
        repo.fabro_in(wt)
            .args(["hooks", "uninstall", "--codex", "--gemini"]),
    );
    assert!(!wt.join(".codex").exists() && !wt.join(".gemini").exists());
    assert!(!repo.path.join(".codex").exists());
}

#[test]
fn copilot_runs_claudes_hooks_and_each_of_its_writes_is_snapshotted_first() {
    let (repo, run) = TestRepo::with_run();
    let wt = &run.worktree;
    run_ok(repo.fabro_in(wt).args(["hooks", "install", "--claude"]));
    let settings: Value =
        serde_json::from_str(&read_file(wt.join(".claude/settings.local.json"))).unwrap();
    let command = our_command(&settings, "PreToolUse");
    let branch = format!("fabro/run/{}", run.id);
    let lib = wt.join("src/lib.rs");
    // Copilot names its edit tool `Edit` in Claude's hooks, and the file `path`.
    std::fs::write(&lib, "unrecorded\n").unwrap();
    let edit = json!({
        "hook_event_name": "PreToolUse",
        "session_id": "3a4faa99-a69e-43ba-a06d-a1282b90c1ae",
        "timestamp": "2026-12-01T22:36:09.021Z",
        "cwd": wt,
        "tool_name": "Edit",
        "tool_input": {"path": lib, "old_str": "unrecorded", "new_str": "edited"}
    });
    let out = run_hook(&repo, wt, &command, &edit);
    assert!(out.status.success() && out.stdout.is_empty());
    let message = repo.git(&["log", "-1", "--format=%B", &branch]);
    assert!(
        message.contains("Fabro-Snapshot: before Edit src/lib.rs"),
        "{message}"
    );
    assert_eq!(
        repo.git(&["show", &format!("{branch}:src/lib.rs")]),
        "unrecorded\n"
    );

    // With a GPT model its edit tool is `apply_patch`, whose input is the patch alone.
    std::fs::write(&lib, "edited\n").unwrap();
    let patch = format!(
        "*** Begin Patch\n*** Update File: {}\n@@\n-edited\n+patched\n*** End Patch\n",
        lib.display()
    );
    let mut edit = edit;
    edit["tool_input"] = json!(patch);
    let out = run_hook(&repo, wt, &command, &edit);
    assert!(out.status.success() && out.stdout.is_empty());
    assert_eq!(
        repo.git(&["show", &format!("{branch}:src/lib.rs")]),
        "edited\n"
    );
    let files = git_lines(&repo, &["ls-tree", "-r", "--name-only", &branch]);
    assert!(!files.iter().any(|f| f.starts_with(".claude")), "{files:?}");
}
