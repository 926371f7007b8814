//! Starting, waiting for and stopping the processes of nodes: command scripts and agent
//! commands both run here, as `/bin/bash -c` in the run's worktree, in a process group of
//! their own, with only the environment [`super::environment`] allows and their output
//! streamed to files as it comes.
//!
//! A node's processes never outlive it. However the node ends (its shell exits, with any
//! status; the timeout passes; Ctrl-C), the whole group gets SIGTERM, then SIGKILL once a
//! grace period passes with any of it still there: a job a script left in the background
//! would otherwise go on writing into a worktree that the next node, a checkpoint or `finish`
//! already moved past. A process that leaves the group on purpose (`setsid`) is beyond reach.

use std::ffi::OsString;
use std::fs::File;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

/// Between SIGTERM and SIGKILL.
const GRACE: Duration = Duration::from_secs(2);

/// How a node's shell ended.
pub enum Ending {
    Exited(Option<i32>),
    TimedOut,
}

/// One `/bin/bash -c` run: where, with what, and where its output streams.
pub struct Shell<'a> {
    pub command: &'a str,
    pub worktree: &'a Path,
    /// The whole environment: nothing else is inherited.
    pub env: &'a [(OsString, OsString)],
    /// A file fed on stdin; none means /dev/null.
    pub stdin: Option<&'a Path>,
    pub stdout: PathBuf,
    pub stderr: PathBuf,
    /// None: no limit.
    pub timeout: Option<Duration>,
}

/// Runs the command in its own process group, its streams written to their files as it
/// runs; past the timeout, or on Ctrl-C, the shell is stopped. Whatever is left of its group
/// when it ends is stopped too.
pub fn run_shell(shell: &Shell) -> std::io::Result<Ending> {
    let mut child = spawn(shell)?;
    let ending = wait(&mut child, shell.timeout);
    stop_group(&mut child);
    ending
}

fn spawn(shell: &Shell) -> std::io::Result<Child> {
    for path in [&shell.stdout, &shell.stderr] {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
    }
    let stdout = File::create(&shell.stdout)?;
    let stderr = File::create(&shell.stderr)?;
    let stdin = match shell.stdin {
        Some(path) => Stdio::from(File::open(path)?),
        None => Stdio::null(),
    };
    Command::new("/bin/bash")
        .arg("-c")
        .arg(shell.command)
        .current_dir(shell.worktree)
        .env_clear()
        .envs(shell.env.iter().map(|(k, v)| (k, v)))
        .stdin(stdin)
        .stdout(stdout)
        .stderr(stderr)
        .process_group(0)
        .spawn()
}

/// Waits for the shell to exit, the deadline to pass or Ctrl-C; the group is stopped after.
fn wait(child: &mut Child, timeout: Option<Duration>) -> std::io::Result<Ending> {
    let deadline = timeout.map(|t| Instant::now() + t);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Ending::Exited(status.code()));
        }
        // Ctrl-C stops the shell as a timeout does; the engine then records nothing of it.
        if super::interrupt::requested() {
            return Ok(Ending::TimedOut);
        }
        match deadline {
            Some(deadline) if Instant::now() >= deadline => return Ok(Ending::TimedOut),
            Some(deadline) => std::thread::sleep(poll_interval(deadline)),
            None => std::thread::sleep(Duration::from_millis(10)),
        }
    }
}

/// Short polls at first, so quick commands end quickly; longer ones later.
fn poll_interval(deadline: Instant) -> Duration {
    let left = deadline.saturating_duration_since(Instant::now());
    left.min(Duration::from_millis(10))
}

/// SIGTERM to every process of the shell's group, then SIGKILL to what is left after
/// [`GRACE`]; the shell is reaped on the way, so that a shell that ended is not counted as
/// left. A group with no process left (the usual case: the shell exited and started nothing
/// that outlived it) costs one failed `kill`.
fn stop_group(child: &mut Child) {
    let group = i32::try_from(child.id()).ok().and_then(Pid::from_raw);
    if let Some(group) = group
        && rustix::process::kill_process_group(group, Signal::TERM).is_ok()
    {
        let grace = Instant::now() + GRACE;
        loop {
            let _ = child.try_wait();
            if rustix::process::test_kill_process_group(group).is_err() {
                break;
            }
            if Instant::now() >= grace {
                let _ = rustix::process::kill_process_group(group, Signal::KILL);
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}
