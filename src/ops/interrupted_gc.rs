//! A `gc` killed between deleting a run's refs and removing its worktree leaves a worktree
//! on a branch that is gone. Before it deletes the refs, `gc` writes `gc.json` into the run
//! directory with the run's final commit, so that a later `gc` or `fsck --repair` can still
//! tell whether that worktree holds anything the run did not record, and finish the job
//! only when it does not.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::config::Config;
use crate::error::Result;
use crate::format::run_id::RunId;
use crate::format::store::{MANIFEST, Manifest, RunDir, WORKTREE_DIR};
use crate::git::{ObjectId, Repo};
use crate::ops::worktree_removal::{self, Removal};
use crate::run;
use crate::run::workspace::Workspace;

pub const MARKER: &str = "gc.json";

#[derive(Serialize, Deserialize)]
struct Marker {
    run_id: String,
    run_tip: String,
}

/// Records in the run directory `dir`, before the refs go, the commit its worktree was
/// checked against.
pub fn mark(dir: &Path, id: &RunId, run_tip: ObjectId) -> Result<()> {
    let marker = Marker {
        run_id: id.to_string(),
        run_tip: run_tip.to_string(),
    };
    let path = dir.join(MARKER);
    std::fs::write(&path, crate::format::record::pretty(&marker)).map_err(crate::error::Error::io(
        format!("cannot write {}", path.display()),
    ))
}

/// Forgets the mark when the refs stayed after all (another process moved them).
pub fn unmark(dir: &Path) {
    let _ = std::fs::remove_file(dir.join(MARKER));
}

/// Removes a collected run's directory with its manifest and mark last, so that a removal cut
/// short leaves a directory the next `gc` still recognises and removes. Those last files go
/// with the directory after one rename to a tombstone name: a directory left holding only
/// some of them could not be told from another run's being created.
pub fn remove_run_dir(dir: &Path) -> std::io::Result<()> {
    if is_tombstone(dir) {
        return std::fs::remove_dir_all(dir);
    }
    for entry in std::fs::read_dir(dir)?.flatten() {
        let name = entry.file_name();
        if name == MANIFEST || name == MARKER {
            continue;
        }
        match entry.file_type()? {
            kind if kind.is_dir() => std::fs::remove_dir_all(entry.path())?,
            _ => std::fs::remove_file(entry.path())?,
        }
    }
    let name = dir.file_name().unwrap_or_default().to_string_lossy();
    let tombstone = dir.with_file_name(format!("{TOMBSTONE}{name}"));
    std::fs::rename(dir, &tombstone)?;
    crate::failpoint::reach("gc:run-dir-tombstoned");
    std::fs::remove_dir_all(tombstone)
}

/// What a run directory is renamed to for the last steps of its removal.
const TOMBSTONE: &str = ".collected-";

fn is_tombstone(dir: &Path) -> bool {
    dir.file_name()
        .is_some_and(|name| name.to_string_lossy().starts_with(TOMBSTONE))
}

/// Whether the run branch of `id` at `tip` is what a `gc` killed amid its ref deletions left:
/// git deletes a transaction's refs one at a time, so the run branch can outlive the metadata
/// branch. It is when this clone's run directory of the run carries the gc's mark for that
/// very commit: the gc had found, before marking, that deleting the run loses nothing.
pub fn is_leftover_branch(repo: &Repo, runs_dir: &Path, id: &RunId, tip: ObjectId) -> bool {
    if !matches!(repo.ref_target(&run::meta_branch(id)), Ok(None)) {
        return false;
    }
    RunDir::locate(runs_dir, id, None, None, || repo.main_path())
        .and_then(|dir| std::fs::read(dir.path.join(MARKER)).ok())
        .and_then(|bytes| serde_json::from_slice::<Marker>(&bytes).ok())
        .is_some_and(|marker| {
            marker.run_id == id.as_str()
                && ObjectId::from_hex(marker.run_tip.as_bytes()).ok() == Some(tip)
        })
}

/// The final commit of a run whose refs an interrupted `gc` deleted, when `worktree` is that
/// run's own worktree and the run is really gone (or only its marked run branch is left).
pub fn left_behind(repo: &Repo, worktree: &Path, id: &RunId) -> Result<Option<ObjectId>> {
    if repo.ref_target(&run::meta_branch(id))?.is_some()
        || worktree.file_name().is_none_or(|n| n != WORKTREE_DIR)
    {
        return Ok(None);
    }
    // A gc killed amid its ref deletions may have left the run branch at the marked commit;
    // gc and fsck --repair delete it before they come to the worktree, and `finish` leaves
    // the worktree until they have.
    let branch = repo.ref_target(&run::run_branch(id))?;
    let Some(dir) = worktree.parent() else {
        return Ok(None);
    };
    let read = |name: &str| std::fs::read(dir.join(name)).ok();
    let manifest = read(MANIFEST).and_then(|b| serde_json::from_slice::<Manifest>(&b).ok());
    let marker = read(MARKER).and_then(|b| serde_json::from_slice::<Marker>(&b).ok());
    Ok(match (manifest, marker) {
        (Some(manifest), Some(marker))
            if manifest.run_id == id.as_str() && marker.run_id == id.as_str() =>
        {
            ObjectId::from_hex(marker.run_tip.as_bytes())
                .ok()
                .filter(|tip| repo.object_exists(*tip))
                .filter(|tip| branch.is_none_or(|branch| branch == *tip))
        }
        _ => None,
    })
}

/// Run directories under `runs_dir` of this repository's runs whose refs an interrupted `gc`
/// deleted after it had removed their worktree (none is left inside).
pub fn leftover_run_dirs(repo: &Repo, runs_dir: &Path) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(runs_dir) else {
        return Vec::new();
    };
    let main = repo.main_path();
    entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|dir| {
            if is_tombstone(dir) {
                return dir.is_dir();
            }
            let read = |name: &str| std::fs::read(dir.join(name)).ok();
            let Some(manifest) = read(MANIFEST)
                .and_then(|b| serde_json::from_slice::<Manifest>(&b).ok())
                .filter(|m| Path::new(&m.host_repo_path) == main)
            else {
                return false;
            };
            let marked = read(MARKER)
                .and_then(|b| serde_json::from_slice::<Marker>(&b).ok())
                .is_some_and(|m| m.run_id == manifest.run_id);
            let gone = RunId::parse(&manifest.run_id).is_ok_and(|id| {
                matches!(repo.ref_target(&run::meta_branch(&id)), Ok(None))
                    && matches!(repo.ref_target(&run::run_branch(&id)), Ok(None))
            });
            marked && gone && !dir.join(WORKTREE_DIR).exists()
        })
        .collect()
}

/// Whether the worktree an interrupted `gc` left holds nothing that `run_tip` lacks.
pub fn is_clean(worktree: &Path, run_tip: ObjectId, config: &Config) -> bool {
    workspace(worktree)
        .and_then(|ws| ws.unrecorded(run_tip, config))
        .is_ok_and(|files| files.is_empty())
}

fn workspace(worktree: &Path) -> Result<Workspace> {
    Ok(Workspace::linked(
        Repo::open(worktree)?,
        worktree.to_owned(),
    ))
}

/// Finishes what an interrupted `gc` began for the worktree at `worktree` of run `id`: removes
/// it and its run directory when nothing in it differs from `run_tip`. Returns whether it did.
///
/// Not while the run branch is still there: the mark in the run directory is the only thing
/// that tells that branch for one a gc left (`is_leftover_branch`), so the directory must
/// outlive it. A branch whose deletion failed (a lock the killed gc left on it, say) would
/// otherwise stay behind as an orphan that nothing may delete any more, and the run would
/// never be collected. The next `gc` or `fsck --repair` deletes the branch, then comes here.
pub fn finish(
    repo: &Repo,
    worktree: &Path,
    id: &RunId,
    run_tip: ObjectId,
    config: &Config,
) -> Result<bool> {
    if repo.ref_target(&run::run_branch(id))?.is_some() {
        return Ok(false);
    }
    match worktree_removal::remove_if_clean(repo, &workspace(worktree)?, run_tip, config)? {
        Removal::Kept(_) => Ok(false),
        Removal::Removed => {
            if let Some(dir) = worktree.parent() {
                let _ = remove_run_dir(dir);
            }
            Ok(true)
        }
    }
}
