use serde_json::{Value, json};

use super::{Store, put, run_of, typed};
use crate::common::{TestRepo, assert_success, texts};

fn ids(listed: &[Value]) -> Vec<&str> {
    listed
        .iter()
        .map(|c| c["checkpoint_id"].as_str().unwrap())
        .collect()
}

#[test]
fn a_threads_root_checkpoints_are_checkpoints_of_its_run_that_plain_git_reads() {
    let repo = TestRepo::new();
    let before = repo.user_state();
    let mut store = Store::open(&repo, &[]);
    store.ok(put("t1", "", "c1", None, -1, "1"));
    store.ok(put("t1", "", "c2", Some("c1"), 0, "2"));
    store.ok(put("t1", "child:1", "k1", None, 0, "3"));
    store.ok(
        json!({"op": "put_writes", "thread": "t1", "checkpoint_id": "c2", "task_id": "a",
        "writes": [{"idx": 0, "channel": "y", "value": typed("json", "4")}]}),
    );
    let got = store.ok(json!({"op": "get", "thread": "t1"}))["checkpoint"].clone();
    store.close();

    assert_eq!(got["checkpoint_id"], "c2");
    assert_eq!(got["parent_id"], "c1");
    assert_eq!(got["blobs"][0]["value"], typed("json", "2"));
    assert_eq!(got["writes"][0]["channel"], "y");
    let run = run_of(&repo, "t1");
    // Only the root namespace's checkpoints are the run's timeline.
    let log = repo.log_json(&run);
    assert_eq!(texts(&log, "node_id"), ["input", "step0"]);
    let branch = format!("fabro/run/{run}");
    let linked = repo.git(&[
        "log",
        "--format=%(trailers:key=Fabro-Checkpoint,valueonly)",
        &branch,
    ]);
    assert_eq!(
        linked.split_whitespace().collect::<Vec<_>>(),
        texts(&log, "meta_commit")
            .iter()
            .rev()
            .map(String::as_str)
            .collect::<Vec<_>>()
    );
    let record = repo.git(&[
        "show",
        &format!("fabro/meta/{run}:thread/ns/%/checkpoints/c2/record.json"),
    ]);
    let record: Value = serde_json::from_str(&record).unwrap();
    assert_eq!(record["parent_id"], "c1");
    assert_eq!(record["channel_versions"], json!({"x": "c2"}));
    let child = repo.git(&[
        "ls-tree",
        "-r",
        "--name-only",
        &format!("fabro/meta/{run}:thread/ns/child:1"),
    ]);
    assert_eq!(
        child,
        "channels/x/k1\ncheckpoints/k1/checkpoint\ncheckpoints/k1/record.json\n"
    );
    assert_success(&repo.git_output(&repo.path, &["fsck", "--strict"]));
    assert_eq!(
        repo.user_state(),
        before,
        "the user's HEAD, index and files stay"
    );
}

#[test]
fn list_filters_by_thread_namespace_metadata_before_and_limit_newest_first() {
    let repo = TestRepo::new();
    let mut store = Store::open(&repo, &[]);
    store.ok(put("t1", "", "c1", None, 0, "a"));
    store.ok(put("t1", "", "c2", Some("c1"), 1, "b"));
    store.ok(put("t1", "", "c3", Some("c2"), 2, "c"));
    store.ok(put("t1", "sub:1", "s1", None, 0, "d"));
    store.ok(put("t2", "", "d1", None, 1, "e"));
    assert_eq!(
        ids(&store.list(json!({"thread": "t1", "ns": ""}))),
        ["c3", "c2", "c1"]
    );
    assert_eq!(
        ids(&store.list(json!({"thread": "t1"}))),
        ["c3", "c2", "c1", "s1"]
    );
    assert_eq!(ids(&store.list(json!({}))), ["c3", "c2", "c1", "s1", "d1"]);
    assert_eq!(
        ids(&store.list(json!({"filter": {"step": 1}}))),
        ["c2", "d1"]
    );
    assert_eq!(
        ids(&store.list(json!({"thread": "t1", "ns": "", "before": "c3", "limit": 1}))),
        ["c2"]
    );
    assert_eq!(
        ids(&store.list(json!({"thread": "t1", "checkpoint_id": "c1"}))),
        ["c1"]
    );
    assert!(store.list(json!({"thread": "nobody"})).is_empty());
    store.close();
}

#[test]
fn a_copied_thread_is_a_fork_holding_everything_and_a_deleted_thread_leaves_no_ref() {
    let repo = TestRepo::new();
    let mut store = Store::open(&repo, &[]);
    store.ok(put("src", "", "c1", None, 0, "a"));
    store.ok(put("src", "", "c2", Some("c1"), 1, "b"));
    store.ok(put("src", "sub:1", "s1", None, 0, "c"));
    store.ok(json!({"op": "copy_thread", "source": "src", "target": "dst"}));
    let refused = store.ask(json!({"op": "copy_thread", "source": "src", "target": "dst"}));
    assert_eq!(refused["code"], "usage", "{refused}");
    assert_eq!(
        ids(&store.list(json!({"thread": "dst"}))),
        ["c2", "c1", "s1"]
    );

    let (source, copy) = (run_of(&repo, "src"), run_of(&repo, "dst"));
    let log = repo.log_json(&copy);
    assert_eq!(
        texts(&log, "run_id"),
        [source.clone(), source.clone()],
        "inherited, as a fork's"
    );
    let record = repo.git(&["show", &format!("fabro/meta/{copy}:run.json")]);
    let record: Value = serde_json::from_str(&record).unwrap();
    assert_eq!(record["spec"]["fork_source"]["run_id"], source.as_str());
    assert_eq!(record["spec"]["labels"]["thread_id"], "dst");
    assert_eq!(record["spec"]["goal"], "checkpoints of thread dst");
    assert_eq!(
        record["spec"]["graph"]["attrs"]["goal"]["String"],
        "checkpoints of thread dst"
    );

    store.ok(
        json!({"op": "put", "thread": "dst", "checkpoint_id": "c3", "parent_id": "c2",
        "checkpoint": typed("msgpack", "x"), "metadata": {"step": 2}}),
    );
    assert_eq!(
        ids(&store.list(json!({"thread": "src", "ns": ""}))),
        ["c2", "c1"],
        "the source stays"
    );
    store.ok(json!({"op": "delete_thread", "thread": "dst"}));
    store.ok(json!({"op": "delete_thread", "thread": "src"}));
    store.ok(json!({"op": "delete_thread", "thread": "never-was"}));
    assert!(store.list(json!({})).is_empty());
    store.close();
    assert_eq!(
        repo.git(&["for-each-ref", "refs/heads/fabro", "refs/fabro"]),
        ""
    );
    assert_success(&repo.git_output(&repo.path, &["fsck", "--strict"]));
}

#[test]
fn pruning_keeps_each_namespaces_newest_and_deleting_runs_takes_their_checkpoints() {
    let repo = TestRepo::new();
    let mut store = Store::open(&repo, &[]);
    for (ns, id, parent, run) in [
        ("", "c1", None, "r1"),
        ("", "c2", Some("c1"), "r2"),
        ("", "c3", Some("c2"), "r2"),
        ("sub:1", "s1", None, "r1"),
        ("sub:1", "s2", Some("s1"), "r3"),
    ] {
        let mut request = put("t", ns, id, parent, 0, id);
        request["metadata"]["run_id"] = json!(run);
        store.ok(request);
    }
    store.ok(json!({"op": "delete_for_runs", "run_ids": ["r1"]}));
    assert_eq!(ids(&store.list(json!({"thread": "t"}))), ["c3", "c2", "s2"]);
    store.ok(json!({"op": "prune", "threads": ["t"], "strategy": "keep_latest"}));
    assert_eq!(ids(&store.list(json!({"thread": "t"}))), ["c3", "s2"]);
    let refused = store.ask(json!({"op": "prune", "threads": ["t"], "strategy": "most"}));
    assert_eq!(refused["code"], "usage", "{refused}");
    // What was taken out stays in the thread's history until the thread is deleted.
    let run = run_of(&repo, "t");
    assert_eq!(repo.log_json(&run).len(), 3);
    store.ok(json!({"op": "prune", "threads": ["t"], "strategy": "delete"}));
    assert!(store.list(json!({})).is_empty());
    store.close();
    assert_eq!(repo.git(&["for-each-ref", "refs/heads/fabro"]), "");
}
