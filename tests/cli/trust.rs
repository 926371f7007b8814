//! The trust gate: a workflow that this machine did not write or approve never runs without
//! the user saying so. A collaborator who rewrites a run's recorded workflow (and its recorded
//! hash) and pushes it gets nothing run by `fetch` + `resume`; the user sees who recorded it,
//! where it was fetched from and what changed, and `--trust` runs it and remembers the
//! approval, by the workflow's sha256 in the fabro home.

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use serde_json::Value;

use crate::common::workflow::{command, commands, gated};
use crate::common::{TestRepo, read_file, run_ok, write_file};

/// Blocks at a gate (nobody answers without a terminal), so that `resume` goes on from there.
fn gate() -> String {
    gated("Gate", &command("work", "echo worked > out.txt"))
}

pub fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn output(out: Output) -> (i32, String, String) {
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `git fabro ARGS` in `dir` with the fabro home `home`, stdin closed.
pub fn fabro(repo: &TestRepo, dir: &Path, home: &Path, args: &[&str]) -> (i32, String, String) {
    output(
        repo.fabro_in(dir)
            .env("FABRO_HOME", home)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("git-fabro runs"),
    )
}

/// Runs the gate workflow in `dir` until it blocks; returns the run id.
fn blocked_run(repo: &TestRepo, dir: &Path, home: &Path) -> String {
    let workflow = repo.write_beside("gate.fabro", &gate());
    let (code, stdout, stderr) = fabro(repo, dir, home, &["run", path(&workflow)]);
    assert_eq!(code, 4, "{stderr}");
    stdout.lines().next().unwrap().trim().to_owned()
}

/// A bare remote the test repository pushes its runs to, and a second clone with its own
/// identity that fetched every run.
pub fn remote_and_clone(repo: &TestRepo) -> PathBuf {
    let bare = repo.root.join("remote.git");
    repo.git(&["clone", "-q", "--bare", path(&repo.path), path(&bare)]);
    repo.git(&["remote", "add", "origin", path(&bare)]);
    let other = repo.root.join("other");
    repo.git_in(&repo.root, &["clone", "-q", path(&bare), path(&other)]);
    repo.git_in(&other, &["config", "user.name", "Mallory"]);
    repo.git_in(&other, &["config", "user.email", "mallory@example.com"]);
    other
}

fn sha256(text: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// In `other`, commits onto run `id`'s metadata branch a run.json and graph.fabro whose
/// workflow is `evil` (its recorded hash rewritten to match) and pushes it with plain git.
fn push_rewritten_workflow(repo: &TestRepo, other: &Path, id: &str, evil: &str) {
    let meta = format!("fabro/meta/{id}");
    repo.git_in(other, &["fetch", "-q", "origin", &format!("{meta}:{meta}")]);
    repo.git_in(other, &["checkout", "-q", &meta]);
    let record_path = other.join("run.json");
    let mut record: Value = serde_json::from_str(&read_file(&record_path)).unwrap();
    record["graph_source"] = Value::from(evil);
    record["spec"]["graph_sha256"] = Value::from(sha256(evil));
    write_file(
        &record_path,
        &serde_json::to_string_pretty(&record).unwrap(),
    );
    write_file(&other.join("graph.fabro"), evil);
    repo.git_in(other, &["commit", "-q", "-am", "update run"]);
    repo.git_in(other, &["push", "-q", "origin", &meta]);
}

fn evil_workflow(marker: &Path) -> String {
    gate().replace(
        "echo worked > out.txt",
        &format!("echo worked > out.txt; touch {}", marker.display()),
    )
}

#[test]
fn a_rewritten_workflow_fetched_from_a_collaborator_runs_only_with_trust() {
    let repo = TestRepo::new();
    let home = repo.home.clone();
    let id = blocked_run(&repo, &repo.path, &home);
    let other = remote_and_clone(&repo);
    repo.ok(&["push", "origin", &id]);
    let marker = repo.root.join("PWNED");
    push_rewritten_workflow(&repo, &other, &id, &evil_workflow(&marker));
    repo.ok(&["fetch", "origin", &id]);
    let meta = format!("refs/heads/fabro/meta/{id}");
    let fetched = repo.git(&["rev-parse", &meta]);

    let (code, _, stderr) = fabro(
        &repo,
        &repo.path,
        &home,
        &["resume", &id, "--answer", "approve=Y"],
    );
    assert_eq!(code, 5, "{stderr}");
    assert!(!marker.exists(), "the rewritten workflow ran");
    assert!(
        stderr.contains("not written or approved on this machine"),
        "{stderr}"
    );
    assert!(stderr.contains("Mallory <mallory@example.com>"), "{stderr}");
    assert!(
        stderr.contains("fetched from:") && stderr.contains("remote.git"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&sha256(&evil_workflow(&marker))),
        "{stderr}"
    );
    assert!(
        stderr.contains("Changes since the version approved here")
            && stderr.contains(&format!(
                "+  work [shape=parallelogram, script=\"echo worked > out.txt; touch {}\"]",
                marker.display()
            ))
            && stderr.contains("-  work [shape=parallelogram, script=\"echo worked > out.txt\"]"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("git fabro resume {id} --trust")),
        "{stderr}"
    );
    assert_eq!(
        repo.git(&["rev-parse", &meta]),
        fetched,
        "the refusal wrote to the run"
    );
    let record: Value =
        serde_json::from_str(&repo.git(&["show", &format!("{meta}:run.json")])).unwrap();
    assert_eq!(record["status"]["kind"], "blocked", "{record}");

    // The user has read it and says so: it runs, and the approval is remembered.
    let (code, _, stderr) = fabro(
        &repo,
        &repo.path,
        &home,
        &["resume", &id, "--answer", "approve=Y", "--trust"],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(marker.exists());
    assert!(
        home.join("trusted")
            .join(sha256(&evil_workflow(&marker)))
            .is_file()
    );
}

#[test]
fn a_run_pushed_from_another_clone_shows_where_it_came_from_and_is_approved_once() {
    let repo = TestRepo::new();
    let other = remote_and_clone(&repo);
    let other_home = repo.root.join("other-home");
    let first = blocked_run(&repo, &other, &other_home);
    let second = blocked_run(&repo, &other, &other_home);
    run_ok(
        repo.fabro_in(&other)
            .env("FABRO_HOME", &other_home)
            .args(["push", "origin", &first, &second]),
    );
    repo.ok(&["fetch", "origin"]);
    let home = repo.home.clone();

    let (code, _, stderr) = fabro(
        &repo,
        &repo.path,
        &home,
        &["resume", &first, "--answer", "approve=Y"],
    );
    assert_eq!(code, 5, "{stderr}");
    assert!(stderr.contains("recorded by:  metadata commit"), "{stderr}");
    assert!(
        stderr.contains("fetched from:") && stderr.contains("remote.git"),
        "{stderr}"
    );
    assert!(
        stderr.contains("No earlier version of it was approved here"),
        "{stderr}"
    );
    assert!(stderr.contains("+  approve [shape=hexagon"), "{stderr}");

    let (code, _, stderr) = fabro(
        &repo,
        &repo.path,
        &home,
        &["resume", &first, "--answer", "approve=Y", "--trust"],
    );
    assert_eq!(code, 0, "{stderr}");
    // The same workflow in another run needs no second approval.
    let (code, _, stderr) = fabro(
        &repo,
        &repo.path,
        &home,
        &["resume", &second, "--answer", "approve=Y"],
    );
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn run_and_start_approve_the_workflow_they_record() {
    let repo = TestRepo::new();
    let workflow = repo.root.join("gate.fabro");
    let id = blocked_run(&repo, &repo.path, &repo.home);
    assert!(repo.home.join("trusted").join(sha256(&gate())).is_file());
    let (code, _, stderr) = fabro(
        &repo,
        &repo.path,
        &repo.home,
        &["resume", &id, "--answer", "approve=Y"],
    );
    assert_eq!(code, 0, "{stderr}");

    let started = repo.root.join("started.fabro");
    let text = &gate().replace("worked", "started");
    write_file(&started, text);
    repo.ok(&["start", "--workflow", path(&started)]);
    assert!(repo.home.join("trusted").join(sha256(text)).is_file());
    assert!(workflow.is_file());
}

fn parent() -> String {
    gated(
        "Parent",
        r#"manage [shape=house, stack.child_workflow="child.fabro"]"#,
    )
}

fn child() -> String {
    commands("Child", &[("work", "echo child >> child.txt")])
}

#[test]
fn a_run_goes_on_with_the_child_workflow_it_started_with_and_never_an_unapproved_one() {
    let repo = TestRepo::new();
    let dir = repo.root.join("flows");
    write_file(&dir.join("parent.fabro"), &parent());
    write_file(&dir.join("child.fabro"), &child());
    let parent = dir.join("parent.fabro");
    let blocked = || {
        let (code, stdout, stderr) = fabro(&repo, &repo.path, &repo.home, &["run", path(&parent)]);
        assert_eq!(code, 4, "{stderr}");
        stdout.lines().next().unwrap().trim().to_owned()
    };
    let first = blocked();
    // The second run starts while the child file is away: it records no child.
    std::fs::remove_file(dir.join("child.fabro")).unwrap();
    let second = blocked();
    let marker = repo.root.join("PWNED");
    let evil = &child().replace(
        "echo child >> child.txt",
        &format!("touch {}", marker.display()),
    );
    write_file(&dir.join("child.fabro"), evil);
    let resume = |id: &str| {
        fabro(
            &repo,
            &repo.path,
            &repo.home,
            &["resume", id, "--answer", "approve=Y"],
        )
    };
    // The first run recorded its child as it was: that one runs, not the file as it is now.
    let (code, _, stderr) = resume(&first);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("manage@1  succeeded"), "{stderr}");
    assert!(!marker.exists(), "the changed child workflow ran");
    assert_eq!(
        repo.git(&["show", &format!("fabro/run/{first}:child.txt")]),
        "child\n"
    );
    // The second reads the file now there, which this machine never approved.
    let (_, _, stderr) = resume(&second);
    // The manager node fails; its unconditional edge goes on to the exit, as in Fabro.
    assert!(stderr.contains("manage@1  failed"), "{stderr}");
    assert!(!marker.exists(), "the unapproved child workflow ran");
    assert!(
        stderr.contains("manager loop manage: its child workflow")
            && stderr.contains("not written or approved on this machine")
            && stderr.contains(&format!("git fabro resume {second} --trust")),
        "{stderr}"
    );
}
