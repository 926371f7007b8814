//! Starting, waiting for and stopping the processes of nodes: command scripts and agent
//! commands both run here, as `/bin/bash -c` in the run's worktree, in a process group of
//! their own, with only the environment the engine allows and their output streamed to files
//! as it comes.
//!
//! A node's processes never outlive it. However the node ends (its shell exits, with any
//! status; the timeout passes; Ctrl-C), the whole group gets SIGTERM, then SIGKILL once a
//! grace period passes with any of it still there: a job a script left in the background
//! would otherwise go on writing into a worktree that the next node, a checkpoint or `finish`
//! already moved past. A process that leaves the group on purpose (`setsid`) is beyond reach.

use std::ffi::OsString;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::exit_wait::ExitWait;
use super::group::{own_group, stop_group, track};

/// How long a wait for the shell goes without looking at the clock and the stall watchdog;
/// its exit and Ctrl-C end a wait at once.
const LOOK_AGAIN: Duration = Duration::from_millis(10);

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
/// runs; past the timeout, or once `interrupted` says so (Ctrl-C), the shell is stopped.
/// Whatever is left of its group when it ends is stopped too.
pub fn run_shell(shell: &Shell, interrupted: impl Fn() -> bool) -> std::io::Result<Ending> {
    let mut child = spawn(shell)?;
    track(&child);
    let ending = wait(&mut child, shell.timeout, interrupted);
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
    let mut command = Command::new("/bin/bash");
    command
        .arg("-c")
        .arg(shell.command)
        .current_dir(shell.worktree)
        .env_clear()
        .envs(shell.env.iter().map(|(k, v)| (k, v)))
        .stdin(stdin)
        .stdout(stdout)
        .stderr(stderr);
    own_group(&mut command).spawn()
}

/// Waits for the shell to exit, the deadline to pass or Ctrl-C; the group is stopped after.
fn wait(
    child: &mut Child,
    timeout: Option<Duration>,
    interrupted: impl Fn() -> bool,
) -> std::io::Result<Ending> {
    let deadline = timeout.map(|t| Instant::now() + t);
    let mut exit = ExitWait::new(child);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Ending::Exited(status.code()));
        }
        // Ctrl-C stops the shell as a timeout does; the engine then records nothing of it.
        if interrupted() {
            return Ok(Ending::TimedOut);
        }
        let left = match deadline {
            Some(deadline) if Instant::now() >= deadline => return Ok(Ending::TimedOut),
            Some(deadline) => deadline.saturating_duration_since(Instant::now()),
            None => LOOK_AGAIN,
        };
        exit.wait(left.min(LOOK_AGAIN));
    }
}
