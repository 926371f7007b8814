//! `land` puts a run's result on the user's branch, as git's merge would; `path` prints where a
//! run's files are. Results are checked with plain git.

use crate::common::{TestRepo, read_file, run_err};

/// A finished run that changed `src/lib.rs` and added `NEW.md`, over a branch with six lines.
fn finished_run(repo: &TestRepo) -> String {
    repo.write("lines.txt", "1\n2\n3\n4\n5\n6\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "six lines"]);
    let id = repo
        .ok(&["start", "--goal", "number one in words"])
        .trim()
        .to_owned();
    let wt = repo.ok(&["path", &id]).trim().to_owned();
    let wt = std::path::Path::new(&wt);
    std::fs::write(wt.join("lines.txt"), "one\n2\n3\n4\n5\n6\n").unwrap();
    repo.checkpoint(&id, "plan");
    std::fs::write(wt.join("NEW.md"), "new\n").unwrap();
    repo.checkpoint(&id, "code");
    repo.ok(&["finish", &id]);
    id
}

#[test]
fn land_squashes_the_run_onto_the_current_branch_and_checkout() {
    let repo = TestRepo::new();
    let id = finished_run(&repo);
    // The branch moved on meanwhile, in another part of the same file.
    repo.write("lines.txt", "1\n2\n3\n4\n5\nsix\n");
    repo.git(&["commit", "-qam", "six in words"]);
    let before = repo.git(&["rev-parse", "HEAD"]);
    let commit = repo.ok(&["land", &id]).trim().to_owned();
    assert_eq!(repo.git(&["rev-parse", "HEAD"]).trim(), commit);
    assert_eq!(repo.git(&["rev-parse", "HEAD^"]), before);
    assert!(
        repo.git_output(&repo.path, &["rev-parse", "-q", "--verify", "HEAD^2"])
            .stdout
            .is_empty()
    );
    // The checkout shows the result and git sees nothing to commit.
    assert_eq!(
        read_file(repo.path.join("lines.txt")),
        "one\n2\n3\n4\n5\nsix\n"
    );
    assert_eq!(read_file(repo.path.join("NEW.md")), "new\n");
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    // The tree is what git's own merge makes of the same three commits.
    let git_merge = repo.git(&[
        "merge-tree",
        "--write-tree",
        "--merge-base=HEAD~2", // the run's base
        "HEAD^",
        &format!("fabro/run/{id}"),
    ]);
    assert_eq!(
        git_merge.trim(),
        repo.git(&["rev-parse", "HEAD^{tree}"]).trim()
    );
    let message = repo.git(&["log", "-1", "--format=%B"]);
    assert!(message.starts_with("number one in words\n"), "{message}");
    assert!(
        message.contains("plan@1") && message.contains("code@1"),
        "{message}"
    );
    let trailers = repo
        .command("git")
        .args(["interpret-trailers", "--parse"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(message.as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&trailers.stdout).trim(),
        format!("Fabro-Run: {id}")
    );
    repo.git(&["fsck", "--strict"]);
    // Landing again finds nothing to do.
    assert_eq!(repo.ok(&["land", &id]).trim(), "");
    assert_eq!(repo.git(&["rev-parse", "HEAD"]).trim(), commit);
}

#[test]
fn land_merge_keeps_the_run_branch_as_second_parent_and_into_leaves_the_checkout() {
    let repo = TestRepo::new();
    let id = finished_run(&repo);
    repo.git(&["branch", "release"]);
    let state = repo.user_state();
    let out: serde_json::Value =
        serde_json::from_str(&repo.ok(&["land", &id, "--merge", "--into", "release", "--json"]))
            .unwrap();
    assert_eq!(out["mode"], "merge");
    assert_eq!(out["branch"], "release");
    let commit = out["commit"].as_str().unwrap();
    assert_eq!(repo.git(&["rev-parse", "release"]).trim(), commit);
    assert_eq!(
        repo.git(&["rev-parse", "release^2"]).trim(),
        repo.git(&["rev-parse", &format!("fabro/run/{id}")]).trim()
    );
    assert_eq!(
        repo.git(&["rev-parse", "release^1"]).trim(),
        repo.git(&["rev-parse", "main"]).trim()
    );
    // main, its index and files are untouched: release is not checked out.
    let mut after = repo.user_state();
    assert_ne!(after, state, "release moved");
    repo.git(&["update-ref", "refs/heads/release", "main"]);
    after = repo.user_state();
    assert_eq!(after, state);
}

#[test]
fn land_refuses_and_changes_nothing_on_conflicts_dirty_checkouts_and_unfinished_runs() {
    let repo = TestRepo::new();
    let id = finished_run(&repo);
    // Staged changes.
    repo.write("README.md", "staged\n");
    repo.git(&["add", "README.md"]);
    let state = repo.user_state();
    let (code, stderr) = run_err(repo.fabro().args(["land", &id]));
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("staged changes (README.md)"), "{stderr}");
    assert_eq!(repo.user_state(), state);
    repo.git(&["reset", "-q", "--hard"]);
    // A change of the user's in a file the landing changes.
    repo.write("lines.txt", "1\n2\n3\n4\n5\nmine\n");
    let state = repo.user_state();
    let (code, stderr) = run_err(repo.fabro().args(["land", &id]));
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("lines.txt (changed)"), "{stderr}");
    assert_eq!(repo.user_state(), state);
    // An untracked file where the run adds one.
    repo.git(&["checkout", "-q", "--", "lines.txt"]);
    repo.write("NEW.md", "mine\n");
    let state = repo.user_state();
    let (code, stderr) = run_err(repo.fabro().args(["land", &id]));
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("NEW.md (untracked)"), "{stderr}");
    assert_eq!(repo.user_state(), state);
    std::fs::remove_file(repo.path.join("NEW.md")).unwrap();
    // A conflicting commit on the branch.
    repo.write("lines.txt", "uno\n2\n3\n4\n5\n6\n");
    repo.git(&["commit", "-qam", "uno"]);
    let state = repo.user_state();
    let (code, stderr) = run_err(repo.fabro().args(["land", &id]));
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("conflicts with main in lines.txt"),
        "{stderr}"
    );
    assert_eq!(repo.user_state(), state);
    // An unfinished run, unless --force.
    let open = repo.start();
    std::fs::write(open.worktree.join("more.txt"), "more\n").unwrap();
    repo.checkpoint(&open.id, "plan");
    let (code, stderr) = run_err(repo.fabro().args(["land", &open.id]));
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(
        stderr,
        format!(
            "error: run {id} is running; land takes a run that succeeded or failed, or one as it is with --force\nhint: `git fabro finish {id}` ends it\n",
            id = open.id
        )
    );
    assert_eq!(repo.user_state(), state);
    repo.ok(&["land", &open.id, "--force"]);
    assert_eq!(read_file(repo.path.join("more.txt")), "more\n");
}

#[test]
fn land_path_prints_the_worktree_or_fails_with_a_hint() {
    let (repo, run) = TestRepo::with_run();
    let path = repo.ok(&["path", &run.id]);
    assert_eq!(path.trim(), run.worktree.to_str().unwrap());
    // git agrees that it is the run branch's worktree.
    assert!(
        repo.git(&["worktree", "list", "--porcelain"])
            .contains(&format!("worktree {}", path.trim()))
    );
    repo.ok(&["finish", &run.id]);
    let (code, stderr) = run_err(repo.fabro().args(["path", &run.id]));
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("hint:") && stderr.contains(&format!("git fabro land {}", run.id)),
        "{stderr}"
    );
}

/// A git killed mid-way in the checkout (a killed land's `read-tree` among them) leaves
/// `.git/index.lock`: land names the lock, not "changes of yours", and lands once it is gone.
#[test]
fn land_names_a_leftover_index_lock_and_changes_nothing() {
    let repo = TestRepo::new();
    let id = finished_run(&repo);
    let before = repo.user_state();
    std::fs::write(repo.path.join(".git/index.lock"), "").unwrap();
    let (code, err) = run_err(repo.fabro().args(["land", &id]));
    assert_eq!(code, 3, "{err}");
    assert!(err.contains(".git/index.lock exists"), "{err}");
    assert!(!err.contains("changes of yours"), "{err}");
    std::fs::remove_file(repo.path.join(".git/index.lock")).unwrap();
    assert_eq!(repo.user_state(), before);
    repo.ok(&["land", &id]);
    assert_eq!(repo.git(&["show", "HEAD:NEW.md"]), "new\n");
}

/// A land killed after `read-tree` brought the checkout to the result and before the branch
/// moved leaves the result staged: running land again finishes it instead of refusing it as
/// staged changes of the user's.
#[test]
fn land_again_finishes_a_land_killed_before_its_branch_moved() {
    let repo = TestRepo::new();
    let id = finished_run(&repo);
    let run_tip = format!("fabro/run/{id}");
    repo.git(&["read-tree", "-m", "-u", "HEAD", &run_tip]);
    repo.ok(&["land", &id]);
    assert_eq!(
        repo.git(&["rev-parse", "HEAD^{tree}"]),
        repo.git(&["rev-parse", &format!("{run_tip}^{{tree}}")])
    );
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
}
