use serde_json::Value;

use crate::common::{TestRepo, path_with_fabro, read_file, run_err, run_ok, write_file};
use crate::fork::finished_run;

#[test]
fn resume_rebuilds_the_run_directory_and_worktree_from_git() {
    let (repo, run) = TestRepo::with_run();
    write_file(&run.worktree.join("a.txt"), "a\n");
    repo.checkpoint_with(
        &run.id,
        "plan",
        &["--next", "code", "--context", "internal.fidelity=\"full\""],
    );
    std::fs::remove_dir_all(&run.run_dir).unwrap();

    let state: Value = serde_json::from_str(&repo.ok(&["resume", &run.id])).unwrap();
    assert_eq!(state["run_id"], run.id.as_str());
    assert_eq!(state["next_node_id"], "code");
    assert_eq!(state["completed_nodes"], serde_json::json!(["plan"]));
    assert_eq!(state["node_visits"]["plan"], 1);
    assert_eq!(state["context_values"]["internal.fidelity"], "full");
    assert_eq!(state["fidelity_downgrade"], true);
    assert!(state["node_retries"].is_object());
    let worktree = std::path::PathBuf::from(state["worktree"].as_str().unwrap());
    assert_eq!(read_file(worktree.join("a.txt")), "a\n");
    let run_dir = std::path::PathBuf::from(state["run_dir"].as_str().unwrap());
    assert!(run_dir.join("manifest.json").is_file());
    assert_eq!(repo.git_in(&worktree, &["status", "--porcelain"]), "");
    assert!(
        repo.git(&["worktree", "list"])
            .contains(worktree.to_str().unwrap())
    );
}

#[test]
fn resume_runs_a_command_that_checkpoints_through_the_environment() {
    let (repo, run) = TestRepo::with_run();
    repo.checkpoint_with(&run.id, "plan", &["--next", "code"]);
    let script = "test \"$FABRO_RESUME\" = 1 && test \"$FABRO_NEXT_NODE\" = code && test -f \"$FABRO_RUN_DIR/run.pid\" \
                  && test \"$(pwd)\" = \"$FABRO_WORKTREE\" && echo done > out.txt \
                  && git-fabro checkpoint --node \"$FABRO_NEXT_NODE\" >/dev/null && exit 7";
    let path = path_with_fabro();
    let out = repo
        .fabro()
        .env("PATH", path)
        .args(["resume", &run.id, "--", "sh", "-c", script])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(7),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let log = repo.log_json(&run.id);
    assert_eq!(log.len(), 2);
    assert_eq!(log[1]["node_id"], "code");
    assert!(!run.run_dir.join("run.pid").exists(), "run.pid is released");
}

#[test]
fn resume_refuses_archived_succeeded_and_held_runs() {
    let repo = TestRepo::new();
    let done = finished_run(&repo);
    let (code, err) = run_err(repo.fabro().args(["resume", &done]));
    assert_eq!(code, 1);
    assert!(err.contains("succeeded"), "{err}");

    let run = repo.start();
    repo.ok(&["archive", &run.id]);
    let (code, err) = run_err(repo.fabro().args(["resume", &run.id]));
    assert_eq!(code, 1);
    assert!(err.contains("archived"), "{err}");
    repo.ok(&["unarchive", &run.id]);

    std::fs::write(
        run.run_dir.join("run.pid"),
        format!("{}\n", std::process::id()),
    )
    .unwrap();
    let (code, err) = run_err(repo.fabro().args(["resume", &run.id]));
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("run.pid"), "{err}");
    std::fs::write(run.run_dir.join("run.pid"), "999999999\n").unwrap();
    run_ok(repo.fabro().args(["resume", &run.id]));
}

#[test]
fn resume_checks_the_workflow_and_reopens_a_failed_run() {
    let repo = TestRepo::new();
    write_file(&repo.root.join("flow.fabro"), "digraph flow { a -> b }\n");
    write_file(&repo.root.join("other.fabro"), "digraph flow { a -> c }\n");
    let id = repo
        .ok(&["start", "--workflow", "../flow.fabro"])
        .trim()
        .to_owned();
    repo.ok(&[
        "finish",
        "--run",
        &id,
        "--status",
        "failed",
        "--keep-worktree",
    ]);
    let (code, err) = run_err(
        repo.fabro()
            .args(["resume", &id, "--workflow", "../other.fabro"]),
    );
    assert_eq!(code, 1);
    assert!(err.contains("--force"), "{err}");
    repo.ok(&["resume", &id, "--workflow", "../flow.fabro"]);
    let record: Value =
        serde_json::from_str(&repo.git(&["show", &format!("fabro/meta/{id}:run.json")])).unwrap();
    assert_eq!(record["status"]["kind"], "running");
    repo.checkpoint(&id, "again");
    repo.ok(&["resume", &id, "--workflow", "../other.fabro", "--force"]);
}
