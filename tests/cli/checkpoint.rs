use serde_json::Value;

use crate::common::failpoints::die_at;
use crate::common::{Started, TestRepo, read_file, run_err, run_ok, write_file};
use crate::fsck::run_with_its_directory_elsewhere;

#[test]
fn three_checkpoints_including_a_second_visit() {
    let (repo, run) = TestRepo::with_run();
    write_file(&run.worktree.join("plan.md"), "the plan\n");
    repo.checkpoint(&run.id, "plan");
    write_file(&run.worktree.join("src/lib.rs"), "pub fn f() { todo!() }\n");
    repo.checkpoint_with(&run.id, "code", &["--status", "fail", "--next", "plan"]);
    std::fs::remove_file(run.worktree.join("plan.md")).unwrap();
    let out = repo.checkpoint_with(&run.id, "plan", &["--json"]);
    let done: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(done["node_id"], "plan");
    assert_eq!(done["visit"], 2);
    assert_eq!(done["ordinal"], 3);
    assert_eq!(done["completed"], 3);
    assert_eq!(done["run_id"], run.id.as_str());
    let tip = repo.git(&["rev-parse", &format!("fabro/run/{}", run.id)]);
    assert_eq!(done["run_commit"].as_str().unwrap(), tip.trim());

    let log = repo.log_json(&run.id);
    let stages: Vec<String> = log
        .iter()
        .map(|e| format!("{}@{} {}", e["node_id"], e["visit"], e["status"]).replace('"', ""))
        .collect();
    assert_eq!(
        stages,
        ["plan@1 succeeded", "code@1 failed", "plan@2 succeeded"]
    );

    // The run commits hold the worktree's files at each moment.
    let files = |rev: &str| repo.files_in(rev);
    assert!(files(&format!("fabro/run/{}~2", run.id)).contains("plan.md"));
    assert!(!files(&format!("fabro/run/{}", run.id)).contains("plan.md"));
    assert_eq!(
        repo.git(&["show", &format!("fabro/run/{}~1:src/lib.rs", run.id)]),
        "pub fn f() { todo!() }\n"
    );

    // The metadata branch has one commit per checkpoint with the stage's status.json.
    let meta = format!("fabro/meta/{}", run.id);
    let subjects = repo.git(&["log", "--format=%s", &meta]);
    assert_eq!(
        subjects.lines().collect::<Vec<_>>(),
        [
            "checkpoint plan@2 (succeeded)",
            "checkpoint code@1 (failed)",
            "checkpoint plan@1 (succeeded)",
            "init run"
        ]
    );
    let status: Value = serde_json::from_str(
        &repo.git(&["show", &format!("{meta}:stages/002-code@1/status.json")]),
    )
    .unwrap();
    assert_eq!(status["outcome"], "failed", "Fabro's StageCompletion");
    assert_eq!(status["next_node_id"], "plan");
    let run_json: Value =
        serde_json::from_str(&repo.git(&["show", &format!("{meta}:run.json")])).unwrap();
    let cp = &run_json["checkpoint"];
    assert_eq!(cp["current_node"], "plan");
    assert_eq!(
        cp["completed_nodes"],
        serde_json::json!(["plan", "code", "plan"])
    );
    assert_eq!(cp["node_visits"]["plan"], 2);
    assert_eq!(cp["node_outcomes"]["code"]["status"], "failed");
    assert_eq!(
        cp["git_tree_sha"].as_str().unwrap(),
        repo.git(&["rev-parse", &format!("fabro/run/{}^{{tree}}", run.id)])
            .trim()
    );
}

#[test]
fn the_run_commit_message_is_byte_for_byte_the_format() {
    let (repo, run) = TestRepo::with_run();
    let sha = repo.checkpoint(&run.id, "plan");
    let meta = repo.git(&["rev-parse", &format!("fabro/meta/{}", run.id)]);
    let raw = repo.git(&["cat-file", "commit", &sha]);
    let message = raw.split_once("\n\n").unwrap().1;
    let expected = format!(
        "fabro({id}): plan (succeeded)\n\nFabro-Run: {id}\nFabro-Completed: 1\nFabro-Checkpoint: {meta}\n",
        id = run.id,
        meta = meta.trim()
    );
    assert_eq!(message, expected);
    assert!(raw.contains("author Fabro <noreply@fabro.sh>"), "{raw}");
    assert!(raw.contains("committer Fabro <noreply@fabro.sh>"), "{raw}");
}

#[test]
fn a_checkpoint_with_nothing_changed_still_adds_one_commit() {
    let (repo, run) = TestRepo::with_run();
    repo.checkpoint(&run.id, "a");
    repo.checkpoint(&run.id, "b");
    let branch = format!("fabro/run/{}", run.id);
    assert_eq!(
        repo.git(&["rev-list", "--count", &format!("main..{branch}")])
            .trim(),
        "2"
    );
    assert_eq!(
        repo.git(&["rev-parse", &format!("{branch}^{{tree}}")]),
        repo.git(&["rev-parse", "main^{tree}"])
    );
}

#[test]
fn the_snapshot_is_what_git_add_all_would_commit() {
    let repo = TestRepo::ignoring("*.log\n");
    let run = repo.start();
    let wt = &run.worktree;
    write_file(&wt.join("src/lib.rs"), "changed\n");
    write_file(&wt.join("docs/deep/nested/new.md"), "new\n");
    write_file(&wt.join("debug.log"), "ignored\n");
    std::fs::remove_file(wt.join("README.md")).unwrap();
    write_file(&wt.join("run.sh"), "#!/bin/sh\n");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(wt.join("run.sh"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
        std::os::unix::fs::symlink("src/lib.rs", wt.join("link")).unwrap();
    }
    repo.checkpoint(&run.id, "build");
    let status = repo.git_in(wt, &["status", "--porcelain", "--untracked-files=no"]);
    assert_eq!(status, "", "the worktree's index matches the new HEAD");
    repo.git_in(wt, &["add", "-A"]);
    assert_eq!(
        repo.git_in(wt, &["write-tree"]),
        repo.git_in(wt, &["rev-parse", "HEAD^{tree}"])
    );
    let tree = repo.git_in(wt, &["ls-tree", "-r", "HEAD"]);
    assert!(
        tree.contains("100755 blob") && tree.contains("run.sh"),
        "{tree}"
    );
    assert!(!tree.contains("debug.log"));
    #[cfg(unix)]
    assert!(
        tree.contains("120000 blob") && tree.contains("link"),
        "{tree}"
    );
}

#[test]
fn excluded_directories_and_configured_globs_are_never_staged() {
    let repo = TestRepo::new();
    write_file(
        &repo.root.join("run.toml"),
        "[checkpoint]\nexclude_globs = [\"*.tmp\", \"scratch/\"]\n",
    );
    let out = repo.ok(&["start", "--config", "../run.toml", "--json"]);
    let started: Value = serde_json::from_str(&out).unwrap();
    let id = started["run_id"].as_str().unwrap();
    let wt = std::path::PathBuf::from(started["worktree"].as_str().unwrap());
    for path in [
        "node_modules/a/index.js",
        "pkg/node_modules/b.js",
        "target/debug/x",
        ".venv/bin/python",
        "a/__pycache__/m.pyc",
        "dist/out.js",
        "notes.tmp",
        "scratch/s.txt",
        "kept.txt",
    ] {
        write_file(&wt.join(path), "x\n");
    }
    repo.checkpoint(id, "build");
    let files = repo.files_in(&format!("fabro/run/{id}"));
    assert_eq!(
        files.lines().collect::<Vec<_>>(),
        ["README.md", "kept.txt", "src/lib.rs"]
    );
    let run_toml = repo.git(&["show", &format!("fabro/meta/{id}:run.toml")]);
    assert!(run_toml.contains("exclude_globs"));
}

#[test]
fn settings_toml_globs_apply_when_the_run_has_none() {
    let repo = TestRepo::new();
    repo.write_settings("[checkpoint]\nexclude_globs = [\"*.bak\"]\n");
    let run = repo.start();
    write_file(&run.worktree.join("a.bak"), "x\n");
    write_file(&run.worktree.join("a.txt"), "x\n");
    repo.checkpoint(&run.id, "n");
    let files = repo.files_in(&format!("fabro/run/{}", run.id));
    assert!(
        files.contains("a.txt") && !files.contains("a.bak"),
        "{files}"
    );
}

#[test]
fn the_run_is_found_from_the_worktree_and_from_the_environment() {
    let (repo, run) = TestRepo::with_run();
    write_file(&run.worktree.join("src/inner.rs"), "x\n");
    run_ok(
        repo.fabro_in(&run.worktree.join("src"))
            .args(["checkpoint", "--node", "inside"]),
    );
    run_ok(
        repo.fabro()
            .env("FABRO_RUN_ID", &run.id)
            .args(["checkpoint", "--node", "from-env"]),
    );
    let log = repo.log_json(&run.id);
    assert_eq!(log.len(), 2);
    let (code, err) = run_err(repo.fabro().args(["checkpoint", "--node", "x"]));
    assert_eq!(code, 2);
    assert!(err.contains("hint:"), "{err}");
}

#[test]
fn checkpoint_keeps_the_run_directory_current() {
    let (repo, run) = TestRepo::with_run();
    write_file(&repo.root.join("prompt.txt"), "do the thing\n");
    repo.checkpoint_with(
        &run.id,
        "plan",
        &[
            "--attach",
            "prompt.md=../prompt.txt",
            "--context",
            "goal=\"x\"",
        ],
    );
    let sha = repo.checkpoint(&run.id, "plan");
    let latest: Value =
        serde_json::from_slice(&std::fs::read(run.run_dir.join("checkpoint.json")).unwrap())
            .unwrap();
    assert_eq!(latest["git_commit_sha"], sha.as_str());
    assert_eq!(latest["context_values"]["goal"], "x");
    let live: Value =
        serde_json::from_slice(&std::fs::read(run.run_dir.join("live.json")).unwrap()).unwrap();
    assert_eq!(live["completed"], 2);
    assert_eq!(live["run_commit"], sha.as_str());
    let progress = read_file(run.run_dir.join("progress.jsonl"));
    let events: Vec<Value> = progress
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(events.len(), 3);
    assert_eq!(events[0]["event"], "run.started");
    assert_eq!(events[2]["event"], "checkpoint.completed");
    assert!(run.run_dir.join("nodes/plan/status.json").is_file());
    assert_eq!(
        read_file(run.run_dir.join("nodes/plan/prompt.md")),
        "do the thing\n"
    );
    assert!(run.run_dir.join("nodes/plan-visit_2/status.json").is_file());
    let meta = format!("fabro/meta/{}", run.id);
    assert_eq!(
        repo.git(&["show", &format!("{meta}:stages/001-plan@1/prompt.md")]),
        "do the thing\n"
    );
}

#[test]
fn checkpoint_works_when_the_run_directory_is_gone() {
    let (repo, id, dir) = run_with_its_directory_elsewhere();
    for name in ["manifest.json", "live.json", "progress.jsonl"] {
        std::fs::remove_file(dir.join(name)).unwrap();
    }
    repo.checkpoint(&id, "n");
    assert_eq!(repo.log_json(&id).len(), 1);
}

#[test]
fn a_metadata_commit_left_by_a_killed_process_is_not_counted() {
    let (repo, run) = TestRepo::with_run();
    repo.checkpoint(&run.id, "a");
    repo.leave_dangling_metadata(&run.id);
    let meta = format!("refs/heads/fabro/meta/{}", run.id);
    let out = repo.checkpoint_with(&run.id, "b", &["--json"]);
    let done: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(done["completed"], 2, "the lost checkpoint is not counted");
    let log = repo.log_json(&run.id);
    assert_eq!(
        log.iter()
            .map(|e| e["node_id"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["a", "b"]
    );
    let run_json: Value =
        serde_json::from_str(&repo.git(&["show", &format!("{meta}:run.json")])).unwrap();
    assert_eq!(
        run_json["checkpoint"]["completed_nodes"],
        serde_json::json!(["a", "b"])
    );
}

#[test]
fn changes_staged_with_git_add_after_a_checkpoint_are_taken() {
    let (repo, run) = TestRepo::with_run();
    repo.checkpoint(&run.id, "one");
    // The agent stages a file with git itself: the index now differs from the run's tip while
    // the work tree equals the index, so only comparing the index with the tip shows it.
    write_file(&run.worktree.join("staged.txt"), "staged by the agent\n");
    repo.git_in(&run.worktree, &["add", "staged.txt"]);
    let sha = repo.checkpoint(&run.id, "two");
    assert_eq!(
        repo.git(&["show", &format!("{sha}:staged.txt")]),
        "staged by the agent\n"
    );
    assert_eq!(repo.git_in(&run.worktree, &["status", "--porcelain"]), "");
}

/// A run whose checkpoint of a deleted README.md was killed after its refs moved, before it
/// wrote the worktree's index: the worktree's index is still the one before.
pub fn killed_before_its_index() -> (TestRepo, Started) {
    let (repo, run) = TestRepo::with_run();
    std::fs::remove_file(run.worktree.join("README.md")).unwrap();
    let checkpoint = ["checkpoint", "--run", &run.id, "--node", "gone"];
    die_at(repo.fabro().args(checkpoint), "checkpoint:refs-moved");
    (repo, run)
}

/// A checkpoint killed after its refs moved but before it wrote the worktree's index leaves
/// the previous index: the next checkpoint must still record what is on disk, a deleted file
/// deleted, not the index's stale copy of it.
#[test]
fn after_a_checkpoint_killed_before_its_index_a_deleted_file_stays_deleted() {
    let (repo, run) = killed_before_its_index();
    repo.checkpoint(&run.id, "next");
    let files = repo.files_in(&format!("fabro/run/{}", run.id));
    assert_eq!(files, "src/lib.rs\n");
}
