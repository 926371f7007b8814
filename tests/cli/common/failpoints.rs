//! Driving git-fabro's failure points (src/failpoint.rs): dying at a named write boundary,
//! and telling after a random kill which boundary the process passed last.

use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Command;

use super::{TestRepo, kill_after};

/// What a kill that came before the first boundary is counted as.
pub const BEFORE_ANY_WRITE: &str = "before any write";
/// What a kill that came after the command had exited 0 is counted as.
pub const FINISHED: &str = "finished before the kill";

/// The same command, run through `sh` with core dumps off: the failure point aborts, and a
/// core file dropped into a test repository would be taken for the user's work.
pub fn without_core_dumps(cmd: &Command) -> Command {
    let mut sh = Command::new("sh");
    sh.arg("-c")
        .arg("ulimit -c 0; exec \"$0\" \"$@\"")
        .arg(cmd.get_program())
        .args(cmd.get_args());
    for (key, value) in cmd.get_envs() {
        match value {
            Some(value) => sh.env(key, value),
            None => sh.env_remove(key),
        };
    }
    if let Some(dir) = cmd.get_current_dir() {
        sh.current_dir(dir);
    }
    sh
}

/// Runs `cmd` with the failure point `point` armed and asserts that it died there (SIGABRT),
/// not by exiting, failing or reaching its end.
pub fn die_at(cmd: &mut Command, point: &str) {
    cmd.env("FABRO_FAILPOINT", point);
    let out = without_core_dumps(cmd).output().expect("git-fabro runs");
    assert_eq!(
        out.status.signal(),
        Some(6),
        "{point}: the command did not die there ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The last failure point a traced process reached, or `BEFORE_ANY_WRITE`.
fn last_point(trace: &Path) -> String {
    std::fs::read_to_string(trace)
        .ok()
        .and_then(|text| text.lines().last().map(str::to_owned))
        .unwrap_or_else(|| BEFORE_ANY_WRITE.to_owned())
}

/// How many random kills landed after each failure point, for the summary line a torture test
/// prints and the context of its assertions.
#[derive(Default)]
pub struct Tally(BTreeMap<String, usize>);

impl Tally {
    /// `kill_after` with the process traced: whether it had exited 0, and where the kill landed
    /// (`FINISHED`, `BEFORE_ANY_WRITE` or the last point passed), which is also counted.
    pub fn kill_after(
        &mut self,
        repo: &TestRepo,
        cmd: &mut Command,
        micros: u64,
    ) -> (bool, String) {
        let trace = repo.root.join("failpoint-trace");
        let _ = std::fs::remove_file(&trace);
        let exited_ok = kill_after(cmd.env("FABRO_FAILPOINT_TRACE", &trace), micros);
        let landed = if exited_ok {
            FINISHED.to_owned()
        } else {
            last_point(&trace)
        };
        *self.0.entry(landed.clone()).or_default() += 1;
        (exited_ok, landed)
    }

    /// Prints where the kills of `test` landed, one line on stderr (shown by
    /// `cargo test -- --nocapture torture`).
    pub fn report(&self, test: &str) {
        let total: usize = self.0.values().sum();
        let counts: Vec<String> = self.0.iter().map(|(at, n)| format!("{at}: {n}")).collect();
        eprintln!("{test}: {total} kills landed {}", counts.join(", "));
    }
}
