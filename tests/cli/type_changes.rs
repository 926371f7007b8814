//! A path that changes kind between checkpoints (a symlink or a file that becomes a directory,
//! a directory that becomes a symlink): the next checkpoint records what is on disk, exactly
//! the tree plain git's `add -A` makes of the same worktree.

use std::os::unix::fs::symlink;
use std::path::Path;

use crate::common::{TestRepo, assert_success, write_file};

/// The tree `git add -A && git write-tree` makes of the worktree, with an index of its own.
fn git_tree_of(repo: &TestRepo, worktree: &Path) -> String {
    let index = repo.root.join("plain-git-index");
    let _ = std::fs::remove_file(&index);
    let git = |args: &[&str]| {
        let out = repo
            .command("git")
            .args(args)
            .current_dir(worktree)
            .env("GIT_INDEX_FILE", &index)
            .output()
            .unwrap();
        assert_success(&out);
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    git(&["add", "-A"]);
    git(&["write-tree"])
}

/// Checkpoints `node` and checks the run commit's tree against plain git's, and that git sees
/// nothing left to commit in the worktree.
fn checkpoint_agrees(repo: &TestRepo, id: &str, worktree: &Path, node: &str) {
    repo.checkpoint(id, node);
    let ours = repo.git(&["rev-parse", &format!("fabro/run/{id}^{{tree}}")]);
    let listing = repo.git(&["ls-tree", "-r", &format!("fabro/run/{id}")]);
    let theirs = git_tree_of(repo, worktree);
    let theirs_listing = repo.git(&["ls-tree", "-r", &theirs]);
    assert_eq!(ours.trim(), theirs, "{listing}\n---\n{theirs_listing}");
    assert_eq!(repo.git_in(worktree, &["status", "--porcelain"]), "");
    assert!(
        repo.git_output(&repo.path, &["fsck", "--strict"])
            .status
            .success()
    );
}

#[test]
fn a_symlink_replaced_by_a_directory_records_the_files_inside() {
    let (repo, run) = TestRepo::with_run();
    symlink("README.md", run.worktree.join("link")).unwrap();
    checkpoint_agrees(&repo, &run.id, &run.worktree, "a");
    std::fs::remove_file(run.worktree.join("link")).unwrap();
    write_file(&run.worktree.join("link/inside.txt"), "inside\n");
    checkpoint_agrees(&repo, &run.id, &run.worktree, "b");
    let listing = repo.files_in(&format!("fabro/run/{}", run.id));
    assert!(listing.contains("link/inside.txt\n"), "{listing}");
    // And a later checkpoint keeps following changes inside it.
    write_file(&run.worktree.join("link/inside.txt"), "changed\n");
    checkpoint_agrees(&repo, &run.id, &run.worktree, "c");
}

#[test]
fn a_directory_replaced_by_a_symlink_records_the_link() {
    let (repo, run) = TestRepo::with_run();
    write_file(&run.worktree.join("dir/a.txt"), "a\n");
    write_file(&run.worktree.join("dir/sub/b.txt"), "b\n");
    checkpoint_agrees(&repo, &run.id, &run.worktree, "a");
    std::fs::remove_dir_all(run.worktree.join("dir")).unwrap();
    symlink("src", run.worktree.join("dir")).unwrap();
    checkpoint_agrees(&repo, &run.id, &run.worktree, "b");
    let mode = repo.git(&["ls-tree", &format!("fabro/run/{}", run.id), "dir"]);
    assert!(mode.starts_with("120000 "), "{mode}");
}

#[test]
fn a_file_replaced_by_a_directory_records_the_files_inside() {
    let (repo, run) = TestRepo::with_run();
    write_file(&run.worktree.join("thing"), "a file\n");
    checkpoint_agrees(&repo, &run.id, &run.worktree, "a");
    std::fs::remove_file(run.worktree.join("thing")).unwrap();
    write_file(&run.worktree.join("thing/inside.txt"), "inside\n");
    checkpoint_agrees(&repo, &run.id, &run.worktree, "b");
    // And back: the directory becomes a file again.
    std::fs::remove_dir_all(run.worktree.join("thing")).unwrap();
    write_file(&run.worktree.join("thing"), "a file again\n");
    checkpoint_agrees(&repo, &run.id, &run.worktree, "c");
}
