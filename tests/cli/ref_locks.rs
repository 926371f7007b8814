//! Ref locks: what a killed git-fabro writer left is cleared by the next command, at once; a
//! lock git-fabro did not take (git's own, or one written by hand) is never broken by a
//! command, however old, because its owner may be a stalled writer that would then report
//! success for a ref another process wrote. It names the lock and leaves its removal to
//! `fsck --repair`.

use crate::common::failpoints::die_at;
use crate::common::workflow::commands;
use crate::common::{Started, TestRepo, kill_after, read_file, run_err, run_ok, write_file};
use crate::torture::{Lcg, assert_consistent, trials};

/// Leaves a lock on `ref_name` as a process killed while holding it would, dated `seconds` ago.
pub fn leave_lock(repo: &TestRepo, ref_name: &str, seconds: u64) -> std::path::PathBuf {
    let lock = repo.path.join(".git").join(format!("{ref_name}.lock"));
    write_file(&lock, "");
    let then = std::time::SystemTime::now() - std::time::Duration::from_secs(seconds);
    std::fs::File::options()
        .write(true)
        .open(&lock)
        .unwrap()
        .set_modified(then)
        .unwrap();
    lock
}

/// A checkpoint of a change in the run's worktree, refused for a lock with exit 3 (locked) in
/// a message that names `holder` (the lock, or the process holding it); returns the message.
fn refused_checkpoint(repo: &TestRepo, run: &Started, holder: &str) -> String {
    write_file(&run.worktree.join("work.txt"), "work\n");
    let checkpoint = ["checkpoint", "--run", &run.id, "--node", "build"];
    let (code, err) = run_err(repo.fabro().args(checkpoint));
    assert_eq!(code, 3, "{err}");
    assert!(err.contains(holder), "{err}");
    err
}

#[test]
fn an_old_lock_is_not_broken_by_a_command_but_named_with_the_repair() {
    let (repo, run) = TestRepo::with_run();
    let lock = leave_lock(&repo, &format!("refs/heads/fabro/meta/{}", run.id), 60);
    let err = refused_checkpoint(&repo, &run, &lock.display().to_string());
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
    let (repo, run) = TestRepo::with_run();
    let lock = leave_lock(&repo, &format!("refs/heads/fabro/run/{}", run.id), 0);
    let err = refused_checkpoint(&repo, &run, &lock.display().to_string());
    assert!(!err.contains("fsck --repair"), "{err}");
    let _ = repo.output(&["fsck", "--repair"]);
    assert!(
        lock.exists(),
        "fsck --repair removed a lock a live writer may hold"
    );
}

/// Changes the run's worktree and kills a checkpoint of it as `node` while it holds its ref
/// locks.
fn kill_checkpoint_holding_locks(repo: &TestRepo, run: &Started, node: &str) {
    write_file(&run.worktree.join(format!("{node}.txt")), "changed\n");
    let checkpoint = ["checkpoint", "--run", &run.id, "--node", node];
    die_at(repo.fabro().args(checkpoint), "refs:locked");
}

fn meta_lock(repo: &TestRepo, id: &str) -> std::path::PathBuf {
    repo.path
        .join(".git")
        .join(format!("refs/heads/fabro/meta/{id}.lock"))
}

#[test]
fn a_checkpoint_killed_holding_its_ref_locks_blocks_nothing() {
    let (repo, run) = TestRepo::with_run();
    kill_checkpoint_holding_locks(&repo, &run, "one");
    let lock = meta_lock(&repo, &run.id);
    assert!(lock.exists(), "the kill left no lock to clear");
    // The very next checkpoint goes through: no fsck, no waiting for the lock to age.
    repo.checkpoint(&run.id, "one");
    assert!(!lock.exists());
    assert_eq!(repo.log_json(&run.id).len(), 1);
    die_at(repo.fabro().args(["finish", &run.id]), "refs:locked");
    repo.ok(&["finish", &run.id]);
    assert_consistent(&repo, "after a finish killed holding its locks");
}

/// The writer's record is emptied after each transaction, so that it names only the locks of
/// one that was killed, whatever came before it; the next writer clears them and empties it.
#[test]
fn the_writer_record_names_only_a_killed_transactions_locks() {
    let (repo, run) = TestRepo::with_run();
    let record = repo.path.join(".git/fabro/ref-writer");
    let read = || read_file(&record);
    write_file(&run.worktree.join("a.txt"), "a\n");
    repo.checkpoint(&run.id, "one");
    assert_eq!(read(), "", "a finished transaction left its record");
    kill_checkpoint_holding_locks(&repo, &run, "two");
    let left = read();
    assert_eq!(left.matches("pid ").count(), 1, "{left}");
    let meta = format!("refs/heads/fabro/meta/{}.lock", run.id);
    assert!(left.contains(&format!("intent {meta}\n")), "{left}");
    assert!(left.contains(&format!("held {meta} ")), "{left}");
    repo.checkpoint(&run.id, "two");
    assert!(!meta_lock(&repo, &run.id).exists());
    assert_eq!(read(), "");
    assert_eq!(repo.log_json(&run.id).len(), 2);
}

/// With a packed-refs file (every clone has one), gix takes packed-refs.lock for any edit: a
/// writer killed holding it blocks nothing either.
#[test]
fn a_checkpoint_killed_holding_packed_refs_lock_blocks_nothing() {
    let (repo, run) = TestRepo::with_run();
    repo.git(&["pack-refs", "--all"]);
    kill_checkpoint_holding_locks(&repo, &run, "one");
    let packed_lock = repo.path.join(".git/packed-refs.lock");
    assert!(
        packed_lock.exists(),
        "the kill left no packed-refs.lock to clear"
    );
    repo.checkpoint(&run.id, "one");
    assert!(!packed_lock.exists());
    assert_eq!(repo.log_json(&run.id).len(), 1);
    assert_consistent(&repo, "after a checkpoint killed holding packed-refs.lock");
}

#[test]
fn fsck_names_what_a_killed_writer_left_and_repair_removes_it() {
    let (repo, run) = TestRepo::with_run();
    kill_checkpoint_holding_locks(&repo, &run, "one");
    let lock = meta_lock(&repo, &run.id);
    let out = repo.output(&["fsck"]);
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        !out.status.success(),
        "{report}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(report.contains("stale-lock"), "{report}");
    assert!(report.contains(&lock.display().to_string()), "{report}");
    assert!(report.contains("git-fabro process"), "{report}");
    assert!(lock.exists(), "fsck without --repair removed the lock");
    let repaired = repo.ok(&["fsck", "--repair"]);
    assert!(repaired.contains("stale-lock"), "{repaired}");
    assert!(!lock.exists());
    repo.ok(&["fsck"]);
}

#[test]
fn a_workflow_resume_killed_holding_its_ref_locks_is_resumed_at_once() {
    let repo = TestRepo::new();
    let workflow = crate::engine_run::workflow(
        &repo,
        "two",
        &commands(
            "two",
            &[
                ("make", "echo one > made.txt"),
                ("grow", "echo two >> made.txt"),
            ],
        ),
    );
    let mut run = repo.fabro();
    die_at(run.arg("run").arg(&workflow), "engine:checkpointed:make@1");
    let id = repo.runs_with_metadata();
    let id = id.trim();
    die_at(repo.fabro().args(["resume", id]), "refs:locked");
    assert!(
        meta_lock(&repo, id).exists(),
        "the kill left no lock to clear"
    );
    run_ok(repo.fabro().args(["resume", id]));
    let runs: serde_json::Value =
        serde_json::from_str(&repo.ok(&["ps", "--all", "--json"])).unwrap();
    assert_eq!(runs[0]["status"], "succeeded", "{runs}");
    assert_consistent(&repo, "after a resume killed holding its locks");
}

/// SIGKILL at random moments of a checkpoint; each time, the next checkpoint of the run
/// succeeds straight away.
#[test]
fn after_a_checkpoint_killed_at_a_random_moment_the_next_one_succeeds() {
    let (repo, run) = TestRepo::with_run();
    let mut rng = Lcg(0x5eed_1001);
    for trial in 0..trials().min(40) {
        write_file(&run.worktree.join("f.txt"), &format!("{trial}\n"));
        let node = format!("k{trial}");
        kill_after(
            repo.fabro()
                .args(["checkpoint", "--run", &run.id, "--node", &node]),
            rng.next(25_000),
        );
        write_file(&run.worktree.join("g.txt"), &format!("{trial}\n"));
        let out = repo.output(&["checkpoint", "--run", &run.id, "--node", "next"]);
        assert!(
            out.status.success(),
            "trial {trial}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_consistent(&repo, "after the kills");
}

/// A live writer that keeps the ref writer lock (stalled, say) is waited for, then named by its
/// pid; nothing is broken, and once it is gone the next command goes through.
#[test]
fn a_live_writer_that_keeps_the_lock_is_named_by_its_pid() {
    let (repo, run) = TestRepo::with_run();
    let writer_lock = repo.path.join(".git/fabro/ref-writer");
    let marker = repo.root.join("holding");
    // flock(1) holds the lock (not passed on to its command, `-o`) and records its pid as a
    // git-fabro writer does; the command says where it is.
    let script = format!(
        "echo \"pid $PPID\" > '{}'; echo $$ > '{}'; exec sleep 30",
        writer_lock.display(),
        marker.display()
    );
    let mut holder = std::process::Command::new("flock")
        .arg("-o")
        .arg(&writer_lock)
        .args(["sh", "-c", &script])
        .spawn()
        .unwrap();
    while std::fs::read_to_string(&marker).map_or(true, |s| !s.ends_with('\n')) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    refused_checkpoint(&repo, &run, &format!("process {}", holder.id()));
    let _ = holder.kill();
    let _ = holder.wait();
    let sleeper = read_file(&marker);
    let _ = std::process::Command::new("kill")
        .arg(sleeper.trim())
        .status();
    repo.checkpoint(&run.id, "build");
}
