use anyhow::Result;

use super::run_arg::RunFlag;
use super::{Ctx, log, output};
use crate::ops::fork::fork;
use crate::run::RunState;
use crate::run::target::Target;
use crate::run::timeline::{Entry, find, timeline};

/// Fork a run at a checkpoint into a new, independent run
///
/// The new run branch points at the target's run commit and the new metadata branch starts
/// with an `init run` commit that records `spec.fork_source` and carries the source's
/// checkpoint record, so the fork continues from the target's next node and completed count.
/// The source is untouched. Prints the new run id; `git fabro resume` gives it a worktree.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    source: SourceArgs,
}

/// The source run and checkpoint of a fork or rewind, or `--list` to see its timeline.
#[derive(Debug, clap::Args)]
pub struct SourceArgs {
    /// The source run (or --run RUN; default: the current run, and then the word is TARGET)
    #[arg(value_name = "RUN")]
    run_pos: Option<String>,
    /// The checkpoint to start at (@N, NODE, NODE@V or a sha prefix; default: the latest)
    #[arg(value_name = "TARGET")]
    target: Option<String>,
    #[command(flatten)]
    run: RunFlag,
    /// List the source's timeline instead
    #[arg(long)]
    list: bool,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

impl SourceArgs {
    /// The source and its target checkpoint; `None` when `--list` printed the timeline.
    pub fn resolve(&self, ctx: &Ctx) -> Result<Option<(RunState, Entry)>> {
        let (id, targets) = ctx.run_and_targets(
            self.run.run.as_deref(),
            &[self.run_pos.clone(), self.target.clone()],
            1,
        )?;
        let state = RunState::load(&ctx.repo, &id)?;
        if self.list {
            let entries = timeline(&ctx.repo, &state)?;
            if self.json {
                output::json(&entries)?;
            } else {
                log::print(ctx, &state, &entries)?;
            }
            return Ok(None);
        }
        let entry = find(
            &ctx.repo,
            &state,
            &Target::parse(targets.first().map(String::as_str))?,
        )?;
        Ok(Some((state, entry)))
    }
}

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    let Some((state, entry)) = args.source.resolve(ctx)? else {
        return Ok(());
    };
    let forked = fork(&ctx.repo, &state, &entry, &ctx.config(&state, None)?)?;
    if args.source.json {
        return output::json(&forked);
    }
    output::note(format!(
        "forked run {} at {} into {}; `git fabro resume {}` gives it a worktree",
        state.id,
        output::escape(&entry.label()),
        forked.run_id,
        forked.run_id
    ));
    output::line(&forked.run_id)
}
