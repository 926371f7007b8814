use std::path::PathBuf;

use anyhow::Result;

use super::{Ctx, output};
use crate::error::Error;
use crate::format::node::{NodeId, StageStatus};
use crate::input;
use crate::ops::checkpoint::{CheckpointRequest, check_attachment_name, checkpoint, parse_context};

/// Record a completed node: a metadata commit and a run commit of the worktree
///
/// Writes the stage's status and attached files with the updated run.json as a metadata
/// commit, then commits the worktree's files (minus excluded and ignored paths) to the run
/// branch with Fabro-Run, Fabro-Completed and Fabro-Checkpoint trailers. Both branches move
/// together or not at all; a concurrent checkpoint of the same run exits 3. Prints the run
/// commit's sha.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory)
    #[arg(long, value_name = "RUN")]
    run: Option<String>,
    /// The node that completed
    #[arg(long, value_name = "NODE")]
    node: String,
    /// succeeded, partially_succeeded, failed or skipped
    #[arg(long, value_name = "STATUS", default_value = "succeeded")]
    status: String,
    /// The node the run continues with
    #[arg(long, value_name = "NODE")]
    next: Option<String>,
    /// A context value to record (repeatable); the value is JSON
    #[arg(long = "context", value_name = "KEY=JSON")]
    context: Vec<String>,
    /// A file to store with the stage as NAME (repeatable)
    #[arg(long = "attach", value_name = "NAME=PATH")]
    attach: Vec<String>,
    /// Print a JSON object instead of the run commit's sha
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    let request = request(&args)?;
    let run = ctx.open_run(args.run.as_deref())?;
    let done = checkpoint(
        &ctx.repo,
        run.workspace()?,
        &run.state,
        &run.config,
        &request,
        run.run_dir.as_ref(),
    )?;
    for warning in &done.warnings {
        output::warn(warning);
    }
    if args.json {
        output::json(&done)
    } else {
        output::line(&done.run_commit)
    }
}

/// Checks every argument before anything is read from or written to the repository.
fn request(args: &Args) -> Result<CheckpointRequest, Error> {
    let node = NodeId::parse(&args.node)?;
    let status = StageStatus::parse(&args.status)?;
    let next = args.next.as_deref().map(NodeId::parse).transpose()?;
    let context = args
        .context
        .iter()
        .map(|c| parse_context(c))
        .collect::<Result<_, _>>()?;
    let mut attachments = Vec::new();
    for arg in &args.attach {
        let (name, path) = arg
            .split_once('=')
            .ok_or_else(|| Error::Usage(format!("--attach {arg:?} is not NAME=PATH")))?;
        check_attachment_name(name)?;
        let data = input::read_file(
            &PathBuf::from(path),
            &format!("--attach {name}"),
            input::MAX_ATTACHMENT,
        )?;
        attachments.push((name.to_owned(), data));
    }
    Ok(CheckpointRequest {
        node,
        status,
        next,
        context,
        attachments,
        outcome: None,
        notes: None,
        failure_reason: None,
        run_commit: true,
    })
}
