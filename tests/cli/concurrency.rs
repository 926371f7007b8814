use std::collections::BTreeSet;
use std::process::Child;

use serde_json::Value;

use crate::common::workflow::commands;
use crate::common::{TestRepo, assert_success, read_file, texts};
use crate::torture::assert_completed_one_more_each;

fn wait_all(children: Vec<(String, Child)>) -> Vec<(String, i32, String)> {
    children
        .into_iter()
        .map(|(node, child)| {
            let out = child.wait_with_output().unwrap();
            (
                node,
                out.status.code().unwrap_or(-1),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            )
        })
        .collect()
}

#[test]
fn concurrent_checkpoints_of_one_run_win_whole_or_exit_3() {
    let (repo, run) = TestRepo::with_run();
    let children: Vec<(String, Child)> = (0..8)
        .map(|i| {
            let node = format!("n{i}");
            let child = repo
                .fabro()
                .args(["checkpoint", "--run", &run.id, "--node", &node])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            (node, child)
        })
        .collect();
    let results = wait_all(children);
    let mut succeeded = BTreeSet::new();
    for (node, code, err) in &results {
        match code {
            0 => {
                succeeded.insert(node.clone());
            }
            3 => assert!(err.starts_with("error: ") && err.contains("hint:"), "{err}"),
            other => panic!("{node} exited {other}: {err}"),
        }
    }
    assert!(!succeeded.is_empty());
    let log = repo.log_json(&run.id);
    let recorded: BTreeSet<String> = texts(&log, "node_id").into_iter().collect();
    assert_eq!(
        recorded, succeeded,
        "the timeline holds exactly the successful calls"
    );
    assert_completed_one_more_each(&log);
    let fsck = repo.git_output(&repo.path, &["fsck", "--strict"]);
    assert_success(&fsck);
    // A later checkpoint builds on whatever won.
    repo.checkpoint(&run.id, "after");
    assert_eq!(repo.log_json(&run.id).len(), log.len() + 1);
}

#[test]
fn runs_in_one_repository_do_not_block_each_other() {
    let repo = TestRepo::new();
    let runs: Vec<_> = (0..4).map(|_| repo.start()).collect();
    let children: Vec<(String, Child)> = runs
        .iter()
        .map(|run| {
            let child = repo
                .fabro()
                .args(["checkpoint", "--run", &run.id, "--node", "work"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            (run.id.clone(), child)
        })
        .collect();
    for (id, code, err) in wait_all(children) {
        assert_eq!(code, 0, "{id}: {err}");
    }
    for run in &runs {
        assert_eq!(repo.log_json(&run.id).len(), 1);
    }
}

/// `finish`, `gc` and `unarchive` of one archived run at once: one wins, the others exit 3
/// or find nothing to do, and nothing is lost. With `dirty`, the worktree holds a file that
/// no checkpoint recorded, which must survive whoever wins.
fn race_finish_gc_unarchive(repo: &TestRepo, dirty: bool) {
    let run = repo.start();
    crate::common::write_file(&run.worktree.join("a.txt"), "recorded\n");
    repo.checkpoint(&run.id, "a");
    repo.ok(&["finish", "--run", &run.id, "--keep-worktree"]);
    repo.ok(&["archive", &run.id]);
    let unsaved = run.worktree.join("unsaved.txt");
    if dirty {
        crate::common::write_file(&unsaved, "not recorded\n");
    }
    let commands: [&[&str]; 3] = [
        &["finish", "--run", &run.id],
        &["gc", "--older-than", "0"],
        &["unarchive", &run.id],
    ];
    let children: Vec<(String, Child)> = commands
        .iter()
        .map(|args| {
            let child = repo
                .fabro()
                .args(*args)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            (args[0].to_owned(), child)
        })
        .collect();
    for (command, code, err) in wait_all(children) {
        let nothing_to_do = code == 2 && err.contains("no run matches");
        assert!(
            code == 0 || code == 3 || nothing_to_do,
            "{command} exited {code}: {err}"
        );
    }
    let meta = format!("refs/heads/fabro/meta/{}", run.id);
    let alive = repo
        .git_output(&repo.path, &["rev-parse", "--verify", "-q", &meta])
        .status
        .success();
    if alive {
        assert_eq!(repo.log_json(&run.id).len(), 1, "the checkpoint is intact");
        let record: serde_json::Value =
            serde_json::from_str(&repo.git(&["show", &format!("{meta}:run.json")])).unwrap();
        let kind = record["status"]["kind"].as_str().unwrap();
        assert!(kind == "archived" || kind == "succeeded", "{kind}");
    } else {
        assert!(!dirty, "gc deleted a run whose worktree held work");
        let refs = repo.git(&["for-each-ref", "--format=%(refname)"]);
        assert!(!refs.contains(&run.id), "{refs}");
    }
    if dirty {
        assert_eq!(read_file(&unsaved), "not recorded\n");
    }
    let fsck = repo.git_output(&repo.path, &["fsck", "--strict", "--no-dangling"]);
    assert_success(&fsck);
    let out = repo.output(&["fsck", "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for problem in report["problems"].as_array().unwrap() {
        assert_eq!(problem["repairable"], true, "{problem}");
    }
    if !out.status.success() {
        crate::common::run_ok(repo.fabro().args(["fsck", "--repair"]));
    }
}

#[test]
fn finish_gc_and_unarchive_racing_on_one_run_lose_nothing() {
    let repo = TestRepo::new();
    for trial in 0..12 {
        race_finish_gc_unarchive(&repo, trial % 2 == 1);
    }
}

/// Six `git fabro run` at once, three times over: contention on `packed-refs.lock` and on ref
/// locks is waited out, so every run completes; none is left `running` without a process, and
/// git accepts the repository.
#[test]
fn six_concurrent_runs_all_complete() {
    let repo = TestRepo::new();
    // As in a clone: packed refs, so a ref transaction may take `packed-refs.lock`.
    repo.git(&["pack-refs", "--all"]);
    let workflow = crate::engine_run::workflow(
        &repo,
        "small",
        &commands(
            "small",
            &[
                ("make", "echo one > made.txt"),
                ("grow", "echo two >> made.txt"),
            ],
        ),
    );
    for round in 0..3 {
        let children: Vec<(String, Child)> = (0..6)
            .map(|i| {
                let child = repo
                    .fabro()
                    .arg("run")
                    .arg(&workflow)
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap();
                (format!("round {round} run {i}"), child)
            })
            .collect();
        for (name, code, err) in wait_all(children) {
            assert_eq!(code, 0, "{name}: {err}");
        }
    }
    let runs: Vec<Value> = serde_json::from_str(&repo.ok(&["ps", "--all", "--json"])).unwrap();
    assert_eq!(runs.len(), 18, "{runs:?}");
    for run in &runs {
        assert_ne!(run["status"], "running", "{run}");
    }
    let fsck = repo.git_output(&repo.path, &["fsck", "--strict"]);
    assert_success(&fsck);
}
