use serde_json::Value;

use crate::common::{TestRepo, texts};
use crate::fork::finished_run;

fn ps(repo: &TestRepo, all: bool) -> Vec<String> {
    let args: &[&str] = if all {
        &["ps", "--all", "--json"]
    } else {
        &["ps", "--json"]
    };
    let runs: Vec<Value> = serde_json::from_str(&repo.ok(args)).unwrap();
    texts(&runs, "run_id")
}

#[test]
fn archive_hides_and_unarchive_restores() {
    let repo = TestRepo::new();
    let done = finished_run(&repo);
    repo.ok(&["archive", &done]);
    repo.ok(&["archive", &done]);
    assert!(ps(&repo, false).is_empty());
    assert_eq!(ps(&repo, true), vec![done.clone()]);
    repo.ok(&["unarchive", &done]);
    let runs: Vec<Value> = serde_json::from_str(&repo.ok(&["ps", "--json"])).unwrap();
    assert_eq!(runs[0]["status"], "succeeded");
}

#[test]
fn gc_removes_old_archived_runs_and_nothing_else() {
    let repo = TestRepo::new();
    let done = finished_run(&repo);
    let kept = repo.start();
    repo.checkpoint(&kept.id, "k");
    std::fs::write(kept.worktree.join("scratch.txt"), "x").unwrap();
    repo.ok(&["restore", "--run", &kept.id]);
    let archived = repo.start();
    repo.checkpoint(&archived.id, "x");
    std::fs::write(archived.worktree.join("scratch.txt"), "x").unwrap();
    repo.ok(&["restore", "--run", &archived.id]);
    repo.ok(&["archive", &archived.id, &done]);
    repo.git(&["branch", "fabro-lookalike"]);
    repo.git(&["update-ref", "refs/fabro/other/keep", "HEAD"]);

    // Too young for the default limit.
    assert!(
        !repo
            .ok(&["gc", "--dry-run", "--json"])
            .contains(&archived.id)
    );
    let dry: Value =
        serde_json::from_str(&repo.ok(&["gc", "--older-than", "0", "--dry-run", "--json"]))
            .unwrap();
    assert_eq!(dry["runs"].as_array().unwrap().len(), 2);
    assert_eq!(ps(&repo, true).len(), 3, "dry run removes nothing");

    repo.ok(&["gc", "--older-than", "0"]);
    assert_eq!(ps(&repo, true), vec![kept.id.clone()]);
    let refs = repo.git(&["for-each-ref", "--format=%(refname)"]);
    assert!(
        !refs.contains(&archived.id) && !refs.contains(&done),
        "{refs}"
    );
    assert!(
        refs.contains("refs/heads/fabro-lookalike") && refs.contains("refs/fabro/other/keep"),
        "{refs}"
    );
    assert!(refs.contains(&format!("refs/heads/fabro/run/{}", kept.id)));
    assert!(
        refs.contains(&format!("refs/fabro/recovery/{}/", kept.id)),
        "{refs}"
    );
    assert!(!archived.run_dir.exists() && !archived.worktree.exists());
    assert!(!repo.git(&["worktree", "list"]).contains(&archived.id));
    assert!(kept.worktree.is_dir());
    let fsck = repo.git_output(&repo.path, &["fsck", "--strict"]);
    assert!(fsck.status.success());
}

#[test]
fn gc_prunes_stale_worktree_registrations_of_runs() {
    let (repo, run) = TestRepo::with_run();
    std::fs::remove_dir_all(&run.worktree).unwrap();
    let out = repo.ok(&["gc"]);
    assert!(out.contains("stale worktree"), "{out}");
    assert!(!repo.git(&["worktree", "list"]).contains(&run.id));
    assert_eq!(
        ps(&repo, false),
        vec![run.id.clone()],
        "the run itself stays"
    );
}

#[test]
fn bad_durations_exit_2() {
    let repo = TestRepo::new();
    let out = repo.output(&["gc", "--older-than", "soon"]);
    assert_eq!(out.status.code(), Some(2));
}
