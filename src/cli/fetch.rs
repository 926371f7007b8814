use anyhow::Result;

use super::{Ctx, push};
use crate::ops::sync::fetch;

/// Fetch runs (both branches of each) from a remote, never forcing
///
/// Lists the remote's runs and fetches `fabro/run/<id>` and `fabro/meta/<id>` of each RUN
/// (ids or prefixes; default: every run the remote has) into the same local branches,
/// atomically. A local branch that moved on is reported, not overwritten. REMOTE defaults to
/// `git config fabro.remote`, else `origin`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The remote name or URL
    remote: Option<String>,
    /// The runs to fetch
    runs: Vec<String>,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    let remote = args.remote.clone().unwrap_or(ctx.base_config()?.remote);
    let synced = fetch(&ctx.repo, &remote, &args.runs, push::progress())?;
    push::report(&synced, "fetched", args.json)
}
