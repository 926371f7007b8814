use anyhow::Result;

use super::run_arg::RunFlag;
use super::{Ctx, output};
use crate::run::RunState;
use crate::run::inspect::{CheckpointDetail, checkpoint_detail};
use crate::run::target::Target;
use crate::run::timeline::find;

/// Show one checkpoint in full: its record, commits and stage files
///
/// TARGET is @N (the N-th checkpoint), NODE (its latest visit), NODE@V, or a sha prefix of
/// a run or metadata commit; without it, the latest checkpoint. A single argument is the RUN
/// when it names a run or no run is known otherwise (--run RUN, $FABRO_RUN_ID, a run's
/// worktree, the run in place here), else the TARGET.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The run, or the target when the run is known (--run RUN or the current run)
    #[arg(value_name = "RUN")]
    run_pos: Option<String>,
    /// The checkpoint
    #[arg(value_name = "TARGET")]
    target: Option<String>,
    #[command(flatten)]
    run: RunFlag,
    /// Print a JSON object
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    let (id, targets) =
        ctx.run_and_targets(args.run.run.as_deref(), &[args.run_pos, args.target], 1)?;
    let target = Target::parse(targets.first().map(String::as_str))?;
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
