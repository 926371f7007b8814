use serde_json::json;

use super::{Store, put, run_of};
use crate::common::{TestRepo, assert_success, read_file};

#[test]
fn with_track_files_reading_an_older_checkpoint_puts_its_files_back_and_keeps_the_newer() {
    let repo = TestRepo::new();
    let mut store = Store::open(&repo, &["--track-files"]);
    repo.write("notes.md", "one\n");
    store.ok(put("t", "", "c1", None, 0, "1"));
    repo.write("notes.md", "two\n");
    repo.write("extra.md", "new\n");
    store.ok(put("t", "", "c2", Some("c1"), 1, "2"));
    // Reading the newest, or another namespace's, moves nothing.
    store.ok(json!({"op": "get", "thread": "t"}));
    assert_eq!(read_file(repo.path.join("notes.md")), "two\n");

    let got = store.ok(json!({"op": "get", "thread": "t", "checkpoint_id": "c1"}));
    assert_eq!(got["checkpoint"]["checkpoint_id"], "c1");
    assert_eq!(read_file(repo.path.join("notes.md")), "one\n");
    assert!(!repo.path.join("extra.md").exists());
    // A fork from there records its own files; the newer ones stay in the run's history.
    repo.write("notes.md", "three\n");
    store.ok(put("t", "", "c3", Some("c1"), 1, "3"));
    store.close();

    let run = run_of(&repo, "t");
    assert_eq!(repo.log_json(&run).len(), 3);
    let branch = format!("fabro/run/{run}");
    assert_eq!(
        repo.git(&["show", &format!("{branch}:notes.md")]),
        "three\n"
    );
    assert_eq!(
        repo.git(&["show", &format!("{branch}~1:notes.md")]),
        "two\n"
    );
    let diff = repo.ok(&["diff", &run, "@1", "@2", "--stat"]);
    assert!(diff.contains("extra.md"), "{diff}");
    assert_success(&repo.git_output(&repo.path, &["fsck", "--strict"]));
}

#[test]
fn a_store_started_in_a_subdirectory_keeps_the_whole_checkouts_files() {
    let repo = TestRepo::new();
    let mut store = Store::open_in(&repo, &repo.path.join("src"), &["--track-files"]);
    repo.write("src/lib.rs", "pub fn g() {}\n");
    store.ok(put("t", "", "c1", None, 0, "1"));
    store.close();
    let run = run_of(&repo, "t");
    let branch = format!("fabro/run/{run}");
    assert_eq!(
        repo.git(&["show", &format!("{branch}:src/lib.rs")]),
        "pub fn g() {}\n"
    );
    assert_eq!(
        repo.git(&["show", &format!("{branch}:README.md")]),
        "hello\n"
    );
    assert_success(&repo.output(&["fsck"]));
}
