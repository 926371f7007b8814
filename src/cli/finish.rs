use anyhow::Result;

use super::{Ctx, output};
use crate::format::record::StatusKind;
use crate::ops::finish::FinishRequest;

/// Finish a run: record its conclusion and remove its worktree
///
/// Writes the `finalize run` metadata commit with the conclusion, writes conclusion.json and
/// final.patch (base to final commit) into the run directory, and removes the worktree unless
/// --keep-worktree is given or it holds changes that no checkpoint has. Running it again
/// completes an interrupted finish.
/// Refuses (exit 3) while a live process holds the run's run.pid, unless --force.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    run: super::run_arg::RunArgs,
    /// How the run ended
    #[arg(long, value_name = "STATUS", default_value = "succeeded", value_parser = ["succeeded", "failed"])]
    status: String,
    /// Why it ended (recorded as the failure reason of a failed run)
    #[arg(long, value_name = "TEXT")]
    reason: Option<String>,
    /// Keep the worktree
    #[arg(long)]
    keep_worktree: bool,
    /// Go ahead even while a live process holds the run's run.pid
    #[arg(long)]
    force: bool,
    /// Print a JSON object describing the conclusion
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    let run = args.run.open(ctx)?;
    let status = if args.status == "failed" {
        StatusKind::Failed
    } else {
        StatusKind::Succeeded
    };
    let request = FinishRequest {
        status,
        reason: args.reason,
        keep_worktree: args.keep_worktree,
        stages: None,
    };
    ctx.ensure_not_held(run.run_dir.as_ref(), &run.state.id, args.force)?;
    let finished = run.finish(&ctx.repo, &request)?;
    for warning in &finished.warnings {
        output::warn(warning);
    }
    if args.json {
        output::json(&finished)
    } else {
        output::note(format!(
            "finished run {} as {}",
            finished.run_id,
            finished.status.as_str()
        ));
        Ok(())
    }
}
