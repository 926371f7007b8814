//! `run.pid` in a run directory: the process working on the run (`resume -- COMMAND`). Taking
//! it is atomic, so of several processes exactly one holds a run; commands that would pull the
//! run from under its holder (finish, archive, gc, restore) refuse while it lives. The commands
//! the holder's own command runs carry its pid in [`HOLDER_ENV`] and are let through.
//!
//! The pid in the file is never trusted alone, since the system gives the pid of a dead
//! process to a new one: the holder keeps an advisory lock (`flock`) on the file for as long
//! as it lives, and the kernel lets go of it when the holder dies. A file without that lock was
//! written by an earlier version of git-fabro, and its pid counts only while that process
//! started before the file was written.

use std::fs;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::format::run_id::RunId;
use crate::format::store::RunDir;
use crate::git::flock::{Flock, is_held};
use crate::process::{command_line, is_alive_since};

pub const RUN_PID: &str = "run.pid";

/// Set for the command `resume` runs: the pid holding the run, which that command works for.
pub const HOLDER_ENV: &str = "FABRO_RUN_PID";

/// The run held by this process until dropped, which removes `run.pid` if it is still ours.
#[derive(Debug)]
pub struct Hold {
    path: PathBuf,
    pid: u32,
    _lock: Flock,
}

impl Drop for Hold {
    fn drop(&mut self) {
        if read_pid(&self.path) == Some(self.pid) {
            let _ = fs::remove_file(&self.path);
        }
    }
}

impl RunDir {
    /// The pid in `run.pid`, if that process still holds the run.
    pub fn live_holder(&self) -> Option<u32> {
        live_holder_of(&self.path.join(RUN_PID))
    }

    /// The pid in `run.pid`, alive or not: a dead one means the process working on the run is
    /// gone without finishing it.
    pub fn recorded_holder(&self) -> Option<u32> {
        read_pid(&self.path.join(RUN_PID))
    }

    /// Takes `run.pid` for this process, or fails with a conflict naming the live holder. A
    /// file left by a dead process is taken over; the takeover renames it aside first, so of
    /// two processes finding the same dead holder only one removes it.
    pub fn hold(&self, id: &RunId) -> Result<Hold> {
        let pid = std::process::id();
        let path = self.path.join(RUN_PID);
        let mine = self.path.join(format!(".{RUN_PID}.{pid}"));
        // Locked before it is linked as run.pid: no one ever sees this run.pid unlocked while
        // this process lives.
        let lock = fs::File::create(&mine)
            .and_then(|file| Flock::try_lock(file)?.ok_or(ErrorKind::WouldBlock.into()))
            .and_then(|lock| {
                lock.file().write_all(format!("{pid}\n").as_bytes())?;
                Ok(lock)
            })
            .map_err(Error::io(format!("cannot write {}", mine.display())))?;
        let taken = (|| {
            // A few rounds: each lost round means another process moved run.pid meanwhile.
            for _ in 0..8 {
                match fs::hard_link(&mine, &path) {
                    Ok(()) => return Ok(()),
                    Err(err) if err.kind() == ErrorKind::AlreadyExists => {}
                    Err(err) => {
                        return Err(Error::io(format!("cannot take {}", path.display()))(err));
                    }
                }
                let found = read_pid(&path);
                if let Some(holder) = live_holder_of(&path) {
                    return Err(held(id, holder, false));
                }
                self.remove_dead_holder(&path, found)?;
            }
            Err(Error::Busy(format!(
                "run {id}: other processes keep taking {} at the same time; retry",
                path.display()
            )))
        })();
        let _ = fs::remove_file(&mine);
        taken.map(|()| Hold {
            path,
            pid,
            _lock: lock,
        })
    }

    /// Moves a `run.pid` naming the dead `found` out of the way; one that changed meanwhile
    /// belongs to a live process and is put back.
    fn remove_dead_holder(&self, path: &Path, found: Option<u32>) -> Result<()> {
        let aside = self
            .path
            .join(format!(".{RUN_PID}.dead.{}", std::process::id()));
        match fs::rename(path, &aside) {
            Ok(()) => {}
            Err(err) if err.kind() == ErrorKind::NotFound => return Ok(()),
            Err(err) => return Err(Error::io(format!("cannot replace {}", path.display()))(err)),
        }
        if read_pid(&aside) != found || is_held(&aside) {
            let _ = fs::hard_link(&aside, path);
        }
        let _ = fs::remove_file(&aside);
        Ok(())
    }
}

/// Refuses (exit 3) while a live process other than `own_holder` (the one this command works
/// for, from [`HOLDER_ENV`]) holds the run, unless `force`.
pub fn ensure_not_held(
    run_dir: Option<&RunDir>,
    id: &RunId,
    force: bool,
    own_holder: Option<u32>,
) -> Result<()> {
    let Some(holder) = run_dir.and_then(RunDir::live_holder) else {
        return Ok(());
    };
    if force || own_holder == Some(holder) {
        return Ok(());
    }
    Err(held(id, holder, true))
}

/// That process `pid` holds run `id`, naming its command line where the system tells it.
pub fn held(id: &RunId, pid: u32, forcible: bool) -> Error {
    Error::Held {
        run: id.to_string(),
        pid,
        command: command_line(pid),
        forcible,
    }
}

/// The pid in the `run.pid` at `path`, if that process holds it: it keeps the file locked, or
/// (a file an earlier version wrote, never locked) it is alive and older than the file.
fn live_holder_of(path: &Path) -> Option<u32> {
    let pid = read_pid(path)?;
    if is_held(path) {
        return Some(pid);
    }
    let written = fs::metadata(path).and_then(|m| m.modified()).ok()?;
    is_alive_since(pid, written).then_some(pid)
}

fn read_pid(path: &Path) -> Option<u32> {
    fs::read_to_string(path).ok()?.trim().parse().ok()
}
