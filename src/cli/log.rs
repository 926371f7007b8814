use std::borrow::Cow;

use anyhow::Result;

use super::run_arg::RunArgs;
use super::{Ctx, colour, output, pager};
use serde::Serialize;

use crate::format::usage::{Usage, grouped};
use crate::run::RunState;
use crate::run::inspect::stage_file;
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
    /// Show each checkpoint's tokens (input, output, cache read and write), tool calls and
    /// model, as its agent reported them
    #[arg(long)]
    usage: bool,
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
    if args.usage {
        let used: Vec<WithUsage> = entries
            .iter()
            .map(|entry| WithUsage::read(ctx, entry))
            .collect::<Result<_>>()?;
        return match args.json {
            true => output::json(&used),
            false => print_usage(ctx, &used, id.as_str()),
        };
    }
    if args.json {
        output::json(&entries)
    } else {
        print(ctx, &state, &entries)
    }
}

/// A timeline entry with what its stage's `status.json` says it used.
#[derive(Serialize)]
struct WithUsage<'a> {
    #[serde(flatten)]
    entry: &'a Entry,
    usage: Option<Usage>,
}

impl<'a> WithUsage<'a> {
    fn read(ctx: &Ctx, entry: &'a Entry) -> Result<WithUsage<'a>> {
        let status = match entry.snapshot {
            Some(_) => None,
            None => stage_file(&ctx.repo, entry, "status.json", STATUS_LIMIT)?,
        };
        let usage = status
            .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
            .and_then(|status| serde_json::from_value(status["usage"].clone()).ok());
        Ok(WithUsage { entry, usage })
    }
}

/// The largest stage `status.json` read for its usage; git-fabro writes a few kilobytes.
const STATUS_LIMIT: u64 = 1 << 20;

/// The timeline with each checkpoint's usage: a dash where its stage reported none.
fn print_usage(ctx: &Ctx, used: &[WithUsage], run: &str) -> Result<()> {
    let columns = ["IN", "OUT", "CACHE", "TOOLS", "MODEL"];
    table(
        ctx,
        used,
        |u| u.entry,
        run,
        &columns,
        |WithUsage { usage, .. }| {
            let Some(u) = usage else {
                return vec!["-".into(); columns.len()];
            };
            let t = u.tokens();
            vec![
                grouped(t.input_tokens).into(),
                grouped(t.output_tokens.saturating_add(t.reasoning_tokens)).into(),
                grouped(t.cache_read_tokens.saturating_add(t.cache_write_tokens)).into(),
                grouped(u.tool_calls).into(),
                u.main_model()
                    .map_or("-", |m| m.model.model_id.as_str())
                    .into(),
            ]
        },
    )
}

/// The human timeline; the RUN column appears only when a fork inherited entries. DONE is
/// the stages done when the entry was recorded, counted as `ps` counts them: without the
/// start node that Fabro's count (`Fabro-Completed`, `--json`'s `completed`) takes in.
pub fn print(ctx: &Ctx, state: &RunState, entries: &[Entry]) -> Result<()> {
    let columns = ["DONE", "COMMIT", "META", "TIME"];
    let offset = state.record.spec.completed_offset;
    table(
        ctx,
        entries,
        |e| e,
        state.id.as_str(),
        &columns,
        |e| {
            vec![
                e.completed.saturating_sub(offset).to_string().into(),
                crate::format::short_sha(&e.run_commit).into(),
                match e.meta_commit.as_str() {
                    "" => "-".into(),
                    sha => crate::format::short_sha(sha).into(),
                },
                output::local_time(&e.timestamp).into(),
            ]
        },
    )
}

/// A timeline table: `#`, the RUN column only when a fork inherited entries, `STAGE` and
/// `STATUS`, then `columns`, filled by `cells`. Cells borrow what they show as it is: a long
/// timeline is thousands of them.
fn table<'a, T>(
    ctx: &Ctx,
    items: &'a [T],
    entry: impl Fn(&'a T) -> &'a Entry,
    run: &str,
    columns: &[&'static str],
    cells: impl Fn(&'a T) -> Vec<Cow<'a, str>>,
) -> Result<()> {
    if items.is_empty() {
        output::note(format!("run {run} has no checkpoints yet"));
        return Ok(());
    }
    let mixed = items.iter().any(|item| entry(item).run_id != run);
    let mut header = vec!["#", "STAGE", "STATUS"];
    header.extend_from_slice(columns);
    if mixed {
        header.insert(1, "RUN");
    }
    let rows: Vec<Vec<Cow<str>>> = items
        .iter()
        .map(|item| {
            let e = entry(item);
            let (ordinal, stage) = match &e.snapshot {
                Some(reason) => ("-".into(), format!("snapshot: {}", cut(reason))),
                None => (
                    format!("@{}", e.ordinal).into(),
                    format!("{}@{}", e.node_id, e.visit),
                ),
            };
            let mut row = vec![ordinal, stage.into(), e.status.as_str().into()];
            row.extend(cells(item));
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
