//! Ref locks: a command never breaks a lock it meets, however old, because its owner may be a
//! stalled writer that would then report success for a ref another process wrote. It names
//! the lock and leaves its removal to `fsck --repair`.

use std::path::Path;

use crate::common::{TestRepo, run_err};

/// Leaves a lock on `ref_name` as a killed process would, dated `seconds` ago.
fn leave_lock(repo: &TestRepo, ref_name: &str, seconds: u64) -> std::path::PathBuf {
    let lock = repo.path.join(".git").join(format!("{ref_name}.lock"));
    std::fs::write(&lock, "").unwrap();
    let then = std::time::SystemTime::now() - std::time::Duration::from_secs(seconds);
    std::fs::File::options()
        .write(true)
        .open(&lock)
        .unwrap()
        .set_modified(then)
        .unwrap();
    lock
}

fn checkpoint(repo: &TestRepo, id: &str, worktree: &Path) -> std::process::Command {
    std::fs::write(worktree.join("work.txt"), "work\n").unwrap();
    let mut cmd = repo.fabro();
    cmd.args(["checkpoint", "--run", id, "--node", "build"]);
    cmd
}

#[test]
fn an_old_lock_is_not_broken_by_a_command_but_named_with_the_repair() {
    let repo = TestRepo::new();
    let run = repo.start();
    let lock = leave_lock(&repo, &format!("refs/heads/fabro/meta/{}", run.id), 60);
    let (code, err) = run_err(&mut checkpoint(&repo, &run.id, &run.worktree));
    assert_eq!(code, 3, "{err}");
    assert!(err.contains(&lock.display().to_string()), "{err}");
    assert!(err.contains("git fabro fsck --repair"), "{err}");
    assert!(lock.exists(), "the command removed the lock");
    let report = repo.ok(&["fsck", "--repair"]);
    assert!(report.contains("stale-lock"), "{report}");
    assert!(!lock.exists());
    repo.checkpoint(&run.id, "build");
    assert_eq!(repo.log_json(&run.id).len(), 1);
}

#[test]
fn a_fresh_lock_is_reported_as_held_and_left_alone_by_fsck() {
    let repo = TestRepo::new();
    let run = repo.start();
    let lock = leave_lock(&repo, &format!("refs/heads/fabro/run/{}", run.id), 0);
    let (code, err) = run_err(&mut checkpoint(&repo, &run.id, &run.worktree));
    assert_eq!(code, 3, "{err}");
    assert!(err.contains(&lock.display().to_string()), "{err}");
    assert!(!err.contains("fsck --repair"), "{err}");
    let _ = repo.fabro().args(["fsck", "--repair"]).output().unwrap();
    assert!(
        lock.exists(),
        "fsck --repair removed a lock a live writer may hold"
    );
}
