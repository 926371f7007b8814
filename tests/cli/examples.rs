//! The workflows in `examples/`: each is valid with no warning, and each runs as its comments
//! say, with no agent and no answer given by hand.

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
