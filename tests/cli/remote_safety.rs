//! What travels between clones cannot overwrite work here, run commands, or leak credentials:
//! fetch leaves runs that are checked out here or ahead here alone, remote names never reach
//! git as options, and URLs are recorded and shown without their secrets.

use serde_json::Value;

use crate::common::{TestRepo, array, run_err, run_ok, write_file};
use crate::sync::remote_and_clone;

/// The other clone resumes `id`, checkpoints it and pushes: the remote moves on.
fn move_on_elsewhere(repo: &TestRepo, other: &std::path::Path, id: &str, file: &str) {
    let other_home = repo.root.join("other-home");
    let other_fabro = |args: &[&str]| {
        run_ok(
            repo.fabro_in(other)
                .env("FABRO_HOME", &other_home)
                .args(args),
        )
    };
    other_fabro(&["fetch"]);
    let state: Value = serde_json::from_str(&other_fabro(&["resume", id])).unwrap();
    let worktree = std::path::PathBuf::from(state["worktree"].as_str().unwrap());
    write_file(&worktree.join(file), "from the other clone\n");
    other_fabro(&["checkpoint", "--run", id, "--node", "theirs"]);
    other_fabro(&["push", "origin", id]);
}

#[test]
fn fetch_refuses_to_move_a_run_that_runs_in_place_here() {
    let repo = TestRepo::new();
    let (_bare, other) = remote_and_clone(&repo);
    let id = repo.ok(&["start", "--in-place"]).trim().to_owned();
    repo.write("mine.txt", "work in place\n");
    repo.checkpoint(&id, "ours");
    repo.ok(&["push", "origin", &id]);
    move_on_elsewhere(&repo, &other, &id, "theirs.txt");

    let refs = repo.git(&["for-each-ref", "refs/heads/fabro/"]);
    let (code, err) = run_err(repo.fabro().args(["fetch", "origin"]));
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("in place"), "{err}");
    assert_eq!(repo.git(&["for-each-ref", "refs/heads/fabro/"]), refs);
    // The next checkpoint builds on this clone's history, as it did before the fetch.
    repo.write("mine.txt", "more work in place\n");
    repo.checkpoint(&id, "ours-again");
    assert_eq!(repo.log_json(&id).len(), 2);
}

#[test]
fn fetch_of_all_runs_leaves_a_run_that_is_ahead_here_alone() {
    let repo = TestRepo::new();
    let (_bare, other) = remote_and_clone(&repo);
    let ahead = repo.start();
    repo.checkpoint(&ahead.id, "one");
    repo.ok(&["push", "origin", &ahead.id]);
    repo.checkpoint(&ahead.id, "two");
    // A second run, new on the remote, is what there is to fetch.
    let fresh = {
        let other_home = repo.root.join("other-home");
        let out = run_ok(
            repo.fabro_in(&other)
                .env("FABRO_HOME", &other_home)
                .args(["start", "--json"]),
        );
        let v: Value = serde_json::from_str(&out).unwrap();
        let id = v["run_id"].as_str().unwrap().to_owned();
        run_ok(repo.fabro_in(&other).args(["push", "origin", &id]));
        id
    };

    let ahead_refs = repo.git(&["for-each-ref", &format!("refs/heads/fabro/*/{}", ahead.id)]);
    let fetched: Value = serde_json::from_str(&repo.ok(&["fetch", "--json"])).unwrap();
    assert_eq!(fetched["runs"], serde_json::json!([fresh]));
    assert_eq!(
        repo.git(&["for-each-ref", &format!("refs/heads/fabro/*/{}", ahead.id)]),
        ahead_refs
    );
    assert_eq!(repo.log_json(&ahead.id).len(), 2);
    // Fetch names the run branches it moved and nothing else: no remote-tracking refs.
    let names: Vec<&str> = array(&fetched["refs"])
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(
        names.iter().all(|n| n.starts_with("refs/heads/fabro/")),
        "{names:?}"
    );
    assert_eq!(
        repo.git(&[
            "for-each-ref",
            "refs/remotes/origin/fabro/",
            "--format=%(refname)"
        ])
        .lines()
        .filter(|line| line.contains(&fresh))
        .count(),
        0
    );
    // Up to date everywhere now: fetching again does nothing and says so.
    let again: Value = serde_json::from_str(&repo.ok(&["fetch", "--json"])).unwrap();
    assert_eq!(again["runs"], serde_json::json!([]));
}

#[test]
fn fetch_of_a_diverged_run_says_it_diverged_and_changes_nothing() {
    let repo = TestRepo::new();
    let (_bare, other) = remote_and_clone(&repo);
    let run = repo.start();
    repo.checkpoint(&run.id, "one");
    repo.ok(&["push", "origin", &run.id]);
    move_on_elsewhere(&repo, &other, &run.id, "theirs.txt");
    repo.git(&[
        "worktree",
        "remove",
        "--force",
        run.worktree.to_str().unwrap(),
    ]);
    // This clone moves on differently.
    repo.ok(&["resume", &run.id]);
    repo.checkpoint(&run.id, "ours");
    let worktree = repo.git(&["worktree", "list", "--porcelain"]);
    let worktree = worktree
        .lines()
        .filter_map(|l| l.strip_prefix("worktree "))
        .find(|path| path.contains(&run.id))
        .unwrap()
        .to_owned();
    repo.git(&["worktree", "remove", "--force", &worktree]);
    let refs = repo.git(&["for-each-ref", "refs/heads/fabro/"]);
    let diverged = |repo: &TestRepo| {
        let (code, err) = run_err(repo.fabro().args(["fetch", "origin", &run.id]));
        assert_eq!(code, 1, "{err}");
        assert!(err.contains("diverged"), "{err}");
        assert!(!err.contains("`git fabro fetch` the run"), "{err}");
        assert_eq!(repo.git(&["for-each-ref", "refs/heads/fabro/"]), refs);
    };
    // git finds the divergence when the remote's commits are new here...
    diverged(&repo);
    // ...and git-fabro before asking git, once this clone has seen them.
    let remote_run = repo.git(&[
        "ls-remote",
        "origin",
        &format!("refs/heads/fabro/run/{}", run.id),
    ]);
    let theirs = remote_run.split_whitespace().next().unwrap().to_owned();
    repo.git(&["fetch", "-q", "origin", &theirs]);
    diverged(&repo);
}

#[test]
fn a_remote_named_like_an_option_never_reaches_git_as_one() {
    let (repo, run) = TestRepo::with_run();
    let pwned = repo.root.join("pwned");
    let hostile = format!("--upload-pack=touch {}", pwned.display());
    let push_hostile = format!("--receive-pack=touch {}", pwned.display());

    let (code, err) = run_err(repo.fabro().args(["fetch", "--", &hostile]));
    assert_eq!(code, 2, "{err}");
    let (code, err) = run_err(repo.fabro().args(["push", "--", &push_hostile, &run.id]));
    assert_eq!(code, 2, "{err}");
    repo.write_settings(&format!("[remote]\nname = {hostile:?}\n"));
    let (code, err) = run_err(repo.fabro().args(["fetch"]));
    assert_eq!(code, 2, "{err}");
    let (code, err) = run_err(repo.fabro().args(["push", &run.id]));
    assert_eq!(code, 2, "{err}");
    assert!(!pwned.exists(), "git ran a command named by a remote");
}

#[test]
fn a_password_with_a_quote_and_a_token_in_the_query_are_never_recorded_or_shown() {
    let repo = TestRepo::new();
    repo.git(&[
        "remote",
        "add",
        "origin",
        "https://bot:it's-s3cret@127.0.0.1:9/o/r.git?access_token=tok-s3cret",
    ]);
    let run = repo.start();
    let record = repo.git(&[
        "show",
        &format!("refs/heads/fabro/meta/{}:run.json", run.id),
    ]);
    assert!(
        !record.contains("s3cret") && !record.contains("bot:"),
        "{record}"
    );
    let record: Value = serde_json::from_str(&record).unwrap();
    assert_eq!(
        record["spec"]["git"]["origin_url"],
        "https://127.0.0.1:9/o/r.git"
    );

    for args in [vec!["push", "origin", &run.id], vec!["fetch", "origin"]] {
        let (code, err) = run_err(repo.fabro().args(&args));
        assert_eq!(code, 1, "{err}");
        assert!(!err.contains("s3cret"), "{err}");
    }
}
