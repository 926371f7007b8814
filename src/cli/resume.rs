use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Result;

use super::run_arg::RunArgs;
use super::{Ctx, ExitWith, output, workflow_file};
use crate::engine::{validate, workflow};
use crate::error::{Error, exit};
use crate::format::run_id::RunId;
use crate::format::store::RunDir;
use crate::ops::resume::{ResumeRequest, ResumeState, resume};
use crate::ops::run_pid::HOLDER_ENV;
use crate::ops::start::ENGINE;
use crate::run::{GRAPH_FILE, RunState};

/// Resume a run: rebuild its run directory and worktree from git, then continue it, print its
/// state or run a command in it
///
/// A run that `git fabro run` started is continued by the engine from its checkpoint's
/// next node, then finished (exit 0 succeeded, 1 failed); no node whose checkpoint was
/// recorded runs again. --prepare-only stops after rebuilding and prints the state instead.
///
/// Refuses archived and succeeded runs, and runs whose run.pid names a live process. Without a
/// COMMAND, prints the state an engine continues from as JSON. With one, takes run.pid (of
/// several resumes at once, exactly one runs its command; the others exit 3), runs the
/// command in the worktree with FABRO_RUN_ID, FABRO_RUN_DIR, FABRO_WORKTREE, FABRO_NEXT_NODE,
/// FABRO_RESUME=1 and FABRO_RUN_PID (the holder, whose command may finish or restore the run)
/// set, and exits with its exit code. An unfinished worktree left by an interrupted start or
/// resume is never used: it is removed and checked out again.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    run: RunArgs,
    /// Check that this workflow is the one the run was started with
    #[arg(long, value_name = "FILE")]
    workflow: Option<PathBuf>,
    /// Resume under a workflow whose sha256 differs from the recorded one
    #[arg(long)]
    force: bool,
    /// Print JSON (the state is always printed as JSON without a command)
    #[arg(long)]
    json: bool,
    /// Only rebuild the run directory and worktree and print the state, even for a run the
    /// engine executes
    #[arg(long, conflicts_with = "command")]
    prepare_only: bool,
    /// The command agent and prompt nodes run, instead of the configured one
    #[arg(long, value_name = "COMMAND", conflicts_with = "command")]
    agent: Option<String>,
    /// The command to run in the worktree
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    let id = args.run.id(ctx)?;
    let state = RunState::load(&ctx.repo, &id)?;
    let existing = ctx.run_dir(&id, None);
    if let Some(pid) = existing.as_ref().and_then(RunDir::live_holder) {
        return Err(crate::ops::run_pid::held(&id, pid, false).into());
    }
    let config = ctx.config(&state, existing.as_ref())?;
    let request = ResumeRequest {
        workflow: args.workflow.as_deref(),
        force: args.force,
    };
    let progress = output::progress("preparing the run's worktree");
    let resumed = resume(&ctx.repo, &state, &config, &request)?;
    drop(progress);
    if resumed.dirty {
        output::warn(format!(
            "the worktree {} has changes that no checkpoint holds",
            resumed.worktree.display()
        ));
    }
    let by_engine = state
        .record
        .spec
        .extra
        .get("engine")
        .and_then(|v| v.as_str())
        == Some(ENGINE);
    if args.command.is_empty() && by_engine && !args.prepare_only {
        return continue_workflow(
            ctx,
            &id,
            args.workflow.as_deref(),
            args.json,
            args.agent.as_deref(),
        );
    }
    if args.command.is_empty() {
        return output::json(&resumed);
    }
    let code = supervise(&id, &resumed, &args.command)?;
    if code != 0 {
        return Err(ExitWith(code).into());
    }
    Ok(())
}

/// Runs the command in the worktree while holding run.pid.
fn supervise(id: &RunId, state: &ResumeState, command: &[String]) -> Result<u8> {
    let run_dir = RunDir {
        path: state.run_dir.clone(),
    };
    let hold = run_dir.hold(id)?;
    let status = Command::new(&command[0])
        .args(&command[1..])
        .current_dir(&state.worktree)
        .env("FABRO_RUN_ID", &state.run_id)
        .env("FABRO_RUN_DIR", &state.run_dir)
        .env("FABRO_WORKTREE", &state.worktree)
        .env(
            "FABRO_NEXT_NODE",
            state.next_node_id.as_deref().unwrap_or(""),
        )
        .env("FABRO_RESUME", "1")
        .env(HOLDER_ENV, std::process::id().to_string())
        .status();
    drop(hold);
    let status =
        status.map_err(|err| Error::Failed(format!("cannot run {}: {err}", command[0])))?;
    Ok(exit_code(status))
}

#[cfg(unix)]
fn exit_code(status: std::process::ExitStatus) -> u8 {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => code as u8,
        (None, Some(signal)) => 128u8.wrapping_add(signal as u8),
        _ => 1,
    }
}

#[cfg(not(unix))]
fn exit_code(status: std::process::ExitStatus) -> u8 {
    status.code().unwrap_or(1) as u8
}

/// Continues a run the engine executes, under the workflow it recorded or, when `--workflow`
/// names one (the same, or another with `--force`), under that file: a fixed workflow takes
/// over from the next node. The run's record keeps the workflow it was started with.
fn continue_workflow(
    ctx: &Ctx,
    id: &RunId,
    given: Option<&Path>,
    json: bool,
    agent: Option<&str>,
) -> Result<()> {
    let graph = match given {
        Some(path) => {
            let checked = workflow_file::check(path).map_err(|e| e.into_error(exit::USAGE))?;
            if validate::has_errors(&checked.diagnostics) {
                workflow_file::print_diagnostics(&checked.diagnostics);
                return Err(Error::Usage(format!(
                    "{} is not a valid workflow; the run was not continued",
                    checked.shown
                ))
                .into());
            }
            checked.graph
        }
        None => {
            let state = RunState::load(&ctx.repo, id)?;
            let source = state.record.graph_source.as_deref().ok_or_else(|| {
                Error::Failed(format!("run {id} has no recorded workflow to continue"))
            })?;
            workflow::parse(source, GRAPH_FILE)
                .map_err(|err| Error::Failed(format!("run {id}: its recorded workflow: {err}")))?
        }
    };
    output::line(id)?;
    super::execute::execute(ctx, id, &graph, json, agent)
}
