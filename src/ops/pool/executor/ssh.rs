//! `ssh`: the worker is started on one of the listed hosts, in the background there, its
//! output in that host's `~/.fabro/workers/<RUN_ID>.log`. The host is picked by the run's id,
//! so that runs spread over the hosts; one that cannot be reached passes the run to the next.

use std::process::Command;

use super::{Launch, Started, run_tool};
use crate::error::{Error, Result};
use crate::format::shell::quote;

pub fn start(launch: &Launch) -> Result<Started> {
    let hosts = launch.settings.ssh.hosts.as_deref().unwrap_or_default();
    if hosts.is_empty() {
        return Err(Error::Usage(
            "the ssh executor has no hosts: list them in settings.toml, [executor.ssh] hosts = [\"host1\", \"host2\"]".into(),
        ));
    }
    let log = format!(
        "\"${{FABRO_HOME:-$HOME/.fabro}}/workers/{}.log\"",
        launch.run
    );
    let remote_command = format!(
        "mkdir -p \"${{FABRO_HOME:-$HOME/.fabro}}/workers\" && nohup sh -c {} > {log} 2>&1 < /dev/null &",
        quote(&launch.worker_script()?)
    );
    let first = launch.run.as_str().bytes().map(usize::from).sum::<usize>() % hosts.len();
    let mut failures = Vec::new();
    for host in hosts.iter().cycle().skip(first).take(hosts.len()) {
        let mut ssh = Command::new("ssh");
        ssh.args(launch.settings.ssh.options.iter().flatten())
            .args(["-o", "BatchMode=yes", "--", host, &remote_command]);
        match run_tool(&mut ssh, None) {
            Ok(_) => {
                return Ok(Started {
                    what: format!("a worker on {host}"),
                    log: Some(format!("{host}:~/.fabro/workers/{}.log", launch.run)),
                });
            }
            Err(err) => failures.push(format!("{host}: {err}")),
        }
    }
    Err(Error::Failed(format!(
        "no host took the worker: {}",
        failures.join("; ")
    )))
}
