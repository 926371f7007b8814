//! Agent hooks go where each agent really reads them: Codex in a linked worktree reads the main
//! checkout's `.codex/hooks.json` (and only when the worktree has a `.codex/` of its own);
//! Gemini CLI runs project hooks only in a folder its trusted folders file trusts. Shell tools
//! can write any file, so each is preceded by a snapshot too. Uninstall gives every file back
//! byte for byte.

use std::path::Path;

use serde_json::{Value, json};

use crate::agent_hooks::{git_lines, our_command, run_hook};
use crate::common::{TestRepo, read_file, run_ok, write_file};

/// The user's own Codex hooks in the main checkout, written their way.
const USER_CODEX_HOOKS: &str = "{\"hooks\": {\"SessionStart\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo hi\"}]}]}}\n";

fn settings(path: &Path) -> Value {
    serde_json::from_str(&read_file(path)).unwrap()
}

fn hook_ok(repo: &TestRepo, dir: &Path, command: &str, input: &Value) {
    let out = run_hook(repo, dir, command, input);
    assert!(
        out.status.success() && out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn last_message(repo: &TestRepo, id: &str) -> String {
    repo.git(&["log", "-1", "--format=%B", &format!("fabro/run/{id}")])
}

#[test]
fn codex_hooks_for_a_worktree_run_go_to_the_main_checkout_and_catch_shell_patches() {
    let repo = TestRepo::new();
    let main_file = repo.path.join(".codex/hooks.json");
    write_file(&main_file, USER_CODEX_HOOKS);
    let first = repo.start();
    let second = repo.start();
    for wt in [&first.worktree, &second.worktree] {
        run_ok(repo.fabro_in(wt).args(["hooks", "install", "--codex"]));
        assert!(
            wt.join(".codex").is_dir(),
            "Codex needs the worktree's own folder"
        );
    }
    let installed = settings(&main_file);
    assert_eq!(
        installed["hooks"]["SessionStart"][0]["hooks"][0]["command"],
        "echo hi"
    );
    assert_eq!(
        installed["hooks"]["PreToolUse"].as_array().unwrap().len(),
        1
    );
    assert!(!first.worktree.join(".codex/hooks.json").exists());
    let status: Vec<Value> = serde_json::from_str(&run_ok(
        repo.fabro_in(&first.worktree)
            .args(["hooks", "status", "--json"]),
    ))
    .unwrap();
    let codex = status.iter().find(|s| s["hook"] == "codex").unwrap();
    assert_eq!(codex["path"], main_file.display().to_string());
    assert_eq!(codex["installed"], true);

    // With a model it has no metadata for, Codex patches through exec_command: its hook names
    // the tool Bash and sends the shell command feeding the patch to apply_patch.
    let wt = &first.worktree;
    std::fs::write(wt.join("README.md"), "unrecorded\n").unwrap();
    let exec_patch = json!({
        "session_id": "01a20b7e-c180-7d41-909e-d241faeb675f",
        "turn_id": "01a20b7e-c19a-7f31-a60a-5c2d414c02c5",
        "transcript_path": null,
        "cwd": wt,
        "hook_event_name": "PreToolUse",
        "model": "fake-unknown-model",
        "permission_mode": "bypassPermissions",
        "tool_name": "Bash",
        "tool_input": {
            "command": "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: README.md\n@@\n-unrecorded\n+patched\n*** End Patch\nEOF\n"
        },
        "tool_use_id": "call_e9a37af04a"
    });
    hook_ok(
        &repo,
        wt,
        &our_command(&installed, "PreToolUse"),
        &exec_patch,
    );
    let message = last_message(&repo, &first.id);
    assert!(
        message.contains("Fabro-Snapshot: before Bash README.md"),
        "{message}"
    );
    assert_eq!(
        repo.git(&["show", &format!("fabro/run/{}:README.md", first.id)]),
        "unrecorded\n"
    );

    // Any other shell command may write anything: every changed file is saved first.
    std::fs::write(wt.join("src/lib.rs"), "pub fn g() {}\n").unwrap();
    let mut shell = exec_patch.clone();
    shell["tool_input"] = json!({ "command": "sed -i s/g/h/ src/lib.rs" });
    hook_ok(&repo, wt, &our_command(&installed, "PreToolUse"), &shell);
    let message = last_message(&repo, &first.id);
    assert!(
        message.contains("Fabro-Snapshot: before Bash\n"),
        "{message}"
    );
    assert_eq!(
        repo.git(&["show", &format!("fabro/run/{}:src/lib.rs", first.id)]),
        "pub fn g() {}\n"
    );
    let files = git_lines(
        &repo,
        &[
            "ls-tree",
            "-r",
            "--name-only",
            &format!("fabro/run/{}", first.id),
        ],
    );
    assert!(!files.iter().any(|f| f.starts_with(".codex")), "{files:?}");

    // The main checkout's file serves both runs: it keeps the entries while one still uses them.
    let out = run_ok(repo.fabro_in(wt).args(["hooks", "uninstall", "--codex"]));
    assert!(settings(&main_file)["hooks"]["Stop"].is_array(), "{out}");
    assert!(!wt.join(".codex").exists());
    run_ok(
        repo.fabro_in(&second.worktree)
            .args(["hooks", "uninstall", "--codex"]),
    );
    assert_eq!(
        read_file(&main_file),
        USER_CODEX_HOOKS,
        "uninstall gives the user's file back byte for byte"
    );
    assert!(!second.worktree.join(".codex").exists());
}

#[test]
fn gemini_install_trusts_the_work_tree_and_uninstall_gives_the_trust_file_back() {
    let (repo, run) = TestRepo::with_run();
    let wt = &run.worktree;
    // The isolated HOME is the test's root: Gemini's trusted folders, as Gemini writes them.
    let trust_file = repo.root.join(".gemini/trustedFolders.json");
    let mine = "{\n  \"/home/me/project\": \"TRUST_FOLDER\"\n}";
    write_file(&trust_file, mine);

    run_ok(repo.fabro_in(wt).args(["hooks", "install", "--gemini"]));
    run_ok(repo.fabro_in(wt).args(["hooks", "install", "--gemini"]));
    let trusted = settings(&trust_file);
    let real = std::fs::canonicalize(wt).unwrap();
    assert_eq!(trusted[real.to_str().unwrap()], "TRUST_FOLDER", "{trusted}");
    assert_eq!(trusted["/home/me/project"], "TRUST_FOLDER");

    // Gemini's shell tool is caught too.
    std::fs::write(wt.join("README.md"), "unrecorded\n").unwrap();
    let before_tool = json!({
        "session_id": "5b1c9a2e-gemini",
        "transcript_path": "",
        "cwd": wt,
        "hook_event_name": "BeforeTool",
        "timestamp": "2026-11-24T03:00:00.000Z",
        "tool_name": "run_shell_command",
        "tool_input": { "command": "echo patched > README.md", "description": "edit" }
    });
    let gemini = settings(&wt.join(".gemini/settings.json"));
    hook_ok(&repo, wt, &our_command(&gemini, "BeforeTool"), &before_tool);
    let message = last_message(&repo, &run.id);
    assert!(
        message.contains("Fabro-Snapshot: before run_shell_command"),
        "{message}"
    );

    run_ok(repo.fabro_in(wt).args(["hooks", "uninstall", "--gemini"]));
    assert_eq!(read_file(&trust_file), mine);
    assert!(!wt.join(".gemini").exists());
}

#[test]
fn settings_with_an_empty_hooks_object_come_back_byte_for_byte() {
    let repo = TestRepo::new();
    let wt = repo.start().worktree;
    let path = wt.join(".claude/settings.local.json");
    let mine = "{\n  \"hooks\": {}\n}\n";
    write_file(&path, mine);
    run_ok(repo.fabro_in(&wt).args(["hooks", "install", "--claude"]));
    assert!(settings(&path)["hooks"]["Stop"].is_array());
    run_ok(repo.fabro_in(&wt).args(["hooks", "uninstall", "--claude"]));
    assert_eq!(read_file(&path), mine);
}
