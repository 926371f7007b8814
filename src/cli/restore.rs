use std::path::{Path, PathBuf};

use anyhow::Result;

use super::{Ctx, output};
use crate::git::PathAction;
use crate::ops::restore::{
    RecoveryPoint, RestoreOptions, Restored, recovery_points, resolve, restore,
};

/// Make a run's worktree match a checkpoint exactly, or only some paths of it
///
/// Files changed since the target are restored, files deleted since come back, files created
/// since are removed; ignored, excluded and oversize paths, and paths below a symlink, are
/// left alone and listed. With `-- PATH...`, only those paths (pathspecs, as `git restore
/// --source=<checkpoint> -- PATH...` takes them, relative to the current directory inside the
/// worktree, else to the worktree's root); a path that names no file exits 2. A target
/// holding a path git's checkout refuses (`..`, `.git`, an absolute name) is refused. Before
/// changing anything, the worktree's current state is committed under
/// refs/fabro/recovery/<RUN_ID>/ and the command to get back is printed; --list lists those
/// recovery points. TARGET is a checkpoint (@N, NODE, NODE@V, sha prefix; default: the
/// latest), or a sha prefix of a snapshot, of the run's start (its base commit) or of a
/// recovery commit. The run's branches do not move.
/// Refuses (exit 3) while a live process holds the run's run.pid, unless --force; the command
/// that process runs may restore.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The run (default: $FABRO_RUN_ID, else the run whose worktree holds the current directory)
    #[arg(long, value_name = "RUN")]
    run: Option<String>,
    /// The checkpoint to restore
    #[arg(conflicts_with = "list")]
    target: Option<String>,
    /// Restore the latest checkpoint whose status is succeeded
    #[arg(long, conflicts_with_all = ["target", "list"])]
    last_success: bool,
    /// List what would change and change nothing
    #[arg(long, conflicts_with = "list")]
    dry_run: bool,
    /// Go ahead even while a live process holds the run's run.pid
    #[arg(long, conflicts_with = "list")]
    force: bool,
    /// List the recovery points (the states restores kept) with their time and command
    #[arg(long)]
    list: bool,
    /// Print JSON
    #[arg(long)]
    json: bool,
    /// Restore only these paths
    #[arg(last = true, value_name = "PATH", conflicts_with = "list")]
    paths: Vec<PathBuf>,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    let id = ctx.named_run(None, args.run.as_deref())?;
    let run = ctx.open_run(Some(id.as_str()))?;
    let state = &run.state;
    if args.list {
        let points = recovery_points(&ctx.repo, &state.id)?;
        return if args.json {
            output::json(&points)
        } else {
            print_list(ctx, state.id.as_str(), &points)
        };
    }
    let target = resolve(&ctx.repo, state, args.target.as_deref(), args.last_success)?;
    let workspace = run.workspace()?;
    let paths = if args.paths.is_empty() {
        Vec::new()
    } else {
        // Relative to the current directory when it is in the worktree, as git takes
        // pathspecs; from elsewhere (the main checkout, say), relative to the worktree's root.
        root_relative(&workspace.path, &args.paths)?
    };
    if !args.dry_run {
        ctx.ensure_not_held(run.run_dir.as_ref(), &state.id, args.force)?;
    }
    let options = RestoreOptions {
        paths,
        dry_run: args.dry_run,
        command: Some(command_line()),
    };
    let restored = restore(&ctx.repo, workspace, state, target, &run.config, &options)?;
    if args.json {
        output::json(&restored)?;
    } else {
        print(&restored)?;
    }
    if !args.dry_run && args.paths.is_empty() {
        super::conversation::offer(ctx, state, &restored.target.commit, &workspace.path);
    }
    Ok(())
}

/// PATHs given relative to the current directory when it is in the worktree, as git takes
/// pathspecs, and from elsewhere (the main checkout, say) relative to the worktree's root;
/// made relative to the root. `..` is taken lexically and no symlink is followed: a path
/// below a symlink stays a path of the run, which restore then leaves alone. A path naming
/// the root means every file, as `git restore -- .` does.
fn root_relative(workdir: &Path, paths: &[PathBuf]) -> Result<Vec<Vec<u8>>> {
    let root = std::fs::canonicalize(workdir)?;
    let base = match std::env::current_dir().and_then(std::fs::canonicalize) {
        Ok(here) if here.starts_with(&root) => here,
        _ => root.clone(),
    };
    super::snapshot::relative_to_root(&root, &base, paths, Path::to_path_buf)
}

/// This command as the user would type it again (`git fabro ...`), quoted for a POSIX shell.
pub(super) fn command_line() -> String {
    let words = std::env::args_os()
        .skip(1)
        .map(|arg| crate::format::shell::quote(&arg.to_string_lossy()));
    std::iter::once("git fabro".to_owned())
        .chain(words)
        .collect::<Vec<_>>()
        .join(" ")
}

fn print_list(ctx: &Ctx, run: &str, points: &[RecoveryPoint]) -> Result<()> {
    if points.is_empty() {
        output::note(format!(
            "run {} has no recovery points: no restore changed its files",
            ctx.short(run)
        ));
        return Ok(());
    }
    let rows: Vec<Vec<String>> = points
        .iter()
        .map(|p| {
            vec![
                crate::format::short_sha(&p.commit).to_owned(),
                output::local_time(&p.time),
                output::escape(p.command.as_deref().unwrap_or(&p.subject)).into_owned(),
            ]
        })
        .collect();
    output::table(&["COMMIT", "TIME", "COMMAND"], &rows, None)
}

fn print(restored: &Restored) -> Result<()> {
    print_changes(restored)?;
    print_summary(restored, &output::escape(&restored.target.label))
}

/// A line per path changed, and a note per path left alone.
pub(super) fn print_changes(restored: &Restored) -> Result<()> {
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
    Ok(())
}

fn print_summary(restored: &Restored, target: &str) -> Result<()> {
    let changed = output::counted(restored.changes.len(), "path", "paths");
    match (&restored.recovery_commit, restored.dry_run) {
        (_, true) => output::note(format!("dry run: {changed} would change to match {target}")),
        (Some(sha), false) => output::note(format!(
            "restored {changed} to match {target}; the previous state is {}\nto get back: git fabro restore --run {} {}",
            restored.recovery_ref.as_deref().unwrap_or_default(),
            restored.run_id,
            crate::format::short_sha(sha)
        )),
        (None, false) if restored.left_alone.is_empty() => {
            output::note(format!("the worktree already matches {target}"));
        }
        (None, false) => output::note(format!(
            "nothing restored: the worktree matches {target} but for the {} left alone",
            output::counted(restored.left_alone.len(), "path", "paths")
        )),
    }
    Ok(())
}
