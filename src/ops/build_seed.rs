//! Warm worktrees: a new run's worktree gets the build folders of the checkout the run
//! started from (`target/`, `node_modules/`, ...; see `config::worktrees`), so that its first
//! build is incremental rather than from scratch. Only folders git ignores on both sides are
//! seeded, so that a checkpoint never takes them. Each folder is copied into a staging place
//! beside the worktree and renamed into it whole: a copy cut short (a full disk, a kill) never
//! leaves a half-copied folder that a build would trust. Seeding is a convenience: when it
//! fails the run starts cold, and the note says why.
//!
//! Nothing seeded is shared with the checkout: files are clones or copies, links lead to the
//! run's own files (`links`), a Python environment is not seeded (it names the checkout by
//! absolute path throughout), and no folder on either side is reached through a symbolic
//! link: a run's branch that tracks `crates -> /elsewhere` would otherwise have the user's
//! `crates/a/target/` copied into `/elsewhere/a/target/`.

mod links;
mod tree_copy;

use std::path::{Path, PathBuf};

use crate::config::Config;
use crate::config::worktrees::SeedBuild;
use crate::git::Repo;
use links::Links;
use tree_copy::{Copied, Fallback, copy_tree, is_environment};

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
    let links = Links::new(&from, worktree);
    let mut seeded = Vec::new();
    let mut problem = None;
    for (n, folder) in folders.iter().enumerate() {
        let into = worktree.join(folder);
        // Its parent must be checked out already (a folder inside untracked files is not
        // the run's), the place must be free, and git must ignore it there too.
        let free = real_dirs(worktree, folder, false) && !into.exists();
        if !free
            || !real_dirs(&from, folder, true)
            || !target.git_ignores(folder, true).unwrap_or(false)
        {
            continue;
        }
        if is_environment(&from.join(folder)) || folder.rsplit('/').next() == Some(".venv") {
            total.environments_left_out += 1;
            continue;
        }
        let staged = staging.join(n.to_string());
        let copied = std::fs::create_dir_all(&staging)
            .and_then(|()| copy_tree(&from.join(folder), &staged, fallback, &links))
            .and_then(|copied| std::fs::rename(&staged, &into).map(|()| copied));
        match copied {
            Ok(copied) => {
                total.files += copied.files;
                total.bytes += copied.bytes;
                total.all_cloned &= copied.all_cloned;
                total.links_left_out += copied.links_left_out;
                total.environments_left_out += copied.environments_left_out;
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

/// Whether every folder on the way from `root` to `rel` (and, with `whole`, `rel` itself) is
/// a real directory, never a symbolic link.
fn real_dirs(root: &Path, rel: &str, whole: bool) -> bool {
    let parts: Vec<&str> = rel.split('/').collect();
    let upto = if whole { parts.len() } else { parts.len() - 1 };
    let mut at = root.to_owned();
    parts[..upto].iter().all(|part| {
        at.push(part);
        std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_dir())
    })
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
    let left_out = left_out(total);
    let parts: Vec<String> = [done, left_out, problem].into_iter().flatten().collect();
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// What seeding left out so that nothing is shared with the checkout, if anything.
fn left_out(total: Copied) -> Option<String> {
    let counted = |n: u64, one: &str, many: &str| match n {
        0 => None,
        1 => Some(format!("1 {one}")),
        n => Some(format!("{n} {many}")),
    };
    let parts: Vec<String> = [
        counted(
            total.links_left_out,
            "symbolic link leading out of the checkout",
            "symbolic links leading out of the checkout",
        ),
        counted(
            total.environments_left_out,
            "Python environment, which names the checkout by absolute path",
            "Python environments, which name the checkout by absolute path",
        ),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!parts.is_empty()).then(|| format!("left out {}", parts.join(" and ")))
}

/// Beside the worktree, in the run's own directory: never inside a work tree, where a
/// checkpoint could take it.
fn staging_dir(worktree: &Path) -> Option<PathBuf> {
    let name = worktree.file_name()?.to_string_lossy();
    Some(worktree.parent()?.join(format!(".{name}.seeding")))
}
