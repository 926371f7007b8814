//! The `--agent` a run was given is the run's from then on: `run --agent X` records it in the
//! run directory and `resume` runs X again unless given another, which it records in turn.
//! It is kept on this machine only, never on the metadata branch: a command runs here only
//! from a file this machine wrote (as `run.toml`'s `[agent]` from another clone does not).

use crate::error::Result;
use crate::format::store::RunDir;

/// The run directory's file holding the run's `--agent`, as given.
pub const AGENT_FILE: &str = "agent-command";

/// The agent command the run goes on with: `given` (then recorded), else the one recorded.
pub fn agent_for(run_dir: Option<&RunDir>, given: Option<&str>) -> Result<Option<String>> {
    let Some(dir) = run_dir else {
        return Ok(given.map(str::to_owned));
    };
    if let Some(agent) = given {
        dir.write(AGENT_FILE, agent.as_bytes())?;
        return Ok(Some(agent.to_owned()));
    }
    let path = dir.path.join(AGENT_FILE);
    if !path.is_file() {
        return Ok(None);
    }
    let bytes = crate::input::read_file(&path, AGENT_FILE, crate::input::MAX_DEFINITION)?;
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}
