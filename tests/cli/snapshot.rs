use serde_json::Value;

use crate::common::{TestRepo, read_file, texts, write_file};

#[test]
fn snapshots_complete_no_node_and_are_restore_targets() {
    let (repo, run) = TestRepo::with_run();
    write_file(&run.worktree.join("a.txt"), "v1\n");
    repo.checkpoint(&run.id, "one");
    write_file(&run.worktree.join("a.txt"), "v2 before a risky write\n");
    let snap: Value = serde_json::from_str(&repo.ok(&[
        "snapshot",
        "--run",
        &run.id,
        "--reason",
        "before\nwrite",
        "--json",
    ]))
    .unwrap();
    assert_eq!(snap["created"], true);
    assert_eq!(snap["reason"], "before write");
    let sha = snap["run_commit"].as_str().unwrap().to_owned();
    let message = repo.git(&["log", "-1", "--format=%B", &sha]);
    assert!(
        message.contains("Fabro-Snapshot: before write") && !message.contains("Fabro-Checkpoint"),
        "{message}"
    );
    let unchanged: Value =
        serde_json::from_str(&repo.ok(&["snapshot", "--run", &run.id, "--json"])).unwrap();
    assert_eq!(
        unchanged["created"], false,
        "nothing changed: nothing written"
    );
    assert_eq!(unchanged["run_commit"], sha.as_str());

    write_file(&run.worktree.join("a.txt"), "v3\n");
    let done: Value =
        serde_json::from_str(&repo.checkpoint_with(&run.id, "two", &["--json"])).unwrap();
    assert_eq!(done["completed"], 2, "the snapshot did not count");
    assert_eq!(repo.log_json(&run.id).len(), 2);
    let all: Vec<Value> =
        serde_json::from_str(&repo.ok(&["log", &run.id, "--all", "--json"])).unwrap();
    assert_eq!(
        texts(&all, "status"),
        ["succeeded", "snapshot", "succeeded"]
    );
    assert_eq!(all[1]["snapshot"], "before write");
    assert!(
        repo.ok(&["log", &run.id, "--all"])
            .contains("snapshot: before write")
    );

    repo.ok(&["restore", "--run", &run.id, &sha[..9]]);
    assert_eq!(
        read_file(run.worktree.join("a.txt")),
        "v2 before a risky write\n"
    );
}

#[test]
fn snapshot_of_named_paths_only() {
    let (repo, run) = TestRepo::with_run();
    write_file(&run.worktree.join("a.txt"), "a\n");
    write_file(&run.worktree.join("b.txt"), "b\n");
    let sha = crate::common::run_ok(repo.fabro_in(&run.worktree).args(["snapshot", "a.txt"]))
        .trim()
        .to_owned();
    let files = repo.files_in(&sha);
    assert!(
        files.contains("a.txt") && !files.contains("b.txt"),
        "{files}"
    );
}

#[test]
fn a_snapshot_of_named_paths_keeps_the_index_vouching_for_its_tree() {
    // The hook before each file write snapshots one path; the next snapshot must not have to
    // compare the whole index with the tree again, nor miss what changed elsewhere.
    let (repo, run) = TestRepo::with_run();
    write_file(&run.worktree.join("a.txt"), "a\n");
    repo.checkpoint(&run.id, "plan");
    write_file(&run.worktree.join("a.txt"), "a2\n");
    write_file(&run.worktree.join("b.txt"), "b\n");
    let sha = crate::common::run_ok(repo.fabro_in(&run.worktree).args(["snapshot", "a.txt"]))
        .trim()
        .to_owned();
    let tree = repo.git(&["rev-parse", &format!("{sha}^{{tree}}")]);
    let index = repo.git_in(
        &run.worktree,
        &["rev-parse", "--path-format=absolute", "--git-path", "index"],
    );
    let stamp = std::fs::read_to_string(format!("{}.fabro-tree", index.trim())).unwrap_or_default();
    assert!(
        stamp.starts_with(tree.trim()),
        "stamp {stamp:?}, tree {tree}"
    );

    let next = repo.checkpoint(&run.id, "implement");
    let files = repo.files_in(&next);
    assert!(
        files.contains("a.txt") && files.contains("b.txt"),
        "{files}"
    );
    assert_eq!(repo.git(&["show", &format!("{next}:b.txt")]), "b\n");
}

#[test]
fn restore_last_success_skips_failed_checkpoints() {
    let (repo, run) = TestRepo::with_run();
    write_file(&run.worktree.join("a.txt"), "good\n");
    repo.checkpoint(&run.id, "one");
    write_file(&run.worktree.join("a.txt"), "bad\n");
    repo.checkpoint_with(&run.id, "two", &["--status", "failed"]);
    write_file(&run.worktree.join("a.txt"), "worse\n");
    repo.ok(&["restore", "--run", &run.id, "--last-success"]);
    assert_eq!(read_file(run.worktree.join("a.txt")), "good\n");
}

#[test]
fn snapshot_paths_are_relative_to_the_current_directory_once() {
    let (repo, run) = TestRepo::with_run();
    write_file(&run.worktree.join("sub/a.txt"), "a\n");
    write_file(&run.worktree.join("top.txt"), "top\n");
    let sub = run.worktree.join("sub");
    let sha = crate::common::run_ok(repo.fabro_in(&sub).args(["snapshot", "a.txt"]))
        .trim()
        .to_owned();
    let files = repo.files_in(&sha);
    assert!(
        files.contains("sub/a.txt") && !files.contains("top.txt"),
        "{files}"
    );
    let sha = crate::common::run_ok(repo.fabro_in(&sub).args(["snapshot", "../top.txt"]))
        .trim()
        .to_owned();
    let files = repo.files_in(&sha);
    assert!(files.contains("top.txt"), "{files}");
}

#[test]
fn a_snapshot_path_that_matches_nothing_is_refused() {
    let (repo, run) = TestRepo::with_run();
    write_file(&run.worktree.join("a.txt"), "a\n");
    let tip = repo.git(&["rev-parse", &format!("fabro/run/{}", run.id)]);
    let (code, err) = crate::common::run_err(repo.fabro_in(&run.worktree).args([
        "snapshot",
        "a.txt",
        "no-such-file",
    ]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("pathspec 'no-such-file' did not match"),
        "{err}"
    );
    assert_eq!(
        repo.git(&["rev-parse", &format!("fabro/run/{}", run.id)]),
        tip,
        "nothing was written"
    );
    // A tracked file that is unchanged, or deleted, still matches.
    crate::common::run_ok(repo.fabro_in(&run.worktree).args(["snapshot", "README.md"]));
    std::fs::remove_file(run.worktree.join("README.md")).unwrap();
    crate::common::run_ok(repo.fabro_in(&run.worktree).args(["snapshot", "README.md"]));
}

#[test]
fn file_names_that_are_not_utf8_are_kept_byte_for_byte() {
    use std::os::unix::ffi::OsStrExt;
    let (repo, run) = TestRepo::with_run();
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
    std::fs::write(run.worktree.join("sub").join(name), "x\n")
        .or_else(|_| {
            std::fs::create_dir_all(run.worktree.join("sub"))?;
            std::fs::write(run.worktree.join("sub").join(name), "x\n")
        })
        .unwrap();
    let sha = crate::common::run_ok(
        repo.fabro_in(&run.worktree.join("sub"))
            .arg("snapshot")
            .arg(name),
    )
    .trim()
    .to_owned();
    let listed = repo.git_output(&repo.path, &["ls-tree", "-r", "-z", "--name-only", &sha]);
    assert_eq!(listed.stdout, b"README.md\0src/lib.rs\0sub/caf\xe9.txt\0");

    std::fs::write(
        run.worktree.join(std::ffi::OsStr::from_bytes(b"\xff\xfe")),
        "y\n",
    )
    .unwrap();
    let sha = repo.checkpoint(&run.id, "one");
    let listed = repo.git_output(&repo.path, &["ls-tree", "-z", "--name-only", &sha]);
    assert_eq!(listed.stdout, b"README.md\0src\0sub\0\xff\xfe\0");
    let fsck = repo.git_output(&repo.path, &["fsck", "--strict"]);
    assert!(fsck.status.success());
    let status = repo.git_in(&run.worktree, &["status", "--porcelain"]);
    assert_eq!(status, "", "the worktree's index matches the commit");
}
