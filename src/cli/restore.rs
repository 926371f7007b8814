use anyhow::Result;

use super::{Ctx, output};
use crate::git::PathAction;
use crate::ops::restore::{Restored, resolve, restore};

/// Make a run's worktree match a checkpoint exactly
///
/// Files changed since the target are restored, files deleted since come back, files created
/// since are removed; ignored, excluded and oversize paths, and paths below a symlink, are
/// left alone and listed. A target holding a path git's checkout refuses (`..`, `.git`, an
/// absolute name) is refused. Before changing anything, the worktree's current state is
/// committed under refs/fabro/recovery/<RUN_ID>/ and the command to get back is printed. TARGET is a checkpoint (@N, NODE, NODE@V, sha prefix; default: the
/// latest), or a sha prefix of a snapshot or recovery commit. The run's branches do not move.
/// Refuses (exit 3) while a live process holds the run's run.pid, unless --force; the command
/// that process runs may restore.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory)
    #[arg(long, value_name = "RUN")]
    run: Option<String>,
    /// The checkpoint to restore
    target: Option<String>,
    /// Restore the latest checkpoint whose status is succeeded
    #[arg(long, conflicts_with = "target")]
    last_success: bool,
    /// List what would change and change nothing
    #[arg(long)]
    dry_run: bool,
    /// Go ahead even while a live process holds the run's run.pid
    #[arg(long)]
    force: bool,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    let run = ctx.open_run(args.run.as_deref())?;
    let state = &run.state;
    let target = resolve(&ctx.repo, state, args.target.as_deref(), args.last_success)?;
    let workspace = run.workspace()?;
    if !args.dry_run {
        ctx.ensure_not_held(run.run_dir.as_ref(), &state.id, args.force)?;
    }
    let restored = restore(
        &ctx.repo,
        workspace,
        state,
        target,
        &run.config,
        args.dry_run,
    )?;
    if args.json {
        output::json(&restored)
    } else {
        print(&restored)
    }
}

fn print(restored: &Restored) -> Result<()> {
    for change in &restored.changes {
        let verb = match change.action {
            PathAction::Restore => "restore",
            PathAction::Recreate => "recreate",
            PathAction::Remove => "remove",
        };
        output::line(format!("{verb:<9} {}", output::escape(&change.path)))?;
    }
    for left in &restored.left_alone {
        output::note(format!(
            "left alone: {} ({})",
            output::escape(&left.path),
            output::escape(&left.reason)
        ));
    }
    let target = &output::escape(&restored.target.label);
    match (&restored.recovery_commit, restored.dry_run) {
        (_, true) => output::note(format!(
            "dry run: {} paths would change to match {target}",
            restored.changes.len()
        )),
        (Some(sha), false) => output::note(format!(
            "restored {} paths to match {target}; the previous state is {}\nto get back: git fabro restore --run {} {}",
            restored.changes.len(),
            restored.recovery_ref.as_deref().unwrap_or_default(),
            restored.run_id,
            crate::format::short_sha(sha)
        )),
        (None, false) if restored.left_alone.is_empty() => {
            output::note(format!("the worktree already matches {target}"));
        }
        (None, false) => output::note(format!(
            "nothing restored: the worktree matches {target} but for the {} paths left alone",
            restored.left_alone.len()
        )),
    }
    Ok(())
}
