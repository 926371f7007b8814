//! Making a worktree's files equal a tree, touching only the paths that differ. The caller
//! compares the tree with a snapshot of the worktree, which leaves out ignored and excluded
//! paths, and `restore_plan` keeps only the changes the recovery commit can undo; writing
//! checks once more that no symlink stands in a path's leading directories.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use gix::bstr::{BString, ByteSlice};
use gix::objs::tree::EntryKind;
use serde::Serialize;

use super::restore_plan::{Leading, LeftAlone, leading};
use super::{ObjectId, Repo};
use crate::git::error::{Error, Result};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum PathAction {
    /// The file changed since the target; its content is put back.
    Restore,
    /// The file was deleted since the target; it comes back.
    Recreate,
    /// The file was created since the target; it is removed.
    Remove,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct PathChange {
    /// The path as people read it (a name that is not UTF-8 shows replacement characters).
    pub path: String,
    pub action: PathAction,
    /// The path as the tree holds it, byte for byte: what is written and removed.
    #[serde(skip)]
    pub(super) raw: BString,
    #[serde(skip)]
    target: Option<(EntryKind, ObjectId)>,
}

impl PathChange {
    /// Where this path is in the work tree at `root`.
    pub(super) fn on_disk(&self, root: &Path) -> Result<PathBuf> {
        Ok(root.join(super::fs_path(self.raw.as_bstr())?))
    }
}

impl Repo {
    /// What turns the files of tree `current` into those of tree `target`.
    pub(crate) fn changes_between(
        &self,
        current: ObjectId,
        target: ObjectId,
    ) -> Result<Vec<PathChange>> {
        Ok(self
            .changed_files(current, target)?
            .into_iter()
            .map(|(path, before, after)| PathChange {
                path: path.to_str_lossy().into_owned(),
                raw: path.clone(),
                action: match (before, after) {
                    (None, _) => PathAction::Recreate,
                    (_, None) => PathAction::Remove,
                    _ => PathAction::Restore,
                },
                target: after.map(|(id, kind)| (kind, id)),
            })
            .collect())
    }

    /// Applies `changes` to this worktree: removals first, then writes, each file replaced
    /// atomically. Directories left empty by a removal are removed too. A path whose leading
    /// directory turned out to be a symlink or a file, or whose place is taken by a directory
    /// that is not empty, is left alone and returned: restore never writes through a symlink
    /// and never deletes what no commit holds.
    pub(crate) fn apply_changes(&self, changes: &[PathChange]) -> Result<Vec<LeftAlone>> {
        let root = self
            .workdir()
            .ok_or_else(|| Error::Failed("the run has no work tree".into()))?
            .to_owned();
        let mut left_alone = Vec::new();
        let nothing_removed = HashSet::new();
        for change in changes.iter().filter(|c| c.action == PathAction::Remove) {
            if let Leading::Blocked(reason) = leading(&root, change.raw.as_bstr(), &nothing_removed)
            {
                left_alone.push(LeftAlone::new(&change.path, reason));
                continue;
            }
            let path = change.on_disk(&root)?;
            match fs::remove_file(&path) {
                Ok(()) => remove_empty_parents(&root, &path),
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
                Err(err) => {
                    return Err(Error::io(format!("cannot remove {}", path.display()))(err));
                }
            }
        }
        for change in changes {
            // Submodules and trees have no file content of their own to restore.
            let Some((kind @ (EntryKind::Blob | EntryKind::BlobExecutable | EntryKind::Link), id)) =
                change.target
            else {
                continue;
            };
            // Checked again now that the removals are done: a symlink may stand where the
            // plan saw a directory, and following it would write outside the work tree.
            if let Leading::Blocked(reason) = leading(&root, change.raw.as_bstr(), &nothing_removed)
            {
                left_alone.push(LeftAlone::new(&change.path, reason));
                continue;
            }
            let path = change.on_disk(&root)?;
            if is_full_dir(&path) {
                left_alone.push(LeftAlone::new(
                    &change.path,
                    "a directory holding files no commit of the run holds is there",
                ));
                continue;
            }
            self.write_entry(&path, kind, id)?;
        }
        Ok(left_alone)
    }

    fn write_entry(&self, path: &Path, kind: EntryKind, id: ObjectId) -> Result<()> {
        let context = || format!("cannot write {}", path.display());
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(Error::io(context()))?;
        }
        let data = self.read_blob(id)?;
        let temp = temp_path(path);
        let write = || -> std::io::Result<()> {
            if kind == EntryKind::Link {
                make_symlink(
                    &super::fs_path(data.as_bstr()).map_err(std::io::Error::other)?,
                    &temp,
                )?;
            } else {
                fs::write(&temp, &data)?;
                set_executable(&temp, kind == EntryKind::BlobExecutable)?;
            }
            if fs::symlink_metadata(path).is_ok_and(|meta| meta.is_dir()) {
                fs::remove_dir(path)?; // empty, checked by the caller: nothing is lost
            }
            fs::rename(&temp, path)
        };
        write().map_err(|err| {
            let _ = fs::remove_file(&temp);
            Error::io(context())(err)
        })
    }
}

/// Whether `path` is a real directory (not a symlink to one) with anything in it.
fn is_full_dir(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|meta| meta.is_dir())
        && fs::read_dir(path).is_ok_and(|mut entries| entries.next().is_some())
}

fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.fabro-restore-{}", std::process::id()))
}

fn remove_empty_parents(root: &Path, path: &Path) {
    let mut dir = path.parent();
    while let Some(d) = dir.filter(|d| *d != root && d.starts_with(root)) {
        if fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
}

#[cfg(unix)]
fn make_symlink(target: &Path, at: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, at)
}

#[cfg(not(unix))]
fn make_symlink(target: &Path, at: &Path) -> std::io::Result<()> {
    fs::write(at, target.to_string_lossy().as_bytes())
}

/// Adds execute bits where read bits are, as git does on checkout; a new file already has
/// the umask's permissions otherwise.
#[cfg(unix)]
fn set_executable(path: &Path, executable: bool) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    if !executable {
        return Ok(());
    }
    let mode = fs::metadata(path)?.permissions().mode();
    fs::set_permissions(
        path,
        fs::Permissions::from_mode(mode | ((mode & 0o444) >> 2)),
    )
}

#[cfg(not(unix))]
fn set_executable(_path: &Path, _executable: bool) -> std::io::Result<()> {
    Ok(())
}
