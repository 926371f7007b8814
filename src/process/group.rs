//! Process groups: a child that leads a group of its own takes everything it starts along
//! with it, so that stopping it stops them all, and the terminal's Ctrl-C, which goes to
//! git-fabro's group, does not reach it.

use std::os::unix::process::CommandExt;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

/// Between SIGTERM and SIGKILL.
pub const GRACE: Duration = Duration::from_secs(2);

/// Makes the command's process the leader of a new group when it starts.
pub fn own_group(command: &mut Command) -> &mut Command {
    command.process_group(0)
}

/// SIGTERM to every process of the group `leader` leads (started with [`own_group`]), then
/// SIGKILL to what is left after [`GRACE`]; the leader is reaped on the way, so that a leader
/// that ended is not counted as left. A group with no process left (the usual case: the
/// leader exited and started nothing that outlived it) costs one failed `kill`.
pub fn stop_group(leader: &mut Child) {
    let group = i32::try_from(leader.id()).ok().and_then(Pid::from_raw);
    if let Some(group) = group
        && rustix::process::kill_process_group(group, Signal::TERM).is_ok()
    {
        let grace = Instant::now() + GRACE;
        loop {
            let _ = leader.try_wait();
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
    let _ = leader.kill();
    let _ = leader.wait();
}
