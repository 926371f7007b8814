//! Executors: what starts a worker for a run that `submit --executor` just queued. Placing and
//! restarting processes is the job of tools that exist (Slurm, Kubernetes, `ssh`); an executor
//! only hands one of them the worker's command line, `git fabro worker --run RUN`, which waits
//! out any other worker's lease on the run, so a worker that a tool starts twice runs it once.

mod kubernetes;
mod local;
mod slurm;
mod ssh;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::config::pool::ExecutorSettings;
use crate::error::{Error, Result};
use crate::format::run_id::RunId;
use crate::format::shell::quote;
use crate::git::Repo;

/// The executors `--executor` and `[executor] default` name.
pub const KINDS: [&str; 4] = ["local", "slurm", "ssh", "kubernetes"];

/// What every executor is given.
pub struct Launch<'a> {
    pub repo: &'a Repo,
    pub home: &'a Path,
    pub run: &'a RunId,
    /// The remote as this clone names it (the local executor's worker works in this clone).
    pub remote: &'a str,
    pub ttl: Duration,
    /// The sha256 of what the run executes, which this machine approved: a worker started for
    /// it runs exactly that, wherever it runs (`worker --approved`).
    pub approved: Vec<String>,
    pub settings: &'a ExecutorSettings,
}

/// A worker an executor started: what it is called there, and where its output goes.
pub struct Started {
    pub what: String,
    pub log: Option<String>,
}

impl Started {
    /// `started Slurm job 42 for it, its output in FILE`.
    pub fn described(&self) -> String {
        let log = self
            .log
            .as_ref()
            .map(|log| format!(", its output in {log}"));
        format!("started {} for it{}", self.what, log.unwrap_or_default())
    }
}

/// Starts a worker for `launch.run` with the executor `kind`.
pub fn start(kind: &str, launch: &Launch) -> Result<Started> {
    match kind {
        "local" => local::start(launch),
        "slurm" => slurm::start(launch),
        "ssh" => ssh::start(launch),
        "kubernetes" => kubernetes::start(launch),
        other => Err(Error::Usage(format!(
            "no executor {other:?}: the executors are {}",
            KINDS.join(", ")
        ))),
    }
}

impl Launch<'_> {
    /// The worker's arguments after `git fabro`, on a machine whose clone calls the remote
    /// `remote`.
    fn worker_args(&self, remote: &str) -> Vec<String> {
        let mut args = vec![
            "worker".to_owned(),
            "--remote".into(),
            remote.into(),
            "--run".into(),
            self.run.to_string(),
            "--ttl".into(),
            format!("{}ms", self.ttl.as_millis()),
        ];
        for sha in &self.approved {
            args.extend(["--approved".to_owned(), sha.clone()]);
        }
        args
    }

    /// A POSIX shell script that works as a worker machine of its own: a clone of the remote in
    /// a folder it removes at the end, then the worker, whose exit status it ends with.
    fn worker_script(&self) -> Result<String> {
        let command = self.settings.command.as_deref().unwrap_or("git fabro");
        let worker: Vec<String> = self
            .worker_args("origin")
            .iter()
            .map(|a| quote(a))
            .collect();
        Ok(format!(
            "set -eu\n\
             dir=$(mktemp -d \"${{TMPDIR:-/tmp}}/git-fabro-worker.XXXXXX\")\n\
             trap 'rm -rf \"$dir\"' EXIT\n\
             git clone -q {} \"$dir/clone\"\n\
             cd \"$dir/clone\"\n\
             {command} {}\n",
            quote(&self.remote_url()?),
            worker.join(" ")
        ))
    }

    /// The remote's URL as another machine reaches it: a configured remote's URL, a path made
    /// absolute.
    fn remote_url(&self) -> Result<String> {
        let url = self
            .repo
            .config_string(&format!("remote.{}.url", self.remote))
            .unwrap_or_else(|| self.remote.to_owned());
        let is_path = !url.contains("://") && !url.contains(':');
        if is_path && Path::new(&url).is_relative() {
            let base = self.repo.main_path();
            return Ok(base.join(&url).display().to_string());
        }
        Ok(url)
    }

    /// Where a worker started here writes what it says: `<fabro home>/workers/<RUN_ID>.log`.
    fn log_path(&self) -> PathBuf {
        self.home.join("workers").join(format!("{}.log", self.run))
    }
}

/// Runs a tool an executor hands the worker to, and returns what it printed; a tool that is
/// missing or fails is an error that names it.
fn run_tool(command: &mut std::process::Command, stdin: Option<&[u8]>) -> Result<String> {
    use std::io::Write;
    let program = command.get_program().to_string_lossy().into_owned();
    command
        .stdin(if stdin.is_some() {
            std::process::Stdio::piped()
        } else {
            std::process::Stdio::null()
        })
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = command
        .spawn()
        .map_err(|err| Error::Failed(format!("cannot run {program}: {err}")))?;
    if let (Some(text), Some(mut pipe)) = (stdin, child.stdin.take()) {
        pipe.write_all(text)
            .map_err(|err| Error::Failed(format!("cannot write to {program}: {err}")))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|err| Error::Failed(format!("{program} did not end: {err}")))?;
    if !out.status.success() {
        return Err(Error::Failed(format!(
            "{program} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}
