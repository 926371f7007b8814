use serde_json::Value;

use crate::common::{TestRepo, write_file};

#[test]
fn snapshots_complete_no_node_and_are_restore_targets() {
    let repo = TestRepo::new();
    let run = repo.start();
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
    let done: Value = serde_json::from_str(&repo.ok(&[
        "checkpoint",
        "--run",
        &run.id,
        "--node",
        "two",
        "--json",
    ]))
    .unwrap();
    assert_eq!(done["completed"], 2, "the snapshot did not count");
    assert_eq!(repo.log_json(&run.id).len(), 2);
    let all: Vec<Value> =
        serde_json::from_str(&repo.ok(&["log", &run.id, "--all", "--json"])).unwrap();
    let kinds: Vec<String> = all
        .iter()
        .map(|e| e["status"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(kinds, ["succeeded", "snapshot", "succeeded"]);
    assert_eq!(all[1]["snapshot"], "before write");
    assert!(
        repo.ok(&["log", &run.id, "--all"])
            .contains("snapshot: before write")
    );

    repo.ok(&["restore", "--run", &run.id, &sha[..9]]);
    assert_eq!(
        std::fs::read_to_string(run.worktree.join("a.txt")).unwrap(),
        "v2 before a risky write\n"
    );
}

#[test]
fn snapshot_of_named_paths_only() {
    let repo = TestRepo::new();
    let run = repo.start();
    write_file(&run.worktree.join("a.txt"), "a\n");
    write_file(&run.worktree.join("b.txt"), "b\n");
    let sha = crate::common::run_ok(repo.fabro_in(&run.worktree).args(["snapshot", "a.txt"]))
        .trim()
        .to_owned();
    let files = repo.git(&["ls-tree", "-r", "--name-only", &sha]);
    assert!(
        files.contains("a.txt") && !files.contains("b.txt"),
        "{files}"
    );
}

#[test]
fn restore_last_success_skips_failed_checkpoints() {
    let repo = TestRepo::new();
    let run = repo.start();
    write_file(&run.worktree.join("a.txt"), "good\n");
    repo.checkpoint(&run.id, "one");
    write_file(&run.worktree.join("a.txt"), "bad\n");
    repo.ok(&[
        "checkpoint",
        "--run",
        &run.id,
        "--node",
        "two",
        "--status",
        "failed",
    ]);
    write_file(&run.worktree.join("a.txt"), "worse\n");
    repo.ok(&["restore", "--run", &run.id, "--last-success"]);
    assert_eq!(
        std::fs::read_to_string(run.worktree.join("a.txt")).unwrap(),
        "good\n"
    );
}
