//! `submit --executor`: the worker it starts runs the run, on this machine (`local`), on a host
//! reached with `ssh` (a stand-in `ssh` that runs the command as a host of its own would), or in
//! the Job rendered from the Kubernetes template shipped in examples/ (applied by a stand-in,
//! whose worker script is then run as the Job's container would run it).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{Pool, held_at_two, path};
use crate::common::run_ok;

const DONE: [&str; 3] = ["three (succeeded)", "two (succeeded)", "one (succeeded)"];

impl Pool {
    /// Waits until run `id` has left the remote's queue having run every node.
    fn wait_until_done(&self, id: &str) {
        let deadline = Instant::now() + Duration::from_secs(90);
        while !(self.pool_refs().is_empty() && self.subjects(id) == DONE) {
            assert!(
                Instant::now() < deadline,
                "run {id} never ended: {}",
                self.pool_refs()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The submitter's settings.toml.
    fn settings(&self, text: &str) {
        let home = self.repo.root.join("fabro-home");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(home.join("settings.toml"), text).unwrap();
    }

    /// Submits `held_at_two` with an executor; returns submit's JSON.
    fn submit_executed(&self, executor: &str) -> Value {
        std::fs::write(self.repo.root.join("go"), "").unwrap();
        let file = self
            .repo
            .write_beside("flow.fabro", &held_at_two(&self.repo.root));
        let out = self.repo.ok(&[
            "submit",
            path(&file),
            "--remote",
            "origin",
            "--executor",
            executor,
            "--json",
        ]);
        serde_json::from_str(&out).unwrap()
    }
}

fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_git-fabro"))
}

#[test]
fn the_local_executor_runs_the_run_here_in_the_background() {
    let pool = Pool::new();
    let submitted = pool.submit_executed("local");
    let id = submitted["run_id"].as_str().unwrap();
    assert!(
        submitted["worker"]
            .as_str()
            .unwrap()
            .starts_with("process "),
        "{submitted}"
    );
    pool.wait_until_done(id);
    let log = pool.repo.root.join(format!("fabro-home/workers/{id}.log"));
    let log = std::fs::read_to_string(log).unwrap();
    assert!(
        log.contains(&format!(": running run {id} (epoch 1)\n")),
        "{log}"
    );
}

/// A stand-in `ssh`: `ssh [OPTIONS] -- HOST COMMAND` runs COMMAND with a home of HOST's own,
/// and records what it was given.
fn fake_ssh(root: &Path) -> PathBuf {
    let bin = root.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let ssh = bin.join("ssh");
    std::fs::write(
        &ssh,
        format!(
            "#!/bin/sh\nopts=\nwhile [ \"$1\" != -- ]; do opts=\"$opts$1 \"; shift; done; shift\n\
             host=$1; shift\necho \"$opts-- $host\" >> {root}/ssh-calls\n[ \"$host\" = down ] && exit 255\n\
             mkdir -p {root}/hosts/$host\n\
             exec env -u FABRO_HOME HOME={root}/hosts/$host sh -c \"$*\"\n",
            root = root.display()
        ),
    )
    .unwrap();
    run_ok(Command::new("chmod").args(["+x", path(&ssh)]));
    bin
}

#[test]
fn the_ssh_executor_starts_the_worker_on_a_listed_host_that_answers() {
    let pool = Pool::new();
    let bin = fake_ssh(&pool.repo.root);
    pool.settings(&format!(
        "[executor]\ncommand = \"{}\"\n[executor.ssh]\nhosts = [\"down\", \"build1\"]\noptions = [\"-p\", \"2222\"]\n",
        binary().display()
    ));
    std::fs::write(pool.repo.root.join("go"), "").unwrap();
    let file = pool
        .repo
        .write_beside("flow.fabro", &held_at_two(&pool.repo.root));
    let path_var = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let out = run_ok(pool.repo.fabro().env("PATH", path_var).args([
        "submit",
        path(&file),
        "--remote",
        "origin",
        "--executor",
        "ssh",
        "--json",
    ]));
    let submitted: Value = serde_json::from_str(&out).unwrap();
    let id = submitted["run_id"].as_str().unwrap();
    pool.wait_until_done(id);
    // A host of its own: the worker there approved nothing, and ran what the submitter did.
    assert_eq!(submitted["worker"], "a worker on build1");
    let log = pool
        .repo
        .root
        .join(format!("hosts/build1/.fabro/workers/{id}.log"));
    let log = std::fs::read_to_string(log).unwrap();
    assert!(
        log.contains(&format!(": running run {id} (epoch 1)\n")),
        "{log}"
    );
    let calls = std::fs::read_to_string(pool.repo.root.join("ssh-calls")).unwrap();
    // The host the run's id picks first, then the next one when it does not answer.
    let tried: Vec<&str> = calls.lines().collect();
    let answered = "-p 2222 -o BatchMode=yes -- build1";
    assert!(
        tried == [answered] || tried == ["-p 2222 -o BatchMode=yes -- down", answered],
        "{calls}"
    );
}

#[test]
fn the_kubernetes_template_renders_a_job_whose_worker_runs_the_run() {
    let pool = Pool::new();
    let template =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/executors/kubernetes-job.yaml");
    let applied = pool.repo.root.join("applied.yaml");
    pool.settings(&format!(
        "[executor.kubernetes]\ntemplate = \"{}\"\napply = [\"sh\", \"-c\", \"cat > {}; echo job.batch/created\"]\n",
        template.display(),
        applied.display()
    ));
    let submitted = pool.submit_executed("kubernetes");
    let id = submitted["run_id"].as_str().unwrap();
    assert_eq!(submitted["worker"], "job.batch/created");
    let job = std::fs::read_to_string(&applied).unwrap();
    // The container's command line is a JSON array, which YAML reads as the same list.
    let command = job
        .lines()
        .find_map(|l| l.trim().strip_prefix("command: "))
        .unwrap();
    let command: Vec<String> = serde_json::from_str(command).unwrap();
    let script = &command[2];
    let expected = std::fs::read_to_string(&template)
        .unwrap()
        .replace("{{job_name}}", &format!("\"fabro-{}\"", id.to_lowercase()))
        .replace("{{run_id}}", &format!("\"{id}\""))
        .replace("{{worker_script}}", &serde_json::to_string(script).unwrap());
    assert_eq!(job, expected);
    assert!(!pool.pool_refs().is_empty(), "applied, not yet run");

    // The Job's container, as a machine of its own with git-fabro on its PATH.
    let container = pool.repo.root.join("container");
    std::fs::create_dir_all(container.join("bin")).unwrap();
    std::os::unix::fs::symlink(binary(), container.join("bin/git-fabro")).unwrap();
    let path_var = format!(
        "{}:{}",
        container.join("bin").display(),
        std::env::var("PATH").unwrap()
    );
    run_ok(
        Command::new("sh")
            .args(["-c", script])
            .env_clear()
            .env("PATH", path_var)
            .env("HOME", &container)
            .env("GIT_CONFIG_NOSYSTEM", "1"),
    );
    pool.wait_until_done(id);
}

#[test]
fn an_answer_from_a_clone_that_approved_nothing_starts_a_worker_that_runs_nothing_and_says_so() {
    let pool = Pool::new();
    let id = pool.submit(&crate::engine_human::gate());
    let worker = pool.machine("worker-1");
    let once = ["worker", "--remote", "origin", "--once", "--trust"];
    assert_eq!(
        crate::common::run_err(&mut pool.fabro_on(&worker, &once)).0,
        4
    );
    let reviewer = pool.machine("reviewer");
    let answer = [
        "resume",
        &id,
        "--remote",
        "origin",
        "--answer",
        "approve=A",
        "--executor",
        "local",
    ];
    let out = pool.fabro_on(&reviewer, &answer).output().unwrap();
    assert!(out.status.success());
    let log = pool.fabro_home(&reviewer).join(format!("workers/{id}.log"));
    let stderr = String::from_utf8_lossy(&out.stderr).replace(&log.display().to_string(), "LOG");
    let started = stderr.lines().nth(1).unwrap_or_default().to_owned();
    assert!(started.starts_with("started process "), "{stderr}");
    assert_eq!(
        stderr,
        format!(
            "queued run {id} again on {}: the next worker goes on with it\n{started}\n\
             warning: this machine did not approve run {id}'s workflow and values, so the worker runs it only where a signed submission, an approval of its own or --trust lets it\n",
            pool.bare.display()
        )
    );
    // Its worker refuses the run, which stays queued for one that may run it.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !std::fs::read_to_string(&log).is_ok_and(|l| l.contains("was not written or approved")) {
        assert!(Instant::now() < deadline, "the worker never refused");
        std::thread::sleep(Duration::from_millis(50));
    }
    run_ok(&mut pool.fabro_on(&worker, &once));
    assert_eq!(pool.subjects(&id)[0], "ship (succeeded)");
}
