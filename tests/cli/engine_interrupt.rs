//! Stopping the engine part-way: Ctrl-C (on a terminal and as `kill -INT`) and SIGTERM stop the
//! running node, record nothing of it, leave the run paused (exit 130) and resumable; a
//! side-effect node cut short is never run again without being told to.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::failpoints::die_at;
use crate::common::{TestRepo, assert_success, write_file};
use crate::engine_run::{committed_nodes, run_json, the_only_run};
use crate::format_contract::assert_fabro_shapes;

/// Long enough for any machine to reach the slow node; the test never waits for it to pass.
const PATIENCE: Duration = Duration::from_secs(60);

/// A workflow whose `slow` node writes its pid to `slow.pid` beside the repository and then
/// sleeps, unless `go-fast` exists there.
pub fn slow_workflow(repo: &TestRepo) -> PathBuf {
    let root = repo.root.display();
    repo.write_beside("slow.fabro", &format!(
            r#"digraph Slow {{
  start [shape=Mdiamond]
  exit [shape=Msquare]
  first [shape=parallelogram, script="echo one > one.txt"]
  slow [shape=parallelogram, script="echo $$ > {root}/slow.pid; [ -e {root}/go-fast ] || sleep 300; echo done > slow.txt"]
  start -> first -> slow -> exit
}}
"#
        ))
}

pub fn wait_for(path: &Path) {
    let started = Instant::now();
    while !path.exists() {
        assert!(
            started.elapsed() < PATIENCE,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // The script writes the file in one go, but give the write a moment to finish.
    while std::fs::read_to_string(path)
        .unwrap_or_default()
        .trim()
        .is_empty()
    {
        assert!(
            started.elapsed() < PATIENCE,
            "{} stayed empty",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

pub fn wait_exit(child: &mut Child) -> i32 {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status.code().unwrap_or(-1);
        }
        if started.elapsed() > PATIENCE {
            let _ = child.kill();
            panic!("git-fabro did not stop after the signal");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn alive(pid: &str) -> bool {
    std::process::Command::new("kill")
        .args(["-0", pid])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// What every interruption leaves: the slow node unrecorded and its script gone, the run
/// paused and free; then `resume` runs the slow node again and finishes.
fn check_interrupted_then_resume(repo: &TestRepo, id: &str) {
    let pid = std::fs::read_to_string(repo.root.join("slow.pid")).expect("slow.pid");
    assert!(!alive(pid.trim()), "the slow script still runs");
    let record = run_json(repo, id);
    assert_eq!(record["status"]["kind"], "paused");
    assert_eq!(record["status"]["interrupted_at"], "slow@1");
    assert_eq!(record["checkpoint"]["current_node"], "first");
    assert_eq!(record["checkpoint"]["next_node_id"], "slow");
    assert_eq!(committed_nodes(repo, id), ["first (succeeded)"]);
    let ps = repo.ok(&["ps"]);
    assert!(ps.lines().any(|l| l.contains("paused")), "{ps}");
    let runs = repo.home.join("runs");
    let held: Vec<_> = std::fs::read_dir(&runs)
        .expect("runs")
        .flatten()
        .filter(|d| d.path().join("run.pid").exists())
        .collect();
    assert!(held.is_empty(), "run.pid was not released");

    write_file(&repo.root.join("go-fast"), "");
    let out = resume(repo, &[id]);
    assert_success(&out);
    assert_eq!(
        committed_nodes(repo, id),
        ["first (succeeded)", "slow (succeeded)"]
    );
    assert_eq!(run_json(repo, id)["status"]["kind"], "succeeded");
    assert_fabro_shapes(repo);
}

#[test]
fn sigint_and_sigterm_stop_the_node_and_leave_the_run_resumable() {
    for signal in ["-INT", "-TERM"] {
        let repo = TestRepo::new();
        let path = slow_workflow(&repo);
        let mut child = repo
            .fabro()
            .arg("run")
            .arg(&path)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("git-fabro runs");
        wait_for(&repo.root.join("slow.pid"));
        let sent = std::process::Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(sent.success());
        assert_eq!(wait_exit(&mut child), 130, "{signal}");
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
        let id = the_only_run(&repo);
        assert!(
            stderr.contains(&format!("git fabro resume {id}")),
            "{signal}: {stderr}"
        );
        check_interrupted_then_resume(&repo, &id);
    }
}

#[test]
fn ctrl_c_on_a_terminal_stops_the_run() {
    let repo = TestRepo::new();
    let path = slow_workflow(&repo);
    let mut child = repo
        .fabro_on_terminal(&format!("run {}", path.display()))
        .env("TERM", "dumb")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("util-linux `script` runs");
    let mut keyboard = child.stdin.take().expect("stdin");
    wait_for(&repo.root.join("slow.pid"));
    // Ctrl-C as the terminal sees it: the line discipline sends SIGINT to the foreground.
    keyboard.write_all(b"\x03").expect("typed");
    keyboard.flush().expect("typed");
    assert_eq!(wait_exit(&mut child), 130);
    drop(keyboard);
    check_interrupted_then_resume(&repo, &the_only_run(&repo));
}

/// A workflow whose `deploy` node is a side effect that appends its idempotency key to
/// `deploys.log` beside the repository.
pub(crate) fn deploy_workflow(repo: &TestRepo) -> PathBuf {
    repo.write_beside("deploy.fabro", &format!(
            r#"digraph Deploy {{
  start [shape=Mdiamond]
  exit [shape=Msquare]
  deploy [shape=parallelogram, side_effect=true, script="echo $FABRO_IDEMPOTENCY_KEY >> {}/deploys.log"]
  after [shape=parallelogram, script="echo after > after.txt"]
  start -> deploy -> after -> exit
}}
"#,
            repo.root.display()
        ))
}

/// `git fabro resume ARGS` with no terminal to ask on.
fn resume(repo: &TestRepo, args: &[&str]) -> Output {
    repo.fabro()
        .arg("resume")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("resume runs")
}

fn meta_paths(repo: &TestRepo, id: &str) -> Vec<String> {
    repo.files_in(&format!("fabro/meta/{id}"))
        .lines()
        .map(str::to_owned)
        .collect()
}

pub(crate) fn deploys(repo: &TestRepo) -> String {
    std::fs::read_to_string(repo.root.join("deploys.log")).unwrap_or_default()
}

#[test]
fn a_side_effect_writes_its_intent_first_and_resolves_it_with_its_checkpoint() {
    let repo = TestRepo::new();
    let path = deploy_workflow(&repo);
    let out = repo.fabro().arg("run").arg(&path).output().expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let id = the_only_run(&repo);
    let subjects = repo.git(&[
        "log",
        "--reverse",
        "--format=%s",
        &format!("fabro/meta/{id}"),
    ]);
    let order: Vec<&str> = subjects
        .lines()
        .filter(|s| s.contains("deploy@1"))
        .collect();
    assert_eq!(
        order,
        [
            "intent deploy@1",
            "checkpoint deploy@1 (succeeded)",
            "resolve intent deploy@1"
        ]
    );
    assert!(
        !meta_paths(&repo, &id)
            .iter()
            .any(|p| p.starts_with("intents/"))
    );
    assert_eq!(deploys(&repo), format!("{id}:deploy@1\n"));
}

/// A run killed right after its intent was committed, before the side effect ran or was
/// recorded: what a crash in the middle of a deploy leaves.
fn killed_during_deploy(repo: &TestRepo) -> String {
    let path = deploy_workflow(repo);
    die_at(
        repo.fabro().arg("run").arg(&path).stdin(Stdio::null()),
        "engine:intent-written:deploy@1",
    );
    let id = the_only_run(repo);
    let intent: Value = serde_json::from_str(
        &repo.git(&["show", &format!("fabro/meta/{id}:intents/deploy@1.json")]),
    )
    .expect("the intent is JSON");
    assert_eq!(intent["node_id"], "deploy");
    assert_eq!(intent["visit"], 1);
    assert_eq!(intent["idempotency_key"], format!("{id}:deploy@1"));
    assert!(intent["started_at"].is_string());

    let out = resume(repo, &[&id]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("deploy@1"), "{stderr}");
    assert!(stderr.contains("--rerun deploy"), "{stderr}");
    assert!(stderr.contains("--assume-done deploy"), "{stderr}");
    assert_eq!(
        deploys(repo),
        "",
        "resume ran the side effect without being told"
    );
    id
}

#[test]
fn assume_done_records_a_side_effect_cut_short_without_running_it() {
    let repo = TestRepo::new();
    let id = killed_during_deploy(&repo);
    let out = resume(&repo, &[&id, "--assume-done", "deploy"]);
    assert_success(&out);
    assert_eq!(deploys(&repo), "");
    assert_eq!(
        committed_nodes(&repo, &id),
        ["deploy (succeeded)", "after (succeeded)"]
    );
    let record = run_json(&repo, &id);
    let notes = record["checkpoint"]["node_outcomes"]["deploy"]["notes"]
        .as_str()
        .unwrap_or("");
    assert!(notes.contains("--assume-done"), "{notes}");
    assert!(
        !meta_paths(&repo, &id)
            .iter()
            .any(|p| p.starts_with("intents/"))
    );
    assert_fabro_shapes(&repo);
}

#[test]
fn rerun_runs_a_side_effect_cut_short_again() {
    let repo = TestRepo::new();
    let id = killed_during_deploy(&repo);
    // A flag that names no unfinished side effect is refused.
    let out = resume(&repo, &[&id, "--rerun", "after"]);
    assert_eq!(out.status.code(), Some(2));
    let out = resume(&repo, &[&id, "--rerun", "deploy"]);
    assert_success(&out);
    assert_eq!(deploys(&repo), format!("{id}:deploy@1\n"));
    assert_eq!(
        committed_nodes(&repo, &id),
        ["deploy (succeeded)", "after (succeeded)"]
    );
    assert!(
        !meta_paths(&repo, &id)
            .iter()
            .any(|p| p.starts_with("intents/"))
    );
}
