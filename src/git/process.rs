//! Whether a process still runs, for telling a lock or a pid file that a live process holds
//! from one a killed process left behind.

use std::path::Path;
use std::time::{Duration, SystemTime};

/// Whether `pid` names a running process (a zombie has ended and counts as dead).
pub fn is_alive(pid: u32) -> bool {
    if pid == 0 {
        return false;
    }
    let proc = Path::new("/proc");
    if proc.join("self").exists() {
        return match std::fs::read_to_string(proc.join(pid.to_string()).join("stat")) {
            // The state follows the command name, which is in parentheses and may hold spaces.
            Ok(stat) => stat
                .rsplit_once(')')
                .is_none_or(|(_, rest)| !rest.trim_start().starts_with('Z')),
            Err(_) => false,
        };
    }
    std::process::Command::new("kill")
        .args(["-0", &pid.to_string()])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
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
    let stat =
        std::fs::read_to_string(Path::new("/proc").join(pid.to_string()).join("stat")).ok()?;
    // Fields after the command name, which is in parentheses and may hold spaces; the first
    // of them is field 3 (the state), so field 22 is the 20th.
    let (_, rest) = stat.rsplit_once(')')?;
    let ticks: u64 = rest.split_whitespace().nth(19)?.parse().ok()?;
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

#[cfg(unix)]
fn clock_ticks_per_second() -> Option<u64> {
    Some(rustix::param::clock_ticks_per_second()).filter(|n| *n > 0)
}

#[cfg(not(unix))]
fn clock_ticks_per_second() -> Option<u64> {
    None
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
