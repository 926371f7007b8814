use anyhow::Result;

use super::{Ctx, log, output};
use crate::rewind::rewind;
use crate::run::RunState;
use crate::target::Target;
use crate::timeline::{find, timeline};

/// Rewind a run to a checkpoint: fork it there and archive the source as superseded
///
/// The source must have ended (succeeded, failed or dead) unless --force. The source is
/// archived with `superseded_by` naming the new run. Rewinding a run that was already rewound
/// to the same checkpoint names the existing replacement (finishing it if a crash interrupted
/// the first attempt) instead of minting another run. Prints the new run id.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The run to rewind
    run: String,
    /// The checkpoint to rewind to (@N, NODE, NODE@V or a sha prefix; default: the latest)
    target: Option<String>,
    /// List the run's timeline instead of rewinding
    #[arg(long)]
    list: bool,
    /// Rewind a run that has not ended
    #[arg(long)]
    force: bool,
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
    let rewound = rewind(
        &ctx.repo,
        &state,
        &entry,
        args.force,
        &ctx.config(&state, None)?,
    )?;
    if args.json {
        return output::json(&rewound);
    }
    let new = &rewound.fork.run_id;
    if rewound.created {
        output::note(format!(
            "rewound run {id} to @{} as {new}; `git fabro resume {new}` continues it",
            entry.ordinal
        ));
    } else {
        output::note(format!(
            "run {id} was already rewound to @{} as {new}",
            entry.ordinal
        ));
    }
    output::line(new)
}
