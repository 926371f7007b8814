use anyhow::Result;

use super::run_arg::RunArgs;
use super::{Ctx, output};
use crate::run::RunState;
use crate::run::workspace::Workspace;

/// Print the directory a run's files are in: its worktree, or the directory it runs in place
///
/// For `cd "$(git fabro path RUN)"`. Exits 1 when the run has none on this machine (a
/// finished run's worktree is removed; `git fabro resume RUN` makes one for a run that goes on).
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    run: RunArgs,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    let id = args.run.id(ctx)?;
    match Workspace::find(&ctx.repo, &id)? {
        Some(workspace) => output::line(workspace.path.display()),
        None => Err(RunState::load(&ctx.repo, &id)?.no_workspace().into()),
    }
}
