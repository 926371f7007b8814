use serde_json::Value;

use crate::common::{TestRepo, array, run_ok, snapshot, write_file};

fn three_checkpoints(repo: &TestRepo) -> crate::common::Started {
    let run = repo.start();
    write_file(&repo.root.join("resp.md"), "answer\n");
    repo.checkpoint_with(&run.id, "plan", &["--next", "code", "--context", "n=1"]);
    repo.checkpoint_with(&run.id, "code", &["--attach", "response.md=../resp.md"]);
    repo.checkpoint(&run.id, "plan");
    run
}

fn ordinal(repo: &TestRepo, args: &[&str]) -> u64 {
    let v: Value = serde_json::from_str(&repo.ok(args)).unwrap();
    v["ordinal"].as_u64().unwrap()
}

#[test]
fn every_target_form_resolves() {
    let repo = TestRepo::new();
    let run = three_checkpoints(&repo);
    let id = run.id.as_str();
    let log = repo.log_json(id);
    assert_eq!(ordinal(&repo, &["show", id, "--json"]), 3);
    assert_eq!(ordinal(&repo, &["show", id, "@2", "--json"]), 2);
    assert_eq!(ordinal(&repo, &["show", id, "plan", "--json"]), 3);
    assert_eq!(ordinal(&repo, &["show", id, "plan@1", "--json"]), 1);
    let run_sha = log[1]["run_commit"].as_str().unwrap();
    let meta_sha = log[0]["meta_commit"].as_str().unwrap();
    assert_eq!(ordinal(&repo, &["show", id, &run_sha[..8], "--json"]), 2);
    assert_eq!(ordinal(&repo, &["show", id, &meta_sha[..10], "--json"]), 1);
    // One argument names the target when the current run is known.
    let v: Value = serde_json::from_str(&run_ok(
        repo.fabro_in(&run.worktree)
            .args(["show", "code", "--json"]),
    ))
    .unwrap();
    assert_eq!(v["ordinal"], 2);
}

#[test]
fn show_prints_the_record_and_the_stage_files() {
    let repo = TestRepo::new();
    let run = three_checkpoints(&repo);
    let v: Value = serde_json::from_str(&repo.ok(&["show", &run.id, "code@1", "--json"])).unwrap();
    assert_eq!(v["node_id"], "code");
    assert_eq!(v["git_commit_sha"], v["run_commit"]);
    assert_eq!(v["record"]["current_node"], "code");
    assert_eq!(v["record"]["context_values"]["n"], 1);
    assert_eq!(v["stage"]["path"], "stages/002-code@1");
    let names: Vec<&str> = array(&v["stage"]["files"])
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["response.md", "status.json"]);
    assert_eq!(v["stage"]["status"]["outcome"], "succeeded");
    let _filters = snapshot::filters(&repo).bind_to_scope();
    insta::assert_snapshot!(repo.ok(&["show", &run.id, "plan@1"]));
}

#[test]
fn a_target_matching_nothing_or_several_exits_2_with_the_timeline_hint() {
    let repo = TestRepo::new();
    let run = three_checkpoints(&repo);
    let said: String = ["@9", "review", "plan@7", "deadbeef00"]
        .iter()
        .map(|target| snapshot::refused(&repo, &["show", &run.id, target]))
        .collect();
    let _filters = snapshot::filters(&repo).bind_to_scope();
    insta::assert_snapshot!(said);
}

#[test]
fn show_prints_the_context_one_value_a_line() {
    let (repo, run) = TestRepo::with_run();
    repo.checkpoint_with(
        &run.id,
        "plan",
        &[
            "--context",
            "n=1",
            "--context",
            "note=\"ready\"",
            "--context",
            "list=[1,2]",
        ],
    );
    let _filters = snapshot::filters(&repo).bind_to_scope();
    insta::assert_snapshot!(repo.ok(&["show", &run.id]));
}

/// After a run that routed past a failed stage, the command its last line names shows that
/// stage (with what it printed), not the run's last checkpoint, a stage that came after it.
#[test]
fn the_hint_after_a_failed_stage_shows_that_stage() {
    let repo = TestRepo::new();
    let text = "digraph past { start [shape=Mdiamond]\n exit [shape=Msquare]\n \
                check [shape=parallelogram, script=\"echo broken >&2; exit 1\"]\n \
                after [shape=parallelogram, script=\"true\"]\n \
                start -> check -> after -> exit }";
    let path = crate::engine_run::workflow(&repo, "past", text);
    let out = repo
        .fabro()
        .arg("run")
        .arg(&path)
        .output()
        .expect("git-fabro runs");
    assert!(out.status.success());
    let id = crate::engine_run::the_only_run(&repo);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = stderr.lines().last().unwrap_or_default();
    let hinted = format!("git fabro show {id} check@1");
    assert!(
        last.ends_with(&format!("(`{hinted}` says why)")),
        "{stderr}"
    );

    let words: Vec<&str> = hinted.split(' ').skip(2).collect();
    let shown = repo.ok(&words);
    let failed = repo.log_json(&id)[0].clone();
    assert_eq!(failed["status"], "failed");
    assert_eq!(shown, repo.ok(&["show", &id, "@1"]));
    assert_eq!(
        shown.lines().next(),
        Some(format!("checkpoint @1 check@1 (failed) of run {id}").as_str())
    );
    assert!(shown.contains("command.stderr = \"broken\\n\""), "{shown}");
    assert_ne!(
        shown,
        repo.ok(&["show", &id]),
        "show RUN is the last checkpoint"
    );
}
