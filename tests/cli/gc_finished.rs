//! `gc --finished-older-than DURATION` and `[gc] finished_older_than`: finished runs go like
//! archived ones, with the same care (no unrecorded work lost, no branch checked out elsewhere
//! deleted).

use serde_json::Value;

use crate::common::{TestRepo, array, read_file, run_err, texts, write_file};
use crate::fork::finished_run;

fn all_runs(repo: &TestRepo) -> Vec<String> {
    let runs: Vec<Value> = serde_json::from_str(&repo.ok(&["ps", "--all", "--json"])).unwrap();
    let mut ids = texts(&runs, "run_id");
    ids.sort();
    ids
}

fn failed_run(repo: &TestRepo) -> String {
    let run = repo.start();
    repo.checkpoint(&run.id, "plan");
    repo.ok(&[
        "finish",
        &run.id,
        "--status",
        "failed",
        "--reason",
        "tests fail",
    ]);
    run.id
}

fn collected(repo: &TestRepo, args: &[&str]) -> Vec<String> {
    let out: Value = serde_json::from_str(&repo.ok(args)).unwrap();
    let mut ids = texts(array(&out["runs"]), "run_id");
    ids.sort();
    ids
}

#[test]
fn finished_runs_go_only_when_asked_and_old_enough() {
    let repo = TestRepo::new();
    let succeeded = finished_run(&repo);
    let failed = failed_run(&repo);
    let running = repo.start();
    repo.checkpoint(&running.id, "plan");
    let archived = failed_run(&repo);
    repo.ok(&["archive", &archived]);

    // Without the flag or the setting, finished runs stay.
    assert!(collected(&repo, &["gc", "--older-than", "30d", "--json"]).is_empty());
    // Not old enough yet.
    assert!(
        collected(
            &repo,
            &[
                "gc",
                "--older-than",
                "30d",
                "--finished-older-than",
                "1h",
                "--json"
            ]
        )
        .is_empty()
    );
    let mut expected = vec![succeeded.clone(), failed.clone()];
    expected.sort();
    let dry = collected(
        &repo,
        &[
            "gc",
            "--older-than",
            "30d",
            "--finished-older-than",
            "0",
            "--dry-run",
            "--json",
        ],
    );
    assert_eq!(dry, expected);
    assert_eq!(all_runs(&repo).len(), 4, "a dry run removes nothing");

    let out = repo.ok(&["gc", "--older-than", "30d", "--finished-older-than", "0"]);
    assert!(
        out.contains(&format!("removed run {failed} (failed, finished ")),
        "{out}"
    );
    assert!(
        out.contains(&format!("removed run {succeeded} (succeeded, finished ")),
        "{out}"
    );
    let mut left = vec![running.id.clone(), archived.clone()];
    left.sort();
    assert_eq!(
        all_runs(&repo),
        left,
        "running and young archived runs stay"
    );
    let refs = repo.git(&["for-each-ref", "--format=%(refname)"]);
    assert!(
        !refs.contains(&succeeded) && !refs.contains(&failed),
        "{refs}"
    );
    assert!(
        repo.git_output(&repo.path, &["fsck", "--strict"])
            .status
            .success()
    );
}

#[test]
fn the_gc_setting_in_settings_toml_collects_finished_runs() {
    let repo = TestRepo::new();
    let done = finished_run(&repo);
    repo.write_settings("[gc]\nfinished_older_than = \"0\"\n");
    // The flag wins over the setting.
    assert!(collected(&repo, &["gc", "--finished-older-than", "2w", "--json"]).is_empty());
    assert_eq!(collected(&repo, &["gc", "--json"]), vec![done]);

    repo.write_settings("[gc]\nfinished_older_than = \"soon\"\n");
    let (code, err) = run_err(repo.fabro().args(["gc"]));
    assert_eq!(code, 2);
    assert!(err.contains("[gc] finished_older_than"), "{err}");
    let (code, _) = run_err(repo.fabro().args(["gc", "--finished-older-than", "soon"]));
    assert_eq!(code, 2);
}

#[test]
fn finished_runs_with_unrecorded_work_or_a_branch_checked_out_elsewhere_are_kept() {
    let repo = TestRepo::new();
    let dirty = repo.start();
    repo.checkpoint(&dirty.id, "plan");
    repo.ok(&["finish", &dirty.id, "--keep-worktree"]);
    write_file(&dirty.worktree.join("notes.txt"), "in no commit\n");

    let elsewhere = finished_run(&repo);
    let other = repo.root.join("other");
    repo.git(&[
        "worktree",
        "add",
        "-q",
        other.to_str().unwrap(),
        &format!("fabro/run/{elsewhere}"),
    ]);

    let out: Value =
        serde_json::from_str(&repo.ok(&["gc", "--finished-older-than", "0", "--json"])).unwrap();
    assert!(out["runs"].as_array().unwrap().is_empty(), "{out}");
    let kept: Vec<&str> = array(&out["kept"])
        .iter()
        .map(|k| k["run_id"].as_str().unwrap())
        .collect();
    assert!(
        kept.contains(&dirty.id.as_str()) && kept.contains(&elsewhere.as_str()),
        "{out}"
    );
    assert_eq!(
        read_file(dirty.worktree.join("notes.txt")),
        "in no commit\n"
    );
    assert!(other.join("step0.txt").exists());
    assert_eq!(all_runs(&repo).len(), 2);
}
