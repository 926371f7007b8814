//! Whether a process still runs, for telling a lock or a pid file that a live process holds
//! from one a killed process left behind.

use std::path::Path;
use std::time::{Duration, SystemTime};

use rustix::io::Errno;
use rustix::process::Pid;

/// Whether `pid` names a running process: one the system still has (`kill(pid, 0)`, which
/// signals nothing), mine or another user's, and not a zombie, which has ended.
pub fn is_alive(pid: u32) -> bool {
    let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) else {
        return false;
    };
    let exists = match rustix::process::test_kill_process(pid) {
        Ok(()) => true,
        // There, though not ours to signal.
        Err(Errno::PERM) => true,
        Err(_) => false,
    };
    exists && !is_zombie(pid)
}

/// Whether `pid` has ended and waits only for its parent to collect its status, which `kill`
/// does not tell. `/proc` does, where the system has one; elsewhere a zombie counts as alive
/// until it is collected.
fn is_zombie(pid: Pid) -> bool {
    let pid = pid.as_raw_nonzero().get().unsigned_abs();
    stat(pid).is_some_and(|stat| stat.fields.first().map(String::as_str) == Some("Z"))
}

/// `/proc/<pid>/stat`: the command name, and the fields after it (the first of them is field
/// 3, the state). The name is in parentheses and may hold spaces and parentheses itself.
struct Stat {
    name: String,
    fields: Vec<String>,
}

fn stat(pid: u32) -> Option<Stat> {
    let text =
        std::fs::read_to_string(Path::new("/proc").join(pid.to_string()).join("stat")).ok()?;
    let (head, rest) = text.rsplit_once(')')?;
    Some(Stat {
        name: head.split_once('(')?.1.to_owned(),
        fields: rest.split_whitespace().map(str::to_owned).collect(),
    })
}

/// The command name of `pid` and the pid of its parent, where the system has `/proc`.
pub fn name_and_parent(pid: u32) -> Option<(String, u32)> {
    let stat = stat(pid)?;
    let parent = stat.fields.get(1)?.parse().ok().filter(|p| *p > 0)?;
    Some((stat.name, parent))
}

/// Whether `pid` is alive and is the process that wrote a file at `written`: a process that
/// started later has only been given the pid of a dead one, which the system reuses. Where
/// the system does not say when a process started, a live pid counts.
pub fn is_alive_since(pid: u32, written: SystemTime) -> bool {
    is_alive(pid) && start_time(pid).is_none_or(|started| started <= written)
}

/// When `pid` started, from `/proc/<pid>/stat` (field 22, in clock ticks after boot) and the
/// boot time in `/proc/stat`. The boot time is in whole seconds, rounded down, so this may be
/// up to a second early: never later than the real start.
fn start_time(pid: u32) -> Option<SystemTime> {
    // The first field after the name is field 3, so field 22 is the 20th.
    let ticks: u64 = stat(pid)?.fields.get(19)?.parse().ok()?;
    let boot: u64 = std::fs::read_to_string("/proc/stat")
        .ok()?
        .lines()
        .find_map(|line| line.strip_prefix("btime "))?
        .trim()
        .parse()
        .ok()?;
    let per_second = clock_ticks_per_second()?;
    let after_boot = Duration::from_secs(ticks / per_second)
        + Duration::from_nanos((ticks % per_second) * 1_000_000_000 / per_second);
    SystemTime::UNIX_EPOCH.checked_add(Duration::from_secs(boot) + after_boot)
}

fn clock_ticks_per_second() -> Option<u64> {
    Some(rustix::param::clock_ticks_per_second()).filter(|n| *n > 0)
}

/// The command line of `pid` as `/proc` records it (arguments joined by spaces), where the
/// system has `/proc` and lets this user read it.
pub fn command_line(pid: u32) -> Option<String> {
    let raw = std::fs::read(Path::new("/proc").join(pid.to_string()).join("cmdline")).ok()?;
    let words: Vec<String> = raw
        .split(|b| *b == 0)
        .filter(|w| !w.is_empty())
        .map(|w| String::from_utf8_lossy(w).into_owned())
        .collect();
    (!words.is_empty()).then(|| words.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::{Command, Stdio};
    use std::time::Instant;

    fn child() -> std::process::Child {
        Command::new("true")
            .stdout(Stdio::null())
            .spawn()
            .expect("`true` runs")
    }

    #[test]
    fn a_process_has_a_name_and_a_parent() {
        if !Path::new("/proc/self/stat").exists() {
            return;
        }
        let (name, parent) = name_and_parent(std::process::id()).expect("its own stat");
        assert!(!name.is_empty());
        assert_eq!(parent, std::os::unix::process::parent_id());
    }

    #[test]
    fn this_process_is_alive() {
        assert!(is_alive(std::process::id()));
    }

    #[test]
    fn pids_no_process_can_have_are_dead() {
        assert!(!is_alive(0));
        assert!(!is_alive(u32::MAX));
        assert!(!is_alive(i32::MAX as u32));
    }

    #[test]
    fn a_collected_child_is_dead() {
        let mut child = child();
        let pid = child.id();
        child.wait().expect("wait");
        assert!(!is_alive(pid));
    }

    /// Ended but not yet collected: `kill(pid, 0)` still succeeds on it, `/proc` tells.
    #[test]
    fn a_zombie_is_dead() {
        if !Path::new("/proc/self").exists() {
            return;
        }
        let mut child = child();
        let pid = child.id();
        let raw = Pid::from_raw(i32::try_from(pid).expect("a pid")).expect("not 0");
        let patience = Instant::now() + Duration::from_secs(60);
        while !is_zombie(raw) {
            assert!(Instant::now() < patience, "`true` never ended");
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(rustix::process::test_kill_process(raw).is_ok());
        assert!(!is_alive(pid));
        child.wait().expect("wait");
    }
}
