use anyhow::Result;

use super::{Ctx, output};
use crate::run::RunState;
use crate::run::inspect::{CheckpointDetail, checkpoint_detail};
use crate::run::target::Target;
use crate::run::timeline::find;

/// Show one checkpoint in full: its record, commits and stage files
///
/// TARGET is @N (the N-th checkpoint), NODE (its latest visit), NODE@V, or a sha prefix of
/// a run or metadata commit; without it, the latest checkpoint. With a single argument, it is
/// the TARGET when a current run is known ($FABRO_RUN_ID or a run's worktree), else the RUN.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The run, or the target when the current run is known
    first: Option<String>,
    /// The checkpoint
    target: Option<String>,
    /// Print a JSON object
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    let (run, target) = match (args.first, args.target) {
        (Some(run), Some(target)) => (Some(run), Some(target)),
        (Some(one), None) => match ctx.run_id(None) {
            Ok(_) => (None, Some(one)),
            Err(_) => (Some(one), None),
        },
        (None, _) => (None, None),
    };
    let id = ctx.run_id(run.as_deref())?;
    let target = Target::parse(target.as_deref())?;
    let state = RunState::load(&ctx.repo, &id)?;
    let entry = find(&ctx.repo, &state, &target)?;
    let detail = checkpoint_detail(&ctx.repo, &entry)?;
    if args.json {
        output::json(&detail)
    } else {
        print(&detail)
    }
}

fn print(detail: &CheckpointDetail) -> Result<()> {
    let e = &detail.entry;
    output::line(format!(
        "checkpoint @{} {}@{} ({}) of run {}",
        e.ordinal,
        output::escape(&e.node_id),
        e.visit,
        output::escape(&e.status),
        output::escape(&e.run_id)
    ))?;
    output::line(format!("run commit   {}", e.run_commit))?;
    output::line(format!("meta commit  {}", e.meta_commit))?;
    output::line(format!("time         {}", e.timestamp))?;
    output::line(format!("completed    {}", e.completed))?;
    if let Some(record) = &detail.record {
        if let Some(next) = &record.next_node_id {
            output::line(format!("next node    {}", output::escape(next)))?;
        }
        if !record.context_values.is_empty() {
            output::line(format!(
                "context      {}",
                serde_json::to_string(&record.context_values)?
            ))?;
        }
    }
    if let Some(stage) = &detail.stage {
        output::line(format!("stage        {}", output::escape(&stage.path)))?;
        for file in &stage.files {
            output::line(format!(
                "  {:<24} {:>8} bytes  {}",
                output::escape(&file.name),
                file.size,
                crate::format::short_sha(&file.blob)
            ))?;
        }
    }
    Ok(())
}
