//! A run fetched from another clone carries that clone's `run.toml` on its metadata branch.
//! None of what it says about where files are written, what checkpoints keep or where runs are
//! sent applies here: resume, checkpoint and finish in this clone take those settings from this
//! machine alone, nothing outside the run's worktree and run directory changes, and no file is
//! left out of a checkpoint or lost by finish.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{TestRepo, run_ok, tree_digest, write_file};
use crate::sync::remote_and_clone;

/// A run started in `other` under a hostile run.toml, pushed to the shared remote.
fn hostile_run(repo: &TestRepo, other: &Path, outside: &Path) -> String {
    let run_toml = repo.write_beside(
        "hostile.toml",
        &format!(
            "[runs]\ndir = {runs:?}\n\n\
             [checkpoint]\nmax_file_size = 0\nexclude_globs = [\"*.keep\"]\n\n\
             [remote]\nname = {remote:?}\n\n\
             [git.author]\nname = \"Run Bot\"\nemail = \"bot@example.com\"\n",
            runs = outside.join("runs").display().to_string(),
            remote = format!("--upload-pack=touch {}", repo.root.join("pwned").display()),
        ),
    );
    let out = run_ok(
        repo.fabro_in(other)
            .env("FABRO_HOME", repo.root.join("other-home"))
            .args(["start", "--json", "--config"])
            .arg(&run_toml),
    );
    let started: Value = serde_json::from_str(&out).unwrap();
    let id = started["run_id"].as_str().unwrap().to_owned();
    run_ok(repo.fabro_in(other).args(["push", "origin", &id]));
    id
}

fn run_files(repo: &TestRepo, id: &str) -> Vec<String> {
    repo.files_in(&format!("refs/heads/fabro/run/{id}"))
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_fetched_runs_settings_decide_nothing_about_where_files_go_or_what_is_kept() {
    let repo = TestRepo::new();
    let (_bare, other) = remote_and_clone(&repo);
    let outside = repo.root.join("outside");
    write_file(&outside.join("precious.txt"), "not the run's\n");
    let id = hostile_run(&repo, &other, &outside);
    // This machine's own settings: keep secrets out of checkpoints.
    repo.write_settings("[checkpoint]\nexclude_globs = [\"secret.env\"]\n");
    let outside_before = tree_digest(&outside);
    let checkout_before = repo.user_state();

    repo.ok(&["fetch", "origin"]);
    let state: Value = serde_json::from_str(&repo.ok(&["resume", &id])).unwrap();
    let worktree = PathBuf::from(state["worktree"].as_str().unwrap());
    let run_dir = PathBuf::from(state["run_dir"].as_str().unwrap());
    assert!(worktree.starts_with(&repo.home), "{}", worktree.display());
    assert!(
        run_dir.starts_with(repo.home.join("runs")),
        "{}",
        run_dir.display()
    );

    write_file(&worktree.join("notes.keep"), "kept\n");
    write_file(&worktree.join("result.txt"), "the node's work\n");
    write_file(&worktree.join("secret.env"), "TOKEN=s3cret\n");
    run_ok(
        repo.fabro_in(&worktree)
            .args(["checkpoint", "--node", "code"]),
    );
    let files = run_files(&repo, &id);
    for kept in ["notes.keep", "result.txt", "README.md"] {
        assert!(files.iter().any(|f| f == kept), "{kept} missing: {files:?}");
    }
    assert!(!files.iter().any(|f| f == "secret.env"), "{files:?}");

    // The run's author is the one setting its recorded run.toml still decides.
    let author = repo.git(&[
        "log",
        "-1",
        "--format=%an",
        &format!("refs/heads/fabro/run/{id}"),
    ]);
    assert_eq!(author.trim(), "Run Bot");

    std::fs::remove_file(worktree.join("secret.env")).unwrap();
    repo.ok(&["finish", "--run", &id]);
    let files = run_files(&repo, &id);
    assert!(files.iter().any(|f| f == "notes.keep") && files.iter().any(|f| f == "result.txt"));
    assert_eq!(
        tree_digest(&outside),
        outside_before,
        "something outside changed"
    );
    assert_eq!(repo.user_state(), checkout_before);

    repo.ok(&["push", &id]);
    assert!(!repo.root.join("pwned").exists());
}
