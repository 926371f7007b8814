//! A node's processes end with the node: a job a script or an agent leaves in the background
//! is stopped with its process group however the node ends (exit 0, a failure), as a timeout
//! stops it, so that nothing writes into the run's worktree once the node is checkpointed or
//! the worktree is gone.

use std::path::Path;
use std::time::Duration;

use crate::common::TestRepo;
use crate::engine_run::{run, workflow};

/// A shell line that starts a job which, 3 s later, writes `late.txt` where it runs, and
/// waits until the job has written its pid to `pid_file`.
fn background_job(pid_file: &Path) -> String {
    let pid_file = pid_file.display();
    format!(
        "(echo $BASHPID > {pid_file}; sleep 3; echo late > late.txt) & \
         while [ ! -s {pid_file} ]; do sleep 0.01; done"
    )
}

/// A workflow of one node `work` with the attributes `attrs`.
fn one_node(attrs: &str) -> String {
    format!(
        "digraph bg {{\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  work [{attrs}]\n  start -> work -> exit\n}}"
    )
}

/// Whether `pid` still runs (a zombie has ended).
fn is_running(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z'))
    })
}

/// Every `late.txt` under `dir`.
fn late_files(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            found.extend(late_files(&path));
        } else if entry.file_name() == "late.txt" {
            found.push(path.display().to_string());
        }
    }
    found
}

/// Once the run is over the job is gone, and past its delay it has written nothing.
fn assert_the_job_was_stopped(repo: &TestRepo, pid_file: &Path) {
    let pid = std::fs::read_to_string(pid_file).expect("the job wrote its pid");
    assert!(!is_running(pid.trim()), "the node's job {pid} outlived it");
    std::thread::sleep(Duration::from_secs(4));
    assert_eq!(late_files(&repo.root), Vec::<String>::new());
}

#[test]
fn a_script_that_exits_0_leaves_no_job_behind() {
    let repo = TestRepo::new();
    let pid_file = repo.root.join("job.pid");
    let script = background_job(&pid_file);
    let path = workflow(
        &repo,
        "bg",
        &one_node(&format!(r#"shape=parallelogram, script="{script}""#)),
    );
    let ran = run(&repo, &path, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_the_job_was_stopped(&repo, &pid_file);
}

#[test]
fn a_script_that_fails_leaves_no_job_behind() {
    let repo = TestRepo::new();
    let pid_file = repo.root.join("job.pid");
    let script = format!("{}; exit 3", background_job(&pid_file));
    let path = workflow(
        &repo,
        "bg",
        &one_node(&format!(r#"shape=parallelogram, script="{script}""#)),
    );
    let ran = run(&repo, &path, &["--in-place"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_the_job_was_stopped(&repo, &pid_file);
}

#[test]
fn an_agent_leaves_no_job_behind() {
    let repo = TestRepo::new();
    let pid_file = repo.root.join("job.pid");
    let agent = repo.write_beside(
        "agent.sh",
        &format!("#!/bin/bash\n{}\necho done\n", background_job(&pid_file)),
    );
    let path = workflow(&repo, "bg", &one_node(r#"shape=box, prompt="work""#));
    let agent_command = format!("bash {}", agent.display());
    let ran = run(&repo, &path, &["--agent", &agent_command]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_the_job_was_stopped(&repo, &pid_file);
}
