//! A checkpoint with nothing changed finds that out from the index's stat data, as `git add -A`
//! does, and then writes only its commits: no index and no blob the repository already has.
//! What it records stays what git would record.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::common::{TestRepo, write_file};
use crate::engine_run::{run, workflow};

/// The file's identity on disk: a rewrite (a new file renamed over it) changes its inode.
fn identity(path: &Path) -> (u64, i64, i64) {
    let meta = std::fs::metadata(path).expect("the file exists");
    (meta.ino(), meta.mtime(), meta.mtime_nsec())
}

fn index_of(repo: &TestRepo, worktree: &Path) -> PathBuf {
    let path = repo.git_in(worktree, &["rev-parse", "--git-path", "index"]);
    worktree.join(path.trim())
}

/// Every file of the worktree dated an hour back, so that none is racily clean (changed within
/// the tick the index was written in), which would make a checkpoint write the index anyway.
fn age_files(repo: &TestRepo, worktree: &Path) {
    let files = repo.git_in(worktree, &["ls-files", "-z"]);
    for file in files.split('\0').filter(|f| !f.is_empty()) {
        let status = std::process::Command::new("touch")
            .args(["-m", "-d", "1 hour ago"])
            .arg(worktree.join(file))
            .status()
            .expect("touch runs");
        assert!(status.success());
    }
}

#[test]
fn a_checkpoint_with_nothing_changed_leaves_the_index_as_it_was() {
    let (repo, run) = TestRepo::with_run();
    age_files(&repo, &run.worktree);
    // This one records the new stat data.
    repo.checkpoint(&run.id, "a");
    let index = index_of(&repo, &run.worktree);
    let before = identity(&index);

    let commit = repo.checkpoint(&run.id, "b");

    assert_eq!(identity(&index), before, "the index was written again");
    let branch = format!("fabro/run/{}", run.id);
    assert_eq!(repo.git(&["rev-parse", &branch]).trim(), commit);
    assert_eq!(
        repo.git(&["rev-parse", &format!("{branch}^{{tree}}")]),
        repo.git(&["rev-parse", "main^{tree}"])
    );
    assert_eq!(
        repo.git_in(&run.worktree, &["status", "--porcelain"]),
        "",
        "git status agrees that nothing changed"
    );

    // The index left as it was still vouches only for what it describes: a change is found.
    write_file(&run.worktree.join("src/lib.rs"), "pub fn f() { todo!() }\n");
    repo.checkpoint(&run.id, "c");
    assert_eq!(
        repo.git(&["show", &format!("{branch}:src/lib.rs")]),
        "pub fn f() { todo!() }\n"
    );
    assert_eq!(repo.git_in(&run.worktree, &["status", "--porcelain"]), "");
}

#[test]
fn a_node_output_the_repository_already_has_is_not_stored_again() {
    let repo = TestRepo::new();
    // The empty blob, stored long ago: what every silent node's stdout.log and stderr.log are.
    let empty = repo.git(&["hash-object", "-w", "-t", "blob", "/dev/null"]);
    let empty = empty.trim();
    let loose = repo.loose_object(empty);
    let status = std::process::Command::new("touch")
        .args(["-m", "-d", "1 hour ago"])
        .arg(&loose)
        .status()
        .expect("touch runs");
    assert!(status.success());
    let before = identity(&loose);
    let flow = workflow(
        &repo,
        "quiet",
        "digraph quiet {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  \
         a [shape=parallelogram, script=\"true\"]\n  \
         b [shape=parallelogram, script=\"true\"]\n  start -> a -> b -> exit\n}\n",
    );

    let ran = run(&repo, &flow, &["-q"]);

    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(identity(&loose), before, "the empty blob was written again");
    let meta = format!("fabro/meta/{}", ran.id);
    for stage in ["002-a@1", "003-b@1"] {
        for log in ["stdout.log", "stderr.log"] {
            let path = format!("{meta}:stages/{stage}/{log}");
            assert_eq!(repo.git(&["rev-parse", &path]).trim(), empty, "{path}");
        }
    }
    assert_eq!(
        repo.git(&["fsck", "--strict", "--no-dangling", "--no-progress"]),
        ""
    );
}
