use serde_json::Value;

use crate::common::{TestRepo, write_file};

/// A finished run with checkpoints plan@1, code@1, plan@2, each changing a file.
pub fn finished_run(repo: &TestRepo) -> String {
    let run = repo.start();
    for (i, node) in ["plan", "code", "plan"].iter().enumerate() {
        write_file(&run.worktree.join(format!("step{i}.txt")), node);
        repo.checkpoint_with(
            &run.id,
            node,
            &["--next", "next", "--context", &format!("step={i}")],
        );
    }
    repo.ok(&["finish", "--run", &run.id]);
    run.id
}

#[test]
fn fork_starts_a_new_run_at_the_target_and_leaves_the_source_alone() {
    let repo = TestRepo::new();
    let source = finished_run(&repo);
    let refs_before = repo.git(&["for-each-ref", &format!("refs/heads/fabro/*/{source}")]);
    let source_log = repo.log_json(&source);

    let out = repo.ok(&["fork", &source, "code"]);
    let id = out.trim();
    assert_eq!(out.lines().count(), 1);
    assert_ne!(id, source);
    assert_eq!(
        repo.git(&["for-each-ref", &format!("refs/heads/fabro/*/{source}")]),
        refs_before
    );

    let target = &source_log[1];
    assert_eq!(
        repo.git(&["rev-parse", &format!("fabro/run/{id}")]).trim(),
        target["run_commit"].as_str().unwrap()
    );
    let meta = format!("fabro/meta/{id}");
    assert_eq!(
        repo.git(&["rev-list", "--count", &meta]).trim(),
        "1",
        "an orphan root commit"
    );
    assert!(
        repo.git(&["log", "-1", "--format=%s", &meta])
            .starts_with("init run")
    );
    let record: Value =
        serde_json::from_str(&repo.git(&["show", &format!("{meta}:run.json")])).unwrap();
    let fork_source = &record["spec"]["fork_source"];
    assert_eq!(fork_source["run_id"], source.as_str());
    assert_eq!(fork_source["ordinal"], 2);
    assert_eq!(fork_source["run_commit"], target["run_commit"]);
    assert_eq!(fork_source["meta_commit"], target["meta_commit"]);
    assert_eq!(record["checkpoint"]["current_node"], "code");
    assert_eq!(
        record["checkpoint"]["completed_nodes"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(record["status"]["kind"], "running");

    // The stages are the source's trees, shared rather than copied.
    let stages = |rev: &str| repo.git(&["rev-parse", &format!("{rev}:stages")]);
    assert_eq!(
        stages(&meta),
        stages(target["meta_commit"].as_str().unwrap())
    );

    // The fork's timeline lists the inherited checkpoints, then its own, counting on.
    repo.ok(&["resume", id]);
    repo.checkpoint(id, "review");
    let log = repo.log_json(id);
    let rows: Vec<(String, String, u64)> = log
        .iter()
        .map(|e| {
            (
                e["run_id"].as_str().unwrap().to_owned(),
                e["node_id"].as_str().unwrap().to_owned(),
                e["completed"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (source.clone(), "plan".into(), 1),
            (source.clone(), "code".into(), 2),
            (id.to_owned(), "review".into(), 3)
        ]
    );
    assert_eq!(repo.log_json(&source), source_log);
    let fsck = repo.git_output(&repo.path, &["fsck", "--strict"]);
    assert!(fsck.status.success());
}

#[test]
fn fork_list_prints_the_source_timeline() {
    let repo = TestRepo::new();
    let source = finished_run(&repo);
    let listed: Vec<Value> =
        serde_json::from_str(&repo.ok(&["fork", &source, "--list", "--json"])).unwrap();
    assert_eq!(listed, repo.log_json(&source));
    assert!(repo.ok(&["fork", &source, "--list"]).contains("code@1"));
    assert_eq!(
        repo.git(&["for-each-ref", "--count=10", "refs/heads/fabro/meta/"])
            .lines()
            .count(),
        1
    );
}

#[test]
fn a_fork_of_a_fork_inherits_the_whole_line() {
    let repo = TestRepo::new();
    let source = finished_run(&repo);
    let first = repo.ok(&["fork", &source, "@3"]).trim().to_owned();
    repo.ok(&["resume", &first]);
    repo.checkpoint(&first, "extra");
    let second = repo.ok(&["fork", &first]).trim().to_owned();
    let log = repo.log_json(&second);
    assert_eq!(log.len(), 4);
    assert_eq!(log[3]["node_id"], "extra");
    assert_eq!(log[0]["run_id"], source.as_str());
}
