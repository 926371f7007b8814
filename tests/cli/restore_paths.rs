//! `restore TARGET -- PATH...` restores only those paths, as `git restore --source` does;
//! `restore --list` lists the recovery points; `show --file` prints one stage file.

use std::path::Path;

use serde_json::Value;

use crate::common::{Started, TestRepo, read_file, run_err, run_ok, tree_digest, write_file};
use crate::restore::changes;
use crate::restore_safety::cache_moved_elsewhere_and_linked;

/// A run with checkpoint @1 and a worktree changed since in several places.
fn changed_since_checkpoint() -> (TestRepo, Started, String) {
    let repo = TestRepo::ignoring("*.log\n");
    let run = repo.start();
    let wt = &run.worktree;
    write_file(&wt.join("src/a.rs"), "a at @1\n");
    write_file(&wt.join("src/gone.rs"), "deleted since @1\n");
    write_file(&wt.join("docs/d.md"), "d at @1\n");
    let commit = repo.checkpoint(&run.id, "plan");
    write_file(&wt.join("src/a.rs"), "a changed\n");
    std::fs::remove_file(wt.join("src/gone.rs")).unwrap();
    write_file(&wt.join("src/extra.rs"), "created since @1\n");
    write_file(&wt.join("src/debug.log"), "ignored, in no commit\n");
    write_file(&wt.join("docs/d.md"), "d changed, not restored\n");
    (repo, run, commit)
}

/// The digest of a directory's files, without its `.git`.
fn files(dir: &Path) -> Vec<(std::path::PathBuf, String)> {
    tree_digest(dir)
        .into_iter()
        .filter(|(path, _)| !path.starts_with(".git"))
        .collect()
}

#[test]
fn restore_paths_changes_what_git_restore_source_changes_and_nothing_else() {
    let (repo, run, commit) = changed_since_checkpoint();
    // git's own answer: a copy of the same files, each tracked (as the run records them),
    // restored by `git restore --source`.
    let twin = repo.root.join("twin");
    repo.git(&[
        "worktree",
        "add",
        "-q",
        "--detach",
        twin.to_str().unwrap(),
        &commit,
    ]);
    for (path, _) in files(&run.worktree) {
        let from = run.worktree.join(&path);
        if from.is_file() {
            write_file(&twin.join(&path), &read_file(&from));
        }
    }
    std::fs::remove_file(twin.join("src/gone.rs")).unwrap();
    repo.git_in(&twin, &["add", "-A"]);
    repo.git_in(
        &twin.join("src"),
        &[
            "restore",
            &format!("--source={commit}"),
            "--worktree",
            "--",
            "a.rs",
            "gone.rs",
            "extra.rs",
        ],
    );

    // From the same subdirectory, the same pathspecs.
    let out = run_ok(repo.fabro_in(&run.worktree.join("src")).args([
        "restore", "plan", "--json", "--", "a.rs", "gone.rs", "extra.rs",
    ]));
    let restored: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        changes(&restored),
        [
            "recreate src/gone.rs",
            "remove src/extra.rs",
            "restore src/a.rs"
        ]
    );
    assert_eq!(
        files(&run.worktree),
        files(&twin),
        "the same files as git's restore"
    );
    assert_eq!(
        read_file(run.worktree.join("docs/d.md")),
        "d changed, not restored\n"
    );
    assert_eq!(
        read_file(run.worktree.join("src/debug.log")),
        "ignored, in no commit\n"
    );
}

#[test]
fn restore_paths_takes_directories_and_globs_and_is_undone_by_its_recovery_point() {
    let (repo, run, _) = changed_since_checkpoint();
    let before = files(&run.worktree);
    // From outside the worktree, paths are relative to its root.
    let out = run_ok(
        repo.fabro()
            .args(["restore", "--run", &run.id, "@1", "--json", "--", "src"]),
    );
    let restored: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(restored["changes"].as_array().unwrap().len(), 3);
    assert_eq!(
        read_file(run.worktree.join("docs/d.md")),
        "d changed, not restored\n"
    );
    assert!(
        run.worktree.join("src/debug.log").exists(),
        "ignored: left alone"
    );

    // The recovery point names the command; restoring it gives everything back.
    let list: Vec<Value> =
        serde_json::from_str(&repo.ok(&["restore", "--run", &run.id, "--list", "--json"])).unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["commit"], restored["recovery_commit"]);
    assert_eq!(list[0]["recovery_ref"], restored["recovery_ref"]);
    assert_eq!(
        list[0]["command"],
        format!("git fabro restore --run {} @1 --json -- src", run.id)
    );
    assert!(list[0]["time"].as_str().unwrap().ends_with('Z'));
    let human = repo.ok(&["restore", "--run", &run.id, "--list"]);
    assert!(human.starts_with("COMMIT "), "{human}");
    assert!(human.contains(&format!(
        "git fabro restore --run {} @1 --json -- src",
        run.id
    )));
    let sha = list[0]["commit"].as_str().unwrap();
    repo.ok(&["restore", "--run", &run.id, &sha[..7]]);
    assert_eq!(files(&run.worktree), before);

    // A glob, as git takes one.
    repo.ok(&["restore", "--run", &run.id, "@1", "--", "*.md"]);
    assert_eq!(read_file(run.worktree.join("docs/d.md")), "d at @1\n");
    assert_eq!(read_file(run.worktree.join("src/a.rs")), "a changed\n");
    let list: Vec<Value> =
        serde_json::from_str(&repo.ok(&["restore", "--run", &run.id, "--list", "--json"])).unwrap();
    assert_eq!(
        list.len(),
        3,
        "one recovery point per restore that changed files"
    );
}

#[test]
fn a_path_that_names_no_file_exits_2_and_changes_nothing() {
    let (repo, run, _) = changed_since_checkpoint();
    let before = files(&run.worktree);
    let (code, err) = run_err(repo.fabro_in(&run.worktree).args([
        "restore",
        "@1",
        "--",
        "src/a.rs",
        "nosuch.rs",
    ]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("path nosuch.rs matches no file"), "{err}");
    assert_eq!(files(&run.worktree), before);
    assert_eq!(repo.git(&["for-each-ref", "refs/fabro/recovery/"]), "");
    // git refuses the same pathspec.
    let git = repo.git_output(
        &run.worktree,
        &["restore", "--source=HEAD", "--", "nosuch.rs"],
    );
    assert!(!git.status.success());
    let (code, err) = run_err(
        repo.fabro()
            .args(["restore", "--run", &run.id, "--", "../x"]),
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("outside the run's files"), "{err}");
}

#[test]
fn restore_paths_never_writes_through_a_symlink() {
    let (repo, run, elsewhere) = cache_moved_elsewhere_and_linked(true);
    let wt = &run.worktree;
    let outside = tree_digest(&elsewhere);
    let out = run_ok(
        repo.fabro_in(wt)
            .args(["restore", "@1", "--json", "--", "cache/data.txt"]),
    );
    let restored: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        tree_digest(&elsewhere),
        outside,
        "nothing written through the link"
    );
    assert_eq!(restored["left_alone"][0]["path"], "cache/data.txt");
}

#[test]
fn restore_list_of_a_run_no_restore_changed_is_empty() {
    let (repo, run) = TestRepo::with_run();
    let list: Vec<Value> =
        serde_json::from_str(&repo.ok(&["restore", "--run", &run.id, "--list", "--json"])).unwrap();
    assert!(list.is_empty());
    let out = repo.output(&["restore", "--run", &run.id, "--list"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no recovery points"));
    let (code, _) = run_err(
        repo.fabro()
            .args(["restore", "--run", &run.id, "--list", "@1"]),
    );
    assert_eq!(code, 2, "--list takes no target");
}

#[test]
fn show_file_prints_one_stage_file_byte_for_byte() {
    let (repo, run) = TestRepo::with_run();
    let data: Vec<u8> = (0..=255u8)
        .chain(b"\r\nno newline at end".iter().copied())
        .collect();
    let attached = repo.root.join("blob.bin");
    std::fs::write(&attached, &data).unwrap();
    repo.checkpoint_with(
        &run.id,
        "code",
        &["--attach", &format!("response.bin={}", attached.display())],
    );
    let out = repo.output(&["show", &run.id, "code", "--file", "response.bin"]);
    assert!(out.status.success());
    assert_eq!(out.stdout, data);
    // As git prints the same blob from the metadata branch.
    let show: Value = serde_json::from_str(&repo.ok(&["show", &run.id, "--json"])).unwrap();
    let path = format!(
        "fabro/meta/{}:{}/response.bin",
        run.id,
        show["stage"]["path"].as_str().unwrap()
    );
    let git = repo.git_output(&repo.path, &["show", &path]);
    assert_eq!(git.stdout, data);

    let status = repo.ok(&["show", &run.id, "--file", "status.json"]);
    let status: Value = serde_json::from_str(&status).unwrap();
    assert_eq!(status, show["stage"]["status"]);

    let (code, err) = run_err(repo.fabro().args(["show", &run.id, "--file", "nope.md"]));
    assert_eq!(code, 1);
    assert!(err.contains("has no file \"nope.md\""), "{err}");
    assert!(
        err.contains("response.bin") && err.contains("status.json"),
        "{err}"
    );
}
