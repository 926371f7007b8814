use std::collections::BTreeSet;
use std::time::Duration;

use serde_json::{Value, json};

use super::{Store, put, run_of};
use crate::common::{TestRepo, assert_success};

fn checkpoint_ids(listed: &[Value]) -> BTreeSet<String> {
    listed
        .iter()
        .map(|c| c["checkpoint_id"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_store_killed_while_it_writes_leaves_every_put_whole_or_not_at_all() {
    let repo = TestRepo::new();
    for round in 0..4u64 {
        let mut store = Store::open(&repo, &[]);
        let thread = format!("t{round}");
        // Requests are sent without waiting for their replies, and the store is killed
        // in the middle of them.
        let requests: String = (0..200)
            .map(|i| format!("{}\n", put(&thread, "", &format!("c{i:04}"), None, i, "v")))
            .collect();
        use std::io::Write;
        let _ = store.input.write_all(requests.as_bytes());
        std::thread::sleep(Duration::from_millis(30 + 40 * round));
        store.kill();

        let mut reader = Store::open(&repo, &[]);
        let listed = reader.list(json!({"thread": thread}));
        for checkpoint in &listed {
            let id = checkpoint["checkpoint_id"].as_str().unwrap();
            assert_eq!(checkpoint["blobs"][0]["version"], id, "whole: {checkpoint}");
        }
        // The puts went in order, so what survived is a prefix of them.
        let want: BTreeSet<String> = (0..listed.len()).map(|i| format!("c{i:04}")).collect();
        assert_eq!(checkpoint_ids(&listed), want);
        // A kill between the transaction's two refs leaves the newest checkpoint in the
        // thread without its run commit (FORMAT.md, "Threads"); never more than that one.
        if !listed.is_empty() {
            let timeline = repo.log_json(&run_of(&repo, &thread)).len();
            assert!(
                timeline + 1 >= listed.len() && timeline <= listed.len(),
                "{timeline}"
            );
        }
        reader.close();
    }
    assert_success(&repo.git_output(&repo.path, &["fsck", "--strict"]));
}

#[test]
fn two_stores_writing_one_thread_at_once_lose_nothing() {
    let repo = TestRepo::new();
    let writers: Vec<_> = ["a", "b"]
        .into_iter()
        .map(|who| {
            let mut store = Store::open(&repo, &[]);
            std::thread::spawn(move || {
                for i in 0..30 {
                    store.ok(put("shared", "", &format!("{who}{i:02}"), None, i, who));
                }
                store.close();
            })
        })
        .collect();
    for writer in writers {
        writer.join().unwrap();
    }
    let mut store = Store::open(&repo, &[]);
    let listed = store.list(json!({"thread": "shared"}));
    store.close();
    assert_eq!(listed.len(), 60, "every put of both writers is there");
    assert_eq!(repo.log_json(&run_of(&repo, "shared")).len(), 60);
    assert_success(&repo.git_output(&repo.path, &["fsck", "--strict"]));
}

#[test]
fn a_thread_pushed_from_one_clone_reads_the_same_on_another_after_a_fetch() {
    let repo = TestRepo::new();
    let remote = repo.add_bare_remote("origin", "remote.git");
    let mut store = Store::open(&repo, &[]);
    store.ok(put("t", "", "c1", None, 0, "1"));
    store.ok(put("t", "", "c2", Some("c1"), 1, "2"));
    let here = store.ok(json!({"op": "get", "thread": "t"}))["checkpoint"].clone();
    store.close();
    repo.ok(&["push", "origin", &run_of(&repo, "t")]);

    let other = repo.root.join("other");
    repo.git_in(
        &repo.root,
        &[
            "clone",
            "-q",
            remote.to_str().unwrap(),
            other.to_str().unwrap(),
        ],
    );
    assert_success(
        &repo
            .fabro_in(&other)
            .args(["fetch", "origin"])
            .output()
            .unwrap(),
    );
    let mut there = Store::open_in(&repo, &other, &[]);
    assert_eq!(
        there.ok(json!({"op": "get", "thread": "t"}))["checkpoint"],
        here
    );
    there.ok(put("t", "", "c3", Some("c2"), 2, "3"));
    assert_eq!(there.list(json!({"thread": "t"})).len(), 3);
    there.close();
}
