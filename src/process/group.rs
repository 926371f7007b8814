//! Process groups: a child that leads a group of its own takes everything it starts along
//! with it, so that stopping it stops them all, and the terminal's Ctrl-C, which goes to
//! git-fabro's group, does not reach it. The groups of nodes' shells are listed while they
//! run, so that git-fabro ending at once (a second Ctrl-C) stops them all first rather than
//! leave a parallel branch's processes writing into its worktree.

use std::os::unix::process::CommandExt;
use std::process::{Child, Command};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

/// Between SIGTERM and SIGKILL.
pub const GRACE: Duration = Duration::from_secs(2);

/// The groups [`track`] listed and [`stop_group`] has not stopped yet.
static RUNNING: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Lists the group `leader` leads (started with [`own_group`]) among those
/// [`stop_every_group`] stops, until [`stop_group`] stops it.
pub fn track(leader: &Child) {
    if let Ok(pid) = i32::try_from(leader.id()) {
        running().push(pid);
    }
}

fn running() -> std::sync::MutexGuard<'static, Vec<i32>> {
    RUNNING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// SIGTERM to every tracked group, then SIGKILL to what is left of them after [`GRACE`]:
/// for a process about to end at once, which waits for none of its children.
pub fn stop_every_group() {
    let groups: Vec<Pid> = running().drain(..).filter_map(Pid::from_raw).collect();
    for group in &groups {
        let _ = rustix::process::kill_process_group(*group, Signal::TERM);
    }
    let grace = Instant::now() + GRACE;
    let alive = |group: &Pid| rustix::process::test_kill_process_group(*group).is_ok();
    while groups.iter().any(alive) && Instant::now() < grace {
        std::thread::sleep(Duration::from_millis(20));
    }
    for group in groups.iter().filter(|g| alive(g)) {
        let _ = rustix::process::kill_process_group(*group, Signal::KILL);
    }
}

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
    if let Ok(pid) = i32::try_from(leader.id()) {
        running().retain(|tracked| *tracked != pid);
    }
}
