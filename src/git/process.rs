//! Whether a process still runs, for telling a lock or a pid file that a live process holds
//! from one a killed process left behind.

use std::path::Path;

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
