//! Runs move between clones through a bare remote on the same machine.

use serde_json::Value;

use crate::common::{TestRepo, read_file, run_err, run_ok, write_file};

/// A bare remote and a second clone of the test repository, both under its root.
pub fn remote_and_clone(repo: &TestRepo) -> (std::path::PathBuf, std::path::PathBuf) {
    let bare = repo.root.join("remote.git");
    repo.git(&[
        "clone",
        "-q",
        "--bare",
        repo.path.to_str().unwrap(),
        bare.to_str().unwrap(),
    ]);
    repo.git(&["remote", "add", "origin", bare.to_str().unwrap()]);
    let other = repo.root.join("other");
    repo.git(&[
        "clone",
        "-q",
        bare.to_str().unwrap(),
        other.to_str().unwrap(),
    ]);
    repo.git_in(&other, &["config", "user.name", "Other"]);
    repo.git_in(&other, &["config", "user.email", "other@example.com"]);
    (bare, other)
}

#[test]
fn a_run_pushed_from_one_clone_is_fetched_listed_inspected_and_resumed_in_another() {
    let repo = TestRepo::new();
    let (bare, other) = remote_and_clone(&repo);
    let run = repo.start();
    write_file(&run.worktree.join("a.txt"), "from clone one\n");
    repo.checkpoint_with(&run.id, "plan", &["--next", "code"]);

    let pushed: Value =
        serde_json::from_str(&repo.ok(&["push", "origin", &run.id, "--json"])).unwrap();
    assert_eq!(pushed["remote"].as_str().unwrap(), bare.to_str().unwrap());
    assert_eq!(pushed["refs"].as_array().unwrap().len(), 2);
    assert!(
        repo.git_in(&bare, &["for-each-ref"])
            .contains(&format!("refs/heads/fabro/meta/{}", run.id))
    );

    let fetched: Value =
        serde_json::from_str(&run_ok(repo.fabro_in(&other).args(["fetch", "--json"]))).unwrap();
    assert_eq!(fetched["runs"], serde_json::json!([run.id]));
    let ps: Vec<Value> =
        serde_json::from_str(&run_ok(repo.fabro_in(&other).args(["ps", "--json"]))).unwrap();
    assert_eq!(ps[0]["run_id"], run.id.as_str());
    let log: Vec<Value> = serde_json::from_str(&run_ok(
        repo.fabro_in(&other).args(["log", &run.id, "--json"]),
    ))
    .unwrap();
    assert_eq!(log, repo.log_json(&run.id));
    run_ok(repo.fabro_in(&other).args(["show", &run.id, "plan"]));

    // Resume rebuilds what the other clone lacks, in its own fabro home.
    let other_home = repo.root.join("other-home");
    let state: Value = serde_json::from_str(&run_ok(
        repo.fabro_in(&other)
            .env("FABRO_HOME", &other_home)
            .args(["resume", &run.id]),
    ))
    .unwrap();
    assert_eq!(state["next_node_id"], "code");
    let worktree = std::path::PathBuf::from(state["worktree"].as_str().unwrap());
    assert!(worktree.starts_with(&other_home));
    assert_eq!(read_file(worktree.join("a.txt")), "from clone one\n");
    run_ok(
        repo.fabro_in(&worktree)
            .env("FABRO_HOME", &other_home)
            .args(["checkpoint", "--node", "code"]),
    );
    run_ok(repo.fabro_in(&other).args(["push", "origin", &run.id]));

    // Back in the first clone, the run branch is checked out in a worktree: git-fabro says so
    // instead of moving the branch under it. Once the worktree is gone, it fast-forwards in.
    let (code, err) = run_err(repo.fabro().args(["fetch", "origin", &run.id[..10]]));
    assert_eq!(code, 1);
    assert!(err.contains("checked out here"), "{err}");
    repo.git(&["worktree", "remove", run.worktree.to_str().unwrap()]);
    repo.ok(&["fetch", "origin", &run.id[..10]]);
    assert_eq!(repo.log_json(&run.id).len(), 2);
}

#[test]
fn a_remote_that_moved_on_refuses_the_push_and_nothing_is_overwritten() {
    let repo = TestRepo::new();
    let (bare, other) = remote_and_clone(&repo);
    let run = repo.start();
    repo.checkpoint(&run.id, "one");
    repo.ok(&["push", "--all"]);
    run_ok(repo.fabro_in(&other).args(["fetch"]));
    let other_home = repo.root.join("other-home");
    run_ok(
        repo.fabro_in(&other)
            .env("FABRO_HOME", &other_home)
            .args(["resume", &run.id]),
    );
    run_ok(repo.fabro_in(&other).env("FABRO_HOME", &other_home).args([
        "checkpoint",
        "--run",
        &run.id,
        "--node",
        "theirs",
    ]));
    run_ok(
        repo.fabro_in(&other)
            .args(["push"])
            .arg("origin")
            .arg(&run.id),
    );
    let remote_refs = repo.git_in(&bare, &["for-each-ref"]);

    repo.checkpoint(&run.id, "ours");
    let (code, err) = run_err(repo.fabro().args(["push", "origin", &run.id]));
    assert_ne!(code, 0);
    assert!(
        err.contains("refused")
            && (err.contains("fetch first") || err.contains("non-fast-forward")),
        "{err}"
    );
    assert_eq!(
        repo.git_in(&bare, &["for-each-ref"]),
        remote_refs,
        "the remote is unchanged"
    );

    // And a fetch does not overwrite the local branch that moved on either.
    let local = repo.git(&["for-each-ref", "refs/heads/fabro/"]);
    let (code, err) = run_err(repo.fabro().args(["fetch", "origin", &run.id]));
    assert_ne!(code, 0, "{err}");
    assert_eq!(repo.git(&["for-each-ref", "refs/heads/fabro/"]), local);
}

#[test]
fn push_and_fetch_name_only_run_refs_and_keep_credentials_out_of_output() {
    let repo = TestRepo::new();
    let (bare, other) = remote_and_clone(&repo);
    repo.git(&["branch", "fabro/not-a-run"]);
    let run = repo.start();
    repo.ok(&["push", "--all"]);
    let remote_refs = repo.git_in(&bare, &["for-each-ref", "--format=%(refname)"]);
    assert!(!remote_refs.contains("not-a-run"), "{remote_refs}");
    repo.git_in(&bare, &["branch", "fabro/remote-only"]);
    run_ok(repo.fabro_in(&other).args(["fetch"]));
    let local = repo.git_in(
        &other,
        &["for-each-ref", "--format=%(refname)", "refs/heads/fabro/"],
    );
    assert_eq!(local.lines().count(), 2, "{local}");
    assert!(local.contains(&run.id));

    repo.git(&[
        "remote",
        "add",
        "secret",
        "https://user:hunter2@127.0.0.1:9/o/r.git",
    ]);
    let (code, err) = run_err(repo.fabro().args(["push", "secret", &run.id]));
    assert_ne!(code, 0);
    assert!(!err.contains("hunter2"), "{err}");
    assert!(err.contains("127.0.0.1/o/r"), "{err}");
}

#[test]
fn push_without_runs_outside_a_run_explains() {
    let repo = TestRepo::new();
    let (code, err) = run_err(repo.fabro().args(["push"]));
    assert_eq!(code, 2);
    assert!(err.contains("--all"), "{err}");
}

/// A run that a live process here works on (here `resume -- COMMAND`; the workflow engine
/// holds its run the same way) is never moved by a fetch, even when only its metadata branch
/// is behind: the fetch names it and leaves it, and fetches it once the process is gone.
#[test]
fn fetch_never_moves_a_run_that_a_live_process_here_holds() {
    let repo = TestRepo::new();
    let (_bare, other) = remote_and_clone(&repo);
    let run = repo.start();
    write_file(&run.worktree.join("a.txt"), "a\n");
    repo.checkpoint(&run.id, "plan");
    let marker = repo.root.join("holding");
    let script = format!("touch '{}'; sleep 30", marker.display());
    let mut holder = repo
        .fabro()
        .args(["resume", &run.id, "--", "sh", "-c", &script])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    while !marker.exists() {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    repo.ok(&["push", "origin", &run.id]);
    // The other clone adds a commit to the run's metadata branch only, and pushes it.
    run_ok(repo.fabro_in(&other).args(["fetch"]));
    let meta = format!("fabro/meta/{}", run.id);
    let tip = repo.git_in(&other, &["rev-parse", &meta]);
    let tree = repo.git_in(&other, &["rev-parse", &format!("{meta}^{{tree}}")]);
    let theirs = repo.git_in(
        &other,
        &[
            "commit-tree",
            tree.trim(),
            "-p",
            tip.trim(),
            "-m",
            "elsewhere",
        ],
    );
    repo.git_in(
        &other,
        &["update-ref", &format!("refs/heads/{meta}"), theirs.trim()],
    );
    repo.git_in(&other, &["push", "-q", "origin", &meta]);

    let before = repo.git(&["rev-parse", &meta]);
    let out = repo.output(&["fetch"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains(&format!("process {}", holder.id())),
        "the fetch does not say why the run was left: {err}"
    );
    assert_eq!(repo.git(&["rev-parse", &meta]), before, "{err}");
    let json: Value =
        serde_json::from_str(&run_ok(repo.fabro().args(["fetch", "--json"]))).unwrap();
    assert_eq!(json["held"][0]["run_id"], run.id.as_str(), "{json}");

    let _ = holder.kill();
    let _ = holder.wait();
    run_ok(repo.fabro().args(["fetch"]));
    assert_eq!(repo.git(&["rev-parse", &meta]), theirs);
}

/// A run's branch moved by something other than git-fabro while its engine works (here
/// `git update-ref`; a plain `git fetch` into the branch does the same) is not built on: the
/// engine stops the run with a conflict (exit 3) and writes nothing on top, and `resume`
/// continues from what the branch holds.
#[test]
fn the_engine_stops_when_a_branch_of_its_run_moves_under_it() {
    let repo = TestRepo::new();
    let (engine, id) = engine_inside_a_slow_node(&repo, &[]);
    let meta = format!("refs/heads/fabro/meta/{id}");
    let tip = repo.git(&["rev-parse", &meta]);
    let tree = repo.git(&["rev-parse", &format!("{meta}^{{tree}}")]);
    let theirs = repo.git(&[
        "commit-tree",
        tree.trim(),
        "-p",
        tip.trim(),
        "-m",
        "elsewhere",
    ]);
    repo.git(&["update-ref", &meta, theirs.trim()]);

    let out = engine.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("moved"), "{err}");
    assert_eq!(
        repo.git(&["rev-parse", &meta]),
        theirs,
        "the engine built on it"
    );
    let runs: Vec<Value> = serde_json::from_str(&repo.ok(&["ps", "--json"])).unwrap();
    assert_eq!(runs[0]["status"], "running", "{runs:?}");
    run_ok(repo.fabro().args(["resume", &id]));
    let runs: Vec<Value> = serde_json::from_str(&repo.ok(&["ps", "--all", "--json"])).unwrap();
    assert_eq!(runs[0]["status"], "succeeded", "{runs:?}");
}

/// A run branch is the node's to commit on, in its worktree, but what a fetch brings onto it
/// from another repository is not built on.
#[test]
fn the_engine_stops_when_a_fetch_moves_its_run_branch_but_not_for_a_nodes_own_commit() {
    let repo = TestRepo::new();
    let own = "echo mine > own.txt && git add own.txt && git commit -qm own";
    let (engine, id) = engine_inside_a_slow_node(&repo, &[("own", own)]);
    let run = format!("refs/heads/fabro/run/{id}");
    let tip = repo.git(&["rev-parse", &run]);
    let tree = repo.git(&["rev-parse", &format!("{run}^{{tree}}")]);
    let theirs = repo.git(&[
        "commit-tree",
        tree.trim(),
        "-p",
        tip.trim(),
        "-m",
        "fetched",
    ]);
    repo.git(&[
        "fetch",
        "--update-head-ok",
        ".",
        &format!("{}:{run}", theirs.trim()),
    ]);

    let out = engine.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("moved") && err.contains("reflog: \"fetch"),
        "the stop names something else than the fetch (the node's own commit?): {err}"
    );
    assert!(err.contains("own@1  succeeded"), "{err}");
    assert_eq!(
        repo.git(&["rev-parse", &run]),
        theirs,
        "the engine built on it"
    );
}

/// A `run` of a workflow of command nodes `before` (id, script), then `work`, which takes 5 s,
/// and the run's id once `work` has begun.
fn engine_inside_a_slow_node(
    repo: &TestRepo,
    before: &[(&str, &str)],
) -> (std::process::Child, String) {
    let marker = repo.root.join("working");
    let mut nodes = String::new();
    let mut chain = String::from("start");
    for (id, script) in before {
        nodes.push_str(&format!(
            "  {id} [shape=parallelogram, script=\"{script}\"]\n"
        ));
        chain.push_str(&format!(" -> {id}"));
    }
    let workflow = crate::engine_run::workflow(
        repo,
        "slow",
        &format!(
            r#"digraph slow {{
  start [shape=Mdiamond]
  exit [shape=Msquare]
{nodes}  work [shape=parallelogram, script="touch '{}'; sleep 5; echo done > made.txt"]
  {chain} -> work -> exit
}}"#,
            marker.display()
        ),
    );
    let engine = repo
        .fabro()
        .arg("run")
        .arg(&workflow)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    while !marker.exists() {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let id = repo.runs_with_metadata();
    (engine, id.trim().to_owned())
}

#[test]
fn fetch_all_takes_every_run_the_remote_has_as_push_all_gives_them() {
    let repo = TestRepo::new();
    let (_bare, other) = remote_and_clone(&repo);
    let first = repo.run_with_checkpoints(1);
    let second = repo.run_with_checkpoints(2);
    repo.ok(&["push", "--all"]);
    run_ok(repo.fabro_in(&other).args(["fetch", "--all"]));
    for id in [&first, &second] {
        let there = repo.git_in(&other, &["rev-parse", &format!("fabro/run/{id}")]);
        let here = repo.git(&["rev-parse", &format!("fabro/run/{id}")]);
        assert_eq!(there, here);
    }
    let (code, err) = run_err(
        repo.fabro_in(&other)
            .args(["fetch", "--all", "origin", &first]),
    );
    assert_eq!(code, 2, "{err}");
}
