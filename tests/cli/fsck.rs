use std::path::PathBuf;

use serde_json::Value;

use crate::common::{TestRepo, array, run_err, texts, write_file};

fn report(repo: &TestRepo, args: &[&str]) -> (i32, Value) {
    let mut all = vec!["fsck", "--json"];
    all.extend_from_slice(args);
    let out = repo.fabro().args(&all).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        serde_json::from_slice(&out.stdout).expect("fsck --json prints JSON"),
    )
}

fn kinds(report: &Value, list: &str) -> Vec<String> {
    texts(array(&report[list]), "kind")
}

#[test]
fn a_healthy_repository_is_clean_and_a_lost_race_is_only_a_note() {
    let (repo, run) = TestRepo::with_run();
    repo.checkpoint(&run.id, "a");
    let (code, clean) = report(&repo, &[]);
    assert_eq!(code, 0, "{clean}");
    assert_eq!(clean["runs_checked"], 1);
    assert!(clean["problems"].as_array().unwrap().is_empty());

    repo.leave_dangling_metadata(&run.id);
    let (code, noted) = report(&repo, &[]);
    assert_eq!(code, 0);
    assert_eq!(kinds(&noted, "notes"), ["dangling-metadata"]);
    assert!(repo.ok(&["fsck"]).contains("dangling-metadata"));
}

#[test]
fn repair_fixes_what_a_killed_process_or_a_removed_directory_left() {
    let (repo, run) = TestRepo::with_run();
    let other = repo.start();
    // A start killed between its two refs: a run branch without a run.
    let head = repo.git(&["rev-parse", "HEAD"]);
    repo.git(&[
        "update-ref",
        "refs/heads/fabro/run/01ARZ3NDEKTSV4RRFFQ69G5FAV",
        head.trim(),
    ]);
    // A worktree directory removed by hand.
    std::fs::remove_dir_all(&other.worktree).unwrap();
    // A lock left by a killed process, old enough to be stale.
    let lock = repo
        .path
        .join(format!(".git/refs/heads/fabro/meta/{}.lock", run.id));
    std::fs::write(&lock, "junk").unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    std::fs::File::options()
        .write(true)
        .open(&lock)
        .unwrap()
        .set_modified(old)
        .unwrap();
    // A run directory whose run is gone.
    write_file(
        &repo
            .home
            .join("runs/20200101-01ARZ3NDEKTSV4RRFFQ69G5FAW/manifest.json"),
        &format!(
            "{{\"run_id\":\"01ARZ3NDEKTSV4RRFFQ69G5FAW\",\"start_time\":\"x\",\"run_branch\":\"x\",\"meta_branch\":\"x\",\"base_sha\":\"x\",\"repository\":{:?}}}",
            repo.path.to_str().unwrap()
        ),
    );

    let (code, found) = report(&repo, &[]);
    assert_eq!(code, 1);
    let mut found_kinds = kinds(&found, "problems");
    found_kinds.sort();
    assert_eq!(
        found_kinds,
        [
            "orphan-run-branch",
            "stale-lock",
            "stale-run-directory",
            "stale-worktree"
        ]
    );
    assert!(
        found["problems"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["repairable"] == true)
    );
    let (_, stderr) = run_err(repo.fabro().arg("fsck"));
    assert!(
        stderr.contains("fixable with `git fabro fsck --repair`"),
        "{stderr}"
    );

    let (code, repaired) = report(&repo, &["--repair"]);
    assert_eq!(code, 0, "{repaired}");
    assert!(
        repaired["problems"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["repaired"] == true)
    );
    let (code, _) = report(&repo, &[]);
    assert_eq!(code, 0);
    assert!(!lock.exists());
    repo.checkpoint(&run.id, "after-repair");
    let fsck = repo.git_output(&repo.path, &["fsck", "--strict"]);
    assert!(fsck.status.success());
}

/// A new repository with a run started with its run directory (returned) beside it, not in
/// the fabro home.
pub fn run_with_its_directory_elsewhere() -> (TestRepo, String, PathBuf) {
    let repo = TestRepo::new();
    let dir = repo.root.join("elsewhere");
    let id = repo.ok(&["start", "--run-dir", dir.to_str().unwrap()]);
    (repo, id.trim().to_owned(), dir)
}

#[test]
fn a_missing_run_directory_is_rebuilt_from_git() {
    let (repo, id, dir) = run_with_its_directory_elsewhere();
    std::fs::remove_file(dir.join("manifest.json")).unwrap();
    let (code, found) = report(&repo, &[&id]);
    assert_eq!(code, 1);
    assert_eq!(kinds(&found, "problems"), ["missing-run-directory"]);
    let (code, _) = report(&repo, &["--repair", &id]);
    assert_eq!(code, 0);
    let runs = std::fs::read_dir(repo.home.join("runs")).unwrap().count();
    assert_eq!(runs, 1, "rebuilt under the runs directory");
}

#[test]
fn broken_links_counts_and_records_are_problems() {
    let (repo, run) = TestRepo::with_run();
    repo.checkpoint(&run.id, "a");
    let branch = format!("refs/heads/fabro/run/{}", run.id);
    let tree = repo.git(&["rev-parse", &format!("{branch}^{{tree}}")]);
    let message = format!(
        "fabro({id}): b (succeeded)\n\nFabro-Run: {id}\nFabro-Completed: 5\nFabro-Checkpoint: {fake}\n",
        id = run.id,
        fake = "1".repeat(40)
    );
    let path = repo.root.join("msg");
    std::fs::write(&path, message).unwrap();
    let commit = repo.git(&[
        "commit-tree",
        tree.trim(),
        "-p",
        &branch,
        "-F",
        path.to_str().unwrap(),
    ]);
    repo.git(&["update-ref", &branch, commit.trim()]);
    let (code, found) = report(&repo, &[&run.id]);
    assert_eq!(code, 1);
    let mut found_kinds = kinds(&found, "problems");
    found_kinds.sort();
    assert_eq!(found_kinds, ["completed-count", "unlinked-checkpoint"]);
    assert!(
        found["problems"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["repairable"] == false)
    );
}
