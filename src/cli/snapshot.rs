use anyhow::Result;

use super::{Ctx, output};
use crate::run::RunState;
use crate::snapshot::snapshot;

/// Save the run's files between checkpoints, without completing a node
///
/// For a harness to call before a risky step, such as a file write. Commits the run's files
/// (or only PATHs, relative to the current directory) to the run branch with a Fabro-Snapshot
/// trailer; the completed count does not change and no metadata is written. Nothing is
/// written when nothing changed. `log --all` lists snapshots; `restore` takes their sha.
/// Prints the snapshot's sha (the run's tip when nothing changed).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory)
    #[arg(long, value_name = "RUN")]
    run: Option<String>,
    /// Why the snapshot is taken (one line)
    #[arg(long, value_name = "TEXT")]
    reason: Option<String>,
    /// Only these paths
    paths: Vec<String>,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    let id = ctx.run_id(args.run.as_deref())?;
    let state = RunState::load(&ctx.repo, &id)?;
    let workspace = ctx.workspace(&id)?;
    let config = ctx.config(&state, ctx.run_dir_of(&id, &workspace).as_ref())?;
    let paths = workdir_relative(&workspace.path, &args.paths)?;
    let done = snapshot(
        &ctx.repo,
        &workspace,
        &state,
        &config,
        args.reason.as_deref(),
        &paths,
    )?;
    for skipped in &done.skipped_files {
        output::warn(format!(
            "left out {} ({} bytes, over the size limit)",
            skipped.path, skipped.size
        ));
    }
    if args.json {
        output::json(&done)
    } else {
        output::line(&done.run_commit)
    }
}

/// Paths given relative to the current directory, made relative to the work tree.
fn workdir_relative(workdir: &std::path::Path, paths: &[String]) -> Result<Vec<String>> {
    let cwd = std::env::current_dir()?;
    let root = std::fs::canonicalize(workdir)?;
    paths
        .iter()
        .map(|p| {
            let absolute = std::path::absolute(cwd.join(p))?;
            let parent = absolute
                .parent()
                .and_then(|d| std::fs::canonicalize(d).ok())
                .unwrap_or_default();
            let full = parent.join(absolute.file_name().unwrap_or_default());
            let rel = full.strip_prefix(&root).map_err(|_| {
                crate::error::Error::Usage(format!(
                    "{p} is outside the run's files ({})",
                    root.display()
                ))
            })?;
            Ok(rel.to_string_lossy().into_owned())
        })
        .collect()
}
