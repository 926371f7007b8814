//! `gc` and `fsck --repair` delete run branches, but never one that is checked out anywhere or
//! holds commits that are not the run's; `gc` moves refs before it touches a worktree, and
//! removes a worktree only when nothing in it would be lost.

use serde_json::Value;

use crate::common::{TestRepo, array, assert_success, read_file, run_err, run_ok, write_file};
use crate::fork::finished_run;
use crate::ref_locks::leave_lock;

const ORPHAN: &str = "01ARZ3NDEKTSV4RRFFQ69G5FAV";

fn branch(id: &str) -> String {
    format!("refs/heads/fabro/run/{id}")
}

fn exists(repo: &TestRepo, name: &str) -> bool {
    repo.git_output(&repo.path, &["rev-parse", "--verify", "-q", name])
        .status
        .success()
}

/// The user checks out `branch` in the main worktree and commits on it.
fn commit_on(repo: &TestRepo, branch: &str) -> String {
    let short = branch.trim_start_matches("refs/heads/");
    repo.git(&["checkout", "-q", short]);
    repo.write("mine.txt", "my own work\n");
    repo.git(&["add", "mine.txt"]);
    repo.git(&["commit", "-q", "-m", "my own work"]);
    repo.git(&["rev-parse", "HEAD"]).trim().to_owned()
}

fn fsck_repair(repo: &TestRepo) -> Value {
    let out = repo.output(&["fsck", "--repair", "--json"]);
    serde_json::from_slice(&out.stdout).unwrap()
}

fn orphan_finding(report: &Value) -> Value {
    report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["kind"] == "orphan-run-branch")
        .cloned()
        .expect("an orphan-run-branch finding")
}

#[test]
fn fsck_repair_keeps_an_orphan_run_branch_checked_out_with_a_commit_on_it() {
    let repo = TestRepo::new();
    let head = repo.git(&["rev-parse", "HEAD"]);
    repo.git(&["update-ref", &branch(ORPHAN), head.trim()]);
    let mine = commit_on(&repo, &branch(ORPHAN));
    let finding = orphan_finding(&fsck_repair(&repo));
    assert_eq!(finding["repaired"], false, "{finding}");
    assert!(
        finding["message"].as_str().unwrap().contains("checked out"),
        "{finding}"
    );
    assert_eq!(repo.git(&["rev-parse", &branch(ORPHAN)]).trim(), mine);

    // Checked out no more, the commit is still only on that branch.
    repo.git(&["checkout", "-q", "main"]);
    let finding = orphan_finding(&fsck_repair(&repo));
    assert_eq!(finding["repaired"], false, "{finding}");
    assert!(
        finding["message"]
            .as_str()
            .unwrap()
            .contains("holds commit"),
        "{finding}"
    );
    assert_eq!(repo.git(&["rev-parse", &branch(ORPHAN)]).trim(), mine);

    // Once another branch holds the commit, the run branch holds nothing of its own.
    repo.git(&["branch", "keep", &mine]);
    let finding = orphan_finding(&fsck_repair(&repo));
    assert_eq!(finding["repaired"], true, "{finding}");
    assert!(!exists(&repo, &branch(ORPHAN)));
}

#[test]
fn gc_keeps_an_archived_run_whose_branch_the_user_checked_out_and_committed_on() {
    let repo = TestRepo::new();
    let id = finished_run(&repo);
    repo.ok(&["archive", &id]);
    let mine = commit_on(&repo, &branch(&id));
    let out = repo.ok(&["gc", "--older-than", "0"]);
    assert!(
        out.contains("kept run") && out.contains("checked out"),
        "{out}"
    );
    assert_eq!(repo.git(&["rev-parse", &branch(&id)]).trim(), mine);
    assert!(exists(&repo, &format!("refs/heads/fabro/meta/{id}")));

    repo.git(&["checkout", "-q", "main"]);
    let gc: Value = serde_json::from_str(&repo.ok(&["gc", "--older-than", "0", "--json"])).unwrap();
    assert_eq!(gc["runs"].as_array().unwrap().len(), 0, "{gc}");
    assert!(
        gc["kept"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("holds commit"),
        "{gc}"
    );
    assert_eq!(repo.git(&["rev-parse", &branch(&id)]).trim(), mine);
}

#[test]
fn gc_keeps_an_archived_run_whose_worktree_holds_work() {
    let (repo, run) = TestRepo::with_run();
    write_file(&run.worktree.join("a.txt"), "recorded\n");
    repo.checkpoint(&run.id, "a");
    repo.ok(&["finish", "--run", &run.id, "--keep-worktree"]);
    write_file(&run.worktree.join("unsaved.txt"), "not recorded\n");
    repo.ok(&["archive", &run.id]);
    let out = repo.ok(&["gc", "--older-than", "0"]);
    assert!(
        out.contains("kept run") && out.contains("unsaved.txt"),
        "{out}"
    );
    assert_eq!(
        read_file(run.worktree.join("unsaved.txt")),
        "not recorded\n"
    );
    assert!(exists(&repo, &branch(&run.id)));
    assert!(run.run_dir.join("manifest.json").is_file());
}

#[test]
fn gc_moves_refs_before_it_touches_the_worktree() {
    let (repo, run) = TestRepo::with_run();
    write_file(&run.worktree.join("a.txt"), "recorded\n");
    repo.checkpoint(&run.id, "a");
    repo.ok(&["finish", "--run", &run.id, "--keep-worktree"]);
    repo.ok(&["archive", &run.id]);
    // Another process holds the metadata branch (an unarchive mid-way): the compare-and-swap
    // fails, and the worktree must still be there for the run that carries on.
    let lock = repo
        .path
        .join(format!(".git/refs/heads/fabro/meta/{}.lock", run.id));
    std::fs::write(&lock, "").unwrap();
    let (code, stderr) = run_err(repo.fabro().args(["gc", "--older-than", "0"]));
    std::fs::remove_file(&lock).unwrap();
    assert_eq!(code, 3, "{stderr}");
    assert!(
        run.worktree.join("a.txt").is_file(),
        "the worktree went first"
    );
    assert!(repo.git(&["worktree", "list"]).contains(&run.id));

    // Uncontended, gc removes the clean worktree after the refs.
    repo.ok(&["gc", "--older-than", "0"]);
    assert!(!run.worktree.exists() && !run.run_dir.exists());
    assert!(!exists(&repo, &branch(&run.id)));
    let fsck = repo.git_output(&repo.path, &["fsck", "--strict"]);
    assert!(fsck.status.success());
}

/// What a gc killed between deleting a run's refs and removing its worktree leaves.
fn left_by_a_killed_gc(repo: &TestRepo) -> crate::common::Started {
    let run = left_amid_a_killed_gcs_ref_deletions(repo);
    repo.git(&["update-ref", "-d", &branch(&run.id)]);
    run
}

/// What a gc killed between its ref deletions leaves: git deleted the metadata branch and
/// the kill came before the run branch.
fn left_amid_a_killed_gcs_ref_deletions(repo: &TestRepo) -> crate::common::Started {
    let run = repo.start();
    write_file(&run.worktree.join("a.txt"), "recorded\n");
    let tip = repo.checkpoint(&run.id, "a");
    repo.ok(&["finish", "--run", &run.id, "--keep-worktree"]);
    write_file(
        &run.run_dir.join("gc.json"),
        &format!("{{\"run_id\":\"{}\",\"run_tip\":\"{tip}\"}}", run.id),
    );
    repo.git(&[
        "update-ref",
        "-d",
        &format!("refs/heads/fabro/meta/{}", run.id),
    ]);
    run
}

#[test]
fn a_gc_killed_between_its_ref_deletions_is_finished_by_fsck_repair_or_gc() {
    let repo = TestRepo::new();
    let repaired = left_amid_a_killed_gcs_ref_deletions(&repo);
    // Before any repair, everything the gc left is reported as repairable.
    let out = repo.output(&["fsck", "--json"]);
    let before: Value = serde_json::from_slice(&out.stdout).unwrap();
    for problem in before["problems"].as_array().unwrap() {
        assert_eq!(problem["repairable"], true, "{before}");
    }
    let report = fsck_repair(&repo);
    let orphan: Vec<&Value> = array(&report["problems"])
        .iter()
        .filter(|p| p["kind"] == "orphan-run-branch")
        .collect();
    assert_eq!(orphan.len(), 1, "{report}");
    assert_eq!(orphan[0]["repaired"], true, "{report}");
    assert!(!exists(&repo, &branch(&repaired.id)));
    // The worktree and run directory the gc left go with the next repair, as after a gc killed
    // once its refs were all gone.
    fsck_repair(&repo);
    assert!(!repaired.worktree.exists() && !repaired.run_dir.exists());

    let collected = left_amid_a_killed_gcs_ref_deletions(&repo);
    let out = repo.output(&["gc"]);
    assert_success(&out);
    assert!(!exists(&repo, &branch(&collected.id)));
    assert!(!collected.worktree.exists() && !collected.run_dir.exists());
    run_ok(repo.fabro().arg("fsck"));
}

/// git deletes a transaction's refs one at a time, each under its lock: a gc killed between
/// two deletions can leave the run branch locked. A repair that meets the lock while it is
/// fresh cannot delete the branch, and must then keep the run directory whose mark tells the
/// branch for one a gc left: without it the branch would be an orphan nothing may delete, and
/// the run would never be collected.
#[test]
fn a_gc_killed_between_its_ref_deletions_with_the_run_branch_locked_is_finished_later() {
    let repo = TestRepo::new();
    let run = left_amid_a_killed_gcs_ref_deletions(&repo);
    let lock = leave_lock(&repo, &branch(&run.id), 0);
    // The lock is fresh: its owner may be alive, so nothing is done to the branch, and the
    // worktree and run directory wait for it.
    let report = fsck_repair(&repo);
    for problem in report["problems"].as_array().unwrap() {
        assert_eq!(problem["repairable"], true, "{report}");
        assert_eq!(problem["repaired"], false, "{report}");
    }
    assert!(exists(&repo, &branch(&run.id)));
    assert!(run.worktree.is_dir() && run.run_dir.join("gc.json").is_file());
    let (code, stderr) = run_err(repo.fabro().args(["gc", "--older-than", "0"]));
    assert_eq!(code, 3, "{stderr}");
    assert!(run.run_dir.join("gc.json").is_file());

    // Once the lock is old enough to be a killed process's, one repair finishes the job.
    leave_lock(&repo, &branch(&run.id), 60);
    let report = fsck_repair(&repo);
    for problem in report["problems"].as_array().unwrap() {
        assert_eq!(problem["repaired"], true, "{report}");
    }
    assert!(!lock.exists());
    assert!(!exists(&repo, &branch(&run.id)));
    assert!(!run.worktree.exists() && !run.run_dir.exists());
    run_ok(repo.fabro().arg("fsck"));

    // Or gc finishes it, once the lock is gone.
    let collected = left_amid_a_killed_gcs_ref_deletions(&repo);
    let lock = leave_lock(&repo, &branch(&collected.id), 0);
    fsck_repair(&repo);
    std::fs::remove_file(&lock).unwrap();
    repo.ok(&["gc", "--older-than", "0"]);
    assert!(!exists(&repo, &branch(&collected.id)));
    assert!(!collected.worktree.exists() && !collected.run_dir.exists());
    run_ok(repo.fabro().arg("fsck"));
}

#[test]
fn a_worktree_an_interrupted_gc_left_goes_only_when_it_is_clean() {
    let repo = TestRepo::new();
    let clean = left_by_a_killed_gc(&repo);
    let dirty = left_by_a_killed_gc(&repo);
    write_file(&dirty.worktree.join("unsaved.txt"), "not recorded\n");
    let (code, stderr) = run_err(repo.fabro().arg("fsck"));
    assert_eq!(code, 1, "{stderr}");
    let report = fsck_repair(&repo);
    let stale: Vec<&Value> = array(&report["problems"])
        .iter()
        .filter(|p| p["kind"] == "stale-worktree")
        .collect();
    assert_eq!(stale.len(), 2, "{report}");
    for problem in stale {
        let is_clean = problem["message"].as_str().unwrap().contains(&clean.id);
        assert_eq!(problem["repaired"], is_clean, "{problem}");
    }
    assert!(!clean.worktree.exists() && !clean.run_dir.exists());
    assert_eq!(
        read_file(dirty.worktree.join("unsaved.txt")),
        "not recorded\n"
    );
    // gc finishes the clean one too, and keeps the other.
    let again = left_by_a_killed_gc(&repo);
    let out = repo.output(&["gc"]);
    assert!(out.status.success());
    assert!(!again.worktree.exists() && !again.run_dir.exists());
    assert!(dirty.worktree.join("unsaved.txt").is_file());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("kept the worktree"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn gc_skips_a_run_whose_record_it_cannot_read_and_collects_the_others() {
    let repo = TestRepo::new();
    let done = finished_run(&repo);
    repo.ok(&["archive", &done]);
    // A run fetched from elsewhere whose run.json is not JSON.
    let blob = repo
        .command("git")
        .args(["hash-object", "-w", "--stdin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(b"{ not json")?;
            child.wait_with_output()
        })
        .unwrap();
    let blob = String::from_utf8_lossy(&blob.stdout).trim().to_owned();
    let listing = repo.root.join("listing");
    std::fs::write(&listing, format!("100644 blob {blob}\trun.json\n")).unwrap();
    let tree = repo
        .command("git")
        .args(["mktree"])
        .stdin(std::fs::File::open(&listing).unwrap())
        .output()
        .unwrap();
    let tree = String::from_utf8_lossy(&tree.stdout).trim().to_owned();
    let commit = repo.git(&["commit-tree", &tree, "-m", "archive run"]);
    repo.git(&[
        "update-ref",
        &format!("refs/heads/fabro/meta/{ORPHAN}"),
        commit.trim(),
    ]);
    repo.git(&["update-ref", &branch(ORPHAN), "HEAD"]);

    let out = repo.output(&["gc", "--older-than", "0"]);
    assert_success(&out);
    assert!(!exists(&repo, &branch(&done)));
    assert!(
        exists(&repo, &branch(ORPHAN)) && exists(&repo, &format!("refs/heads/fabro/meta/{ORPHAN}"))
    );
}
