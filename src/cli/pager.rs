//! A pager as git starts one for `log`, `diff` and `show`: only when stdout is a terminal and
//! `--no-pager` was not given; the command is `$GIT_PAGER`, else `core.pager`, else `$PAGER`,
//! else `less` where it is installed, run by the shell, with `LESS=FRX` (quit when the text
//! fits one screen, keep colours, leave the screen as it is) unless `LESS` is set. An empty
//! command or `cat` means no pager; a pager that cannot start means none either.
//!
//! The pager shares git-fabro's terminal ([`crate::process::spawn_on_terminal`]): Ctrl-C is
//! the pager's to handle (less stops a search), and git-fabro, which would otherwise die under
//! it and leave the pager fighting the shell for the terminal, goes on until the person quits.

use std::io::{IsTerminal, Write};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::git::Repo;

static DISABLED: AtomicBool = AtomicBool::new(false);

/// `--no-pager`.
pub fn disable() {
    DISABLED.store(true, Ordering::Relaxed);
}

/// The running pager: stdout (and stderr, when it was the terminal too) go to it until this is
/// dropped, which gives them back and waits for the person to quit it.
pub struct Pager {
    child: Child,
    #[cfg(unix)]
    saved: Saved,
}

#[cfg(unix)]
struct Saved {
    stdout: std::os::fd::OwnedFd,
    stderr: Option<std::os::fd::OwnedFd>,
}

/// Starts the pager if one is due; None when output goes on as it is.
pub fn start(repo: &Repo) -> Option<Pager> {
    if DISABLED.load(Ordering::Relaxed) || !std::io::stdout().is_terminal() {
        return None;
    }
    let command = std::env::var("GIT_PAGER")
        .ok()
        .or_else(|| repo.config_string("core.pager"))
        .or_else(|| std::env::var("PAGER").ok());
    let command = match command {
        Some(command) => command,
        // The default only where it exists: a missing pager would swallow the output.
        None if on_path("less") => "less".into(),
        None => return None,
    };
    if command.trim().is_empty() || command.trim() == "cat" {
        return None;
    }
    spawn(&command)
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

#[cfg(unix)]
fn spawn(command: &str) -> Option<Pager> {
    let mut cmd = Command::new("sh");
    cmd.args(["-c", command]).stdin(Stdio::piped());
    if std::env::var_os("LESS").is_none() {
        cmd.env("LESS", "FRX");
    }
    if std::env::var_os("LV").is_none() {
        cmd.env("LV", "-c");
    }
    let mut child = crate::process::spawn_on_terminal(&mut cmd).ok()?;
    let pipe = child.stdin.take()?;
    let saved = (|| -> std::io::Result<Saved> {
        let stdout = rustix::io::dup(std::io::stdout())?;
        let stderr = if std::io::stderr().is_terminal() {
            Some(rustix::io::dup(std::io::stderr())?)
        } else {
            None
        };
        rustix::stdio::dup2_stdout(&pipe)?;
        if stderr.is_some() {
            rustix::stdio::dup2_stderr(&pipe)?;
        }
        Ok(Saved { stdout, stderr })
    })();
    match saved {
        Ok(saved) => Some(Pager { child, saved }),
        Err(_) => {
            drop(pipe);
            let _ = child.wait();
            None
        }
    }
}

#[cfg(not(unix))]
fn spawn(_command: &str) -> Option<Pager> {
    None
}

impl Drop for Pager {
    fn drop(&mut self) {
        let _ = std::io::stdout().flush();
        // Putting the terminal back closes the last write end of the pipe: the pager sees the
        // end of the text, and the person reads it until they quit.
        #[cfg(unix)]
        {
            let _ = rustix::stdio::dup2_stdout(&self.saved.stdout);
            if let Some(stderr) = &self.saved.stderr {
                let _ = rustix::stdio::dup2_stderr(stderr);
            }
        }
        let _ = self.child.wait();
    }
}
