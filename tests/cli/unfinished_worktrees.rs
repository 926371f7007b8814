//! What a start or resume killed while checking out leaves: a registration still locked as
//! initializing over a partial checkout, or an administrative directory that never recorded
//! its worktree. Nothing adopts the first as the run's files, `fsck` reports both, `--repair`
//! clears them, and neither makes a later start, resume or gc fail.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{TestRepo, array, read_file, run_err, texts};

/// Turns the run's worktree into what a resume killed mid-checkout leaves: locked as
/// initializing by a dead process, half its files and its index not written yet.
fn leave_unfinished(repo: &TestRepo, worktree: &Path) -> PathBuf {
    let admin = admin_dir_of(worktree);
    std::fs::write(
        admin.join("locked"),
        "initializing (git-fabro pid 999999999)\n",
    )
    .unwrap();
    std::fs::remove_file(admin.join("index")).unwrap();
    std::fs::remove_file(worktree.join("README.md")).unwrap();
    assert!(repo.path.join("README.md").exists());
    admin
}

fn admin_dir_of(worktree: &Path) -> PathBuf {
    let link = read_file(worktree.join(".git"));
    PathBuf::from(link.trim().strip_prefix("gitdir: ").unwrap())
}

fn fsck_kinds(repo: &TestRepo) -> Vec<String> {
    let out = repo.output(&["fsck", "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    texts(array(&report["problems"]), "kind")
}

#[test]
fn resume_never_adopts_an_unfinished_checkout_and_fsck_reports_it() {
    let (repo, run) = TestRepo::with_run();
    std::fs::write(run.worktree.join("a.txt"), "a\n").unwrap();
    repo.checkpoint(&run.id, "build");
    leave_unfinished(&repo, &run.worktree);

    assert_eq!(fsck_kinds(&repo), ["unfinished-worktree"]);
    let state: Value = serde_json::from_str(&repo.ok(&["resume", &run.id])).unwrap();
    assert_eq!(state["dirty"], false, "{state}");
    assert!(run.worktree.join("README.md").exists());
    assert!(run.worktree.join("a.txt").exists());
    std::fs::write(run.worktree.join("b.txt"), "b\n").unwrap();
    repo.checkpoint(&run.id, "next");
    let stat = repo.git(&[
        "diff",
        "--name-status",
        &format!("fabro/run/{}~1", run.id),
        &format!("fabro/run/{}", run.id),
    ]);
    assert_eq!(stat.trim(), "A\tb.txt");
    assert!(fsck_kinds(&repo).is_empty());
}

#[test]
fn checkpoint_refuses_an_unfinished_checkout_and_fsck_repair_clears_it() {
    let (repo, run) = TestRepo::with_run();
    std::fs::write(run.worktree.join("a.txt"), "a\n").unwrap();
    repo.checkpoint(&run.id, "build");
    let admin = leave_unfinished(&repo, &run.worktree);

    let (_, err) = run_err(
        repo.fabro()
            .args(["checkpoint", "--run", &run.id, "--node", "next"]),
    );
    assert!(!err.is_empty());
    assert_eq!(repo.log_json(&run.id).len(), 1);
    let report = repo.ok(&["fsck", "--repair"]);
    assert!(report.contains("unfinished-worktree"), "{report}");
    assert!(!admin.exists());
    assert!(!run.worktree.exists());
    assert!(fsck_kinds(&repo).is_empty());
    repo.ok(&["resume", &run.id]);
    assert!(run.worktree.join("a.txt").exists());
}

#[test]
fn a_registration_that_records_no_worktree_is_reported_and_cleared() {
    let (repo, run) = TestRepo::with_run();
    let stray = repo.path.join(".git/worktrees/worktree9");
    std::fs::create_dir_all(&stray).unwrap();
    std::fs::write(stray.join("locked"), "initializing\n").unwrap();
    // Killed while writing the worktree's path: git and gix cannot read the registration.
    std::fs::write(stray.join("gitdir"), "").unwrap();

    assert_eq!(fsck_kinds(&repo), ["broken-worktree-registration"]);
    // A fresh one may be an add under way in another process: a start does not touch it.
    let adding = repo.path.join(".git/fabro/adding");
    std::fs::create_dir_all(&adding).unwrap();
    let sleeper = std::process::Command::new("sleep")
        .arg("60")
        .spawn()
        .unwrap();
    std::fs::write(adding.join(sleeper.id().to_string()), "/elsewhere").unwrap();
    let (_, err) = run_err(repo.fabro().args(["start"]));
    assert!(err.contains("fsck --repair"), "{err}");
    let report = repo.ok(&["fsck", "--repair"]);
    assert!(report.contains("broken-worktree-registration"), "{report}");
    assert!(!stray.exists());
    repo.start();
    let mut sleeper = sleeper;
    let _ = sleeper.kill();
    let _ = sleeper.wait();
    repo.ok(&["finish", "--run", &run.id, "--status", "failed"]);
    repo.ok(&["resume", &run.id]);
    repo.ok(&["gc", "--older-than", "0"]);
}

#[test]
fn a_registration_that_records_no_worktree_does_not_stop_a_start() {
    let repo = TestRepo::new();
    let stray = repo.path.join(".git/worktrees/worktree9");
    std::fs::create_dir_all(&stray).unwrap();
    std::fs::write(stray.join("gitdir"), "").unwrap();
    let then = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    std::fs::File::open(&stray)
        .unwrap()
        .set_modified(then)
        .unwrap();
    repo.start();
    assert!(!stray.exists());
}

#[test]
fn resume_names_a_directory_in_the_worktrees_way_and_leaves_it_alone() {
    let (repo, run) = TestRepo::with_run();
    repo.git(&[
        "worktree",
        "remove",
        "--force",
        run.worktree.to_str().unwrap(),
    ]);
    std::fs::create_dir_all(&run.worktree).unwrap();
    std::fs::write(run.worktree.join("notes.txt"), "mine\n").unwrap();
    let (code, err) = run_err(repo.fabro().args(["resume", &run.id]));
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("in the way"), "{err}");
    assert!(err.contains(run.worktree.to_str().unwrap()), "{err}");
    assert!(run.worktree.join("notes.txt").exists());
}

#[test]
fn an_unfinished_registration_whose_directory_is_gone_stops_no_command() {
    let (repo, run) = TestRepo::with_run();
    std::fs::write(run.worktree.join("a.txt"), "a\n").unwrap();
    repo.checkpoint(&run.id, "build");
    leave_unfinished(&repo, &run.worktree);
    std::fs::remove_dir_all(&run.worktree).unwrap();

    repo.ok(&["gc", "--older-than", "0"]);
    repo.ok(&["resume", &run.id]);
    assert!(run.worktree.join("a.txt").exists());
    assert!(fsck_kinds(&repo).is_empty());

    leave_unfinished(&repo, &run.worktree);
    std::fs::remove_dir_all(&run.worktree).unwrap();
    let report = repo.ok(&["fsck", "--repair"]);
    assert!(report.contains("unfinished-worktree"), "{report}");
    assert!(fsck_kinds(&repo).is_empty());
}
