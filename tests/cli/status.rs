//! `status` and the liveness and filters of `ps`.

use serde_json::Value;

use crate::common::{TestRepo, array, snapshot, texts};

fn json(text: &str) -> Value {
    serde_json::from_str(text).expect("JSON")
}

/// A pid that no process has any more.
fn dead_pid() -> u32 {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

#[test]
fn status_in_a_worktree_shows_the_last_checkpoint_next_node_and_changes() {
    let (repo, run) = TestRepo::with_run();
    let here = |args: &[&str]| crate::common::run_ok(repo.fabro_in(&run.worktree).args(args));
    let first = json(&here(&["status", "--json"]));
    assert_eq!(first["last_checkpoint"], Value::Null);
    assert_eq!(first["unrecorded_changes"], false);
    std::fs::write(run.worktree.join("x"), "x\n").unwrap();
    here(&["checkpoint", "--node", "plan", "--next", "code"]);
    let clean = json(&here(&["status", "--json"]));
    assert_eq!(clean["last_checkpoint"]["node_id"], "plan");
    assert_eq!(clean["last_checkpoint"]["ordinal"], 1);
    assert_eq!(clean["next_node_id"], "code");
    assert_eq!(clean["unrecorded_changes"], false);
    assert_eq!(clean["process_alive"], false);
    assert_eq!(clean["pid"], Value::Null);
    // git agrees: the worktree matches the run commit.
    assert_eq!(repo.git_in(&run.worktree, &["status", "--porcelain"]), "");
    std::fs::write(run.worktree.join("x"), "changed\n").unwrap();
    assert!(
        !repo
            .git_in(&run.worktree, &["status", "--porcelain"])
            .is_empty()
    );
    assert_eq!(
        json(&here(&["status", "--json"]))["unrecorded_changes"],
        true
    );
    let _filters = snapshot::filters(&repo).bind_to_scope();
    insta::assert_snapshot!(here(&["status"]));
}

#[test]
fn status_outside_a_run_lists_the_unfinished_runs() {
    let repo = TestRepo::new();
    let open = repo.start();
    let done = repo.start();
    repo.ok(&["finish", "--run", &done.id]);
    let listed = json(&repo.ok(&["status", "--json"]));
    let ids: Vec<&str> = array(&listed)
        .iter()
        .map(|s| s["run_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [open.id.as_str()]);
    // Runs started in the same millisecond share eight characters; the list shows one line.
    // Its id column is as wide as the prefix that tells the two runs apart, which depends on
    // the milliseconds between their starts: the snapshot does not keep the padding.
    let mut filters = snapshot::filters(&repo);
    filters.add_filter(" {2,}", "  ");
    let _filters = filters.bind_to_scope();
    insta::assert_snapshot!(repo.ok(&["status"]));
    // Named, a finished run is shown too.
    assert_eq!(
        json(&repo.ok(&["status", &done.id, "--json"]))["status"],
        "succeeded"
    );
}

#[test]
fn status_and_ps_tell_a_live_process_from_one_that_is_gone() {
    let (repo, run) = TestRepo::with_run();
    std::fs::write(run.run_dir.join("run.pid"), format!("{}\n", dead_pid())).unwrap();
    let ps = json(&repo.ok(&["ps", "--json"]));
    assert_eq!(ps[0]["process_alive"], false);
    assert!(ps[0]["pid"].is_u64());
    assert!(repo.ok(&["ps"]).contains("running (no process)"));
    let _filters = snapshot::filters(&repo).bind_to_scope();
    insta::assert_snapshot!(
        "status_of_a_run_whose_process_is_gone",
        repo.ok(&["status", &run.id])
    );
    // A live holder (this test's own process) is shown alive.
    std::fs::write(
        run.run_dir.join("run.pid"),
        format!("{}\n", std::process::id()),
    )
    .unwrap();
    let ps = json(&repo.ok(&["ps", "--json"]));
    assert_eq!(ps[0]["process_alive"], true);
    assert!(
        repo.ok(&["ps"])
            .contains(&format!("running (pid {})", std::process::id()))
    );
    assert_eq!(
        json(&repo.ok(&["status", &run.id, "--json"]))["process_alive"],
        true
    );
}

#[test]
fn status_ps_filters_by_status_and_label() {
    let repo = TestRepo::new();
    let a = repo
        .ok(&["start", "--label", "team=web", "--label", "ticket=1"])
        .trim()
        .to_owned();
    let b = repo.ok(&["start", "--label", "team=web"]).trim().to_owned();
    let c = repo.ok(&["start", "--label", "team=api"]).trim().to_owned();
    repo.ok(&["finish", "--run", &b]);
    repo.ok(&["archive", &c]);
    let ids = |args: &[&str]| -> Vec<String> {
        let mut full = vec!["ps", "--json"];
        full.extend_from_slice(args);
        texts(array(&json(&repo.ok(&full))), "run_id")
    };
    assert_eq!(ids(&["--label", "team=web"]), [b.as_str(), a.as_str()]);
    assert_eq!(
        ids(&["--label", "team=web", "--label", "ticket=1"]),
        [a.as_str()]
    );
    assert_eq!(ids(&["--status", "succeeded"]), [b.as_str()]);
    assert_eq!(
        ids(&["--status", "running", "--status", "succeeded"]),
        [b.as_str(), a.as_str()]
    );
    assert_eq!(ids(&["--status", "archived"]), [c.as_str()]);
    assert!(
        ids(&["--label", "team=api"]).is_empty(),
        "archived runs need --all"
    );
    assert_eq!(ids(&["--all", "--label", "team=api"]), [c.as_str()]);
    let out = repo.output(&["ps", "--status", "bogus"]);
    assert_eq!(out.status.code(), Some(2));
}
