//! Messages that say what is wrong (issue 14, point 8): a target that matches nothing, a
//! context value without its quotes, a lost race and a held run (exit 3), a SHA-256
//! repository, and `-C DIR` with relative paths after it.

use std::process::{Child, Command};

use serde_json::Value;

use crate::common::{TestRepo, array, run_err, run_ok, write_file};

#[test]
fn a_target_that_matches_nothing_says_so_and_names_the_log_command() {
    let (repo, run) = TestRepo::with_run();
    let (code, err) = run_err(repo.fabro().args(["show", &run.id, "plan"]));
    assert_eq!(code, 2);
    assert!(err.contains("has no checkpoints yet"), "{err}");
    assert!(err.contains(&format!("git fabro log {}", run.id)), "{err}");

    repo.checkpoint(&run.id, "plan");
    repo.checkpoint(&run.id, "code");
    for args in [
        vec!["show", &run.id, "review"],
        vec!["show", &run.id, "@7"],
        vec!["show", &run.id, "plan@3"],
        vec!["diff", &run.id, "review"],
        vec!["restore", "--run", &run.id, "--dry-run", "review"],
    ] {
        let (code, err) = run_err(repo.fabro().args(&args));
        assert_eq!(code, 2, "{args:?}");
        assert!(
            err.contains(&format!("no checkpoint of run {} matches", run.id)),
            "{args:?}: {err}"
        );
        assert!(!err.contains("no checkpoints yet"), "{args:?}: {err}");
        assert!(
            err.contains(&format!(
                "hint: list the run's checkpoints with `git fabro log {}`",
                run.id
            )),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_context_value_that_is_not_json_shows_the_quotes_it_needs() {
    let (repo, run) = TestRepo::with_run();
    let (code, err) = run_err(repo.fabro().args([
        "checkpoint",
        "--run",
        &run.id,
        "--node",
        "plan",
        "--context",
        "x=notjson",
    ]));
    assert_eq!(code, 2);
    assert!(err.contains(r#"--context 'x="notjson"'"#), "{err}");
    // What the message suggests is taken.
    repo.checkpoint_with(&run.id, "plan", &["--context", r#"x="notjson""#]);
    let show: Value = serde_json::from_str(&repo.ok(&["show", &run.id, "--json"])).unwrap();
    assert_eq!(show["record"]["context_values"]["x"], "notjson");
}

/// A live process with a command line to name in run.pid; killed when dropped.
struct Holder(Child);

impl Drop for Holder {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_held_run_names_the_process_and_its_command_line() {
    let (repo, run) = TestRepo::with_run();
    let holder = Holder(Command::new("sleep").arg("61").spawn().unwrap());
    let pid = holder.0.id();
    repo.checkpoint(&run.id, "plan");
    std::fs::write(run.run_dir.join("run.pid"), format!("{pid}\n")).unwrap();
    for args in [
        vec!["finish", &run.id],
        vec!["restore", "--run", &run.id],
        vec!["resume", &run.id],
    ] {
        let (code, err) = run_err(repo.fabro().args(&args));
        assert_eq!(code, 3, "{args:?}: {err}");
        assert!(
            err.contains(&format!("run {} is held by process {pid}", run.id)),
            "{args:?}: {err}"
        );
        assert!(
            err.contains(&format!(
                "hint: process {pid} (sleep 61) is working on the run"
            )),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_lost_race_names_the_run_and_the_ref_not_the_library() {
    let (repo, run) = TestRepo::with_run();
    let lock = repo
        .path
        .join(".git/refs/heads/fabro/run")
        .join(format!("{}.lock", run.id));
    std::fs::write(&lock, "").unwrap();
    let (code, err) =
        run_err(
            repo.fabro()
                .args(["checkpoint", "--run", &run.id, "--node", "plan"]),
        );
    assert_eq!(code, 3, "{err}");
    let first = err.lines().next().unwrap();
    assert!(
        first.starts_with(&format!("error: run {}: ", run.id)),
        "{err}"
    );
    assert!(
        first.contains(&format!("fabro/run/{}.lock is locked", run.id)),
        "{err}"
    );
    for internal in ["transaction", "PreviousValue", "gix"] {
        assert!(!err.contains(internal), "{err}");
    }
    std::fs::remove_file(&lock).unwrap();
    repo.checkpoint(&run.id, "plan");
}

#[test]
fn a_sha256_repository_is_refused_by_name_and_gets_no_shadow_copy() {
    let repo = TestRepo::new();
    let sha256 = repo.root.join("sha256");
    std::fs::create_dir(&sha256).unwrap();
    let init = repo.git_output(&sha256, &["init", "-q", "--object-format=sha256"]);
    if !init.status.success() {
        eprintln!("this git cannot make SHA-256 repositories; skipped");
        return;
    }
    repo.git_in(
        &sha256,
        &[
            "-c",
            "user.name=T",
            "-c",
            "user.email=t@example.com",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "one",
        ],
    );
    std::fs::create_dir(sha256.join("sub")).unwrap();
    for (dir, args) in [
        (&sha256, vec!["start", "--goal", "x"]),
        (&sha256.join("sub"), vec!["start"]),
        (&sha256, vec!["ps"]),
    ] {
        let (code, err) = run_err(repo.fabro_in(dir).args(&args));
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("is a SHA-256 repository"), "{err}");
        assert!(err.contains("SHA-1 repositories only"), "{err}");
    }
    assert!(
        !repo.home.join("shadow").exists(),
        "no hidden shadow repository was made"
    );
    let refs = repo.git_in(&sha256, &["for-each-ref", "--format=%(refname)"]);
    assert!(!refs.contains("fabro"), "{refs}");
}

#[test]
fn dash_c_resolves_relative_paths_after_it_from_dir_as_git_does() {
    let repo = TestRepo::new();
    let outside = repo.root.join("outside");
    std::fs::create_dir(&outside).unwrap();
    // Relative to DIR, where the same names in the current directory do not exist.
    write_file(
        &repo.path.join("flows/flow.fabro"),
        "digraph flow { plan -> code }\n",
    );
    write_file(
        &repo.path.join("flows/run.toml"),
        "[checkpoint]\nexclude_globs = [\"*.log\"]\n",
    );
    let started: Value = serde_json::from_str(&run_ok(repo.fabro_in(&outside).args([
        "-C",
        "../repo",
        "start",
        "--workflow",
        "flows/flow.fabro",
        "--config",
        "flows/run.toml",
        "--run-dir",
        "runs/one",
        "--json",
    ])))
    .unwrap();
    let id = started["run_id"].as_str().unwrap().to_owned();
    assert_eq!(
        std::path::PathBuf::from(started["run_dir"].as_str().unwrap()),
        repo.path.join("runs/one")
    );
    let record: Value =
        serde_json::from_str(&repo.git(&["show", &format!("fabro/meta/{id}:run.json")])).unwrap();
    assert_eq!(record["spec"]["workflow_slug"], "flow");

    // `git -C DIR add FILE` finds FILE in DIR; so does --attach.
    let worktree = std::path::PathBuf::from(started["worktree"].as_str().unwrap());
    write_file(&worktree.join("notes.txt"), "notes\n");
    repo.git_in(&worktree, &["-C", ".", "add", "--dry-run", "notes.txt"]);
    run_ok(repo.fabro_in(&outside).args([
        "-C",
        worktree.to_str().unwrap(),
        "checkpoint",
        "--node",
        "plan",
        "--attach",
        "notes=notes.txt",
    ]));
    let show: Value = serde_json::from_str(&repo.ok(&["show", &id, "--json"])).unwrap();
    let files: Vec<&str> = array(&show["stage"]["files"])
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert!(files.contains(&"notes"), "{files:?}");

    let (code, err) = run_err(repo.fabro_in(&outside).args(["-C", "nowhere", "ps"]));
    assert_eq!(code, 2);
    assert!(err.contains("cannot change to nowhere"), "{err}");
}
