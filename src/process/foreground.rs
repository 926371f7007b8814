//! Children that share git-fabro's process group and terminal: the command of `resume --
//! COMMAND`, which works in git-fabro's place, and the pager. They read the keyboard, and the
//! terminal's signals (Ctrl-C, Ctrl-\, a hangup) reach them directly, as they would reach
//! them started from the shell; they decide what those mean. git-fabro must not be the first
//! to go: it holds the run for the command and reports how it ended, and a pager left behind
//! would fight the shell for the terminal. So once such a child starts, those signals no
//! longer end git-fabro, which ends with the child instead: `resume` exits as its command
//! did (130 when Ctrl-C ended it), and a pager quit early makes git-fabro's next write a
//! broken pipe (exit 0).
//!
//! A SIGTERM sent to git-fabro alone (`kill PID`, a supervisor stopping it) is passed on to
//! the command of `resume`, which would otherwise go on working on a run nobody holds.

use std::io;
use std::process::{Child, Command, ExitStatus};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rustix::process::{Pid, Signal};
use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};

use super::exit_wait::ExitWait;

/// The longest the wait goes without looking for a SIGTERM to pass on; the command's end
/// and a signal end it at once.
const POLL: Duration = Duration::from_millis(20);

/// Runs `command` to its end on git-fabro's terminal, passing SIGTERM on to it.
pub fn run_in_foreground(command: &mut Command) -> io::Result<ExitStatus> {
    let mut child = spawn_on_terminal(command)?;
    let term = Arc::new(AtomicBool::new(false));
    outlive(SIGTERM, &term);
    let pid = i32::try_from(child.id()).ok().and_then(Pid::from_raw);
    let mut exit = ExitWait::new(&child);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(status);
        }
        if term.swap(false, Ordering::SeqCst)
            && let Some(pid) = pid
        {
            let _ = rustix::process::kill_process(pid, Signal::TERM);
        }
        exit.wait(POLL);
    }
}

/// Starts `command` on git-fabro's terminal; from now on the terminal's signals no longer
/// end git-fabro.
pub fn spawn_on_terminal(command: &mut Command) -> io::Result<Child> {
    // Caught only once the child runs: it starts with the dispositions git-fabro was given
    // (Ctrl-C as from the shell; a hangup still ignored under `nohup`), and a child that
    // cannot start changes nothing.
    let child = command.spawn()?;
    let terminal = Arc::new(AtomicBool::new(false));
    for signal in [SIGINT, SIGQUIT, SIGHUP] {
        outlive(signal, &terminal);
    }
    Ok(child)
}

/// From now on `signal` only raises `flag`. Best effort: a signal that cannot be caught ends
/// git-fabro as it did before.
fn outlive(signal: i32, flag: &Arc<AtomicBool>) {
    let _ = signal_hook::flag::register(signal, Arc::clone(flag));
}
