use std::path::{Path, PathBuf};

use anyhow::Result;

use super::{Ctx, output};
use crate::error::Error;
use crate::input;
use crate::ops::snapshot::{refuse_ended, snapshot};

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
    paths: Vec<PathBuf>,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    let run = ctx.open_run(args.run.as_deref())?;
    // A finished run has no worktree: say that it ended, which is why.
    refuse_ended(&run.state)?;
    let workspace = run.workspace()?;
    let paths = workdir_relative(&workspace.path, &args.paths)?;
    let done = snapshot(
        &ctx.repo,
        workspace,
        &run.state,
        &run.config,
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

/// Paths given relative to the current directory, made relative to the work tree's root: each
/// is resolved once, here. `..` is taken lexically, as git does; a symlink the path names is a
/// file of the run, not followed. A path naming the root itself means every file (an empty
/// list).
fn workdir_relative(workdir: &Path, paths: &[PathBuf]) -> Result<Vec<Vec<u8>>> {
    let cwd = std::env::current_dir()?;
    let root = std::fs::canonicalize(workdir)?;
    relative_to_root(&root, &cwd, paths, physical)
}

/// `paths`, taken from `base` and resolved by `resolve`, as bytes relative to `root`; a path
/// outside `root` is a usage error, and one naming `root` itself means every file (an empty
/// list).
pub(super) fn relative_to_root(
    root: &Path,
    base: &Path,
    paths: &[PathBuf],
    resolve: impl Fn(&Path) -> PathBuf,
) -> Result<Vec<Vec<u8>>> {
    let mut relative = Vec::with_capacity(paths.len());
    for given in paths {
        let full = resolve(&input::lexically_normal(&base.join(given)));
        let rel = full.strip_prefix(root).map_err(|_| {
            Error::Usage(format!(
                "{} is outside the run's files ({})",
                given.display(),
                root.display()
            ))
        })?;
        if rel.as_os_str().is_empty() {
            return Ok(Vec::new());
        }
        relative.push(rel.as_os_str().as_encoded_bytes().to_vec());
    }
    Ok(relative)
}

/// The path with its directory's symlinks resolved (so that it compares with the canonical work
/// tree), but its last component kept as named.
pub(super) fn physical(path: &Path) -> PathBuf {
    match (path.parent(), path.file_name()) {
        (Some(dir), Some(name)) => std::fs::canonicalize(dir)
            .unwrap_or_else(|_| physical(dir))
            .join(name),
        _ => path.to_owned(),
    }
}
