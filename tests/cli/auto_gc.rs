//! git's housekeeping after writes: once loose objects pass `gc.auto`, a command that wrote
//! objects leaves `git gc --auto` running behind it; `gc.auto = 0` and `maintenance.auto =
//! false` keep everything loose. TestRepo turns gc off, so each test turns it back on.

use std::time::{Duration, Instant};

use crate::common::{TestRepo, assert_success};

/// Blob contents whose object ids begin with `17`, the directory git samples to estimate
/// how many loose objects there are: writing them makes the estimate deterministic.
const SAMPLED_BLOBS: [&str; 4] = [
    "loose object 208\n",
    "loose object 473\n",
    "loose object 624\n",
    "loose object 704\n",
];

fn seed_sampled_objects(repo: &TestRepo) {
    for content in SAMPLED_BLOBS {
        let path = repo.root.join("seed");
        std::fs::write(&path, content).unwrap();
        let id = repo.git(&["hash-object", "-w", path.to_str().unwrap()]);
        assert!(id.starts_with("17"), "{id}");
    }
}

fn packs(repo: &TestRepo) -> usize {
    std::fs::read_dir(repo.path.join(".git/objects/pack"))
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with(".pack"))
                .count()
        })
        .unwrap_or(0)
}

/// Whether `rev` names an object that is loose in the repository.
fn is_loose(repo: &TestRepo, rev: &str) -> bool {
    let id = repo.git(&["rev-parse", rev]);
    repo.loose_object(id.trim()).exists()
}

/// Polls, bounded, until the detached gc has packed `rev`.
fn wait_until_packed(repo: &TestRepo, rev: &str) -> bool {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if packs(repo) > 0 && !is_loose(repo, rev) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

#[test]
fn checkpoints_past_the_threshold_leave_git_gc_packing_behind_them() {
    let (repo, run) = TestRepo::with_run();
    let tip = format!("refs/heads/fabro/run/{}", run.id);
    for node in ["plan", "code"] {
        crate::common::write_file(&run.worktree.join(format!("{node}.txt")), node);
        repo.checkpoint(&run.id, node);
    }
    assert!(is_loose(&repo, &tip));
    repo.git(&["config", "gc.auto", "1"]);
    seed_sampled_objects(&repo);
    repo.checkpoint(&run.id, "test");
    assert!(
        wait_until_packed(&repo, &tip),
        "the run's history is still loose"
    );
    // The packed run reads as before, and the next checkpoint builds on it.
    repo.checkpoint(&run.id, "after-gc");
    assert_eq!(repo.log_json(&run.id).len(), 4);
    repo.git(&["fsck", "--strict"]);
}

#[test]
fn gc_auto_zero_and_maintenance_auto_false_keep_objects_loose() {
    for (key, value) in [("gc.auto", "0"), ("maintenance.auto", "false")] {
        let repo = TestRepo::new();
        if key != "gc.auto" {
            repo.git(&["config", "gc.auto", "1"]);
        }
        repo.git(&["config", key, value]);
        let run = repo.start();
        seed_sampled_objects(&repo);
        for node in ["plan", "code", "test"] {
            repo.checkpoint(&run.id, node);
        }
        std::thread::sleep(Duration::from_secs(2));
        assert_eq!(packs(&repo), 0, "{key} = {value} packed objects");
        assert!(is_loose(&repo, &format!("refs/heads/fabro/run/{}", run.id)));
    }
}

#[test]
fn a_command_that_writes_nothing_starts_no_gc() {
    let (repo, run) = TestRepo::with_run();
    repo.checkpoint(&run.id, "plan");
    seed_sampled_objects(&repo);
    repo.git(&["config", "gc.auto", "1"]);
    repo.ok(&["log", &run.id]);
    repo.ok(&["ps"]);
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(packs(&repo), 0);
}

#[test]
fn checkpoints_succeed_while_git_gc_packs_and_prunes_beside_them() {
    let (repo, run) = TestRepo::with_run();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let gc = {
        let stop = stop.clone();
        let mut gc = repo.command("git");
        gc.args(["gc", "--quiet"]);
        std::thread::spawn(move || {
            let mut rounds = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let out = gc.output().unwrap();
                assert_success(&out);
                rounds += 1;
            }
            rounds
        })
    };
    for n in 0..40 {
        let node = format!("n{n}");
        crate::common::write_file(&run.worktree.join(format!("{node}.txt")), &node);
        repo.checkpoint(&run.id, &node);
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    assert!(gc.join().unwrap() > 0);
    assert_eq!(repo.log_json(&run.id).len(), 40);
    repo.git(&["fsck", "--strict"]);
}
