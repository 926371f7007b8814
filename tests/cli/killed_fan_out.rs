//! A run killed while a parallel branch works: the branch's worktree holds files no commit
//! has, and every command treats it as it treats a run's worktree. `fsck` names it, `gc`
//! keeps it, and `resume` runs the branch again in it rather than deleting it.

use std::path::{Path, PathBuf};

use crate::common::workflow::fan_out;
use crate::common::{TestRepo, assert_success};
use crate::engine_retry::{run, workflow};

/// Branch `k` writes `partial.txt`, then kills the engine the first time; run again (its
/// partial file still there) it finishes.
fn killed() -> String {
    let killed_once = "if [ ! -e partial.txt ]; then echo partial > partial.txt; kill -9 $PPID; sleep 5; fi; echo done > done.txt";
    fan_out("killed", &[("a", "echo A > a.txt"), ("k", killed_once)])
}

/// Runs the workflow until the branch kills it; returns the run id and `k`'s worktree.
fn killed_in_a_branch(repo: &TestRepo) -> (String, PathBuf) {
    let ran = run(repo, &workflow(repo, "killed", &killed()));
    assert_ne!(ran.code, 0, "the branch kills the engine: {}", ran.stderr);
    let id = repo
        .git(&[
            "for-each-ref",
            "--format=%(refname:lstrip=4)",
            "refs/heads/fabro/meta/",
        ])
        .trim()
        .to_owned();
    let worktrees = repo.git(&["worktree", "list", "--porcelain"]);
    let k = worktrees
        .lines()
        .filter_map(|l| l.strip_prefix("worktree "))
        .map(PathBuf::from)
        .find(|p| p.ends_with("fork-pass1/k"))
        .unwrap_or_else(|| panic!("k's worktree is left: {worktrees}"));
    assert!(k.join("partial.txt").exists());
    (id, k)
}

fn partial(worktree: &Path) -> String {
    std::fs::read_to_string(worktree.join("partial.txt")).unwrap_or_default()
}

#[test]
fn fsck_names_a_branch_worktree_holding_work_and_gc_keeps_it() {
    let repo = TestRepo::new();
    let (id, k) = killed_in_a_branch(&repo);
    let fsck = repo.output(&["fsck", &id]);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&fsck.stdout),
        String::from_utf8_lossy(&fsck.stderr)
    );
    assert!(
        said.contains(k.to_str().unwrap()) && said.contains("partial.txt"),
        "{said}"
    );
    repo.ok(&["archive", &id]);
    let gc = repo.ok(&["gc", "--older-than", "0", "--json"]);
    assert_eq!(partial(&k), "partial\n", "{gc}");
    assert!(gc.contains("partial.txt"), "{gc}");
    // The run stays, with the branch the worktree is on.
    assert!(
        !repo
            .git(&["branch", "--list", &format!("fabro/meta/{id}")])
            .is_empty()
    );
    repo.git(&["fsck", "--strict"]);
}

#[test]
fn resume_runs_a_killed_branch_again_in_its_worktree_keeping_its_files() {
    let repo = TestRepo::new();
    let (id, k) = killed_in_a_branch(&repo);
    let out = repo.output(&["resume", &id]);
    assert_success(&out);
    let branch = format!("fabro/run/parallel/{id}/fork/pass1/k");
    assert_eq!(
        repo.git(&["show", &format!("{branch}:partial.txt")]),
        "partial\n"
    );
    assert_eq!(repo.git(&["show", &format!("{branch}:done.txt")]), "done\n");
    // Everything it held is in its commit now, so the worktree went.
    assert!(!k.exists());
    repo.git(&["fsck", "--strict"]);
}
