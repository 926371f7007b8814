//! Running a started run through the engine, for `run` and `resume`: holds run.pid while the
//! engine works, shows its stages on stderr (`stage_progress`), and ends with the summary
//! (`--json`) and the exit code of the run's status (0 succeeded, 1 failed, 4 blocked on a
//! human gate, 130 interrupted by Ctrl-C or SIGTERM). With `--json` the summary is all that
//! stdout gets, whatever the ending, so that `git fabro run --json WF | jq` works.

use std::io::Write;

use anyhow::Result;
use serde::Serialize;

use super::stage_progress::StageProgress;
use super::{Ctx, ExitWith, output};
use crate::engine::execute::{
    Directions, Engine, Executed, Fence, StageReport, Stop, Warnings, interrupt,
};
use crate::engine::outcome::Status;
use crate::engine::workflow::Graph;
use crate::error::{Error, exit};
use crate::format::run_id::RunId;
use crate::run::active_time;

/// The `--json` document, one shape for every ending: `duration_ms` (wall time) and
/// `active_ms` (less the time it stood blocked or paused) when the run finished,
/// `failure` when it failed, `stop` when it stopped before its end (status `blocked` or
/// `paused`) and stays resumable.
#[derive(Serialize)]
struct Summary<'a> {
    run_id: &'a str,
    status: &'a str,
    stages: &'a [StageReport],
    /// The stages that failed (`node@visit`), also when the workflow routed past them.
    failed_stages: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    duration_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    active_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    failure: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stop: Option<&'a Stop>,
}

impl<'a> Summary<'a> {
    fn of(executed: &'a Executed) -> Summary<'a> {
        let status = match &executed.stopped {
            Some(Stop::Blocked(_)) => "blocked",
            Some(Stop::Interrupted { .. }) => "paused",
            None => executed.status.as_str(),
        };
        let finished = executed.stopped.is_none();
        Summary {
            run_id: &executed.run_id,
            status,
            stages: &executed.stages,
            failed_stages: failed_stages(executed),
            duration_ms: finished.then_some(executed.duration_ms),
            active_ms: finished.then_some(executed.active_ms),
            failure: executed.failure.as_deref(),
            stop: executed.stopped.as_ref(),
        }
    }
}

/// Executes run `id` to its end, `agent` (from `--agent`, else the one the run was last
/// given) overriding the configured agent command. Names the run first: its id as the first line of stdout or, with `--json` (whose
/// document names it), on stderr.
pub fn execute(
    ctx: &Ctx,
    id: &RunId,
    graph: &Graph,
    json: bool,
    agent: Option<&str>,
    directions: &Directions,
    fence: Option<&dyn Fence>,
) -> Result<()> {
    if json {
        output::note(format!("run {id}"));
    } else {
        output::line(id)?;
    }
    let run = ctx.open_run(Some(id.as_str()))?;
    let mut config = run.config.clone();
    if let Some(agent) = super::run_agent::agent_for(run.run_dir.as_ref(), agent)? {
        config.agent_command = Some(agent);
    }
    let state = crate::run::RunState::load(&ctx.repo, id)?;
    let graph = &super::prepare::render_for(graph, &state)?;
    let shown = format!("run {id}'s workflow");
    super::prepare::require_agent(graph, &shown, config.agent_command.as_deref())?;
    let run_dir = run.run_dir.as_ref().ok_or_else(|| Error::NoRunDir {
        run: id.to_string(),
        situation: state.situation(),
    })?;
    let hold = run_dir.hold(id)?;
    interrupt::install()?;
    let mut lines = StageProgress::new();
    let interviewer = super::interview::terminal();
    let warnings = Warnings::default();
    let mut engine = Engine {
        repo: &ctx.repo,
        config: &config,
        run_dir,
        graph,
        env: std::env::vars_os().collect(),
        observer: &mut lines,
        seed: None,
        directions,
        interviewer: interviewer.as_deref(),
        warnings: &warnings,
        fence,
    };
    let executed = engine.execute(id);
    drop(lines);
    drop(hold);
    let warned = warnings.into_inner().unwrap_or_else(|e| e.into_inner());
    for warning in &warned {
        output::warn(warning);
    }
    let executed = executed?;
    for warning in &executed.warnings {
        output::warn(warning);
    }
    if json {
        output::json(&Summary::of(&executed))?;
    }
    if let Some(stop) = &executed.stopped {
        return stopped(id, stop, fence.and_then(|f| f.remote()));
    }
    // A stage that failed is named even when the workflow routed past it: "succeeded" alone
    // would hide that nothing was done there.
    let failed = failed_stages(&executed);
    let along = match failed.len() {
        0 => String::new(),
        1 => format!("; 1 stage failed: {}", failed[0]),
        n => format!("; {n} stages failed: {}", failed.join(", ")),
    };
    match executed.status {
        Status::Succeeded => {
            let took = active_time::shown(executed.active_ms, executed.duration_ms);
            match failed.is_empty() {
                true => output::note(format!("run {id} succeeded in {took}")),
                false => output::warn(format!(
                    "run {id} succeeded in {took}{along} ({})",
                    why_failed(id, &failed)
                )),
            }
            Ok(())
        }
        _ => {
            let reason = executed.failure.as_deref().unwrap_or("the run failed");
            eprintln!(
                "{} run {id} failed: {}{along}",
                output::prefix("error"),
                output::escape(reason)
            );
            Err(ExitWith(exit::FAILED).into())
        }
    }
}

/// The command that shows why the first failed stage failed: its own checkpoint, since
/// `show RUN` alone shows the run's last one, a stage that came after it.
fn why_failed(id: &RunId, failed: &[String]) -> String {
    let each = if failed.len() > 1 {
        ", and so for each"
    } else {
        ""
    };
    format!("`git fabro show {id} {}` says why{each}", failed[0])
}

/// `node@visit` of each stage this command ran that failed, in order.
fn failed_stages(executed: &Executed) -> Vec<String> {
    executed
        .stages
        .iter()
        .filter(|s| s.status.is_failure())
        .map(|s| format!("{}@{}", s.node_id, s.visit))
        .collect()
}

/// A run that stopped without ending: says why and how it goes on, here or, for a worker's
/// run, on the shared remote `pool`.
fn stopped(id: &RunId, stop: &Stop, pool: Option<&str>) -> Result<()> {
    let resume = match pool {
        Some(remote) => format!("git fabro resume {id} --remote {remote}"),
        None => format!("git fabro resume {id}"),
    };
    let code = match stop {
        Stop::Blocked(_) => exit::BLOCKED,
        Stop::Interrupted { .. } => exit::INTERRUPTED,
    };
    match stop {
        Stop::Blocked(question) => {
            let node = &question.stage;
            let mut err = std::io::stderr().lock();
            let _ = writeln!(
                err,
                "run {id} is blocked at {node}: {}",
                output::escape(&question.text)
            );
            for line in question.listing() {
                let _ = writeln!(err, "  {}", output::escape(&line));
            }
            let _ = writeln!(
                err,
                "{} answer it with `{resume} --answer {node}=CHOICE` (a key, number, label or node id)",
                output::prefix("hint")
            );
        }
        Stop::Interrupted { stage } if pool.is_some() => {
            eprintln!(
                "run {id} interrupted at {stage}, which was not recorded; it stays queued, and the next worker runs it again"
            );
        }
        Stop::Interrupted { stage } => {
            eprintln!(
                "run {id} interrupted at {stage}, which was not recorded; `{resume}` runs it again"
            );
        }
    }
    Err(ExitWith(code).into())
}
