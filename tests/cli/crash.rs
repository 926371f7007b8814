//! A kill at every write boundary of every command that writes: each command is made to die at
//! each of its failure points (src/failpoint.rs), and what it leaves must be what a kill there
//! may leave. git accepts the repository, `git fabro fsck` finds nothing `--repair` cannot fix,
//! nothing a command acknowledged is lost, and running the command again finishes the job.
//! torture.rs kills at random moments and counts where those kills land.

use serde_json::Value;

use crate::common::failpoints::die_at;
use crate::common::{TestRepo, read_file, rerun, run_ok, write_file};
use crate::fork::finished_run;
use crate::torture::{assert_completed_one_more_each, assert_repairable, timeline_commits};

const CHECKPOINT: &[&str] = &[
    "checkpoint:objects-written",
    "checkpoint:refs-moved",
    "checkpoint:index-written",
    "checkpoint:run-dir-written",
];
const START: &[&str] = &[
    "start:objects-written",
    "start:refs-moved",
    "start:run-dir-written",
    "start:worktree-written",
];
const START_IN_PLACE: &[&str] = &["start:index-written"];
const FORK: &[&str] = &["fork:objects-written", "fork:refs-moved"];
const REWIND: &[&str] = &[
    "rewind:objects-written",
    "rewind:source-archived",
    "rewind:refs-moved",
];
const RESTORE: &[&str] = &[
    "restore:objects-written",
    "restore:refs-moved",
    "restore:worktree-written",
];
const FINISH: &[&str] = &[
    "finish:objects-written",
    "finish:refs-moved",
    "finish:run-dir-written",
];
const RESUME: &[&str] = &[
    "resume:run-dir-written",
    "resume:worktree-written",
    "resume:refs-moved",
];
/// Inside every ref transaction, between taking the lock files and committing them
/// (ref_locks.rs kills commands there).
const REFS: &[&str] = &["refs:locked"];
const GC: &[&str] = &[
    "gc:run-dir-written",
    "gc:refs-moved",
    "gc:worktree-removed",
    "gc:run-dir-tombstoned",
    "gc:run-dir-removed",
];

/// Inside the removal of a worktree registration whose directory is gone (`fsck --repair`,
/// `gc`, `finish`).
const FORGET_WORKTREE: &[&str] = &["worktree:index-forgotten", "worktree:gitdir-forgotten"];

/// Every failure point in `src/`, as `failpoint::reach` names them.
fn points_in_source(dir: &std::path::Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            points_in_source(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = read_file(&path);
            let mut at = 0;
            while let Some(found) = text[at..].find("failpoint::reach(\"") {
                let start = at + found + "failpoint::reach(\"".len();
                let end = start + text[start..].find('"').unwrap();
                out.push(text[start..end].to_owned());
                at = end;
            }
        }
    }
}

#[test]
fn every_failure_point_is_tested_here() {
    let mut found = Vec::new();
    points_in_source(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut found,
    );
    found.sort();
    let mut tested: Vec<String> = [
        CHECKPOINT,
        START,
        START_IN_PLACE,
        FORK,
        REWIND,
        RESTORE,
        FINISH,
        RESUME,
        GC,
        REFS,
        FORGET_WORKTREE,
    ]
    .concat()
    .iter()
    .map(|p| (*p).to_owned())
    .collect();
    tested.sort();
    assert_eq!(found, tested);
}

/// Every run of the repository reads back: its record parses and its timeline walks.
fn assert_runs_readable(repo: &TestRepo) -> Vec<Value> {
    let runs: Vec<Value> = serde_json::from_str(&repo.ok(&["ps", "--all", "--json"])).unwrap();
    for run in &runs {
        repo.ok(&["log", run["run_id"].as_str().unwrap(), "--json"]);
    }
    runs
}

fn run_json(repo: &TestRepo, id: &str) -> Value {
    serde_json::from_str(&repo.git(&["show", &format!("fabro/meta/{id}:run.json")])).unwrap()
}

fn tip(repo: &TestRepo, branch: &str) -> String {
    repo.git(&["rev-parse", branch]).trim().to_owned()
}

/// The run ids on the repository's metadata branches.
fn run_ids(repo: &TestRepo) -> Vec<String> {
    repo.runs_with_metadata()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn checkpoints_killed_at_each_boundary_lose_nothing_and_a_rerun_records() {
    let (repo, run) = TestRepo::with_run();
    let mut acknowledged = Vec::new();
    for (i, &point) in CHECKPOINT.iter().enumerate() {
        write_file(&run.worktree.join(format!("f{i}.txt")), point);
        let before = tip(&repo, &format!("fabro/run/{}", run.id));
        let args = ["checkpoint", "--run", &run.id, "--node", "n"];
        die_at(repo.fabro().args(args), point);
        assert_repairable(&repo, point);
        let moved = tip(&repo, &format!("fabro/run/{}", run.id)) != before;
        assert_eq!(
            moved,
            i > 0,
            "{point}: the run branch moved only once refs did"
        );
        let timeline = timeline_commits(&repo, &run.id);
        assert!(
            acknowledged.iter().all(|c| timeline.contains(c)),
            "{point}: an acknowledged checkpoint is gone"
        );
        acknowledged.push(rerun(&repo, &args).trim().to_owned());
    }
    assert_completed_one_more_each(&repo.log_json(&run.id));
}

#[test]
fn starts_killed_at_each_boundary_leave_a_run_that_resumes_or_none() {
    let repo = TestRepo::new();
    for (i, &point) in START.iter().enumerate() {
        let before = run_ids(&repo);
        die_at(repo.fabro().arg("start"), point);
        assert_repairable(&repo, point);
        let started: Vec<String> = run_ids(&repo)
            .into_iter()
            .filter(|id| !before.contains(id))
            .collect();
        assert_eq!(started.len(), usize::from(i > 0), "{point}: {started:?}");
        for id in &started {
            let out = rerun(&repo, &["resume", id]);
            let state: Value = serde_json::from_str(&out).unwrap();
            assert_eq!(state["dirty"], false, "{point}");
            assert!(
                std::path::Path::new(state["worktree"].as_str().unwrap())
                    .join("README.md")
                    .is_file(),
                "{point}: the worktree is checked out whole"
            );
        }
        rerun(&repo, &["start"]);
        assert_repairable(&repo, &format!("{point} after the rerun"));
    }
}

#[test]
fn in_place_starts_killed_at_each_boundary_leave_a_run_that_resumes() {
    for &point in START.iter().chain(START_IN_PLACE) {
        if point == "start:worktree-written" {
            continue; // A run in place adds no worktree.
        }
        let repo = TestRepo::new();
        die_at(repo.fabro().args(["start", "--in-place"]), point);
        assert_repairable(&repo, point);
        for id in run_ids(&repo) {
            rerun(&repo, &["resume", &id]);
        }
        assert_eq!(repo.git(&["status", "--porcelain"]), "", "{point}");
    }
}

#[test]
fn forks_killed_at_each_boundary_leave_git_consistent_and_a_rerun_forks() {
    let repo = TestRepo::new();
    let source = finished_run(&repo);
    for (i, &point) in FORK.iter().enumerate() {
        let before = run_ids(&repo).len();
        die_at(repo.fabro().args(["fork", &source, "@2"]), point);
        assert_repairable(&repo, point);
        assert_runs_readable(&repo);
        assert_eq!(run_ids(&repo).len(), before + i, "{point}");
        let id = rerun(&repo, &["fork", &source, "@2"]).trim().to_owned();
        assert_eq!(repo.log_json(&id).len(), 2, "{point}");
    }
}

#[test]
fn rewinds_killed_at_each_boundary_are_finished_by_a_rerun_without_a_second_replacement() {
    let repo = TestRepo::new();
    for (i, &point) in REWIND.iter().enumerate() {
        let source = finished_run(&repo);
        die_at(repo.fabro().args(["rewind", &source, "@1"]), point);
        assert_repairable(&repo, point);
        let archived = run_json(&repo, &source)["superseded_by"]
            .as_str()
            .map(str::to_owned);
        assert_eq!(
            archived.is_some(),
            i > 0,
            "{point}: the source names its replacement"
        );
        let replacement = rerun(&repo, &["rewind", &source, "@1"]).trim().to_owned();
        if let Some(named) = archived {
            assert_eq!(named, replacement, "{point}: the replacement first named");
        }
        let runs = assert_runs_readable(&repo);
        let forks_of_source: Vec<&Value> = runs
            .iter()
            .filter(|r| {
                run_json(&repo, r["run_id"].as_str().unwrap())["spec"]["fork_source"]["run_id"]
                    == source.as_str()
            })
            .collect();
        assert_eq!(
            forks_of_source.len(),
            1,
            "{point}: one replacement, not two"
        );
        assert_eq!(forks_of_source[0]["run_id"], replacement.as_str());
    }
}

#[test]
fn restores_killed_at_each_boundary_keep_the_work_and_are_completed_by_a_rerun() {
    let (repo, run) = TestRepo::with_run();
    for i in 0..20 {
        write_file(&run.worktree.join(format!("base/{i}.txt")), "base\n");
    }
    repo.checkpoint(&run.id, "one");
    let recovery_refs = |repo: &TestRepo| {
        repo.git(&["for-each-ref", "--format=%(objectname)", "refs/fabro/"])
            .lines()
            .count()
    };
    for (n, &point) in RESTORE.iter().enumerate() {
        for i in 0..20 {
            write_file(&run.worktree.join(format!("base/{i}.txt")), point);
            write_file(&run.worktree.join(format!("later/{n}/{i}.txt")), "later\n");
        }
        let before = recovery_refs(&repo);
        die_at(
            repo.fabro().args(["restore", "--run", &run.id, "@1"]),
            point,
        );
        assert_repairable(&repo, point);
        // Past the recovery ref, the work the restore overwrites is kept there.
        assert_eq!(recovery_refs(&repo), before + usize::from(n > 0), "{point}");
        rerun(&repo, &["restore", "--run", &run.id, "@1"]);
        assert_eq!(
            repo.ok(&["diff", &run.id, "@1", "--worktree"]),
            "",
            "{point}"
        );
    }
}

#[test]
fn finishes_killed_at_each_boundary_are_completed_by_a_rerun() {
    let repo = TestRepo::new();
    for (i, &point) in FINISH.iter().enumerate() {
        let run = repo.start();
        write_file(&run.worktree.join("a.txt"), point);
        repo.checkpoint(&run.id, "one");
        let args = ["finish", "--run", &run.id, "--keep-worktree"];
        die_at(repo.fabro().args(args), point);
        assert_repairable(&repo, point);
        let status = run_json(&repo, &run.id)["status"]["kind"].clone();
        assert_eq!(status == "succeeded", i > 0, "{point}: {status}");
        rerun(&repo, &args);
        assert_eq!(run_json(&repo, &run.id)["status"]["kind"], "succeeded");
        assert!(run.run_dir.join("conclusion.json").is_file(), "{point}");
        assert_eq!(repo.log_json(&run.id).len(), 1, "{point}");
    }
}

#[test]
fn resumes_killed_at_each_boundary_are_completed_by_a_rerun() {
    let repo = TestRepo::new();
    for &point in RESUME {
        let run = repo.start();
        write_file(&run.worktree.join("a.txt"), point);
        repo.checkpoint(&run.id, "one");
        // Failed and without its worktree: a resume adds the worktree and reopens the run.
        repo.ok(&["finish", "--run", &run.id, "--status", "failed"]);
        assert!(!run.worktree.exists());
        die_at(repo.fabro().args(["resume", &run.id]), point);
        assert_repairable(&repo, point);
        let state: Value = serde_json::from_str(&rerun(&repo, &["resume", &run.id])).unwrap();
        assert_eq!(state["dirty"], false, "{point}");
        assert_eq!(state["status"], "running", "{point}");
        assert_eq!(read_file(run.worktree.join("a.txt")), point);
        assert_eq!(repo.log_json(&run.id).len(), 1, "{point}");
    }
}

#[test]
fn gcs_killed_at_each_boundary_lose_no_work_and_a_rerun_collects() {
    let repo = TestRepo::new();
    let live = repo.start();
    repo.checkpoint(&live.id, "live");
    for &point in GC {
        let run = repo.start();
        write_file(&run.worktree.join("a.txt"), point);
        repo.checkpoint(&run.id, "a");
        repo.ok(&["finish", "--run", &run.id, "--keep-worktree"]);
        repo.ok(&["archive", &run.id]);
        let args = ["gc", "--older-than", "0"];
        die_at(repo.fabro().args(args), point);
        assert_repairable(&repo, point);
        rerun(&repo, &args);
        assert!(!run_ids(&repo).contains(&run.id), "{point}: collected");
        assert!(
            !run.worktree.exists() && !run.run_dir.exists(),
            "{point}: its worktree and run directory are gone"
        );
        let runs_dir = run.run_dir.parent().unwrap();
        let left: Vec<_> = std::fs::read_dir(runs_dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with('.'))
            .collect();
        assert!(
            left.is_empty(),
            "{point}: nothing half-removed is left: {left:?}"
        );
        assert_eq!(repo.log_json(&live.id).len(), 1, "{point}");
    }
}

#[test]
fn repairs_killed_while_forgetting_a_removed_worktree_leave_git_a_whole_registration() {
    let repo = TestRepo::new();
    for &point in FORGET_WORKTREE {
        let run = repo.start();
        std::fs::remove_dir_all(&run.worktree).unwrap();
        let args = ["fsck", "--repair"];
        die_at(repo.fabro().args(args), point);
        assert_repairable(&repo, point);
        rerun(&repo, &args);
        assert!(
            !repo.git(&["worktree", "list"]).contains(&run.id),
            "{point}: the registration is gone"
        );
        let worktrees = repo.path.join(".git/worktrees");
        let left: Vec<_> = std::fs::read_dir(&worktrees)
            .map(|entries| entries.flatten().map(|e| e.file_name()).collect())
            .unwrap_or_default();
        assert!(
            left.is_empty(),
            "{point}: nothing is left in .git/worktrees: {left:?}"
        );
        run_ok(repo.fabro().arg("fsck"));
    }
}
