//! The workflows in `examples/`: each is valid with no warning, and each runs as its comments
//! say, with no agent, answers given up front or on resume.

use std::path::{Path, PathBuf};

use crate::common::TestRepo;
use crate::engine_run::{run, stages, summary};

fn examples() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("examples/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "fabro"))
        .collect();
    found.sort();
    found
}

#[test]
fn every_example_validates_without_a_warning() {
    let repo = TestRepo::new();
    assert!(examples().len() >= 2);
    for example in examples() {
        let out = repo.fabro().arg("validate").arg(&example).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "{}: {stdout}{stderr}",
            example.display()
        );
        assert!(
            stdout.contains("Validation: OK") || stderr.contains("Validation: OK"),
            "{}: {stdout}{stderr}",
            example.display()
        );
        assert!(
            !stdout.contains("warning") && !stderr.contains("warning"),
            "{}: {stdout}{stderr}",
            example.display()
        );
    }
}

#[test]
fn the_test_fix_loop_fails_its_check_once_fixes_and_passes() {
    let repo = TestRepo::new();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/test-fix-loop.fabro");
    let ran = run(&repo, &example, &["--json"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(
        stages(&summary(&ran)),
        [
            "start@1 succeeded",
            "implement@1 succeeded",
            "check@1 failed",
            "fix@1 succeeded",
            "check@2 succeeded"
        ]
    );
    let fixed = repo.git(&["show", &format!("fabro/run/{}:add.sh", ran.id)]);
    assert_eq!(fixed, "echo $(( $1 + $2 ))\n");
    let log = repo.ok(&["log", &ran.id]);
    assert!(log.contains("check") && log.contains("fix"), "{log}");
}

#[test]
fn the_review_gate_blocks_without_an_answer_and_takes_answers_in_turn() {
    let repo = TestRepo::new();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/review-gate.fabro");
    let blocked = run(&repo, &example, &[]);
    assert_eq!(blocked.code, 4, "{}", blocked.stderr);
    assert!(
        blocked.stderr.contains(&format!(
            "git fabro resume {} --answer review=CHOICE",
            blocked.id
        )),
        "{}",
        blocked.stderr
    );
    // Revise on the gate's next visit, approve on the one after.
    let out = repo
        .fabro()
        .args(["resume", &blocked.id, "--json"])
        .args(["--answer", "review=R", "--answer", "review=A"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let summary: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        stages(&summary),
        [
            "review@1 succeeded",
            "revise@1 succeeded",
            "review@2 succeeded",
            "ship@1 succeeded"
        ]
    );
    let notes = repo.git(&["show", &format!("fabro/run/{}:NOTES.md", blocked.id)]);
    assert!(notes.contains("- reviewed by a person"), "{notes}");
}

#[test]
fn the_review_gate_runs_through_with_an_answer_given_up_front() {
    let repo = TestRepo::new();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/review-gate.fabro");
    let ran = run(&repo, &example, &["--answer", "review=A", "--json"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(
        stages(&summary(&ran)),
        [
            "start@1 succeeded",
            "draft@1 succeeded",
            "review@1 succeeded",
            "ship@1 succeeded"
        ]
    );
}
