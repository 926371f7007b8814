//! SIGKILL at many moments of fork, rewind and restore: git must stay consistent and running
//! the same command again must complete the job.

use serde_json::Value;

use crate::common::{TestRepo, kill_after, rerun, write_file};
use crate::fork::finished_run;

/// Delays before the kill, in microseconds, spread over a command's whole life.
const DELAYS: &[u64] = &[
    0, 500, 1_000, 2_000, 3_000, 4_000, 6_000, 8_000, 12_000, 20_000,
];

fn assert_fsck_clean(repo: &TestRepo) {
    let out = repo.git_output(&repo.path, &["fsck", "--strict", "--no-dangling"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every run of the repository reads back: its record parses and its timeline walks.
fn assert_runs_readable(repo: &TestRepo) -> Vec<Value> {
    let runs: Vec<Value> = serde_json::from_str(&repo.ok(&["ps", "--all", "--json"])).unwrap();
    for run in &runs {
        repo.ok(&["log", run["run_id"].as_str().unwrap(), "--json"]);
    }
    runs
}

#[test]
fn killed_forks_leave_git_consistent_and_a_rerun_forks() {
    let repo = TestRepo::new();
    let source = finished_run(&repo);
    for &delay in DELAYS {
        kill_after(repo.fabro().args(["fork", &source, "@2"]), delay);
        assert_fsck_clean(&repo);
        assert_runs_readable(&repo);
        let id = rerun(&repo, &["fork", &source, "@2"]).trim().to_owned();
        assert_eq!(repo.log_json(&id).len(), 2);
    }
}

#[test]
fn killed_rewinds_are_finished_by_a_rerun_without_a_second_replacement() {
    let repo = TestRepo::new();
    for &delay in DELAYS {
        let source = finished_run(&repo);
        kill_after(repo.fabro().args(["rewind", &source, "@1"]), delay);
        assert_fsck_clean(&repo);
        let replacement = rerun(&repo, &["rewind", &source, "@1"]).trim().to_owned();
        let runs = assert_runs_readable(&repo);
        let forks_of_source: Vec<&Value> = runs
            .iter()
            .filter(|r| {
                let id = r["run_id"].as_str().unwrap();
                let record: Value = serde_json::from_str(
                    &repo.git(&["show", &format!("fabro/meta/{id}:run.json")]),
                )
                .unwrap();
                record["spec"]["fork_source"]["run_id"] == source.as_str()
            })
            .collect();
        assert_eq!(
            forks_of_source.len(),
            1,
            "delay {delay}us: one replacement, not two"
        );
        assert_eq!(forks_of_source[0]["run_id"], replacement.as_str());
    }
}

#[test]
fn killed_restores_are_completed_by_a_rerun() {
    let repo = TestRepo::new();
    let run = repo.start();
    for i in 0..20 {
        write_file(&run.worktree.join(format!("base/{i}.txt")), "base\n");
    }
    repo.checkpoint(&run.id, "one");
    for &delay in DELAYS {
        for i in 0..20 {
            write_file(
                &run.worktree.join(format!("base/{i}.txt")),
                &format!("changed {delay}\n"),
            );
            write_file(
                &run.worktree.join(format!("later/{delay}/{i}.txt")),
                "later\n",
            );
        }
        kill_after(
            repo.fabro().args(["restore", "--run", &run.id, "@1"]),
            delay,
        );
        assert_fsck_clean(&repo);
        rerun(&repo, &["restore", "--run", &run.id, "@1"]);
        assert_eq!(
            repo.ok(&["diff", &run.id, "@1", "--worktree"]),
            "",
            "delay {delay}us"
        );
    }
}
