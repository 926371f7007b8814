//! Running a started run through the engine, for `run` and `resume`: holds run.pid while the
//! engine works, shows its stages on stderr (`stage_progress`), and ends with the summary (`--json`) and
//! the exit code of the run's status (0 succeeded, 1 failed).

use anyhow::Result;

use super::stage_progress::{StageProgress, duration};
use super::{Ctx, ExitWith, output};
use crate::engine::execute::Engine;
use crate::engine::outcome::Status;
use crate::engine::workflow::Graph;
use crate::error::{Error, exit};
use crate::format::run_id::RunId;

/// Executes run `id` to its end, `agent` (from `--agent`) overriding the configured agent
/// command. The caller printed the run id already.
pub fn execute(
    ctx: &Ctx,
    id: &RunId,
    graph: &Graph,
    json: bool,
    agent: Option<&str>,
) -> Result<()> {
    let run = ctx.open_run(Some(id.as_str()))?;
    let mut config = run.config.clone();
    if let Some(agent) = agent {
        config.agent_command = Some(agent.to_owned());
    }
    let state = crate::run::RunState::load(&ctx.repo, id)?;
    let graph = &super::prepare::render_for(graph, &state)?;
    let shown = format!("run {id}'s workflow");
    super::prepare::require_agent(graph, &shown, config.agent_command.as_deref())?;
    let run_dir = run.run_dir.as_ref().ok_or_else(|| {
        Error::Failed(format!(
            "run {id} has no run directory on this machine; `git fabro resume {id}` recreates it"
        ))
    })?;
    let hold = run_dir.hold(id)?;
    let mut lines = StageProgress::new();
    let mut engine = Engine {
        repo: &ctx.repo,
        config: &config,
        run_dir,
        graph,
        env: std::env::vars_os().collect(),
        observer: &mut lines,
        seed: None,
    };
    let executed = engine.execute(id);
    drop(lines);
    drop(hold);
    let executed = executed?;
    for warning in &executed.warnings {
        output::warn(warning);
    }
    if json {
        output::json(&executed)?;
    }
    match executed.status {
        Status::Succeeded => {
            output::note(format!(
                "run {id} succeeded in {}",
                duration(executed.duration_ms)
            ));
            Ok(())
        }
        _ => {
            let reason = executed.failure.as_deref().unwrap_or("the run failed");
            eprintln!(
                "{} run {id} failed: {}",
                output::prefix("error"),
                output::escape(reason)
            );
            Err(ExitWith(exit::FAILED).into())
        }
    }
}
