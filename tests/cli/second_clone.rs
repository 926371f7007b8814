//! Two clones of one repository on one machine share the fabro home. A run fetched into the
//! second clone gets a run directory of its own there; the first clone's directory of the
//! same run is never reused, held or removed by commands of the second.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{TestRepo, read_file, run_ok, tree_digest, write_file};

/// A bare remote, and a second clone of the test repository that fetched `run` from it.
fn second_clone_with(repo: &TestRepo, run: &str) -> PathBuf {
    let bare = repo.root.join("remote.git");
    repo.git(&["clone", "-q", "--bare", path(&repo.path), path(&bare)]);
    repo.git(&["remote", "add", "origin", path(&bare)]);
    repo.ok(&["push", "origin", run]);
    let other = repo.root.join("other");
    repo.git(&["clone", "-q", path(&bare), path(&other)]);
    repo.git_in(&other, &["config", "user.name", "Other"]);
    repo.git_in(&other, &["config", "user.email", "other@example.com"]);
    run_ok(repo.fabro_in(&other).args(["fetch"]));
    other
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_run_resumes_in_a_second_clone_with_its_own_run_directory() {
    let (repo, run) = TestRepo::with_run();
    write_file(&run.worktree.join("a.txt"), "from clone one\n");
    repo.checkpoint(&run.id, "plan");
    write_file(&run.worktree.join("wip.txt"), "not checkpointed\n");
    let other = second_clone_with(&repo, &run.id);
    let first = tree_digest(&run.run_dir);

    let state: Value =
        serde_json::from_str(&run_ok(repo.fabro_in(&other).args(["resume", &run.id]))).unwrap();
    let run_dir = PathBuf::from(state["run_dir"].as_str().unwrap());
    let worktree = PathBuf::from(state["worktree"].as_str().unwrap());
    assert_ne!(run_dir, run.run_dir);
    assert_eq!(state["dirty"], false);
    assert_eq!(read_file(worktree.join("a.txt")), "from clone one\n");
    assert_eq!(
        tree_digest(&run.run_dir),
        first,
        "the first clone's run directory changed"
    );

    // Later commands of each clone find that clone's own directory.
    write_file(&worktree.join("b.txt"), "from clone two\n");
    run_ok(
        repo.fabro_in(&other)
            .args(["checkpoint", "--run", &run.id, "--node", "code"]),
    );
    let again: Value =
        serde_json::from_str(&run_ok(repo.fabro_in(&other).args(["resume", &run.id]))).unwrap();
    assert_eq!(again["run_dir"], state["run_dir"]);
    let here: Value = serde_json::from_str(&repo.ok(&["resume", &run.id])).unwrap();
    assert_eq!(Path::new(here["run_dir"].as_str().unwrap()), run.run_dir);
    assert_eq!(
        here["dirty"], true,
        "the first clone's uncheckpointed file is still there"
    );
    assert!(run.worktree.join("wip.txt").exists());
}

#[test]
fn commands_of_a_second_clone_never_touch_the_first_clones_run_directory() {
    let (repo, run) = TestRepo::with_run();
    write_file(&run.worktree.join("a.txt"), "a\n");
    repo.checkpoint(&run.id, "plan");
    write_file(&run.worktree.join("wip.txt"), "not checkpointed\n");
    let other = second_clone_with(&repo, &run.id);
    // The first clone's run is held: the second clone's copy is not.
    std::fs::write(
        run.run_dir.join("run.pid"),
        format!("{}\n", std::process::id()),
    )
    .unwrap();
    let first = tree_digest(&run.run_dir);

    run_ok(repo.fabro_in(&other).args(["archive", &run.id]));
    run_ok(repo.fabro_in(&other).args(["gc", "--older-than", "0"]));
    run_ok(repo.fabro_in(&other).args(["fsck", "--repair"]));
    assert_eq!(
        tree_digest(&run.run_dir),
        first,
        "the first clone's run directory changed"
    );
    assert!(run.worktree.join("wip.txt").exists());
}
