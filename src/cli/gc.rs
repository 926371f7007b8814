use anyhow::Result;

use super::{Ctx, output};
use crate::gc::{gc, parse_duration};

/// Delete archived runs older than a limit, and stale worktree registrations of runs
///
/// Removes the refs (run, metadata and recovery), run directory and worktree of every
/// archived run whose archiving is older than --older-than, and the registrations of run
/// worktrees whose directory is gone. Never touches a ref git-fabro did not create.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only runs archived at least this long ago (0, 45s, 90m, 12h, 30d, 2w)
    #[arg(long, value_name = "DURATION", default_value = "14d")]
    older_than: String,
    /// List what would be removed and remove nothing
    #[arg(long)]
    dry_run: bool,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    let older_than = parse_duration(&args.older_than)?;
    let progress = output::progress("collecting archived runs");
    let collected = gc(&ctx.repo, older_than, args.dry_run, &ctx.base_config()?)?;
    drop(progress);
    if args.json {
        return output::json(&collected);
    }
    let verb = if args.dry_run {
        "would remove"
    } else {
        "removed"
    };
    for run in &collected.runs {
        output::line(format!(
            "{verb} run {} (archived {})",
            output::escape(&run.run_id),
            output::escape(&run.archived_at)
        ))?;
    }
    for worktree in &collected.stale_worktrees {
        output::line(format!(
            "{verb} stale worktree registration {}",
            worktree.display()
        ))?;
    }
    if collected.runs.is_empty() && collected.stale_worktrees.is_empty() {
        output::note("nothing to collect");
    }
    Ok(())
}
