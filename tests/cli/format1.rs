//! Runs written in format 1 (tests/fixtures/format1, by git-fabro before format 2) stay
//! readable, and nothing rewrites them: a new checkpoint on such a run adds format 2 records
//! on top of the commits already there.

use serde_json::Value;

use crate::common::{TestRepo, array};

fn format1_runs() -> TestRepo {
    TestRepo::from_bundle("format1/runs.bundle")
}

fn runs(repo: &TestRepo) -> Vec<Value> {
    let all: Value = serde_json::from_str(&repo.ok(&["ps", "--all", "--json"])).unwrap();
    all.as_array().unwrap().clone()
}

fn run_with(repo: &TestRepo, goal: &str) -> String {
    runs(repo)
        .iter()
        .find(|r| r["goal"] == goal && r["status"] == "running")
        .unwrap_or_else(|| panic!("a running run with goal {goal}"))["run_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn format1_runs_are_listed_logged_and_shown() {
    let repo = format1_runs();
    let all = runs(&repo);
    assert_eq!(all.len(), 7, "{all:#?}");
    let statuses: Vec<&str> = all.iter().map(|r| r["status"].as_str().unwrap()).collect();
    assert!(
        statuses.contains(&"archived") && statuses.contains(&"failed"),
        "{statuses:?}"
    );
    let archived = all
        .iter()
        .find(|r| r["status"] == "archived" && r["goal"] == "add a greeting")
        .expect("the rewound run");
    let id = archived["run_id"].as_str().unwrap();
    let log: Value = serde_json::from_str(&repo.ok(&["log", id, "--json"])).unwrap();
    let stages: Vec<String> = array(&log)
        .iter()
        .map(|e| {
            format!(
                "@{} {}@{} {}",
                e["ordinal"],
                e["node_id"].as_str().unwrap(),
                e["visit"],
                e["status"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        stages,
        [
            "@1 plan@1 succeeded",
            "@2 code@1 failed",
            "@3 code@2 partially_succeeded",
            "@4 review@1 skipped",
            "@5 code@3 succeeded"
        ]
    );
    let show: Value = serde_json::from_str(&repo.ok(&["show", id, "@1", "--json"])).unwrap();
    assert_eq!(show["stage"]["path"], "stages/plan@1");
    assert_eq!(show["stage"]["status"]["status"], "succeeded");
    let fsck: Value = serde_json::from_str(&repo.ok(&["fsck", "--json"])).unwrap();
    assert_eq!(fsck["problems"], serde_json::json!([]), "{fsck}");
    assert!(
        fsck["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["kind"] == "format-1-record"),
        "{fsck}"
    );
}

#[test]
fn a_format1_run_takes_checkpoints_without_rewriting_its_history() {
    let repo = format1_runs();
    let id = run_with(&repo, "resumed");
    let before = repo.git(&["rev-list", &format!("fabro/meta/{id}")]);
    repo.ok(&["resume", &id]);
    repo.checkpoint(&id, "next");
    let after = repo.git(&["rev-list", &format!("fabro/meta/{id}")]);
    assert!(
        after.ends_with(&before),
        "the old commits stay as they were"
    );
    let log: Value = serde_json::from_str(&repo.ok(&["log", &id, "--json"])).unwrap();
    let nodes: Vec<&str> = array(&log)
        .iter()
        .map(|e| e["node_id"].as_str().unwrap())
        .collect();
    assert_eq!(nodes, ["after-resume", "next"]);
    let record: Value =
        serde_json::from_str(&repo.git(&["show", &format!("fabro/meta/{id}:run.json")])).unwrap();
    assert_eq!(record["format"], 2, "what is written now is format 2");
    let tree = repo.files_in(&format!("fabro/meta/{id}"));
    assert!(tree.contains("stages/after-resume@1/status.json"), "{tree}");
    assert!(tree.contains("stages/002-next@1/status.json"), "{tree}");
    let show: Value = serde_json::from_str(&repo.ok(&["show", &id, "@2", "--json"])).unwrap();
    assert_eq!(show["stage"]["path"], "stages/002-next@1");
}

#[test]
fn a_format1_fork_and_unarchive_keep_working() {
    let repo = format1_runs();
    let archived = runs(&repo)
        .into_iter()
        .find(|r| r["status"] == "archived" && r["goal"] == "archived")
        .expect("the run archived while running");
    let id = archived["run_id"].as_str().unwrap();
    repo.ok(&["unarchive", id]);
    let back = runs(&repo).into_iter().find(|r| r["run_id"] == id).unwrap();
    assert_eq!(back["status"], "running", "format 1's bare prior is read");
    let source = run_with(&repo, "add a greeting");
    let forked: Value = serde_json::from_str(&repo.ok(&["fork", &source, "@1", "--json"])).unwrap();
    assert_eq!(forked["ordinal"], 1);
}
