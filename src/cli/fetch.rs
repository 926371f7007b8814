use anyhow::Result;

use super::{Ctx, output, push};
use crate::ops::sync::fetch;

/// Fetch runs (both branches of each) from a remote, never forcing
///
/// Lists the remote's runs and fetches `fabro/run/<id>` and `fabro/meta/<id>` of each RUN
/// (ids or prefixes; default: every run the remote has) into the same local branches,
/// atomically. A local branch that moved on is reported, not overwritten. A run that a live
/// process here works on (its workflow engine, or `resume -- COMMAND`) is never moved: it is
/// named and left out. REMOTE defaults to `git config fabro.remote`, else `origin`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The remote name or URL
    remote: Option<String>,
    /// The runs to fetch
    #[arg(conflicts_with = "all")]
    runs: Vec<String>,
    /// Every run the remote has, which is what fetch without RUN does (as `push --all` pushes
    /// every run)
    #[arg(long)]
    all: bool,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    let config = ctx.base_config()?;
    let remote = args.remote.clone().unwrap_or(config.remote);
    let synced = fetch(
        &ctx.repo,
        &config.runs_dir,
        &remote,
        &args.runs,
        push::progress(),
    )?;
    if !args.json {
        for held in &synced.held {
            output::note(format!(
                "run {} not fetched: process {} works on it here; fetch it once that is done",
                held.run_id, held.pid
            ));
        }
    }
    push::report(&synced, "fetched", args.json)
}
