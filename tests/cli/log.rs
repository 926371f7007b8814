use std::io::Read;
use std::process::Stdio;

use crate::common::{TestRepo, ordinals, run_ok, snapshot, write_file};

#[test]
fn the_timeline_is_rebuilt_from_trailers_on_a_fresh_clone() {
    let (repo, run) = TestRepo::with_run();
    for node in ["plan", "code", "plan"] {
        write_file(&run.worktree.join(format!("{node}.txt")), node);
        repo.checkpoint(&run.id, node);
    }
    let here = repo.log_json(&run.id);

    // A bare clone knows nothing of the run directory or worktree, only the refs.
    let clone = repo.root.join("clone");
    repo.git(&[
        "clone",
        "-q",
        "--mirror",
        repo.path.to_str().unwrap(),
        clone.to_str().unwrap(),
    ]);
    let there: Vec<serde_json::Value> = serde_json::from_str(&run_ok(
        repo.fabro_in(&clone).args(["log", &run.id, "--json"]),
    ))
    .unwrap();
    assert_eq!(here, there);
    assert_eq!(ordinals(&there), [1, 2, 3]);
    for entry in &there {
        for key in [
            "ordinal",
            "run_id",
            "node_id",
            "visit",
            "status",
            "completed",
            "run_commit",
            "meta_commit",
            "timestamp",
        ] {
            assert!(entry.get(key).is_some(), "missing {key} in {entry}");
        }
    }
    assert_eq!(there[2]["visit"], 2);
}

#[test]
fn the_human_timeline_is_a_compact_table() {
    let (repo, run) = TestRepo::with_run();
    repo.checkpoint(&run.id, "plan");
    repo.checkpoint(&run.id, "plan");
    let out = repo.ok(&["log", &run.id[..8]]);
    let _filters = snapshot::filters(&repo).bind_to_scope();
    insta::assert_snapshot!(out);
}

#[test]
fn a_timeline_reads_the_same_across_loose_and_packed_history() {
    let (repo, run) = TestRepo::with_run();
    repo.checkpoint(&run.id, "plan");
    repo.checkpoint(&run.id, "code");
    let before = repo.log_json(&run.id);
    // Packed older history under loose newer commits, as after a `git gc` mid-run.
    repo.git(&["gc", "-q"]);
    let packed = repo.log_json(&run.id);
    assert_eq!(before, packed);
    repo.checkpoint(&run.id, "test");
    let log = repo.log_json(&run.id);
    assert_eq!(
        log.iter()
            .map(|e| e["node_id"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["plan", "code", "test"]
    );
    assert_eq!(&log[..2], &before[..]);
}

/// `log` reads loose run commits itself, not through the object store: one that is damaged
/// fails the log (exit 1) with its file named, as git's own log fails, and never shortens the
/// timeline or panics. Packed history after it is not reached.
#[test]
fn a_damaged_loose_commit_fails_the_log_and_is_named() {
    let (repo, run) = TestRepo::with_run();
    repo.checkpoint(&run.id, "plan");
    repo.checkpoint(&run.id, "code");
    let commit = repo.git(&["rev-parse", &format!("fabro/run/{}~1", run.id)]);
    let commit = commit.trim();
    let file = repo.loose_object(commit);
    let intact = std::fs::read(&file).unwrap();
    // A loose blob: a well-formed object of the wrong kind.
    let blob = repo.git(&["hash-object", "-w", "--stdin"]);
    let blob = std::fs::read(repo.loose_object(blob.trim())).unwrap();
    let mut garbled = intact.clone();
    garbled[intact.len() / 2] ^= 0xff;
    for damaged in [garbled, intact[..1].to_vec(), Vec::new(), blob] {
        std::fs::remove_file(&file).unwrap();
        std::fs::write(&file, &damaged).unwrap();
        let out = repo.output(&["log", &run.id]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(&commit[2..]), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    std::fs::remove_file(&file).unwrap();
    std::fs::write(&file, &intact).unwrap();
    assert_eq!(repo.log_json(&run.id).len(), 2);
}

#[test]
fn commits_made_inside_the_worktree_do_not_break_the_timeline() {
    let (repo, run) = TestRepo::with_run();
    repo.checkpoint(&run.id, "a");
    write_file(&run.worktree.join("agent.txt"), "by the agent\n");
    repo.git_in(&run.worktree, &["add", "-A"]);
    repo.git_in(&run.worktree, &["commit", "-q", "-m", "agent's own commit"]);
    repo.checkpoint(&run.id, "b");
    let log = repo.log_json(&run.id);
    assert_eq!(
        log.iter()
            .map(|e| e["node_id"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["a", "b"]
    );
    assert_eq!(log[1]["completed"], 2);
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let (repo, run) = TestRepo::with_run();
    repo.checkpoint(&run.id, "a");
    let mut child = repo
        .fabro()
        .args(["log", &run.id])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(status.success(), "exit {status}: {err}");
    assert_eq!(err, "");
}

#[test]
fn times_are_local_as_git_shows_them_whatever_tz_says() {
    let (repo, run) = TestRepo::with_run();
    repo.checkpoint(&run.id, "plan");
    let branch = format!("fabro/run/{}", run.id);
    // An IANA name, a path, a POSIX rule, and no TZ at all (the machine's /etc/localtime).
    for tz in [
        Some("Asia/Tokyo"),
        Some(":/usr/share/zoneinfo/America/New_York"),
        Some("CET-1CEST,M3.5.0,M10.5.0/3"),
        Some("UTC"),
        None,
    ] {
        let with_tz = |mut cmd: std::process::Command| {
            match tz {
                Some(tz) => cmd.env("TZ", tz),
                None => cmd.env_remove("TZ"),
            };
            String::from_utf8(cmd.output().unwrap().stdout).unwrap()
        };
        let mut git = std::process::Command::new("git");
        git.current_dir(&repo.path).args([
            "log",
            "-1",
            "--date=iso-local",
            "--format=%cd",
            &branch,
        ]);
        let git_time = with_tz(git);
        let mut log = repo.fabro();
        log.args(["log", &run.id]);
        let fabro = with_tz(log);
        assert!(
            !git_time.trim().is_empty() && fabro.contains(git_time.trim()),
            "TZ={tz:?}: git says {git_time:?}, log says:\n{fabro}"
        );
    }
}
