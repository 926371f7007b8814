use anyhow::Result;

use super::fork::SourceArgs;
use super::{Ctx, output};
use crate::ops::rewind::rewind;

/// Rewind a run to a checkpoint: fork it there and archive the source as superseded
///
/// The source must have ended (succeeded, failed or dead) unless --force. The source is
/// archived with `superseded_by` naming the new run. Rewinding a run that was already rewound
/// to the same checkpoint names the existing replacement (finishing it if a crash interrupted
/// the first attempt) instead of minting another run. Prints the new run id.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    source: SourceArgs,
    /// Rewind a run that has not ended
    #[arg(long)]
    force: bool,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    let Some((state, entry)) = args.source.resolve(ctx)? else {
        return Ok(());
    };
    let id = &state.id;
    let rewound = rewind(
        &ctx.repo,
        &state,
        &entry,
        args.force,
        &ctx.config(&state, None)?,
    )?;
    if args.source.json {
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
