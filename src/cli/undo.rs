use anyhow::Result;

use super::open_run::OpenRun;
use super::run_arg::RunArgs;
use super::{Ctx, conversation, output, restore};
use crate::ops::restore::{RestoreOptions, restore};
use crate::ops::{agent_sessions, undo};

/// Take back the last turn (or step) of a run: its files go back one recorded step
///
/// In a checkout, without RUN: the latest run in place there, an agent session's or one you
/// started (running or ended); in a run's worktree, that run. The files go back to the step
/// before the one they stand at: the checkpoint before the last, the start of the turn when an
/// undo came between, or the run's start. Files no step holds (what an interrupted turn wrote)
/// go back to the last step. `undo` again goes one step further back. Like `restore`, it keeps
/// the files as they were under refs/fabro/recovery/<RUN_ID>/ first and prints the command
/// that redoes it; the run's branches do not move.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    run: RunArgs,
    /// List what would change and change nothing
    #[arg(long)]
    dry_run: bool,
    /// Go ahead even while a live process holds the run's run.pid
    #[arg(long)]
    force: bool,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    let run = open(ctx, &args.run)?;
    let state = &run.state;
    let workspace = run.workspace()?;
    let plan = undo::plan(&ctx.repo, workspace, state, &run.config)?;
    if !args.dry_run {
        ctx.ensure_not_held(run.run_dir.as_ref(), &state.id, args.force)?;
    }
    let options = RestoreOptions {
        paths: Vec::new(),
        dry_run: args.dry_run,
        command: Some(restore::command_line()),
    };
    let from = plan.from.clone();
    let restored = restore(
        &ctx.repo,
        workspace,
        state,
        plan.target,
        &run.config,
        &options,
    )?;
    if args.json {
        let conversation = (!args.dry_run)
            .then(|| conversation::offer(ctx, state, &restored.target.commit, &workspace.path))
            .flatten();
        return output::json(&serde_json::json!({
            "undone": from, "restored": restored, "conversation": conversation,
        }));
    }
    restore::print_changes(&restored)?;
    let short = ctx.short(state.id.as_str());
    let to = output::escape(&restored.target.label);
    let undone = match &from {
        Some(step) => format!("took back {}", output::escape(step)),
        None => "took back the changes no checkpoint holds".into(),
    };
    match (&restored.recovery_commit, restored.dry_run) {
        (_, true) => output::note(format!(
            "dry run: undo would go to {to}, changing {}",
            output::counted(restored.changes.len(), "path", "paths")
        )),
        (Some(sha), false) => output::note(format!(
            "{undone} of run {short}: the files are as at {to} (`git fabro undo` again goes one step further back)\nto redo: git fabro restore --run {} {}",
            state.id,
            crate::format::short_sha(sha)
        )),
        (None, false) => output::note(format!("{undone}: the files already are as at {to}")),
    }
    if !args.dry_run {
        conversation::offer(ctx, state, &restored.target.commit, &workspace.path);
    }
    Ok(())
}

/// The run named (or by the environment, or this worktree's), else the latest run in place in
/// this checkout: the latest session, also when an earlier one cut off mid-turn is still
/// registered here.
fn open(ctx: &Ctx, named: &RunArgs) -> Result<OpenRun> {
    let (positional, flag) = (named.run_pos.as_deref(), named.flag.run.as_deref());
    let latest = match (
        positional.or(flag),
        &ctx.env.run_id,
        ctx.in_run_worktree(),
        ctx.repo.workdir(),
    ) {
        (None, None, false, Some(dir)) => agent_sessions::latest_in_place(&ctx.repo, dir)?,
        _ => None,
    };
    let id = match latest {
        Some(id) => id,
        None => ctx.named_run(positional, flag)?,
    };
    ctx.open_run(Some(id.as_str()))
}
