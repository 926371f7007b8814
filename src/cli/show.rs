use std::io::Write;

use anyhow::Result;

use super::run_arg::RunFlag;
use super::{Ctx, output};
use crate::error::Error;
use crate::format::usage::{self, Usage};
use crate::git::ObjectId;
use crate::run::RunState;
use crate::run::active_time;
use crate::run::inspect::{CheckpointDetail, checkpoint_detail};
use crate::run::target::Target;
use crate::run::timeline::find;

/// Show one checkpoint in full: its record, commits and stage files
///
/// With --file NAME, print one file of its stage (status.json or an attachment) byte for
/// byte, as `git show <commit>:<path>` prints a blob.
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
    /// Print the stage file or attachment NAME byte for byte instead (status.json, an
    /// --attach NAME of checkpoint)
    #[arg(long, value_name = "NAME", conflicts_with = "json")]
    file: Option<String>,
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
    if let Some(name) = &args.file {
        return print_file(ctx, &detail, name);
    }
    let _pager = super::pager::start(&ctx.repo);
    if args.json {
        output::json(&detail)
    } else {
        print(&detail)
    }
}

/// Writes one file of the checkpoint's stage to stdout as it is stored, or names the files
/// the stage holds (exit 1).
fn print_file(ctx: &Ctx, detail: &CheckpointDetail, name: &str) -> Result<()> {
    let e = &detail.entry;
    let checkpoint = format!("checkpoint {}", e.label());
    let files = detail
        .stage
        .as_ref()
        .map(|s| s.files.as_slice())
        .unwrap_or_default();
    let Some(file) = files.iter().find(|f| f.name == name) else {
        let there: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
        let holds = if there.is_empty() {
            "its stage holds no files".to_owned()
        } else {
            format!("its stage holds {}", there.join(", "))
        };
        return Err(Error::Failed(format!("{checkpoint} has no file {name:?}; {holds}")).into());
    };
    let blob = ObjectId::from_hex(file.blob.as_bytes())
        .map_err(|_| Error::Corrupt(format!("{checkpoint}: {name} names no blob")))?;
    let data = ctx.repo.read_blob(blob)?;
    let mut out = std::io::stdout().lock();
    out.write_all(&data)?;
    out.flush()?;
    Ok(())
}

fn print(detail: &CheckpointDetail) -> Result<()> {
    let e = &detail.entry;
    output::line(format!(
        "checkpoint {} ({}) of run {}",
        output::escape(&e.label()),
        output::escape(&e.status),
        output::escape(&e.run_id)
    ))?;
    output::line(format!("run commit   {}", e.run_commit))?;
    output::line(format!("meta commit  {}", e.meta_commit))?;
    output::line(format!("time         {}", output::local_time(&e.timestamp)))?;
    output::line(format!("completed    {}", e.completed))?;
    if let Some(status) = detail.stage.as_ref().and_then(|s| s.status.as_ref()) {
        print_usage(status)?;
    }
    if let Some(record) = &detail.record {
        if let Some(next) = &record.next_node_id {
            output::line(format!("next node    {}", output::escape(next)))?;
        }
        if !record.context_values.is_empty() {
            output::line("context")?;
            print_context(&record.context_values)?;
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

/// How long the stage took and what its agent used, as its `status.json` says.
fn print_usage(status: &serde_json::Value) -> Result<()> {
    if let Some(ms) = status["duration_ms"].as_u64() {
        output::line(format!("took         {}", active_time::duration(ms)))?;
    }
    let Ok(usage) = serde_json::from_value::<Usage>(status["usage"].clone()) else {
        return Ok(());
    };
    for model in &usage.models {
        output::line(format!(
            "model        {} ({}): {}",
            output::escape(&model.model.model_id),
            output::escape(&model.model.provider),
            usage::describe(&model.tokens)
        ))?;
    }
    output::line(format!("tool calls   {}", usage.tool_calls))
}

/// One key a line, in key order, its value as pretty JSON indented under it: a context of
/// many values reads as a list instead of one line thousands of characters wide.
fn print_context(values: &std::collections::BTreeMap<String, serde_json::Value>) -> Result<()> {
    for (key, value) in values {
        let pretty = serde_json::to_string_pretty(value)?;
        let mut lines = pretty.lines();
        let first = lines.next().unwrap_or_default();
        output::line(format!(
            "  {} = {}",
            output::escape(key),
            output::escape(first)
        ))?;
        for line in lines {
            output::line(format!("    {}", output::escape(line)))?;
        }
    }
    Ok(())
}
