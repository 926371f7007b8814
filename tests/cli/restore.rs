use serde_json::Value;

use crate::common::{TestRepo, array, read_file, write_file};

/// What a `restore --json` report says it changes, `action path` a line, sorted.
pub fn changes(report: &Value) -> Vec<String> {
    let mut changes: Vec<String> = array(&report["changes"])
        .iter()
        .map(|change| format!("{} {}", text(&change["action"]), text(&change["path"])))
        .collect();
    changes.sort();
    changes
}

fn text(value: &Value) -> &str {
    value
        .as_str()
        .unwrap_or_else(|| panic!("not a text: {value}"))
}

#[test]
fn restore_makes_the_worktree_match_the_checkpoint_exactly() {
    let repo = TestRepo::ignoring("*.log\n");
    let run = repo.start();
    let wt = &run.worktree;
    write_file(&wt.join("keep.txt"), "v1\n");
    write_file(&wt.join("gone.txt"), "will be deleted\n");
    repo.checkpoint(&run.id, "one");
    write_file(&wt.join("keep.txt"), "v2\n");
    std::fs::remove_file(wt.join("gone.txt")).unwrap();
    write_file(&wt.join("new/dir/created.txt"), "created later\n");
    write_file(&wt.join("debug.log"), "ignored, must survive\n");
    write_file(&wt.join("node_modules/x.js"), "excluded, must survive\n");
    repo.checkpoint(&run.id, "two");
    write_file(&wt.join("keep.txt"), "v3 uncommitted\n");

    let dry: Value = serde_json::from_str(&repo.ok(&[
        "restore",
        "--run",
        &run.id,
        "one",
        "--dry-run",
        "--json",
    ]))
    .unwrap();
    assert_eq!(
        changes(&dry),
        [
            "recreate gone.txt",
            "remove new/dir/created.txt",
            "restore keep.txt"
        ]
    );
    assert_eq!(
        read_file(wt.join("keep.txt")),
        "v3 uncommitted\n",
        "dry run changes nothing"
    );
    assert_eq!(repo.git(&["for-each-ref", "refs/fabro/"]), "");

    let done: Value =
        serde_json::from_str(&repo.ok(&["restore", "--run", &run.id, "one", "--json"])).unwrap();
    assert_eq!(read_file(wt.join("keep.txt")), "v1\n");
    assert_eq!(read_file(wt.join("gone.txt")), "will be deleted\n");
    assert!(
        !wt.join("new").exists(),
        "created files and their empty directories are removed"
    );
    assert_eq!(read_file(wt.join("debug.log")), "ignored, must survive\n");
    assert!(wt.join("node_modules/x.js").is_file());

    // What restore replaced can be brought back from the recovery ref.
    let recovery_ref = done["recovery_ref"].as_str().unwrap();
    assert!(recovery_ref.starts_with(&format!("refs/fabro/recovery/{}/", run.id)));
    assert_eq!(
        repo.git(&["show", &format!("{recovery_ref}:keep.txt")]),
        "v3 uncommitted\n"
    );
    assert_eq!(
        repo.git(&["show", &format!("{recovery_ref}:new/dir/created.txt")]),
        "created later\n"
    );
    let sha = done["recovery_commit"].as_str().unwrap();
    repo.ok(&["restore", "--run", &run.id, &sha[..10]]);
    assert_eq!(read_file(wt.join("keep.txt")), "v3 uncommitted\n");
    assert!(wt.join("new/dir/created.txt").is_file());
    let fsck = repo.git_output(&repo.path, &["fsck", "--strict"]);
    assert!(fsck.status.success());
}

#[test]
fn restore_never_touches_anything_outside_the_worktree_and_prints_the_way_back() {
    let (repo, run) = TestRepo::with_run();
    repo.checkpoint(&run.id, "one");
    write_file(&run.worktree.join("later.txt"), "x\n");
    let before = repo.user_state();
    let out = repo.output(&["restore", "--run", &run.id, "@1"]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("to get back: git fabro restore"),
        "{stderr}"
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "remove    later.txt"
    );
    assert_eq!(repo.user_state(), before);
    // The run's branches did not move.
    assert_eq!(repo.log_json(&run.id).len(), 1);
}

#[test]
fn restore_puts_back_file_names_that_are_not_utf8_byte_for_byte() {
    use std::os::unix::ffi::OsStrExt;
    let (repo, run) = TestRepo::with_run();
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
    let file = run.worktree.join(name);
    std::fs::write(&file, "first\n").unwrap();
    repo.checkpoint(&run.id, "a");
    std::fs::remove_file(&file).unwrap();
    repo.checkpoint(&run.id, "b");
    repo.ok(&["restore", "--run", &run.id, "@1"]);
    assert_eq!(read_file(&file), "first\n");
    let lossy = run.worktree.join("caf\u{fffd}.txt");
    assert!(!lossy.exists(), "restored under a mangled name");
    // The next checkpoint records exactly the tree @1 recorded.
    repo.checkpoint(&run.id, "c");
    let log = repo.log_json(&run.id);
    let tree = |commit: &Value| {
        repo.git(&[
            "rev-parse",
            &format!("{}^{{tree}}", commit["run_commit"].as_str().unwrap()),
        ])
    };
    assert_eq!(tree(&log[0]), tree(&log[2]));
}

#[test]
fn restore_counts_one_path_in_the_singular() {
    let (repo, run) = TestRepo::with_run();
    write_file(&run.worktree.join("a.txt"), "v1\n");
    repo.checkpoint(&run.id, "one");
    write_file(&run.worktree.join("a.txt"), "v2\n");
    let out = repo.output(&["restore", "--run", &run.id, "one", "--dry-run"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("dry run: 1 path would change to match"),
        "{err}"
    );
    let out = repo.output(&["restore", "--run", &run.id, "one"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("restored 1 path to match"), "{err}");
}
