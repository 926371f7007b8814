use anyhow::Result;

use super::{Ctx, output};
use crate::run::inspect::list_runs;

/// List the runs of this repository, found from their refs
///
/// Reads each run's metadata branch, so it works when run directories are gone. Archived
/// runs are listed only with --all.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Include archived runs
    #[arg(long)]
    all: bool,
    /// Print a JSON array
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    let (runs, unreadable) = list_runs(&ctx.repo, args.all)?;
    output::warn_unreadable(&unreadable);
    if args.json {
        return output::json(&runs);
    }
    if runs.is_empty() && unreadable.is_empty() {
        output::note("no runs; start one with `git fabro start`");
        return Ok(());
    }
    let rows: Vec<Vec<String>> = runs
        .iter()
        .map(|r| {
            vec![
                r.run_id.get(..8).unwrap_or(&r.run_id).to_owned(),
                r.status.as_str().to_owned(),
                r.completed.to_string(),
                r.start_time
                    .get(..16)
                    .unwrap_or(&r.start_time)
                    .replace('T', " "),
                r.workflow_name.clone().unwrap_or_else(|| "-".into()),
                r.goal.clone().unwrap_or_default(),
            ]
        })
        .collect();
    output::table(
        &["RUN", "STATUS", "DONE", "STARTED", "WORKFLOW", "GOAL"],
        &rows,
        Some(1),
    )
}
