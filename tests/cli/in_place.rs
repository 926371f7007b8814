//! Runs in place: in the user's own checkout, dirty or clean, through a private index.

use serde_json::Value;

use crate::common::{TestRepo, assert_success, read_file, run_err};

/// A checkout with staged, unstaged, untracked and ignored changes.
fn dirty(repo: &TestRepo) {
    repo.write(".gitignore", "*.log\n");
    repo.git(&["add", ".gitignore"]);
    repo.git(&["commit", "-q", "-m", "ignore logs"]);
    repo.write("README.md", "edited, not staged\n");
    repo.write("staged.txt", "staged\n");
    repo.git(&["add", "staged.txt"]);
    repo.write("untracked.txt", "untracked\n");
    repo.write("debug.log", "ignored\n");
}

#[test]
fn every_command_leaves_the_users_index_refs_and_files_alone() {
    let repo = TestRepo::new();
    dirty(&repo);
    let status = repo.git(&["status", "--porcelain"]);
    let before = repo.user_state();
    let started: Value =
        serde_json::from_str(&repo.ok(&["start", "--in-place", "--json"])).unwrap();
    let id = started["run_id"].as_str().unwrap().to_owned();
    assert_eq!(started["in_place"], true);
    assert_eq!(
        started["worktree"].as_str().unwrap(),
        repo.path.to_str().unwrap()
    );
    assert_eq!(repo.user_state(), before, "start");
    for args in [
        vec!["checkpoint", "--node", "one"],
        vec!["snapshot", "--reason", "before a write"],
        vec![
            "checkpoint",
            "--run",
            id.as_str(),
            "--node",
            "two",
            "--json",
        ],
        vec!["log", "--all"],
        vec!["show"],
        vec!["diff", id.as_str(), "--stat"],
        vec!["diff", id.as_str(), "--worktree"],
        vec!["ps"],
        vec!["restore", "--dry-run"],
        vec!["fork", id.as_str(), "--list"],
        vec!["resume", id.as_str()],
        vec!["hooks", "status"],
        vec!["finish"],
        vec!["archive", id.as_str()],
        vec!["unarchive", id.as_str()],
        vec!["gc", "--older-than", "0"],
    ] {
        repo.ok(&args);
        assert_eq!(
            repo.user_state(),
            before,
            "{args:?} changed the user's state"
        );
    }
    assert_eq!(repo.git(&["status", "--porcelain"]), status);
    assert_eq!(repo.log_json(&id).len(), 2);
    let left: Vec<String> = std::fs::read_dir(repo.path.join(".git/fabro/in-place"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    assert!(
        left.iter().all(|name| !name.starts_with(&id)),
        "finish forgets the run in place: {left:?}"
    );
    assert!(
        !repo.git(&["worktree", "list"]).contains(&id),
        "no worktree for a run in place"
    );
}

#[test]
fn the_run_starts_from_the_dirty_directory_and_restore_brings_it_back() {
    let repo = TestRepo::new();
    dirty(&repo);
    let id = repo.ok(&["start", "--in-place"]).trim().to_owned();
    let branch = format!("fabro/run/{id}");
    let base = branch.to_string();
    let files = repo.files_in(&base);
    assert!(
        files.contains("staged.txt")
            && files.contains("untracked.txt")
            && !files.contains("debug.log"),
        "{files}"
    );
    assert_eq!(
        repo.git(&["show", &format!("{base}:README.md")]),
        "edited, not staged\n"
    );
    assert_eq!(
        repo.git(&["rev-parse", &format!("{base}^")]),
        repo.git(&["rev-parse", "HEAD"])
    );

    repo.write("README.md", "the agent's edit\n");
    repo.write("agent.txt", "new\n");
    repo.checkpoint(&id, "edit");
    assert_eq!(
        repo.git(&["show", &format!("{branch}:README.md")]),
        "the agent's edit\n"
    );

    repo.write("README.md", "broken\n");
    std::fs::remove_file(repo.path.join("staged.txt")).unwrap();
    repo.write("scratch.txt", "made after the checkpoint\n");
    let index = std::fs::read(repo.path.join(".git/index")).unwrap();
    repo.ok(&["restore", "@1"]);
    assert_eq!(read_file(repo.path.join("README.md")), "the agent's edit\n");
    assert_eq!(read_file(repo.path.join("staged.txt")), "staged\n");
    assert!(!repo.path.join("scratch.txt").exists());
    assert_eq!(
        read_file(repo.path.join("debug.log")),
        "ignored\n",
        "ignored files stay"
    );
    assert_eq!(
        std::fs::read(repo.path.join(".git/index")).unwrap(),
        index,
        "restore does not touch the index"
    );
}

#[test]
fn a_clean_checkout_starts_at_head() {
    let repo = TestRepo::new();
    let id = repo.ok(&["start", "--in-place"]).trim().to_owned();
    assert_eq!(
        repo.git(&["rev-parse", &format!("fabro/run/{id}")]),
        repo.git(&["rev-parse", "HEAD"])
    );
}

#[test]
fn in_place_and_base_do_not_mix_and_two_runs_in_place_need_naming() {
    let repo = TestRepo::new();
    let (code, _) = run_err(repo.fabro().args(["start", "--in-place", "--base", "HEAD"]));
    assert_eq!(code, 2);
    repo.ok(&["start", "--in-place"]);
    repo.ok(&["start", "--in-place"]);
    let (code, err) = run_err(repo.fabro().args(["checkpoint", "--node", "x"]));
    assert_eq!(code, 2);
    assert!(err.contains("ambiguous"), "{err}");
}

#[test]
fn big_files_are_left_out_and_listed_and_the_fabro_home_is_never_captured() {
    let repo = TestRepo::new();
    repo.git(&["config", "fabro.maxFileSize", "1000"]);
    let id = repo.ok(&["start", "--in-place"]).trim().to_owned();
    repo.write("big.bin", &"x".repeat(5000));
    repo.write("small.txt", "ok\n");
    let out = repo
        .fabro()
        .args(["checkpoint", "--node", "n"])
        .env("FABRO_HOME", repo.path.join(".fabro-home"))
        .output()
        .unwrap();
    // The fabro home moved into the work tree for this call: it must not be captured either.
    assert_success(&out);
    let files = repo.files_in(&format!("fabro/run/{id}"));
    assert!(
        files.contains("small.txt") && !files.contains("big.bin") && !files.contains(".fabro-home"),
        "{files}"
    );

    repo.write("big.bin", &"y".repeat(5000));
    repo.checkpoint(&id, "m");
    let status: Value = serde_json::from_str(&repo.git(&[
        "show",
        &format!("fabro/meta/{id}:stages/002-m@1/status.json"),
    ]))
    .unwrap();
    assert_eq!(status["skipped_files"], serde_json::json!(["big.bin"]));
}

#[test]
fn an_in_place_run_keeps_file_names_that_are_not_utf8() {
    use std::os::unix::ffi::OsStrExt;
    let repo = TestRepo::new();
    let dir = repo.path.join(std::ffi::OsStr::from_bytes(b"d\xe9"));
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("staged"), "s\n").unwrap();
    repo.git(&["add", "-A"]);
    std::fs::write(
        repo.path.join(std::ffi::OsStr::from_bytes(b"new\xff")),
        "n\n",
    )
    .unwrap();
    let before = repo.user_state();
    let id = repo.ok(&["start", "--in-place"]).trim().to_owned();
    let run = format!("fabro/run/{id}");
    let listed = repo.git_output(&repo.path, &["ls-tree", "-r", "-z", "--name-only", &run]);
    assert_eq!(
        listed.stdout,
        b"README.md\0d\xe9/staged\0new\xff\0src/lib.rs\0"
    );
    std::fs::write(dir.join("staged"), "changed\n").unwrap();
    let sha = repo.checkpoint(&id, "one");
    let listed = repo.git_output(&repo.path, &["ls-tree", "-r", "-z", "--name-only", &sha]);
    assert_eq!(
        listed.stdout,
        b"README.md\0d\xe9/staged\0new\xff\0src/lib.rs\0"
    );
    std::fs::write(dir.join("staged"), "s\n").unwrap();
    assert_eq!(repo.user_state(), before);
}

#[test]
fn a_directory_whose_path_is_not_utf8_is_refused_in_place_without_a_panic() {
    use std::os::unix::ffi::OsStrExt;
    let repo = TestRepo::new();
    let dir = repo.root.join(std::ffi::OsStr::from_bytes(b"r\xe9"));
    std::fs::create_dir(&dir).unwrap();
    repo.git_in(&dir, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join("a.txt"), "a\n").unwrap();
    let (code, err) = run_err(repo.fabro_in(&dir).args(["start", "--in-place"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("not UTF-8") && !err.contains("panicked"),
        "{err}"
    );
    assert_eq!(
        repo.git_in(&dir, &["for-each-ref", "refs/heads/fabro/"]),
        "",
        "no run was created"
    );
}

#[test]
fn a_run_started_in_place_from_a_subdirectory_is_registered_at_the_checkouts_root() {
    let repo = TestRepo::new();
    let sub = repo.path.join("src");
    let out = repo
        .fabro_in(&sub)
        .args(["start", "--in-place", "--json"])
        .output()
        .unwrap();
    assert_success(&out);
    let started: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        started["worktree"],
        repo.path.to_str().unwrap(),
        "{started}"
    );
    // fsck finds its run directory and its registration agree, with no `src/..` in either.
    let fsck = repo.output(&["fsck"]);
    assert_success(&fsck);
}
