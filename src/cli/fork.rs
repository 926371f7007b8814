use anyhow::Result;

use super::{Ctx, log, output};
use crate::fork::fork;
use crate::run::RunState;
use crate::target::Target;
use crate::timeline::{find, timeline};

/// Fork a run at a checkpoint into a new, independent run
///
/// The new run branch points at the target's run commit and the new metadata branch starts
/// with an `init run` commit that records `spec.fork_source` and carries the source's
/// checkpoint record, so the fork continues from the target's next node and completed count.
/// The source is untouched. Prints the new run id; `git fabro resume` gives it a worktree.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The run to fork
    run: String,
    /// The checkpoint to start at (@N, NODE, NODE@V or a sha prefix; default: the latest)
    target: Option<String>,
    /// List the source's timeline instead of forking
    #[arg(long)]
    list: bool,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    let id = ctx.run_id(Some(&args.run))?;
    let state = RunState::load(&ctx.repo, &id)?;
    if args.list {
        let entries = timeline(&ctx.repo, &state)?;
        return if args.json {
            output::json(&entries)
        } else {
            log::print(&entries, id.as_str())
        };
    }
    let entry = find(&ctx.repo, &state, &Target::parse(args.target.as_deref())?)?;
    let forked = fork(&ctx.repo, &id, &entry, &ctx.config(&state, None)?)?;
    if args.json {
        return output::json(&forked);
    }
    output::note(format!(
        "forked run {} at @{} {}@{} into {}; `git fabro resume {}` gives it a worktree",
        id, entry.ordinal, entry.node_id, entry.visit, forked.run_id, forked.run_id
    ));
    output::line(&forked.run_id)
}
