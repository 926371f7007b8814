//! Children that share git-fabro's process group and terminal: the command of `resume --
//! COMMAND`, which works in git-fabro's place, and the pager. They read the keyboard, and the
//! terminal's signals (Ctrl-C, Ctrl-\, a hangup) reach them directly, as they would reach
//! them started from the shell; they decide what those mean. git-fabro must not be the first
//! to go: it holds the run for the command and reports how it ended, and a pager left behind
//! would fight the shell for the terminal. So once such a child starts, those signals no
//! longer end git-fabro, which ends with the child instead (`resume` exits 130 when Ctrl-C
//! ended its command; a pager quit leaves git-fabro's next write a broken pipe, exit 0).
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

/// How often the wait looks for the command's end and for a SIGTERM to pass on.
const POLL: Duration = Duration::from_millis(20);

/// Runs `command` to its end on git-fabro's terminal, passing SIGTERM on to it.
pub fn run_in_foreground(command: &mut Command) -> io::Result<ExitStatus> {
    let term = Arc::new(AtomicBool::new(false));
    outlive(SIGTERM, &term)?;
    let mut child = spawn_on_terminal(command)?;
    let pid = i32::try_from(child.id()).ok().and_then(Pid::from_raw);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(status);
        }
        if term.swap(false, Ordering::SeqCst)
            && let Some(pid) = pid
        {
            let _ = rustix::process::kill_process(pid, Signal::TERM);
        }
        std::thread::sleep(POLL);
    }
}

/// Starts `command` on git-fabro's terminal; from now on the terminal's signals no longer
/// end git-fabro.
pub fn spawn_on_terminal(command: &mut Command) -> io::Result<Child> {
    let terminal = Arc::new(AtomicBool::new(false));
    for signal in [SIGINT, SIGQUIT, SIGHUP] {
        outlive(signal, &terminal)?;
    }
    // A caught signal is reset to its default in the child when it starts: it gets Ctrl-C as
    // it would from the shell.
    command.spawn()
}

/// From now on `signal` only raises `flag`, unless this process was started ignoring it (a
/// background job of a script, `nohup`): then it stays ignored, here and in the children,
/// which inherit that.
fn outlive(signal: i32, flag: &Arc<AtomicBool>) -> io::Result<()> {
    if !ignored(signal) {
        signal_hook::flag::register(signal, Arc::clone(flag))?;
    }
    Ok(())
}

/// Whether this process ignores `signal`, from `/proc/self/status`; where the system has no
/// `/proc`, no signal counts as ignored.
fn ignored(signal: i32) -> bool {
    let Some(bit) = u32::try_from(signal - 1).ok().filter(|bit| *bit < 64) else {
        return false;
    };
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let mask = status.lines().find_map(|l| l.strip_prefix("SigIgn:"))?;
            u64::from_str_radix(mask.trim(), 16).ok()
        })
        .is_some_and(|mask| mask & (1 << bit) != 0)
}
