//! Failures of the agent hooks, kept in the run's directory. A hook must never stop the agent,
//! so it exits 0 whatever happens; this log is where what went wrong stays visible, and
//! `git fabro status` shows it.

use std::io::Write;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::format::store::RunDir;
use crate::format::time::Timestamp;

/// The log's file in the run directory, one JSON object a line.
pub const FILE: &str = "hook-failures.jsonl";

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct HookFailure {
    /// When it failed (UTC, RFC 3339).
    pub time: String,
    /// `agent-turn` or `agent-edit`.
    pub hook: String,
    /// The agent whose hook it was.
    pub agent: String,
    pub message: String,
}

impl HookFailure {
    pub fn now(hook: &str, agent: &str, message: String) -> HookFailure {
        HookFailure {
            time: Timestamp::now().rfc3339(),
            hook: hook.to_owned(),
            agent: agent.to_owned(),
            message,
        }
    }
}

/// Appends one failure as a single write, so concurrent hooks do not interleave lines.
pub fn record(run_dir: &RunDir, failure: &HookFailure) -> Result<()> {
    let path = run_dir.path.join(FILE);
    let mut line = serde_json::to_vec(failure).unwrap_or_default();
    line.push(b'\n');
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut file| file.write_all(&line))
        .map_err(Error::io(format!("cannot append to {}", path.display())))
}

/// Every failure logged, oldest first; lines that do not parse are skipped.
pub fn read(run_dir: &RunDir) -> Vec<HookFailure> {
    std::fs::read_to_string(run_dir.path.join(FILE))
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}
