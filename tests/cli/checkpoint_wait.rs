//! `checkpoint --wait[=DURATION]`: a lost race (exit 3) is tried again with backoff, reading
//! the run afresh each time, until the time is up; then it still exits 3.

use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::{TestRepo, assert_success, run_err};

fn ref_lock(repo: &TestRepo, id: &str) -> std::path::PathBuf {
    repo.path
        .join(".git/refs/heads/fabro/run")
        .join(format!("{id}.lock"))
}

#[test]
fn wait_retries_until_the_race_is_won() {
    let (repo, run) = TestRepo::with_run();
    let lock = ref_lock(&repo, &run.id);
    std::fs::write(&lock, "").unwrap();
    let started = Instant::now();
    let child = repo
        .fabro()
        .args([
            "checkpoint",
            "--run",
            &run.id,
            "--node",
            "plan",
            "--wait=20s",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(800));
    std::fs::remove_file(&lock).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_success(&out);
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(repo.log_json(&run.id).len(), 1);
    let sha = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    assert_eq!(
        repo.git(&["rev-parse", &format!("fabro/run/{}", run.id)])
            .trim(),
        sha
    );
}

#[test]
fn wait_still_exits_3_when_the_time_is_up_and_without_it_at_once() {
    let (repo, run) = TestRepo::with_run();
    std::fs::write(ref_lock(&repo, &run.id), "").unwrap();
    let started = Instant::now();
    let (code, _) = run_err(
        repo.fabro()
            .args(["checkpoint", "--run", &run.id, "--node", "n"]),
    );
    assert_eq!(code, 3);
    let at_once = started.elapsed();

    let started = Instant::now();
    let (code, err) =
        run_err(
            repo.fabro()
                .args(["checkpoint", "--run", &run.id, "--node", "n", "--wait=1s"]),
        );
    assert_eq!(code, 3, "{err}");
    assert!(err.contains(&format!("run {}", run.id)), "{err}");
    let waited = started.elapsed();
    assert!(waited >= Duration::from_secs(1), "{waited:?}");
    assert!(waited < at_once + Duration::from_secs(5), "{waited:?}");
    assert!(repo.log_json(&run.id).is_empty());

    let (code, _) =
        run_err(
            repo.fabro()
                .args(["checkpoint", "--run", &run.id, "--node", "n", "--wait=soon"]),
        );
    assert_eq!(code, 2, "a bad duration is a usage error");
}

#[test]
fn checkpoints_racing_on_one_run_all_land_with_wait() {
    let (repo, run) = TestRepo::with_run();
    let children: Vec<_> = (0..6)
        .map(|i| {
            repo.fabro()
                .args([
                    "checkpoint",
                    "--run",
                    &run.id,
                    "--node",
                    &format!("n{i}"),
                    "--wait",
                ])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_success(&out);
    }
    let log = repo.log_json(&run.id);
    assert_eq!(
        log.len(),
        6,
        "each try read the run afresh: none overwrote another"
    );
    let mut nodes: Vec<&str> = log.iter().map(|e| e["node_id"].as_str().unwrap()).collect();
    nodes.sort_unstable();
    assert_eq!(nodes, ["n0", "n1", "n2", "n3", "n4", "n5"]);
    assert!(
        repo.git_output(&repo.path, &["fsck", "--strict"])
            .status
            .success()
    );
}
