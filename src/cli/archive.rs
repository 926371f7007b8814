use anyhow::Result;

use super::run_arg::RunFlag;
use super::{Ctx, output};
use crate::ops::lifecycle;
use crate::run::RunState;

/// Archive runs: hide them from `ps` (they stay in git until `gc`)
///
/// Refuses (exit 3) a run whose run.pid names a live process, unless --force.
#[derive(Debug, clap::Args)]
pub struct ArchiveArgs {
    /// The runs to archive (default: --run RUN, else the current run)
    #[arg(value_name = "RUN")]
    runs: Vec<String>,
    #[command(flatten)]
    run: RunFlag,
    /// Go ahead even while a live process holds the run's run.pid
    #[arg(long)]
    force: bool,
}

/// Unarchive runs: give them back the status they had
#[derive(Debug, clap::Args)]
pub struct UnarchiveArgs {
    /// The runs to unarchive (default: --run RUN, else the current run)
    #[arg(value_name = "RUN")]
    runs: Vec<String>,
    #[command(flatten)]
    run: RunFlag,
}

pub fn archive(ctx: &Ctx, args: ArchiveArgs) -> Result<()> {
    each_run(ctx, &args.runs, &args.run, |state| {
        let id = &state.id;
        ctx.ensure_not_held(ctx.run_dir(id, None).as_ref(), id, args.force)?;
        let changed = lifecycle::archive(&ctx.repo, state, &ctx.config(state, None)?)?;
        Ok(if changed {
            format!("archived run {id}")
        } else {
            format!("run {id} was already archived")
        })
    })
}

pub fn unarchive(ctx: &Ctx, args: UnarchiveArgs) -> Result<()> {
    each_run(ctx, &args.runs, &args.run, |state| {
        let id = &state.id;
        let changed = lifecycle::unarchive(&ctx.repo, state, &ctx.config(state, None)?)?;
        Ok(if changed {
            format!("unarchived run {id}")
        } else {
            format!("run {id} is not archived")
        })
    })
}

/// Does `change` to each run named, in order, and notes what it says it did.
fn each_run(
    ctx: &Ctx,
    runs: &[String],
    flag: &RunFlag,
    mut change: impl FnMut(&RunState) -> Result<String>,
) -> Result<()> {
    for id in ctx.named_runs(runs, flag.run.as_deref())? {
        let state = RunState::load(&ctx.repo, &id)?;
        output::note(change(&state)?);
    }
    Ok(())
}
