//! Runs written by Fabro's own code (tests/fixtures/fabro-written): every command reads them as
//! Fabro wrote them (a footer after the trailers, `Fabro-Completed` counting the start node,
//! rank-prefixed stage folders, `run.json` without `format`), and a run continued by git-fabro
//! keeps Fabro's layout.

use serde_json::Value;

use crate::common::{TestRepo, array, run_err};

const RUN: &str = "01M81KAWS9G3B7EB9N3A2NKYK2";
const FORK: &str = "01M81KAXFFF0EW3SBN6H7C7EHD";

fn fabro_runs() -> TestRepo {
    TestRepo::from_bundle("fabro-written/fabro-runs.bundle")
}

fn json(repo: &TestRepo, args: &[&str]) -> Value {
    serde_json::from_str(&repo.ok(args)).expect("JSON output")
}

fn stages(entries: &Value) -> Vec<(u64, String, String)> {
    entries
        .as_array()
        .expect("an array")
        .iter()
        .map(|e| {
            (
                e["ordinal"].as_u64().unwrap(),
                format!("{}@{}", e["node_id"].as_str().unwrap(), e["visit"]),
                e["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// What Fabro's run did, counted from @1 although its first run commit says `Fabro-Completed: 2`.
fn fabros_timeline() -> Vec<(u64, String, String)> {
    [
        (1, "plan@1", "succeeded"),
        (2, "code@1", "failed"),
        (3, "code@2", "succeeded"),
    ]
    .iter()
    .map(|(o, s, st)| (*o, (*s).to_owned(), (*st).to_owned()))
    .collect()
}

#[test]
fn ps_lists_both_runs_as_succeeded_with_goal_and_workflow() {
    let repo = fabro_runs();
    let runs = json(&repo, &["ps", "--json"]);
    let runs = runs.as_array().unwrap();
    assert_eq!(runs.len(), 2, "{runs:?}");
    for run in runs {
        assert_eq!(run["status"], "succeeded", "{run}");
        assert_eq!(run["goal"], "add a greeting", "{run}");
        assert_eq!(run["workflow_name"], "demo", "{run}");
        assert_eq!(
            run["completed"], 3,
            "three checkpoints with run commits: {run}"
        );
    }
    let text = repo.ok(&["ps"]);
    assert!(
        text.contains("add a greeting") && text.contains("demo"),
        "{text}"
    );
}

#[test]
fn log_and_show_count_checkpoints_from_one_although_fabro_counts_the_start_node() {
    let repo = fabro_runs();
    let log = json(&repo, &["log", RUN, "--json"]);
    assert_eq!(stages(&log), fabros_timeline());
    assert_eq!(
        log[0]["completed"], 2,
        "Fabro-Completed is kept as Fabro wrote it"
    );
    let text = repo.ok(&["log", RUN]);
    assert!(text.contains("@3  code@2"), "{text}");
    for (target, stage) in [("@1", "plan@1"), ("@2", "code@1"), ("@3", "code@2")] {
        let show = json(&repo, &["show", RUN, target, "--json"]);
        assert_eq!(
            format!("{}@{}", show["node_id"].as_str().unwrap(), show["visit"]),
            stage
        );
    }
}

#[test]
fn show_lists_the_files_of_rank_prefixed_stage_folders() {
    let repo = fabro_runs();
    let show = json(&repo, &["show", RUN, "@1", "--json"]);
    assert_eq!(show["stage"]["path"], "stages/002-plan@1");
    let files: Vec<&str> = array(&show["stage"]["files"])
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    for name in [
        "status.json",
        "prompt.md",
        "response.md",
        "provider_used.json",
    ] {
        assert!(files.contains(&name), "{name} missing from {files:?}");
    }
    assert_eq!(show["stage"]["status"]["outcome"], "succeeded");
    let text = repo.ok(&["show", RUN, "@3"]);
    assert!(
        text.contains("stages/004-code@2") && text.contains("response.md"),
        "{text}"
    );
}

#[test]
fn a_fabro_fork_lists_its_inherited_checkpoints_then_its_own() {
    let repo = fabro_runs();
    let log = json(&repo, &["log", FORK, "--json"]);
    assert_eq!(stages(&log), fabros_timeline());
    let runs: Vec<&str> = array(&log)
        .iter()
        .map(|e| e["run_id"].as_str().unwrap())
        .collect();
    assert_eq!(runs, [RUN, RUN, FORK]);
}

#[test]
fn fork_at_every_target_form_forks_where_show_points() {
    let repo = fabro_runs();
    let log = json(&repo, &["log", RUN, "--json"]);
    let sha = |i: usize, key: &str| log[i][key].as_str().unwrap()[..7].to_owned();
    let targets = [
        ("@1".to_owned(), 0),
        ("@2".to_owned(), 1),
        ("@3".to_owned(), 2),
        ("plan".to_owned(), 0),
        ("code".to_owned(), 2),
        ("code@1".to_owned(), 1),
        ("code@2".to_owned(), 2),
        (sha(1, "run_commit"), 1),
        (sha(1, "meta_commit"), 1),
    ];
    for (target, index) in targets {
        let shown = json(&repo, &["show", RUN, &target, "--json"]);
        assert_eq!(
            shown["run_commit"], log[index]["run_commit"],
            "show {target}"
        );
        let forked = json(&repo, &["fork", RUN, &target, "--json"]);
        assert_eq!(
            forked["run_commit"], log[index]["run_commit"],
            "fork {target}"
        );
        assert_eq!(forked["ordinal"], index + 1, "fork {target}");
        let fork_log = json(
            &repo,
            &["log", forked["run_id"].as_str().unwrap(), "--json"],
        );
        assert_eq!(
            fork_log.as_array().unwrap().len(),
            index + 1,
            "fork {target}"
        );
    }
}

#[test]
fn diff_rewind_archive_fsck_and_gc_work_on_fabro_runs() {
    let repo = fabro_runs();
    let stat = repo.ok(&["diff", RUN, "@1", "@3", "--stat"]);
    let first = json(&repo, &["show", RUN, "@1", "--json"]);
    let first = first["run_commit"].as_str().unwrap();
    let git = repo.git(&["diff", "--stat", first, &format!("fabro/run/{RUN}")]);
    assert_eq!(stat.trim(), git.trim());

    let fsck = json(&repo, &["fsck", "--json"]);
    assert_eq!(fsck["problems"].as_array().unwrap().len(), 0, "{fsck}");
    assert!(
        !fsck.to_string().contains("dangling"),
        "Fabro's checkpoints are all named by run commits: {fsck}"
    );

    let rewound = json(&repo, &["rewind", RUN, "@2", "--json"]);
    assert_eq!(rewound["ordinal"], 2);
    let ps = json(&repo, &["ps", "--all", "--json"]);
    let source = array(&ps).iter().find(|r| r["run_id"] == RUN).unwrap();
    assert_eq!(source["status"], "archived");
    repo.ok(&["archive", FORK]);
    repo.ok(&["unarchive", FORK]);
    let fork = json(&repo, &["ps", "--json"]);
    assert!(
        fork.as_array()
            .unwrap()
            .iter()
            .any(|r| r["run_id"] == FORK && r["status"] == "succeeded"),
        "{fork}"
    );
    repo.ok(&["gc", "--older-than", "0s"]);
    assert!(
        repo.git(&["branch", "--list", &format!("fabro/meta/{RUN}")])
            .trim()
            .is_empty(),
        "gc removed the archived Fabro run"
    );
    repo.git(&["fsck", "--strict"]);
}

#[test]
fn push_and_fetch_carry_fabro_runs_to_another_clone() {
    let repo = fabro_runs();
    let remote = repo.root.join("remote.git");
    let remote = remote.to_str().unwrap();
    repo.git_in(&repo.root, &["init", "-q", "--bare", remote]);
    repo.ok(&["push", remote, RUN]);
    let clone = repo.root.join("clone");
    repo.git_in(
        &repo.root,
        &["clone", "-q", remote, clone.to_str().unwrap()],
    );
    run_ok_in(&repo, &clone, &["fetch", "origin", RUN]);
    let log = run_ok_in(&repo, &clone, &["log", RUN, "--json"]);
    let log: Value = serde_json::from_str(&log).unwrap();
    assert_eq!(log.as_array().unwrap().len(), 3);
}

fn run_ok_in(repo: &TestRepo, dir: &std::path::Path, args: &[&str]) -> String {
    crate::common::run_ok(repo.fabro_in(dir).args(args))
}

#[test]
fn a_continued_fabro_run_keeps_fabros_stage_layout_and_counting() {
    let repo = fabro_runs();
    let fork = json(&repo, &["fork", RUN, "@2", "--json"]);
    let id = fork["run_id"].as_str().unwrap().to_owned();
    repo.ok(&["resume", &id]);
    let checkpoint = json(
        &repo,
        &["checkpoint", "--run", &id, "--node", "code", "--json"],
    );
    assert_eq!(checkpoint["visit"], 2);
    assert_eq!(checkpoint["ordinal"], 3);
    let message = repo.git(&["log", "-1", "--format=%B", &format!("fabro/run/{id}")]);
    assert!(message.contains("Fabro-Completed: 4"), "{message}");
    repo.ok(&["finish", "--run", &id]);
    let tree = repo.files_in(&format!("fabro/meta/{id}"));
    assert!(tree.contains("stages/004-code@2/status.json"), "{tree}");
    assert!(tree.contains("stages/002-plan@1/prompt.md"), "{tree}");
    let record: Value =
        serde_json::from_str(&repo.git(&["show", &format!("fabro/meta/{id}:run.json")])).unwrap();
    assert_eq!(record["format"], 2);
    assert_eq!(record["status"]["kind"], "succeeded");
    assert_eq!(record["status"]["reason"], "completed");
    assert_eq!(record["spec"]["fork_source_ref"]["source_run_id"], RUN);
    assert!(
        record.get("checkpoints").is_none(),
        "not kept current, so not written"
    );
    crate::format_contract::assert_fabro_shapes(&repo);
}

#[test]
fn resuming_a_finished_fabro_run_points_to_fork() {
    let repo = fabro_runs();
    let (code, err) = run_err(repo.fabro().args(["resume", RUN]));
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("fork"), "{err}");
}
