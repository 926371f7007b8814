//! `local`: the worker runs on this machine, in this clone, in the background, detached from
//! the terminal so that it outlives `submit`.

use std::fs::File;
use std::process::{Command, Stdio};

use super::{Launch, Started};
use crate::error::{Error, Result};

pub fn start(launch: &Launch) -> Result<Started> {
    let log = launch.log_path();
    let context = format!("cannot write the worker's log {}", log.display());
    if let Some(dir) = log.parent() {
        std::fs::create_dir_all(dir).map_err(Error::io(&context))?;
    }
    let file = File::create(&log).map_err(Error::io(&context))?;
    let err = file.try_clone().map_err(Error::io(&context))?;
    let program = std::env::current_exe()
        .map_err(Error::io("cannot tell where git-fabro's own program is"))?;
    let mut command = Command::new(program);
    command
        .args(launch.worker_args(launch.remote))
        .current_dir(launch.repo.main_path())
        .stdin(Stdio::null())
        .stdout(file)
        .stderr(err);
    // Its own process group: a Ctrl-C meant for the terminal's foreground job passes it by.
    crate::process::own_group(&mut command);
    let child = command
        .spawn()
        .map_err(|err| Error::Failed(format!("cannot start a worker here: {err}")))?;
    Ok(Started {
        what: format!("process {}", child.id()),
        log: Some(log.display().to_string()),
    })
}
