//! Files named on the command line and sizes and paths in configuration: a FIFO, a directory
//! or a device is refused rather than blocking or reading forever (a workflow may be `-` or a
//! pipe, read within the size limit), a huge file is refused with
//! the limit named, a size with a unit is understood, and a relative runs directory never
//! lands in a worktree.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{TestRepo, assert_success, path_with_fabro, write_file};

/// Runs `cmd`, killing it if it has not exited within 20 seconds (a blocked read); `None` then.
fn within_deadline(cmd: &mut Command) -> Option<Output> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(20) {
        if child.try_wait().unwrap().is_some() {
            return Some(child.wait_with_output().unwrap());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

fn mkfifo(repo: &TestRepo, path: &Path) {
    let out = repo.command("mkfifo").arg(path).output().unwrap();
    assert!(out.status.success());
}

fn refused(repo: &TestRepo, args: &[&str], expect: &str) {
    let out = within_deadline(repo.fabro().args(args))
        .unwrap_or_else(|| panic!("{args:?} blocked instead of refusing"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(expect), "{args:?}: {err}");
}

#[test]
fn attach_refuses_fifos_directories_devices_and_huge_files() {
    let (repo, run) = TestRepo::with_run();
    let fifo = repo.root.join("pipe");
    mkfifo(&repo, &fifo);
    let huge = repo.root.join("huge.bin");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len((64 << 20) + 1)
        .unwrap();
    let tip = repo.git(&["rev-parse", &format!("fabro/meta/{}", run.id)]);
    for (path, expect) in [
        (fifo.display().to_string(), "not a regular file"),
        ("/dev/zero".to_owned(), "not a regular file"),
        (repo.root.display().to_string(), "is a directory"),
        (huge.display().to_string(), "larger than 64 MiB"),
    ] {
        let attach = format!("log={path}");
        refused(
            &repo,
            &[
                "checkpoint",
                "--run",
                &run.id,
                "--node",
                "a",
                "--attach",
                &attach,
            ],
            expect,
        );
    }
    assert_eq!(
        repo.git(&["rev-parse", &format!("fabro/meta/{}", run.id)]),
        tip,
        "nothing recorded"
    );
    write_file(&repo.root.join("small.log"), "fine\n");
    let attach = format!("log={}", repo.root.join("small.log").display());
    repo.checkpoint_with(&run.id, "a", &["--attach", &attach]);
}

#[test]
fn workflow_and_config_refuse_fifos_and_directories() {
    let repo = TestRepo::new();
    let fifo = repo.root.join("pipe");
    mkfifo(&repo, &fifo);
    let fifo = fifo.to_str().unwrap();
    let dir = repo.root.to_str().unwrap();
    // A workflow may come from a pipe, as git takes pipes: one nobody writes to ends at once.
    refused(
        &repo,
        &["start", "--workflow", fifo],
        "gave nothing to read",
    );
    refused(&repo, &["start", "--config", fifo], "not a regular file");
    refused(&repo, &["start", "--workflow", dir], "is a directory");
    refused(
        &repo,
        &["start", "--config", "/dev/zero"],
        "not a regular file",
    );
    assert_eq!(
        repo.ok(&["ps", "--json"]).trim(),
        "[]",
        "no run was started"
    );
    let flow = repo.write_beside("fix.fabro", "digraph fix { start -> done }\n");
    let id = repo.ok(&["start", "--workflow", flow.to_str().unwrap()]);
    refused(
        &repo,
        &["resume", id.trim(), "--workflow", fifo],
        "gave nothing to read",
    );
}

#[test]
fn max_file_size_takes_units_and_refuses_what_it_cannot_read() {
    let repo = TestRepo::new();
    repo.git(&["config", "fabro.maxFileSize", "1MB"]);
    let run = repo.start();
    std::fs::write(run.worktree.join("big.bin"), vec![b'x'; 1_200_000]).unwrap();
    std::fs::write(run.worktree.join("small.bin"), vec![b'x'; 900_000]).unwrap();
    let done: Value =
        serde_json::from_str(&repo.ok(&["snapshot", "--run", &run.id, "--json"])).unwrap();
    assert_eq!(done["skipped_files"][0]["path"], "big.bin", "{done}");
    assert_eq!(done["skipped_files"].as_array().unwrap().len(), 1, "{done}");

    repo.git(&["config", "fabro.maxFileSize", "lots"]);
    let (code, err) = crate::common::run_err(repo.fabro().args(["snapshot", "--run", &run.id]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("fabro.maxFileSize") && err.contains("\"lots\""),
        "{err}"
    );

    repo.git(&["config", "--unset", "fabro.maxFileSize"]);
    repo.write_settings("[checkpoint]\nmax_file_size = \"1MiB\"\n");
    std::fs::write(run.worktree.join("mid.bin"), vec![b'x'; 1_048_000]).unwrap();
    let done: Value =
        serde_json::from_str(&repo.ok(&["snapshot", "--run", &run.id, "--json"])).unwrap();
    assert!(
        done["skipped_files"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["path"] != "mid.bin")
    );
}

#[test]
fn a_relative_runs_dir_is_taken_inside_the_fabro_home() {
    let repo = TestRepo::new();
    repo.git(&["config", "fabro.runsDir", "my-runs"]);
    let started: Value = serde_json::from_str(&repo.ok(&["start", "--json"])).unwrap();
    let run_dir = Path::new(started["run_dir"].as_str().unwrap());
    assert!(
        run_dir.starts_with(repo.home.join("my-runs")),
        "{}",
        run_dir.display()
    );
    assert!(!repo.path.join("my-runs").exists());
    assert_eq!(repo.git(&["status", "--porcelain"]), "");

    // From inside a worktree too, and a run in place does not capture it.
    let worktree = Path::new(started["worktree"].as_str().unwrap());
    let second: Value = serde_json::from_str(&crate::common::run_ok(
        repo.fabro_in(worktree).args(["start", "--json"]),
    ))
    .unwrap();
    assert!(
        Path::new(second["run_dir"].as_str().unwrap()).starts_with(repo.home.join("my-runs")),
        "{second}"
    );
    let id = repo.ok(&["start", "--in-place"]).trim().to_owned();
    let files = repo.files_in(&format!("fabro/run/{id}"));
    assert!(!files.contains("my-runs"), "{files}");
}

#[test]
fn a_settings_file_that_is_a_fifo_is_refused_rather_than_blocking() {
    let repo = TestRepo::new();
    std::fs::create_dir_all(&repo.home).unwrap();
    mkfifo(&repo, &repo.home.join("settings.toml"));
    refused(&repo, &["start"], "not a regular file");
}

/// `bash -c SCRIPT` in the repository with git-fabro on PATH as `git-fabro`.
fn in_bash(repo: &TestRepo, script: &str) -> Output {
    let path = path_with_fabro();
    within_deadline(repo.command("bash").arg("-c").arg(script).env("PATH", path))
        .unwrap_or_else(|| panic!("{script} blocked"))
}

#[test]
fn a_workflow_is_read_from_standard_input_or_a_pipe() {
    let repo = TestRepo::new();
    let flow = repo.write_beside(
        "piped.fabro",
        "digraph piped {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  start -> exit\n}\n",
    );
    let flow = flow.display();
    for script in [
        format!("git-fabro validate - < '{flow}'"),
        format!("git-fabro validate <(cat '{flow}')"),
        format!("git-fabro graph - < '{flow}'"),
    ] {
        let out = in_bash(&repo, &script);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{script}: {err}");
    }
    // Read once, recorded whole: the run's graph.fabro is the text that came down the pipe.
    let out = in_bash(&repo, &format!("git-fabro run <(cat '{flow}') --json"));
    assert_success(&out);
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = summary["run_id"].as_str().unwrap();
    let recorded = repo.git(&["show", &format!("fabro/meta/{id}:graph.fabro")]);
    assert!(recorded.starts_with("digraph piped {"), "{recorded}");
    let ps: Value = serde_json::from_str(&repo.ok(&["ps", "--json"])).unwrap();
    assert_eq!(ps[0]["workflow_name"], "piped", "{ps}");
    let out = in_bash(&repo, &format!("git-fabro start --workflow - < '{flow}'"));
    assert_success(&out);
}

#[test]
fn a_piped_workflow_over_the_size_limit_is_refused() {
    let repo = TestRepo::new();
    let out = in_bash(&repo, "head -c 17000000 /dev/zero | git-fabro validate -");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("is larger than 16 MiB"), "{err}");
}
