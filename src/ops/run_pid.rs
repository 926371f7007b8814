//! `run.pid` in a run directory: the process working on the run (`resume -- COMMAND`). Taking
//! it is atomic, so of several processes exactly one holds a run; commands that would pull the
//! run from under its holder (finish, archive, gc, restore) refuse while it lives. The commands
//! the holder's own command runs carry its pid in [`HOLDER_ENV`] and are let through.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::format::run_id::RunId;
use crate::format::store::RunDir;
use crate::git::process::{command_line, is_alive};

pub const RUN_PID: &str = "run.pid";

/// Set for the command `resume` runs: the pid holding the run, which that command works for.
pub const HOLDER_ENV: &str = "FABRO_RUN_PID";

/// The run held by this process until dropped, which removes `run.pid` if it is still ours.
#[derive(Debug)]
pub struct Hold {
    path: PathBuf,
    pid: u32,
}

impl Drop for Hold {
    fn drop(&mut self) {
        if read_pid(&self.path) == Some(self.pid) {
            let _ = fs::remove_file(&self.path);
        }
    }
}

impl RunDir {
    /// The pid in `run.pid`, if that process is alive.
    pub fn live_holder(&self) -> Option<u32> {
        read_pid(&self.path.join(RUN_PID)).filter(|pid| is_alive(*pid))
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
        fs::write(&mine, format!("{pid}\n"))
            .map_err(Error::io(format!("cannot write {}", mine.display())))?;
        let taken = (|| {
            // A few rounds: each lost round means another process moved run.pid meanwhile.
            for _ in 0..8 {
                match fs::hard_link(&mine, &path) {
                    Ok(()) => return Ok(Hold { path, pid }),
                    Err(err) if err.kind() == ErrorKind::AlreadyExists => {}
                    Err(err) => {
                        return Err(Error::io(format!("cannot take {}", path.display()))(err));
                    }
                }
                let found = read_pid(&path);
                if let Some(holder) = found.filter(|p| is_alive(*p)) {
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
        taken
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
        if read_pid(&aside) != found {
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

fn read_pid(path: &Path) -> Option<u32> {
    fs::read_to_string(path).ok()?.trim().parse().ok()
}
