//! git-fabro never throws work away: `finish` keeps a worktree that holds anything the final
//! commit does not (ignored, excluded and oversized files too), and a snapshot of some paths
//! leaves what `git add` staged elsewhere for the next checkpoint.

use serde_json::Value;

use crate::common::{TestRepo, assert_success, read_file, run_ok, write_file};

fn finish_json(repo: &TestRepo, id: &str) -> (Value, String) {
    let out = repo.output(&["finish", "--run", id, "--json"]);
    assert_success(&out);
    (
        serde_json::from_slice(&out.stdout).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn finish_keeps_a_worktree_with_ignored_excluded_or_oversized_files() {
    let repo = TestRepo::ignoring("*.log\n");
    repo.git(&["config", "fabro.excludeGlob", "scratch/"]);
    repo.git(&["config", "fabro.maxFileSize", "1k"]);
    let cases = [
        ("debug.log", "ignored"),
        ("scratch/notes.txt", "excluded"),
        ("big.bin", "too-large"),
    ];
    for (path, why) in cases {
        let run = repo.start();
        write_file(&run.worktree.join("src/lib.rs"), "pub fn g() {}\n");
        repo.checkpoint(&run.id, "code");
        write_file(&run.worktree.join(path), &"x".repeat(2048));
        let (done, stderr) = finish_json(&repo, &run.id);
        assert_eq!(done["worktree_removed"], false, "{path}: {done}");
        assert_eq!(done["unrecorded_count"], 1, "{path}: {done}");
        // An excluded or ignored directory is named whole.
        let named = done["unrecorded_files"][0]["path"].as_str().unwrap();
        assert!(path.starts_with(named), "{path}: {done}");
        assert_eq!(done["unrecorded_files"][0]["why"], why, "{done}");
        assert!(
            stderr.contains("kept the worktree") && stderr.contains(named),
            "{stderr}"
        );
        assert_eq!(read_file(run.worktree.join(path)), "x".repeat(2048));
    }
}

#[test]
fn finish_removes_a_worktree_that_holds_only_what_the_final_commit_holds() {
    let (repo, run) = TestRepo::with_run();
    write_file(&run.worktree.join("new.txt"), "new\n");
    repo.checkpoint(&run.id, "code");
    // Directories hold nothing to lose, ignored or not.
    std::fs::create_dir_all(run.worktree.join("target/debug")).unwrap();
    let (done, _) = finish_json(&repo, &run.id);
    assert_eq!(done["worktree_removed"], true, "{done}");
    assert_eq!(done["unrecorded_count"], 0);
    assert!(!run.worktree.exists());
}

#[test]
fn a_snapshot_of_some_paths_leaves_a_staged_change_for_the_next_checkpoint() {
    let (repo, run) = TestRepo::with_run();
    repo.checkpoint(&run.id, "one");
    // The agent stages one file, and a harness snapshots another before touching it.
    write_file(&run.worktree.join("staged.txt"), "staged by the agent\n");
    repo.git_in(&run.worktree, &["add", "staged.txt"]);
    write_file(&run.worktree.join("named.txt"), "named\n");
    run_ok(
        repo.fabro_in(&run.worktree)
            .args(["snapshot", "--run", &run.id, "named.txt"]),
    );
    let tip = repo.checkpoint(&run.id, "two");
    assert_eq!(
        repo.git(&["show", &format!("{tip}:staged.txt")]),
        "staged by the agent\n"
    );
    let (done, _) = finish_json(&repo, &run.id);
    assert_eq!(done["worktree_removed"], true, "{done}");
}

#[test]
fn finish_keeps_a_worktree_whose_staged_change_no_checkpoint_took() {
    let (repo, run) = TestRepo::with_run();
    repo.checkpoint(&run.id, "one");
    write_file(&run.worktree.join("staged.txt"), "staged\n");
    repo.git_in(&run.worktree, &["add", "staged.txt"]);
    write_file(&run.worktree.join("named.txt"), "named\n");
    run_ok(
        repo.fabro_in(&run.worktree)
            .args(["snapshot", "--run", &run.id, "named.txt"]),
    );
    let (done, stderr) = finish_json(&repo, &run.id);
    assert_eq!(done["worktree_removed"], false, "{done}");
    assert!(stderr.contains("staged.txt"), "{stderr}");
    assert!(run.worktree.join("staged.txt").is_file());
}
