//! `land`'s commit says what the run was for (its goal, wherever the run got it) and names
//! the run in its body; a run that worked in place lands on the checkout that already holds
//! its changes. Results are checked with plain git.

use crate::common::workflow::between;
use crate::common::{TestRepo, read_file, write_file};
use crate::engine_run::{run, workflow};

/// Two commands, one editing a tracked file and one adding a file, under a graph goal.
fn greet() -> String {
    between(
        "greet",
        r#"graph [goal="Greet the reader"]
  edit [shape=parallelogram, script="echo hello >> README.md"]
  add [shape=parallelogram, script="echo hi > greeting.txt"]
  start -> edit -> add -> exit"#,
    )
}

fn subject_and_body(repo: &TestRepo) -> (String, String) {
    let subject = repo.git(&["log", "-1", "--format=%s"]).trim().to_owned();
    (subject, repo.git(&["log", "-1", "--format=%b"]))
}

#[test]
fn the_subject_is_the_workflows_goal_and_the_body_names_the_run() {
    let repo = TestRepo::new();
    let path = workflow(&repo, "greet", &greet());
    let ran = run(&repo, &path, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let status = repo.ok(&["status", &ran.id]);
    assert!(status.contains("goal      Greet the reader"), "{status}");
    repo.ok(&["land", &ran.id]);
    let (subject, body) = subject_and_body(&repo);
    assert_eq!(subject, "Greet the reader");
    assert!(body.contains(&format!("Run {}", ran.id)), "{body}");
}

#[test]
fn without_a_goal_the_subject_names_the_run() {
    let repo = TestRepo::new();
    let started = repo.start();
    write_file(&started.worktree.join("a.txt"), "a\n");
    repo.checkpoint(&started.id, "code");
    repo.ok(&["finish", &started.id]);
    repo.ok(&["land", &started.id]);
    let (subject, _) = subject_and_body(&repo);
    assert_eq!(subject, format!("Land run {}", started.id));
}

/// The run's changes are already in the checkout: landing records them on the branch and
/// the index, touches no file, and leaves the user's own unstaged edit as it was.
#[test]
fn a_run_in_place_lands_on_the_checkout_that_holds_its_changes() {
    let repo = TestRepo::new();
    repo.write("notes.txt", "mine\n");
    repo.git(&["add", "notes.txt"]);
    repo.git(&["commit", "-qm", "notes"]);
    // The user's own edit, made before the run: not the run's to land.
    repo.write("notes.txt", "mine, edited\n");
    let path = workflow(&repo, "greet", &greet());
    let ran = run(&repo, &path, &["--in-place"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let before = repo.git(&["rev-parse", "HEAD"]).trim().to_owned();
    let readme = std::fs::read(repo.path.join("README.md")).unwrap();

    let commit = repo.ok(&["land", &ran.id]).trim().to_owned();
    assert_eq!(repo.git(&["rev-parse", "HEAD"]).trim(), commit);
    assert_eq!(repo.git(&["rev-parse", "HEAD^"]).trim(), before);
    assert_eq!(
        repo.git(&["diff", "--name-only", "HEAD^", "HEAD"]),
        "README.md\ngreeting.txt\n"
    );
    assert_eq!(subject_and_body(&repo).0, "Greet the reader");
    assert_eq!(std::fs::read(repo.path.join("README.md")).unwrap(), readme);
    assert_eq!(repo.git(&["status", "--porcelain"]), " M notes.txt\n");
    assert_eq!(read_file(repo.path.join("notes.txt")), "mine, edited\n");
    repo.git(&["fsck", "--strict"]);
}
