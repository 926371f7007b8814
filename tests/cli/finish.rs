use serde_json::Value;

use crate::checkpoint::killed_before_its_index;
use crate::common::{TestRepo, read_file, write_file};

#[test]
fn finish_writes_the_conclusion_and_removes_the_worktree() {
    let (repo, run) = TestRepo::with_run();
    write_file(&run.worktree.join("src/lib.rs"), "pub fn f() { 1 }\n");
    write_file(&run.worktree.join("new.txt"), "new\n");
    let tip = repo.checkpoint(&run.id, "code");
    let before = repo.user_state();
    let out = repo.ok(&["finish", "--run", &run.id, "--json"]);
    let done: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(done["status"], "succeeded");
    assert_eq!(done["final_git_commit_sha"], tip.as_str());
    assert_eq!(done["worktree_removed"], true);
    assert!(!run.worktree.exists());
    assert!(!repo.git(&["worktree", "list"]).contains(&run.id));

    let meta = format!("fabro/meta/{}", run.id);
    assert!(
        repo.git(&["log", "-1", "--format=%s", &meta])
            .starts_with("finalize run")
    );
    let run_json: Value =
        serde_json::from_str(&repo.git(&["show", &format!("{meta}:run.json")])).unwrap();
    assert_eq!(run_json["status"]["kind"], "succeeded");
    assert_eq!(run_json["conclusion"]["final_git_commit_sha"], tip.as_str());

    let conclusion: Value =
        serde_json::from_slice(&std::fs::read(run.run_dir.join("conclusion.json")).unwrap())
            .unwrap();
    assert_eq!(conclusion["status"], "succeeded");
    assert!(conclusion["duration_ms"].is_u64());
    let patch = read_file(run.run_dir.join("final.patch"));
    let base = repo.git(&["rev-parse", "main"]);
    assert_eq!(patch, repo.git(&["diff", "--no-color", base.trim(), &tip]));
    assert_eq!(repo.user_state(), before);
    let ps: Vec<Value> = serde_json::from_str(&repo.ok(&["ps", "--json"])).unwrap();
    assert_eq!(ps[0]["status"], "succeeded");
}

#[test]
fn finish_failed_with_a_reason_and_keep_worktree() {
    let (repo, run) = TestRepo::with_run();
    repo.ok(&[
        "finish",
        "--run",
        &run.id,
        "--status",
        "failed",
        "--reason",
        "tests broke",
        "--keep-worktree",
    ]);
    assert!(run.worktree.is_dir());
    let run_json: Value =
        serde_json::from_str(&repo.git(&["show", &format!("fabro/meta/{}:run.json", run.id)]))
            .unwrap();
    assert_eq!(run_json["status"]["kind"], "failed");
    assert_eq!(run_json["conclusion"]["failure_reason"], "tests broke");
    // A finished run takes no more checkpoints.
    let out = repo.output(&["checkpoint", "--run", &run.id, "--node", "late"]);
    assert_eq!(out.status.code(), Some(1));
    // Finishing again the same way completes the job without a second commit.
    let count = |r: &TestRepo| r.git(&["rev-list", "--count", &format!("fabro/meta/{}", run.id)]);
    let before = count(&repo);
    repo.ok(&["finish", "--run", &run.id, "--status", "failed"]);
    assert_eq!(count(&repo), before);
    assert!(!run.worktree.exists());
}

#[test]
fn finish_keeps_a_worktree_with_work_no_checkpoint_holds() {
    let (repo, run) = TestRepo::with_run();
    write_file(&run.worktree.join("unsaved.txt"), "precious\n");
    let out = repo.output(&["finish", "--run", &run.id]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("kept the worktree"));
    assert_eq!(read_file(run.worktree.join("unsaved.txt")), "precious\n");
}

/// A checkpoint killed after its refs moved but before it wrote the worktree's index leaves
/// the previous index: what it holds is the previous run commit's, so finish loses nothing by
/// removing the worktree and does not call it staged work.
#[test]
fn finish_after_a_checkpoint_killed_before_its_index_removes_the_worktree() {
    let (repo, run) = killed_before_its_index();
    let out = repo.output(&["finish", &run.id]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("staged"), "{err}");
    assert!(!run.worktree.exists(), "{err}");
}
