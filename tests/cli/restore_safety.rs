//! Restore changes only what the recovery commit it writes first can give back: it never
//! writes through a symlink, never touches ignored, excluded or oversize files, and its
//! printed way back never deletes them either.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{Started, TestRepo, array, run_ok, texts, tree_digest, write_file};

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

/// What `restore --json` printed.
fn restore_json(repo: &TestRepo, id: &str, target: &str) -> Value {
    serde_json::from_str(&repo.ok(&["restore", "--run", id, target, "--json"]))
        .expect("restore --json is JSON")
}

fn left_alone(restored: &Value) -> Vec<String> {
    texts(array(&restored["left_alone"]), "path")
}

/// A run that checkpointed `cache/data.txt` as `one`, whose user has since moved `cache` to
/// `elsewhere` (returned), beside the repository, holding what no commit has, and linked it
/// back; `ignored`, with the link excluded from git.
pub fn cache_moved_elsewhere_and_linked(ignored: bool) -> (TestRepo, Started, PathBuf) {
    let (repo, run) = TestRepo::with_run();
    write_file(&run.worktree.join("cache/data.txt"), "checkpointed\n");
    repo.checkpoint(&run.id, "one");
    let elsewhere = repo.root.join("elsewhere");
    write_file(&elsewhere.join("data.txt"), "precious, in no commit\n");
    std::fs::remove_dir_all(run.worktree.join("cache")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, run.worktree.join("cache")).unwrap();
    if ignored {
        write_file(&repo.path.join(".git/info/exclude"), "cache\n");
    }
    (repo, run, elsewhere)
}

#[test]
fn restore_never_writes_through_an_ignored_symlink_standing_for_a_directory() {
    let (repo, run, elsewhere) = cache_moved_elsewhere_and_linked(true);
    let outside = tree_digest(&elsewhere);

    let restored = restore_json(&repo, &run.id, "@1");
    assert_eq!(
        tree_digest(&elsewhere),
        outside,
        "nothing written through the link"
    );
    assert_eq!(left_alone(&restored), ["cache/data.txt"]);
    assert!(
        std::fs::symlink_metadata(run.worktree.join("cache"))
            .unwrap()
            .file_type()
            .is_symlink(),
        "the ignored symlink itself is the user's and stays"
    );
}

#[test]
fn a_recorded_symlink_where_the_target_has_a_directory_is_replaced_not_followed() {
    let (repo, run, elsewhere) = cache_moved_elsewhere_and_linked(false);
    let outside = tree_digest(&elsewhere);

    let restored = restore_json(&repo, &run.id, "@1");
    assert_eq!(tree_digest(&elsewhere), outside);
    assert_eq!(read(&run.worktree.join("cache/data.txt")), "checkpointed\n");
    assert!(
        !std::fs::symlink_metadata(run.worktree.join("cache"))
            .unwrap()
            .is_symlink()
    );

    // The way back brings the symlink back, still without writing through it.
    let sha = restored["recovery_commit"].as_str().unwrap();
    repo.ok(&["restore", "--run", &run.id, sha]);
    assert_eq!(
        std::fs::read_link(run.worktree.join("cache")).unwrap(),
        elsewhere
    );
    assert_eq!(tree_digest(&elsewhere), outside);
}

#[test]
fn restore_leaves_files_over_the_size_limit_alone() {
    let repo = TestRepo::new();
    repo.git(&["config", "fabro.maxFileSize", "1000"]);
    let run = repo.start();
    let wt = &run.worktree;
    write_file(&wt.join("changed.bin"), "v1\n");
    write_file(&wt.join("gone.bin"), "small at first\n");
    repo.checkpoint(&run.id, "one");
    write_file(&wt.join("changed.bin"), "v2\n");
    std::fs::remove_file(wt.join("gone.bin")).unwrap();
    repo.checkpoint(&run.id, "two");
    // Both grow over the limit: no snapshot takes them, so no commit holds what they are.
    let big = "y".repeat(5000);
    write_file(&wt.join("changed.bin"), &big);
    write_file(&wt.join("gone.bin"), &big);

    let dry = serde_json::from_str::<Value>(&repo.ok(&[
        "restore",
        "--run",
        &run.id,
        "@1",
        "--dry-run",
        "--json",
    ]))
    .unwrap();
    assert_eq!(left_alone(&dry), ["changed.bin", "gone.bin"]);
    let out = repo.output(&["restore", "--run", &run.id, "@1"]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("left alone: gone.bin"), "{stderr}");
    assert_eq!(read(&wt.join("changed.bin")), big);
    assert_eq!(read(&wt.join("gone.bin")), big);
}

/// `.env` was checkpointed with a placeholder before it was ignored; the secret put in it
/// since is in no commit, and neither restore nor the way back may touch it.
fn ignored_secret_survives_restore_and_the_way_back(repo: &TestRepo, id: &str, dir: &Path) {
    write_file(&dir.join(".gitignore"), "*.log\n");
    write_file(&dir.join(".env"), "KEY=placeholder\n");
    repo.checkpoint(id, "one");
    std::fs::remove_file(dir.join(".env")).unwrap();
    write_file(&dir.join(".gitignore"), "*.log\n.env\n");
    repo.checkpoint(id, "two");
    write_file(&dir.join(".env"), "KEY=secret\n");

    let restored = restore_json(repo, id, "@1");
    assert_eq!(read(&dir.join(".env")), "KEY=secret\n");
    assert_eq!(left_alone(&restored), [".env"]);
    assert_eq!(read(&dir.join(".gitignore")), "*.log\n");

    let sha = restored["recovery_commit"].as_str().unwrap();
    let back = restore_json(repo, id, sha);
    assert_eq!(read(&dir.join(".gitignore")), "*.log\n.env\n");
    assert_eq!(
        read(&dir.join(".env")),
        "KEY=secret\n",
        "the way back keeps it"
    );
    assert_eq!(left_alone(&back), [".env"]);
}

#[test]
fn restore_and_its_way_back_never_touch_an_ignored_secret_in_a_worktree() {
    let (repo, run) = TestRepo::with_run();
    ignored_secret_survives_restore_and_the_way_back(&repo, &run.id, &run.worktree);
}

#[test]
fn restore_and_its_way_back_never_touch_an_ignored_secret_in_place() {
    let repo = TestRepo::new();
    let id = run_ok(repo.fabro().args(["start", "--in-place"]))
        .trim()
        .to_owned();
    ignored_secret_survives_restore_and_the_way_back(&repo, &id, &repo.path);
}
