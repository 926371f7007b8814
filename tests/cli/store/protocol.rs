use serde_json::json;

use super::{Store, put, run_of, typed};
use crate::common::TestRepo;

#[test]
fn bad_requests_get_an_error_reply_and_the_store_answers_the_next() {
    let repo = TestRepo::new();
    let mut store = Store::open(&repo, &[]);
    store.ok(put("t", "", "c1", None, 0, "1"));
    let long_type = "x".repeat(200);
    let lines = [
        "not json".to_owned(),
        "{}".to_owned(),
        json!({"op": "drop_all"}).to_string(),
        json!({"op": "get"}).to_string(),
        json!({"op": "get", "thread": "t", "colour": "red"}).to_string(),
        json!({"op": "put", "thread": "t", "checkpoint_id": "c2",
            "checkpoint": {"type": "msgpack", "data": "***"}})
        .to_string(),
        json!({"op": "put", "thread": "t\u{0}", "checkpoint_id": "c2",
            "checkpoint": typed("msgpack", "")})
        .to_string(),
        json!({"op": "put", "thread": "t", "checkpoint_id": "c2",
            "checkpoint": typed(&long_type, "")})
        .to_string(),
    ];
    let mut replies = String::new();
    for line in &lines {
        let reply = store.send_line(line);
        assert_eq!(reply["ok"], false, "{line}");
        replies.push_str(&format!(
            "{} -> {} {}\n",
            line.chars().take(60).collect::<String>(),
            reply["code"],
            reply["error"]
        ));
    }
    insta::assert_snapshot!(replies);
    // Nothing of them was written, and the store goes on.
    let hello = store.ok(json!({"op": "hello"}));
    assert_eq!(hello["protocol"], 1);
    assert_eq!(store.list(json!({})).len(), 1);
    store.close();
}

#[test]
fn writes_sent_before_their_checkpoint_wait_for_it() {
    let repo = TestRepo::new();
    let mut store = Store::open(&repo, &[]);
    let early = json!({"op": "put_writes", "thread": "new", "checkpoint_id": "c1", "task_id": "a",
        "writes": [{"idx": 0, "channel": "y", "value": typed("json", "1")}]});
    store.ok(early);
    assert!(store.list(json!({})).is_empty(), "no checkpoint yet");
    assert_eq!(
        store.ok(json!({"op": "get", "thread": "new"}))["checkpoint"],
        json!(null)
    );
    store.ok(put("new", "", "c1", None, 0, "1"));
    let got = store.ok(json!({"op": "get", "thread": "new"}))["checkpoint"].clone();
    assert_eq!(got["writes"][0]["channel"], "y", "{got}");
    store.close();
}

#[test]
fn a_record_forged_on_another_clone_is_reported_corrupt_and_read_no_further() {
    let repo = TestRepo::new();
    let mut store = Store::open(&repo, &[]);
    store.ok(put("t", "", "c1", None, 0, "1"));
    let run = run_of(&repo, "t");
    let meta = format!("refs/heads/fabro/meta/{run}");
    // A commit on the metadata branch whose record is not a record and whose checkpoint
    // file has no header, as a hostile clone could push.
    let forged = repo.git_stdin_in(&repo.path, &["hash-object", "-w", "--stdin"], b"[1, 2");
    let tree = repo
        .git(&["rev-parse", &format!("{meta}^{{tree}}")])
        .trim()
        .to_owned();
    let index = repo.root.join("forged-index");
    let env_index = index.to_str().unwrap();
    let git = |args: &[&str]| {
        let out = repo
            .command("git")
            .env("GIT_INDEX_FILE", env_index)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}");
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    };
    git(&["read-tree", &tree]);
    git(&[
        "update-index",
        "--cacheinfo",
        &format!("100644,{forged},thread/ns/%/checkpoints/c1/record.json"),
    ]);
    let tree = git(&["write-tree"]);
    let commit = git(&["commit-tree", &tree, "-p", &meta, "-m", "forged"]);
    repo.git(&["update-ref", &meta, &commit]);

    let reply = store.ask(json!({"op": "get", "thread": "t"}));
    assert_eq!(reply["code"], "corrupt", "{reply}");
    let reply = store.ask(json!({"op": "list", "thread": "t"}));
    assert_eq!(reply["code"], "corrupt", "{reply}");
    store.ok(json!({"op": "hello"}));
    store.close();
}

#[test]
fn outside_git_the_store_keeps_its_threads_in_a_shadow_repository() {
    let repo = TestRepo::new();
    let folder = repo.root.join("notes");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(folder.join("a.txt"), "a\n").unwrap();
    let mut store = Store::open_in(&repo, &folder, &[]);
    store.ok(put("t", "", "c1", None, 0, "1"));
    store.close();
    let mut again = Store::open_in(&repo, &folder, &[]);
    let got = again.ok(json!({"op": "get", "thread": "t"}));
    assert_eq!(got["checkpoint"]["checkpoint_id"], "c1");
    again.close();
    assert!(
        !folder.join(".git").exists(),
        "the folder itself gets no repository"
    );
}
