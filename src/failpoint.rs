//! Named failure points at the write boundaries of the commands, for the crash tests.
//!
//! `reach("checkpoint:refs-moved")` marks the moment right after a command's refs moved. In
//! debug builds (which the tests run), two environment variables act on it:
//!
//! - `FABRO_FAILPOINT=<name>`: the process dies there at once, as a SIGKILL would;
//! - `FABRO_FAILPOINT_TRACE=<file>`: the name of each point reached is appended to the file,
//!   one per line, so a test that kills at a random moment can tell the last boundary passed.
//!
//! Release builds compile every point to nothing. This is the one module below the command
//! line that reads the environment: the failure points are a test harness, not a setting.

/// Marks the write boundary `name` (`<command>:<what is now on disk>`).
#[inline]
pub fn reach(name: &str) {
    #[cfg(debug_assertions)]
    armed::reach(name);
    #[cfg(not(debug_assertions))]
    let _ = name;
}

#[cfg(debug_assertions)]
mod armed {
    use std::io::Write;

    pub fn reach(name: &str) {
        if let Some(path) = std::env::var_os("FABRO_FAILPOINT_TRACE") {
            // One write of the whole line to a file opened for appending: a kill cannot leave
            // half a name, and the line is on disk before the process goes on.
            if let Ok(mut file) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
            {
                let _ = file.write_all(format!("{name}\n").as_bytes());
            }
        }
        if std::env::var_os("FABRO_FAILPOINT").is_some_and(|wanted| wanted == name) {
            // abort(), not exit(): like SIGKILL it runs no destructor, no atexit handler and
            // flushes no buffer, so nothing gets tidied up that a real kill would leave behind
            // (exit() would flush stdout and run handlers). The tests tell it from other
            // failures by its signal, SIGABRT.
            std::process::abort();
        }
    }
}
