use serde_json::Value;

use crate::common::TestRepo;

#[test]
fn ps_lists_runs_from_refs_alone() {
    let repo = TestRepo::new();
    let a = repo.start();
    let b = repo.ok(&["start", "--goal", "second"]).trim().to_owned();
    repo.checkpoint(&a.id, "one");
    repo.checkpoint(&a.id, "two");
    std::fs::remove_dir_all(repo.home.join("runs")).unwrap();
    repo.git(&["worktree", "prune"]);

    let runs: Vec<Value> = serde_json::from_str(&repo.ok(&["ps", "--json"])).unwrap();
    assert_eq!(runs.len(), 2);
    let find = |id: &str| runs.iter().find(|r| r["run_id"] == id).unwrap().clone();
    let first = find(&a.id);
    assert_eq!(first["completed"], 2);
    assert_eq!(first["status"], "running");
    assert_eq!(first["run_branch"], format!("fabro/run/{}", a.id));
    assert_eq!(first["meta_branch"], format!("fabro/meta/{}", a.id));
    assert!(
        first.get("worktree").is_none(),
        "the worktree is gone: {first}"
    );
    let second = find(&b);
    assert_eq!(second["goal"], "second");
    assert_eq!(second["completed"], 0);
    for key in [
        "run_id",
        "status",
        "workflow_name",
        "goal",
        "completed",
        "start_time",
        "run_branch",
        "meta_branch",
    ] {
        assert!(second.get(key).is_some(), "missing {key}");
    }
    let human = repo.ok(&["ps"]);
    assert!(
        human.contains(&a.id[..8]) && human.contains(&b[..8]),
        "{human}"
    );
}

#[test]
fn ps_shows_the_worktree_when_there_is_one() {
    let repo = TestRepo::new();
    let run = repo.start();
    let runs: Vec<Value> = serde_json::from_str(&repo.ok(&["ps", "--json"])).unwrap();
    assert_eq!(
        runs[0]["worktree"].as_str().unwrap(),
        run.worktree.to_str().unwrap()
    );
}

#[test]
fn ps_in_a_repository_without_runs_prints_an_empty_list() {
    let repo = TestRepo::new();
    assert_eq!(repo.ok(&["ps", "--json"]).trim(), "[]");
}
