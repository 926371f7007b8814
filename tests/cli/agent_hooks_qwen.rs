//! `git fabro hooks install --qwen`: Qwen Code's hooks in `.qwen/settings.json`, with its own
//! tool names; the prompt hook it calls before each model request of a turn records what the
//! user typed once; a session it runs headless, which sends no session-end event, is finished
//! by `land`; and the settings file, never in a checkpoint or a landed commit, is given back
//! byte for byte even after Qwen Code marked it with its format's `$version`.

use std::path::Path;

use serde_json::{Value, json};

use crate::agent_hooks::{Step, agent_that_exits, git_lines, our_command, run_hook};
use crate::common::{TestRepo, agent_transcript, read_file, run_ok, write_file};

const USER_SETTINGS: &str = "{\n  \"ui\": { \"hideTips\": true }\n}\n";
const SESSION: &str = "d78bdbb8-77ee-43e6-bca1-c541b2fc7356";

fn settings(dir: &Path) -> Value {
    serde_json::from_str(&read_file(dir.join(".qwen/settings.json"))).unwrap()
}

/// What Qwen Code sends to the hook of `event` in `dir`, with `extra` keys.
fn event(repo: &TestRepo, dir: &Path, name: &str, extra: Value) -> Value {
    let transcript = agent_transcript(&repo.root, "qwen", "transcript.jsonl");
    write_file(&transcript, "{\"type\":\"user\"}\n");
    let mut input = json!({
        "session_id": SESSION,
        "transcript_path": transcript,
        "cwd": dir,
        "hook_event_name": name,
        "timestamp": "2026-12-01T22:36:12.992Z",
        "permission_mode": "auto-edit",
    });
    input
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    input
}

fn fire(repo: &TestRepo, dir: &Path, name: &str, extra: Value) {
    let input = event(repo, dir, name, extra);
    let out = run_hook(repo, dir, &our_command(&settings(dir), name), &input);
    assert!(
        out.status.success() && out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn edit_of(file: &Path) -> Value {
    json!({"tool_name": "edit", "tool_input": {"file_path": file, "old_string": "a", "new_string": "b"}})
}

#[test]
fn qwen_hooks_snapshot_each_write_record_the_typed_prompt_and_uninstall_restores_the_file() {
    let (repo, run) = TestRepo::with_run();
    let wt = &run.worktree;
    let path = wt.join(".qwen/settings.json");
    write_file(&path, USER_SETTINGS);
    run_ok(repo.fabro_in(wt).args(["hooks", "install", "--qwen"]));
    let installed = settings(wt);
    assert_eq!(installed["ui"]["hideTips"], true);
    assert_eq!(
        installed["hooks"]["PreToolUse"][0]["matcher"],
        "edit|write_file|notebook_edit|run_shell_command"
    );
    for name in ["UserPromptSubmit", "Stop", "SessionEnd"] {
        assert!(our_command(&installed, name).ends_with(" qwen"));
    }
    let table = run_ok(repo.fabro_in(wt).args(["hooks", "status"]));
    let row = table.lines().find(|l| l.starts_with("qwen")).unwrap();
    assert!(row.contains("installed (beside your settings)"), "{table}");
    assert!(row.ends_with(".qwen/settings.json"), "{table}");

    // The first prompt hook of a turn carries what the user typed; the ones before each
    // later model call carry what goes to the model then.
    let typed = "Make f return 2";
    let prompt = json!({"prompt": typed, "submitted_prompt": typed});
    fire(&repo, wt, "UserPromptSubmit", prompt);
    let lib = wt.join("src/lib.rs");
    std::fs::write(&lib, "unrecorded\n").unwrap();
    fire(&repo, wt, "PreToolUse", edit_of(&lib));
    let branch = format!("fabro/run/{}", run.id);
    let message = repo.git(&["log", "-1", "--format=%B", &branch]);
    assert!(
        message.contains("Fabro-Snapshot: before edit src/lib.rs"),
        "{message}"
    );
    std::fs::write(&lib, "edited\n").unwrap();
    fire(&repo, wt, "UserPromptSubmit", json!({"prompt": ""}));
    let result = json!({"prompt": "The file src/lib.rs was updated."});
    fire(&repo, wt, "UserPromptSubmit", result);
    let stop = json!({"stop_hook_active": false, "last_assistant_message": "Done."});
    fire(&repo, wt, "Stop", stop);
    let meta = format!("fabro/meta/{}", run.id);
    let stored = git_lines(&repo, &["ls-tree", "-r", "--name-only", &meta]);
    let prompt_md = stored.iter().find(|f| f.ends_with("turn@1/prompt.md"));
    let shown = repo.git(&["show", &format!("{meta}:{}", prompt_md.unwrap())]);
    assert_eq!(shown, format!("{typed}\n"));
    assert!(
        stored
            .iter()
            .any(|f| f.ends_with("turn@1/transcript.jsonl"))
    );
    let files = git_lines(&repo, &["ls-tree", "-r", "--name-only", &branch]);
    assert!(!files.iter().any(|f| f.starts_with(".qwen")), "{files:?}");

    // Qwen Code rewrites a settings file it reads with its format's version.
    let mut marked = settings(wt);
    marked["$version"] = json!(4);
    std::fs::write(&path, serde_json::to_string_pretty(&marked).unwrap()).unwrap();
    run_ok(repo.fabro_in(wt).args(["hooks", "uninstall", "--qwen"]));
    assert_eq!(read_file(&path), USER_SETTINGS);
}

#[test]
fn a_headless_qwen_session_is_finished_by_land_which_takes_no_settings() {
    let repo = TestRepo::new();
    run_ok(repo.fabro().args(["hooks", "install", "--qwen"]));
    let commands = settings(&repo.path);
    let hook = |name: &str, extra: Value| {
        Step::Hook(
            our_command(&commands, name),
            event(&repo, &repo.path, name, extra),
        )
    };
    let lib = repo.path.join("src/lib.rs");
    let typed = json!({"prompt": "Write f", "submitted_prompt": "Write f"});
    agent_that_exits(
        &repo,
        &repo.path,
        &[
            hook("UserPromptSubmit", typed),
            hook("PreToolUse", edit_of(&lib)),
            Step::Write(&lib, "pub fn f() -> u8 { 2 }\n"),
            hook("Stop", json!({"stop_hook_active": false})),
        ],
    );
    let ps: Vec<Value> = serde_json::from_str(&repo.ok(&["ps", "--all", "--json"])).unwrap();
    let session = ps
        .iter()
        .find(|r| r["labels"]["agent_session"] == SESSION)
        .expect("the session's run");
    assert_eq!(session["labels"]["agent"], "qwen");
    let status: Value =
        serde_json::from_str(&repo.ok(&["status", "--json", session["run_id"].as_str().unwrap()]))
            .unwrap();
    assert_eq!(status["agent_session"], "ended", "{status}");

    run_ok(repo.fabro().arg("land"));
    assert_eq!(repo.git(&["log", "-1", "--format=%s"]), "Write f\n");
    let landed = repo.git(&["diff-tree", "-r", "--name-only", "--no-commit-id", "HEAD"]);
    assert_eq!(landed, "src/lib.rs\n");
    assert!(repo.path.join(".qwen/settings.json").exists());
}
