use std::borrow::Cow;

use anyhow::Result;

use super::run_arg::RunArgs;
use super::{Ctx, colour, output, pager};
use crate::run::RunState;
use crate::run::timeline::{Entry, timeline_with};

/// Show a run's timeline, rebuilt from the run branch's trailers
///
/// Walks the run branch by first parent and lists every commit that carries a
/// Fabro-Checkpoint trailer, oldest first. A fork lists the checkpoints it inherited from its
/// source first. Works from git alone, on any clone.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    run: RunArgs,
    /// Also list the snapshots taken between checkpoints
    #[arg(long)]
    all: bool,
    /// Colour the statuses: always, never or auto (default: color.ui, else auto)
    #[arg(
        long,
        value_name = "WHEN",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "always"
    )]
    color: Option<colour::When>,
    /// Print a JSON array
    #[arg(long)]
    json: bool,
}

/// Snapshot reasons longer than this are cut in the table (`log --json` has them whole).
const REASON_WIDTH: usize = 50;

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    let id = args.run.id(ctx)?;
    let state = RunState::load(&ctx.repo, &id)?;
    let entries = timeline_with(&ctx.repo, &state, args.all)?;
    output::set_stdout_colour(colour::decide(&ctx.repo, args.color, "color.ui"));
    let _pager = pager::start(&ctx.repo);
    if args.json {
        output::json(&entries)
    } else {
        print(ctx, &entries, id.as_str())
    }
}

/// The human timeline; the RUN column appears only when a fork inherited entries.
pub fn print(ctx: &Ctx, entries: &[Entry], run: &str) -> Result<()> {
    if entries.is_empty() {
        output::note(format!("run {run} has no checkpoints yet"));
        return Ok(());
    }
    let mixed = entries.iter().any(|e| e.run_id != run);
    let mut header = vec!["#", "STAGE", "STATUS", "DONE", "COMMIT", "META", "TIME"];
    if mixed {
        header.insert(1, "RUN");
    }
    // Cells borrow what they show as it is: a long timeline is thousands of them.
    let rows: Vec<Vec<Cow<str>>> = entries
        .iter()
        .map(|e| {
            let (ordinal, stage) = match &e.snapshot {
                Some(reason) => ("-".into(), format!("snapshot: {}", cut(reason))),
                None => (
                    format!("@{}", e.ordinal).into(),
                    format!("{}@{}", e.node_id, e.visit),
                ),
            };
            let mut row = vec![
                ordinal,
                stage.into(),
                e.status.as_str().into(),
                e.completed.to_string().into(),
                crate::format::short_sha(&e.run_commit).into(),
                match e.meta_commit.as_str() {
                    "" => "-".into(),
                    sha => crate::format::short_sha(sha).into(),
                },
                output::local_time(&e.timestamp).into(),
            ];
            if mixed {
                row.insert(1, ctx.short(&e.run_id).into());
            }
            row
        })
        .collect();
    output::table(&header, &rows, Some(if mixed { 3 } else { 2 }))
}

/// `reason` cut to `REASON_WIDTH` characters, ending with `...` when cut.
fn cut(reason: &str) -> String {
    if reason.chars().count() <= REASON_WIDTH {
        return reason.to_owned();
    }
    let kept: String = reason.chars().take(REASON_WIDTH - 3).collect();
    format!("{}...", kept.trim_end())
}
