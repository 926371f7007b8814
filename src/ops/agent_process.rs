//! Whether an agent session is still alive. Every hook of a session records, in the run
//! directory, the agent process it was called by (the first ancestor that is neither git,
//! git-fabro nor a shell) and whether a turn is under way. The pid counts only while that
//! process started before the record was written, so a reused pid never passes for the agent.
//! A session whose agent is gone between turns has ended (Codex sends no event when it
//! exits); one whose agent is gone mid-turn was interrupted, and its last writes are in no
//! checkpoint.

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::format::store::RunDir;
use crate::process::{is_alive_since, name_and_parent};

pub const FILE: &str = "agent.json";
/// What stands between an agent and git-fabro: the shells that run hook commands, git's
/// wrapper and git-fabro itself.
const BETWEEN: [&str; 8] = [
    "git",
    "git-fabro",
    "sh",
    "bash",
    "dash",
    "zsh",
    "fish",
    "env",
];

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AgentProcess {
    pub pid: u32,
    /// A turn started (a prompt, a write) and has not ended.
    pub turn_open: bool,
}

/// Where a session stands, as far as its agent process tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Liveness {
    #[serde(rename = "running")]
    Alive,
    /// The agent is gone between turns: the session is over.
    Ended,
    /// The agent is gone mid-turn.
    Interrupted,
}

impl Liveness {
    pub fn as_str(self) -> &'static str {
        match self {
            Liveness::Alive => "running",
            Liveness::Ended => "ended",
            Liveness::Interrupted => "interrupted",
        }
    }
}

/// Records the agent that called this hook, and whether its turn goes on. Without `/proc`
/// (or an agent among the ancestors), nothing is recorded and liveness stays unknown.
pub fn record(dir: &RunDir, turn_open: bool) -> Result<()> {
    let Some(pid) = agent_pid() else {
        return Ok(());
    };
    let record = AgentProcess { pid, turn_open };
    dir.write(FILE, &crate::format::record::pretty(&record))
}

/// Where the session of the run whose directory is `dir` stands; none when no hook recorded
/// its agent.
pub fn liveness(dir: &RunDir) -> Option<Liveness> {
    let path = dir.path.join(FILE);
    let written = std::fs::metadata(&path).and_then(|m| m.modified()).ok()?;
    let agent: AgentProcess = serde_json::from_slice(&std::fs::read(&path).ok()?).ok()?;
    Some(
        match (is_alive_since(agent.pid, written), agent.turn_open) {
            (true, _) => Liveness::Alive,
            (false, false) => Liveness::Ended,
            (false, true) => Liveness::Interrupted,
        },
    )
}

/// The first ancestor of this process that is not one of [`BETWEEN`].
fn agent_pid() -> Option<u32> {
    let mut pid = std::os::unix::process::parent_id();
    for _ in 0..8 {
        let (name, parent) = name_and_parent(pid)?;
        if !BETWEEN.contains(&name.as_str()) {
            return Some(pid);
        }
        pid = parent;
    }
    None
}
