//! `git fabro hooks install --opencode`: OpenCode has plugins, not hooks, so install writes
//! git-fabro's plugin into `.opencode/plugins/`, and uninstall removes it or gives back the
//! file that was there. The plugin runs the same hook commands as the other agents' entries;
//! while it is installed, neither it nor what OpenCode installs beside it (its plugin API's
//! manifest, lock file and `.gitignore`) is in a checkpoint or a landed commit, and a plugin of
//! the user's is their work like any other file.

use std::path::Path;

use serde_json::{Value, json};

use crate::agent_hooks::{Step, agent_that_exits, git_lines, run_hook};
use crate::common::{TestRepo, agent_transcript, read_file, run_ok, write_file};

const PLUGIN: &str = ".opencode/plugins/git-fabro.js";
const SESSION: &str = "ses_dcc3008a4ffeilUWD0DYQU8Iq9";

/// The command the plugin runs for `hook`, and the JSON it sends.
fn plugin_call(dir: &Path, hook: &str, extra: Value) -> (String, Value) {
    let mut input = json!({"session_id": SESSION, "cwd": dir});
    input
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    (format!("git fabro hooks run agent-{hook} opencode"), input)
}

/// What OpenCode writes into `.opencode/` when it installs its plugin API there.
fn opencode_installs(dir: &Path) {
    let at = dir.join(".opencode");
    write_file(&at.join("package.json"), "{\"dependencies\":{}}\n");
    write_file(&at.join("bun.lock"), "{}\n");
    write_file(
        &at.join(".gitignore"),
        "node_modules\npackage.json\nbun.lock\n.gitignore\n",
    );
    write_file(&at.join("node_modules/@opencode-ai/plugin/index.js"), "\n");
}

#[test]
fn the_plugin_is_kept_out_of_checkpoints_with_opencodes_installs_and_uninstall_gives_back_the_file()
{
    let (repo, run) = TestRepo::with_run();
    let wt = &run.worktree;
    // A file of the user's at the plugin's path, and a plugin of their own beside it.
    let theirs = "export const Old = async () => ({})\n";
    write_file(&wt.join(PLUGIN), theirs);
    write_file(
        &wt.join(".opencode/plugins/mine.js"),
        "export const Mine = 1\n",
    );
    let out = repo
        .fabro_in(wt)
        .args(["hooks", "install", "--opencode"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains(&format!("installed opencode's plugin in {PLUGIN}")),
        "{said}"
    );
    let plugin = read_file(wt.join(PLUGIN));
    assert!(plugin.contains("git fabro hooks run agent-"), "{plugin}");
    assert!(plugin.contains("spawnSync"), "{plugin}");
    let status: Vec<Value> = serde_json::from_str(&run_ok(
        repo.fabro_in(wt).args(["hooks", "status", "--json"]),
    ))
    .unwrap();
    let row = status.iter().find(|s| s["hook"] == "opencode").unwrap();
    assert_eq!(row["installed"], true);
    assert_eq!(row["path"], wt.join(PLUGIN).display().to_string().as_str());

    // OpenCode starts, installs its plugin API, and is about to edit src/lib.rs.
    opencode_installs(wt);
    let lib = wt.join("src/lib.rs");
    std::fs::write(&lib, "unrecorded\n").unwrap();
    let edit = json!({"hook_event_name": "PreToolUse", "tool_name": "edit",
        "tool_input": {"file_path": lib}, "tool_use_id": "call_04576b709cc3"});
    let (command, input) = plugin_call(wt, "edit", edit);
    let out = run_hook(&repo, wt, &command, &input);
    assert!(out.status.success() && out.stdout.is_empty());
    let branch = format!("fabro/run/{}", run.id);
    let message = repo.git(&["log", "-1", "--format=%B", &branch]);
    assert!(
        message.contains("Fabro-Snapshot: before edit src/lib.rs"),
        "{message}"
    );

    // The session goes idle: the turn, with the messages the plugin wrote as its transcript.
    std::fs::write(&lib, "edited\n").unwrap();
    let transcript = agent_transcript(&repo.root, "opencode", "transcript.json");
    std::fs::write(&transcript, "[{\"info\":{\"role\":\"user\"}}]\n").unwrap();
    let stop = json!({"hook_event_name": "Stop", "transcript_path": transcript});
    let (command, input) = plugin_call(wt, "turn", stop);
    assert!(run_hook(&repo, wt, &command, &input).status.success());
    let files = git_lines(&repo, &["ls-tree", "-r", "--name-only", &branch]);
    let under: Vec<&String> = files
        .iter()
        .filter(|f| f.starts_with(".opencode"))
        .collect();
    assert_eq!(under, [".opencode/plugins/mine.js"], "{files:?}");
    let meta = format!("fabro/meta/{}", run.id);
    let stored = git_lines(&repo, &["ls-tree", "-r", "--name-only", &meta]);
    assert!(
        stored.iter().any(|f| f.ends_with("turn@1/transcript.json")),
        "{stored:?}"
    );

    run_ok(repo.fabro_in(wt).args(["hooks", "uninstall", "--opencode"]));
    assert_eq!(read_file(wt.join(PLUGIN)), theirs);
    let status: Vec<Value> = serde_json::from_str(&run_ok(
        repo.fabro_in(wt).args(["hooks", "status", "--json"]),
    ))
    .unwrap();
    let row = status.iter().find(|s| s["hook"] == "opencode").unwrap();
    assert_eq!(row["installed"], false);
}

#[test]
fn uninstall_removes_the_plugin_and_the_folders_install_made_when_nothing_else_is_there() {
    let repo = TestRepo::new();
    run_ok(repo.fabro().args(["hooks", "install", "--opencode"]));
    run_ok(repo.fabro().args(["hooks", "install", "--opencode"]));
    assert!(repo.path.join(PLUGIN).is_file());
    run_ok(repo.fabro().args(["hooks", "uninstall", "--opencode"]));
    assert!(!repo.path.join(".opencode").exists());

    // What OpenCode installed meanwhile stays, and so does its folder.
    run_ok(repo.fabro().args(["hooks", "install", "--opencode"]));
    opencode_installs(&repo.path);
    run_ok(repo.fabro().args(["hooks", "uninstall", "--opencode"]));
    assert!(!repo.path.join(".opencode/plugins").exists());
    assert!(repo.path.join(".opencode/package.json").exists());
}

#[test]
fn an_opencode_session_ends_with_its_process_and_land_takes_no_file_of_opencodes() {
    let repo = TestRepo::new();
    run_ok(repo.fabro().args(["hooks", "install", "--opencode"]));
    opencode_installs(&repo.path);
    let lib = repo.path.join("src/lib.rs");
    let step = |hook: &str, extra: Value| {
        let (command, input) = plugin_call(&repo.path, hook, extra);
        Step::Hook(command, input)
    };
    let edit = json!({"tool_name": "edit", "tool_input": {"file_path": lib}});
    agent_that_exits(
        &repo,
        &repo.path,
        &[
            step("prompt", json!({"prompt": "Write f"})),
            step("edit", edit),
            Step::Write(&lib, "pub fn f() -> u8 { 2 }\n"),
            step("turn", json!({})),
        ],
    );
    let ps: Vec<Value> = serde_json::from_str(&repo.ok(&["ps", "--all", "--json"])).unwrap();
    let session = ps
        .iter()
        .find(|r| r["labels"]["agent_session"] == SESSION)
        .expect("the session's run");
    assert_eq!(session["labels"]["agent"], "opencode");

    run_ok(repo.fabro().arg("land"));
    assert_eq!(repo.git(&["log", "-1", "--format=%s"]), "Write f\n");
    let landed = repo.git(&["diff-tree", "-r", "--name-only", "--no-commit-id", "HEAD"]);
    assert_eq!(landed, "src/lib.rs\n");
    assert!(repo.path.join(PLUGIN).exists());
}
