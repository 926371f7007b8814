//! Run hooks, `[[hooks]]` in `run.toml` and `settings.toml`: what git-fabro adds to Fabro's
//! hooks (the environment allowlist, timeouts, the trust of a recorded `run.toml`, strict
//! settings), and the helpers `run_hooks_fabro` translates Fabro's hook tests with.

use std::path::PathBuf;

use serde_json::Value;

use crate::common::workflow::between;
use crate::common::{TestRepo, assert_success, write_file};
use crate::engine_interrupt::{wait_exit, wait_for};
use crate::engine_retry::stages;
use crate::engine_run::{Ran, run, run_dir, summary, workflow};

pub fn linear() -> String {
    between(
        "HookTest",
        r#"graph [goal="Test hooks"]
  work  [shape=parallelogram, label="Work", script="echo work"]
  start -> work -> exit"#,
    )
}

pub fn two_step() -> String {
    between(
        "HookTest",
        r#"graph [goal="Test hooks"]
  step1 [shape=parallelogram, label="Step1", script="echo first"]
  step2 [shape=parallelogram, label="Step2", script="echo second"]
  start -> step1 -> step2 -> exit"#,
    )
}

pub fn branching() -> String {
    between(
        "HookTest",
        r#"graph [goal="Test routing"]
  plan  [shape=parallelogram, label="Plan", script="echo plan"]
  pathA [shape=parallelogram, label="PathA", script="echo A"]
  pathB [shape=parallelogram, label="PathB", script="echo B"]
  start -> plan
  plan -> pathA [label="A"]
  plan -> pathB [label="B"]
  pathA -> exit
  pathB -> exit"#,
    )
}

/// One `[[hooks]]` entry of `event` running `command`, with more TOML lines after it.
pub fn hook(event: &str, command: &str, more: &str) -> String {
    let command = toml_string(command);
    format!("[[hooks]]\nevent = \"{event}\"\ncommand = {command}\ntimeout_ms = 5000\n{more}\n")
}

fn toml_string(text: &str) -> String {
    format!("'''{text}'''")
}

/// Runs `dot` with `hooks` as its `run.toml` (`--config`).
pub fn run_hooked(hooks: &str, dot: &str) -> (TestRepo, Ran) {
    let repo = TestRepo::new();
    let ran = run_hooked_in(&repo, hooks, dot);
    (repo, ran)
}

pub fn run_hooked_in(repo: &TestRepo, hooks: &str, dot: &str) -> Ran {
    let config = repo.write_beside("run.toml", hooks);
    let path = workflow(repo, "hooks", dot);
    let config = config.to_str().expect("UTF-8 path");
    run(repo, &path, &["--json", "--config", config])
}

pub fn succeeded(ran: &Ran) {
    assert_eq!(ran.code, 0, "{}\n{}", ran.stdout, ran.stderr);
    assert_eq!(summary(ran)["status"], "succeeded", "{}", ran.stdout);
}

/// A run that failed, and its failure's text.
pub fn failed(ran: &Ran) -> String {
    assert_ne!(ran.code, 0, "{}", ran.stdout);
    let failure = summary(ran)["failure"].as_str().unwrap_or("").to_owned();
    assert_eq!(summary(ran)["status"], "failed", "{}", ran.stdout);
    format!("{failure}\n{}", ran.stderr)
}

pub fn marker(repo: &TestRepo, name: &str) -> PathBuf {
    repo.root.join(name)
}

pub fn read(path: &PathBuf) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

// --- what git-fabro adds ---

#[test]
fn hook_stage_failed_fires_with_the_failure() {
    let repo = TestRepo::new();
    let hooks = hook("stage_failed", r#"cat > "$HOME/failed.json""#, "");
    let dot = &linear().replace("echo work", "exit 3");
    let ran = run_hooked_in(&repo, &hooks, dot);
    assert!(stages(&ran).contains(&"work@1 failed".to_owned()));
    let context: Value = serde_json::from_str(&read(&marker(&repo, "failed.json"))).unwrap();
    assert_eq!(context["event"], "stage_failed");
    assert_eq!(context["node_id"], "work");
    assert_eq!(context["status"], "failed");
    let reason = context["failure_reason"].as_str().unwrap();
    assert!(reason.contains("exit code: 3"), "{reason}");
}

#[test]
fn hook_gets_its_context_as_json_on_stdin_and_in_a_file() {
    let repo = TestRepo::new();
    let command = r#"cat > "$HOME/stdin.json"; cp "$FABRO_HOOK_CONTEXT" "$HOME/file.json"; pwd > "$HOME/cwd""#;
    let hooks = hook("stage_start", command, "matcher = '^work$'");
    let ran = run_hooked_in(&repo, &hooks, &linear());
    succeeded(&ran);
    let context: Value = serde_json::from_str(&read(&marker(&repo, "stdin.json"))).unwrap();
    assert_eq!(
        read(&marker(&repo, "stdin.json")),
        read(&marker(&repo, "file.json"))
    );
    assert_eq!(context["event"], "stage_start");
    assert_eq!(context["run_id"], ran.id.as_str());
    assert_eq!(context["workflow_name"], "HookTest");
    assert_eq!(context["node_id"], "work");
    assert_eq!(context["node_label"], "Work");
    assert_eq!(context["handler_type"], "command");
    assert_eq!(
        (context["attempt"].clone(), context["max_attempts"].clone()),
        (1.into(), 1.into())
    );
    // It runs in the run's worktree, as a command node does.
    assert_eq!(
        read(&marker(&repo, "cwd")).trim(),
        context["cwd"].as_str().unwrap()
    );
    let files = std::fs::read_dir(run_dir(&repo, &ran.id).join("hooks"))
        .unwrap()
        .count();
    assert_eq!(files, 3, "the hook's input, stdout and stderr are kept");
}

#[test]
fn hook_sees_only_the_environment_scripts_see() {
    let repo = TestRepo::new();
    let config = repo.write_beside("run.toml", &hook("run_start", r#"env > "$HOME/env""#, ""));
    let path = workflow(&repo, "hooks", &linear());
    let out = repo
        .fabro()
        .args(["run", "--json", "--config"])
        .arg(&config)
        .arg(&path)
        .env("AWS_SECRET_ACCESS_KEY", "secret")
        .env("NPM_TOKEN", "token")
        .output()
        .unwrap();
    assert_success(&out);
    let env = read(&marker(&repo, "env"));
    assert!(env.contains("FABRO_EVENT=run_start"), "{env}");
    assert!(
        !env.contains("AWS_SECRET_ACCESS_KEY") && !env.contains("NPM_TOKEN"),
        "{env}"
    );
}

#[test]
fn hook_that_outlives_its_timeout_blocks() {
    let hooks = "[[hooks]]\nevent = \"run_start\"\ncommand = \"sleep 30\"\ntimeout_ms = 200\n";
    let (_, ran) = run_hooked(hooks, &linear());
    assert!(failed(&ran).contains("hook timed out after 200ms"));
}

#[test]
fn hook_retrying_and_parallel_events_fire() {
    let repo = TestRepo::new();
    let log = r#"echo "$FABRO_EVENT $FABRO_NODE_ID" >> "$HOME/events""#;
    let hooks = ["stage_retrying", "parallel_start", "parallel_complete"]
        .map(|event| hook(event, log, ""))
        .concat();
    let dot = &between(
        "HookTest",
        r#"flaky [shape=parallelogram, timeout=200ms, max_retries=1, retry_policy="linear", script="sleep 5"]
  fan [shape=component]
  a [shape=parallelogram, script="echo a"]
  join [shape=tripleoctagon]
  start -> fan -> a -> join -> flaky -> exit"#,
    );
    let _ = run_hooked_in(&repo, &hooks, dot);
    let events = read(&marker(&repo, "events"));
    for line in [
        "parallel_start fan",
        "parallel_complete fan",
        "stage_retrying flaky",
    ] {
        assert!(events.contains(line), "{line} in {events}");
    }
}

#[test]
fn hooks_of_fabros_builtin_agent_are_refused() {
    for (entry, says) in [
        ("type = 'prompt'\nprompt = 'ok?'", "only command hooks"),
        ("command = 'true'\nevent2 = 1", "unknown field"),
        ("command = 'true'\nmatcher = '('", "is not a regex"),
    ] {
        let hooks = format!("[[hooks]]\nname = 'gate'\nevent = 'run_start'\n{entry}\n");
        let (_, ran) = run_hooked(&hooks, &linear());
        assert_eq!(ran.code, 2, "{}", ran.stderr);
        assert!(
            ran.stderr.contains("run.toml") && ran.stderr.contains(says),
            "{}",
            ran.stderr
        );
    }
    let hooks = hook("pre_tool_use", "true", "");
    let (_, ran) = run_hooked(&hooks, &linear());
    assert!(
        ran.stderr.contains("never reaches event \"pre_tool_use\""),
        "{}",
        ran.stderr
    );
}

#[test]
fn hooks_of_a_recorded_run_toml_never_run() {
    // The run.toml on the metadata branch may come from another clone: its hooks are someone
    // else's commands, so only the run directory's copy, which this machine wrote, runs them.
    let repo = TestRepo::new();
    let log = r#"echo "$FABRO_EVENT" >> "$HOME/events""#;
    let hooks = hook("run_start", log, "") + &hook("run_complete", log, "");
    let dot = &between(
        "Gate",
        r#"approve [shape=hexagon, label="Ship it?"]
  start -> approve
  approve -> exit [label="[A] Approve"]"#,
    );
    let ran = run_hooked_in(&repo, &hooks, dot);
    assert_eq!(
        read(&marker(&repo, "events")),
        "run_start\n",
        "{}",
        ran.stderr
    );
    let recorded = format!("fabro/meta/{}:run.toml", ran.id);
    assert!(repo.git(&["show", &recorded]).contains("[[hooks]]"));

    std::fs::remove_file(run_dir(&repo, &ran.id).join("run.toml")).unwrap();
    let out = repo.output(&["resume", &ran.id, "--answer", "approve=a"]);
    assert_success(&out);
    assert_eq!(read(&marker(&repo, "events")), "run_start\n");
}

#[test]
fn ctrl_c_during_a_hook_pauses_the_run_rather_than_failing_it() {
    let repo = TestRepo::new();
    let config = repo.root.join("run.toml");
    let command = r#"echo $$ > "$HOME/hook.pid"; sleep 300"#;
    write_file(&config, &hook("run_start", command, ""));
    let path = workflow(&repo, "hooks", &linear());
    let mut child = repo
        .fabro()
        .args(["run", "--config"])
        .arg(&config)
        .arg(&path)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_for(&marker(&repo, "hook.pid"));
    let pid = child.id().to_string();
    let sent = std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap();
    assert!(sent.success());
    assert_eq!(wait_exit(&mut child), 130);
    let id = crate::engine_run::the_only_run(&repo);
    let record = crate::engine_run::run_json(&repo, &id);
    assert_eq!(record["status"]["kind"], "paused", "{record}");
}
