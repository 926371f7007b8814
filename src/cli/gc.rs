use anyhow::Result;

use super::progress::Spinner;
use super::{Ctx, output};
use crate::error::Error;
use crate::format::record::StatusKind;
use crate::format::run_id::RunId;
use crate::format::store::RunDir;
use crate::ops::gc::{Collected, gc, parse_duration};

/// Delete archived runs older than a limit, and stale worktree registrations of runs
///
/// Removes the refs (run, metadata and recovery), run directory and worktree of every
/// archived run whose archiving is older than --older-than, of every finished run (succeeded,
/// failed or dead) that finished longer ago than --finished-older-than (default: `[gc]
/// finished_older_than` in settings.toml, else finished runs are kept), and the registrations
/// of run worktrees whose directory is gone. Never touches a ref git-fabro did not create, and keeps
/// a run whose branch is checked out elsewhere or holds commits that are not the run's, or
/// whose worktree holds files that its final commit does not. Refuses (exit 3) while a live
/// process holds the run.pid of a run it would remove, unless --force.
///
/// With --remote REMOTE, moves the finished runs of that run-store remote (those no worker
/// holds and none waits for) into this clone, then deletes their refs there, so that its ref
/// count stays bounded; --finished-older-than keeps the recent ones. A run goes only once
/// this clone holds each of its refs as the remote does, and each deletion is fenced on them.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only runs archived at least this long ago (0, 45s, 90m, 12h, 30d, 2w)
    #[arg(long, value_name = "DURATION", default_value = "14d")]
    older_than: String,
    /// Also finished runs (succeeded, failed, dead) that finished at least this long ago
    #[arg(long, value_name = "DURATION")]
    finished_older_than: Option<String>,
    /// List what would be removed and remove nothing
    #[arg(long)]
    dry_run: bool,
    /// Collect runs even while a live process holds their run.pid
    #[arg(long)]
    force: bool,
    /// Print JSON
    #[arg(long)]
    json: bool,
    /// Move finished runs off this shared remote into this clone instead (REMOTE defaults to
    /// `[remote] pool` of settings.toml, else the remote `push` uses)
    #[arg(long, value_name = "REMOTE", num_args = 0..=1, conflicts_with = "force")]
    remote: Option<Option<String>>,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    if let Some(remote) = &args.remote {
        let remote = ctx.pool_remote(remote.as_deref())?;
        let older_than = args
            .finished_older_than
            .as_deref()
            .map(parse_duration)
            .transpose()?;
        return super::gc_remote::run(ctx, &remote, older_than, args.dry_run, args.json);
    }
    let older_than = parse_duration(&args.older_than)?;
    let config = ctx.base_config()?;
    let finished_older_than = match &args.finished_older_than {
        Some(text) => Some(parse_duration(text)?),
        None => match &config.gc_finished_older_than {
            Some(text) => Some(parse_duration(text).map_err(|err| {
                Error::Usage(format!("settings.toml: [gc] finished_older_than: {err}"))
            })?),
            None => None,
        },
    };
    let progress = Spinner::start("collecting archived runs");
    if !args.dry_run && !args.force {
        let planned = gc(&ctx.repo, older_than, finished_older_than, true, &config)?;
        refuse_held_runs(ctx, &planned)?;
    }
    let collected = gc(
        &ctx.repo,
        older_than,
        finished_older_than,
        args.dry_run,
        &config,
    )?;
    progress.done();
    output::warn_unreadable(&collected.unreadable);
    for warning in &collected.warnings {
        output::warn(warning);
    }
    if args.json {
        return output::json(&collected);
    }
    let verb = if args.dry_run {
        "would remove"
    } else {
        "removed"
    };
    for run in &collected.runs {
        let when = match run.status {
            StatusKind::Archived => "archived",
            _ => "finished",
        };
        let status = match run.status {
            StatusKind::Archived => String::new(),
            other => format!("{}, ", other.as_str()),
        };
        output::line(format!(
            "{verb} run {} ({status}{when} {})",
            output::escape(&run.run_id),
            output::escape(&run.archived_at)
        ))?;
    }
    for branch in &collected.left_behind_branches {
        output::line(format!(
            "{verb} branch {branch} of a run an interrupted gc removed"
        ))?;
    }
    for worktree in &collected.left_behind_worktrees {
        output::line(format!(
            "{verb} worktree {} of a run an interrupted gc removed",
            worktree.display()
        ))?;
    }
    for dir in &collected.left_behind_run_dirs {
        output::line(format!(
            "{verb} run directory {} of a run an interrupted gc removed",
            dir.display()
        ))?;
    }
    for kept in &collected.kept {
        output::line(format!("kept run {}: {}", kept.run_id, kept.reason))?;
    }
    for worktree in &collected.stale_worktrees {
        output::line(format!(
            "{verb} stale worktree registration {}",
            worktree.display()
        ))?;
    }
    if collected.runs.is_empty()
        && collected.kept.is_empty()
        && collected.stale_worktrees.is_empty()
        && collected.left_behind_branches.is_empty()
        && collected.left_behind_worktrees.is_empty()
        && collected.left_behind_run_dirs.is_empty()
    {
        output::note("nothing to collect");
    }
    Ok(())
}

/// Refuses the collection if a live process holds one of the runs it would remove.
fn refuse_held_runs(ctx: &Ctx, planned: &Collected) -> Result<()> {
    for run in &planned.runs {
        let (Ok(id), Some(path)) = (RunId::parse(&run.run_id), &run.run_dir) else {
            continue;
        };
        let run_dir = RunDir { path: path.clone() };
        ctx.ensure_not_held(Some(&run_dir), &id, false)?;
    }
    Ok(())
}
