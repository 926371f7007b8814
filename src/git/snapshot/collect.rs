//! What a snapshot takes from what it observed in the work tree: for each path, the tree's
//! edit, the index's change, or its place among the files left out for their size.

use std::fs::Metadata;
use std::path::Path;

use gix::bstr::{BString, ByteSlice};
use gix::objs::tree::EntryKind;
use gix::status::plumbing::index_as_worktree::{Change, EntryStatus};

use super::index::{IndexChange, mode_of, stat_of};
use super::{Edit, SkippedFile, SnapshotSpec, blob};
use crate::git::error::{Error, Result};
use crate::git::observe::Observed;
use crate::git::{ObjectId, Repo};

pub(super) struct Collect<'a, 'p> {
    pub(super) repo: &'a Repo,
    pub(super) pipeline: gix::filter::Pipeline<'p>,
    pub(super) workdir: &'a Path,
    pub(super) index: &'a gix::index::File,
    pub(super) spec: &'a SnapshotSpec<'a>,
    pub(super) edits: Vec<Edit>,
    pub(super) changes: Vec<IndexChange>,
    pub(super) skipped: Vec<SkippedFile>,
}

impl Collect<'_, '_> {
    pub(super) fn take(&mut self, item: Observed) -> Result<()> {
        match item {
            Observed::Tracked {
                entry,
                path,
                status,
            } => self.tracked(entry, path, status),
            Observed::Untracked { path } => self.untracked(path),
            // Nested repositories are not the run's files; ignored ones are never asked for.
            Observed::Repository { .. } | Observed::Ignored { .. } => Ok(()),
        }
    }

    fn tracked(&mut self, entry: usize, path: BString, status: EntryStatus<(), ()>) -> Result<()> {
        match status {
            EntryStatus::NeedsUpdate(stat) => {
                self.changes.push(IndexChange::Stat { entry, stat });
            }
            EntryStatus::Change(Change::Modification {
                executable_bit_changed: false,
                content_change: None,
                set_entry_stat_size_zero,
            }) => {
                if set_entry_stat_size_zero {
                    self.changes.push(IndexChange::SmudgeSize { entry });
                }
            }
            EntryStatus::Change(Change::SubmoduleModification(_)) | EntryStatus::IntentToAdd => {}
            EntryStatus::Conflict { .. } => {
                return Err(Error::Failed(format!(
                    "the work tree has an unresolved merge conflict at {path}; resolve it, then checkpoint"
                )));
            }
            _ if self.spec.excludes.is_excluded(path.as_ref()) => {}
            EntryStatus::Change(Change::Removed) => self.remove(entry, path),
            EntryStatus::Change(_) => {
                if self.too_big(&path) {
                    return Ok(());
                }
                match self.write_blob(&path)? {
                    Some((id, kind, metadata)) => {
                        self.edits.push((path, Some((kind, id))));
                        let stat = stat_of(metadata)?;
                        self.changes.push(IndexChange::Content {
                            entry,
                            id,
                            mode: mode_of(kind),
                            stat,
                        });
                    }
                    None => self.remove(entry, path),
                }
            }
        }
        Ok(())
    }

    fn untracked(&mut self, path: BString) -> Result<()> {
        if self.too_big(&path) {
            return Ok(());
        }
        let Some((id, kind, metadata)) = self.write_blob(&path)? else {
            return Ok(());
        };
        if kind == EntryKind::Commit {
            return Ok(()); // a nested repository is not part of the run's files
        }
        self.edits.push((path.clone(), Some((kind, id))));
        self.changes.push(IndexChange::Add {
            path,
            id,
            mode: mode_of(kind),
            stat: stat_of(metadata)?,
        });
        Ok(())
    }

    fn remove(&mut self, entry: usize, path: BString) {
        self.edits.push((path, None));
        self.changes.push(IndexChange::Remove { entry });
    }

    /// Whether the file is over the size limit, and then left out.
    fn too_big(&mut self, path: &BString) -> bool {
        let size = gix::path::from_bstr(path.as_bstr())
            .ok()
            .and_then(|rel| std::fs::symlink_metadata(self.workdir.join(rel)).ok())
            .map_or(0, |m| m.len());
        let big = size > self.spec.max_file_size;
        if big {
            self.skipped.push(SkippedFile {
                path: path.to_str_lossy().into_owned(),
                size,
            });
        }
        big
    }

    fn write_blob(&mut self, path: &BString) -> Result<Option<(ObjectId, EntryKind, Metadata)>> {
        let (repo, workdir, index) = (self.repo, self.workdir, self.index);
        let pipeline = &mut self.pipeline;
        crate::git::maintenance::retry_write(|| {
            blob::file_to_object(repo, pipeline, workdir, path.as_ref(), index)
        })
    }
}
