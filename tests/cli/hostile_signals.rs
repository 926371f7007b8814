//! Signals as they reach `git fabro run` through git's wrapper. git passes each signal it gets
//! on to git-fabro, so Ctrl-C at a terminal, or `timeout` (a CI job's bound) signalling its
//! process group, reaches git-fabro twice: the two copies are one request to pause, and the
//! run is left paused with no node process alive, every time. A real second request, later,
//! ends git-fabro at once, after it stops every node's process group.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::common::{TestRepo, path_with_fabro, read_file, workflow};
use crate::engine_interrupt::{wait_exit, wait_for};
use crate::engine_run::{run_json, the_only_run};

/// How many times each way of signalling is tried: a race shows in some runs only.
const TRIES: usize = 5;

/// A fan-out whose two branches each write their shell's pid and a background job's pid
/// beside the repository and then wait; `stubborn` makes them ignore SIGTERM.
fn fan_out(repo: &TestRepo, stubborn: bool) -> PathBuf {
    let root = repo.root.display();
    let trap = if stubborn { "trap '' TERM; " } else { "" };
    let branch = |name: &str| {
        format!("{trap}sleep 300 & echo $! > {root}/{name}.bg; echo $$ > {root}/{name}.pid; wait")
    };
    repo.write_beside(
        "fan.fabro",
        &workflow::fan_out("Fan", &[("a", &branch("a")), ("b", &branch("b"))]),
    )
}

/// The pids the branches wrote, once both have.
fn branch_pids(repo: &TestRepo) -> Vec<String> {
    let files = ["a.pid", "a.bg", "b.pid", "b.bg"].map(|f| repo.root.join(f));
    files.iter().for_each(|f| wait_for(f));
    files
        .iter()
        .map(|f| read_file(f).trim().to_owned())
        .collect()
}

/// Whether the process `pid` still runs: a zombie (a job whose shell was killed, waiting for
/// init to reap it) is done.
fn alive(pid: &str) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let state = stat.rsplit(')').next().unwrap_or("").trim_start();
    !state.starts_with('Z') && !state.starts_with('X')
}

/// No process of any branch is left, allowing a moment for the last ones to be reaped.
fn assert_none_alive(pids: &[String], what: &str) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while pids.iter().any(|p| alive(p)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let left: Vec<_> = pids.iter().filter(|p| alive(p)).collect();
    assert!(left.is_empty(), "{what}: node processes survived: {left:?}");
}

fn assert_paused(repo: &TestRepo, what: &str) {
    let id = the_only_run(repo);
    let record = run_json(repo, &id);
    assert_eq!(record["status"]["kind"], "paused", "{what}: {record}");
    let ps = repo.ok(&["ps"]);
    assert!(!ps.contains("no process"), "{what}: {ps}");
}

/// `timeout -s SIGNAL 600 git fabro run`, made to expire as soon as both branches run (a
/// SIGALRM is what its timer sends it): it signals git, then its whole process group.
fn through_timeout(repo: &TestRepo, signal: &str) -> (Child, Vec<String>) {
    let mut child = repo
        .command("timeout")
        .args(["-s", signal, "600", "git", "fabro", "run"])
        .arg(fan_out(repo, false))
        .env("PATH", path_with_fabro())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("timeout runs");
    let pids = branch_pids(repo);
    let sent = std::process::Command::new("kill")
        .args(["-ALRM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    wait_exit(&mut child);
    (child, pids)
}

#[test]
fn timeout_through_git_pauses_the_run_and_stops_every_branch() {
    for signal in ["INT", "TERM"] {
        for n in 1..=TRIES {
            let repo = TestRepo::new();
            let (_, pids) = through_timeout(&repo, signal);
            let what = format!("SIG{signal}, try {n}");
            assert_paused(&repo, &what);
            assert_none_alive(&pids, &what);
        }
    }
}

#[test]
fn ctrl_c_at_a_terminal_through_git_pauses_the_run_and_stops_every_branch() {
    for n in 1..=TRIES {
        let repo = TestRepo::new();
        let path = fan_out(&repo, false);
        let mut child = repo
            .command("script")
            .args([
                "-qec",
                &format!("exec git fabro run {}", path.display()),
                "/dev/null",
            ])
            .env("SHELL", "/bin/sh")
            .env("TERM", "dumb")
            .env("PATH", path_with_fabro())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("util-linux `script` runs");
        let mut keyboard = child.stdin.take().unwrap();
        let pids = branch_pids(&repo);
        keyboard.write_all(b"\x03").unwrap();
        keyboard.flush().unwrap();
        wait_exit(&mut child);
        drop(keyboard);
        let what = format!("Ctrl-C, try {n}");
        assert_paused(&repo, &what);
        assert_none_alive(&pids, &what);
    }
}

#[test]
fn a_second_signal_later_ends_git_fabro_after_stopping_every_branch() {
    let repo = TestRepo::new();
    // Branches that ignore SIGTERM keep the engine waiting for its grace period to pass.
    let mut child = repo
        .fabro()
        .arg("run")
        .arg(fan_out(&repo, true))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pids = branch_pids(&repo);
    let pid = child.id().to_string();
    let signal = |name: &str| {
        let sent = std::process::Command::new("kill")
            .args([name, &pid])
            .status()
            .unwrap();
        assert!(sent.success());
    };
    signal("-INT");
    std::thread::sleep(Duration::from_millis(1200));
    signal("-INT");
    assert_eq!(wait_exit(&mut child), 130);
    // Ended at once: the branches did not outlive it, whatever their traps.
    let left: Vec<_> = pids.iter().filter(|p| alive(p)).collect();
    assert!(
        left.is_empty(),
        "node processes survived git-fabro: {left:?}"
    );
}
