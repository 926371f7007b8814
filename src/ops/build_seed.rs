//! Warm worktrees: a new run's worktree gets the build folders of the checkout the run
//! started from (`target/`, `node_modules/`, ...; see `config::worktrees`), so that its first
//! build is incremental rather than from scratch. Only folders git ignores on both sides are
//! seeded, so that a checkpoint never takes them. Each folder is copied into a staging place
//! beside the worktree and renamed into it whole: a copy cut short (a full disk, a kill) never
//! leaves a half-copied folder that a build would trust. Seeding is a convenience: when it
//! fails the run starts cold, and the note says why.

mod tree_copy;

use std::path::{Path, PathBuf};

use crate::config::Config;
use crate::config::worktrees::SeedBuild;
use crate::git::Repo;
use tree_copy::{Copied, Fallback, copy_tree};

/// Seeds the new worktree at `worktree` from the work tree of `source`, as the configuration
/// says; returns a note for the user when anything was seeded or had to be skipped.
pub fn seed(source: &Repo, worktree: &Path, config: &Config) -> Option<String> {
    if config.seed_build == SeedBuild::Never {
        return None;
    }
    let from = source.workdir()?.to_owned();
    let folders = source.ignored_build_folders(&config.build_dirs).ok()?;
    if folders.is_empty() {
        return None;
    }
    let target = Repo::open(worktree).ok()?;
    let staging = staging_dir(worktree)?;
    let _ = std::fs::remove_dir_all(&staging); // left by a start that was killed
    let fallback = match config.seed_build {
        SeedBuild::Copy => Fallback::Copy,
        _ => Fallback::Nothing,
    };
    let mut total = Copied {
        all_cloned: true,
        ..Copied::default()
    };
    let mut seeded = Vec::new();
    let mut problem = None;
    for (n, folder) in folders.iter().enumerate() {
        let into = worktree.join(folder);
        // Its parent must be checked out already (a folder inside untracked files is not
        // the run's), the place must be free, and git must ignore it there too.
        let free = into.parent().is_some_and(Path::is_dir) && !into.exists();
        if !free || !target.git_ignores(folder, true).unwrap_or(false) {
            continue;
        }
        let staged = staging.join(n.to_string());
        let copied = std::fs::create_dir_all(&staging)
            .and_then(|()| copy_tree(&from.join(folder), &staged, fallback))
            .and_then(|copied| std::fs::rename(&staged, &into).map(|()| copied));
        match copied {
            Ok(copied) => {
                total.files += copied.files;
                total.bytes += copied.bytes;
                total.all_cloned &= copied.all_cloned;
                seeded.push(folder.as_str());
            }
            Err(err) => {
                let _ = std::fs::remove_dir_all(&staged);
                problem = Some(match err.kind() {
                    std::io::ErrorKind::Unsupported => format!(
                        "the build folders were not seeded: this filesystem makes no copy-on-write clones; set `{} = copy` to copy them in full",
                        crate::config::worktrees::SEED_BUILD_KEY
                    ),
                    _ => format!("{folder} was not seeded: {err}"),
                });
                if err.kind() == std::io::ErrorKind::Unsupported {
                    break;
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&staging);
    note(&seeded, total, problem)
}

fn note(seeded: &[&str], total: Copied, problem: Option<String>) -> Option<String> {
    let done = (!seeded.is_empty()).then(|| {
        let how = if total.all_cloned { "cloned" } else { "copied" };
        format!(
            "seeded the build folders {} from your checkout ({} files, {:.1} MiB {how})",
            seeded.join(", "),
            total.files,
            total.bytes as f64 / f64::from(1 << 20)
        )
    });
    match (done, problem) {
        (Some(done), Some(problem)) => Some(format!("{done}; {problem}")),
        (done, problem) => done.or(problem),
    }
}

/// Beside the worktree, in the run's own directory: never inside a work tree, where a
/// checkpoint could take it.
fn staging_dir(worktree: &Path) -> Option<PathBuf> {
    let name = worktree.file_name()?.to_string_lossy();
    Some(worktree.parent()?.join(format!(".{name}.seeding")))
}
