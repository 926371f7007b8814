//! The run commit's tree: a work tree's files minus excluded paths, computed the way
//! `git add -A && git write-tree` would, but in-process and in O(what changed).
//!
//! The stat cache of an index tells which files may have changed (as `git status` does); only
//! those are hashed and only the trees on their paths are rewritten. The index is then brought
//! up to date with the new tree, so `git status` stays clean and the next snapshot starts warm.
//! A run in a linked worktree uses that worktree's index; a run in place uses a private index,
//! so the user's own index is never touched.

use std::path::Path;

use gix::bstr::{BString, ByteSlice};
use gix::objs::tree::EntryKind;

use super::observe::{Observed, Walk};
use super::{Excludes, ObjectId, Repo};
use crate::git::error::{Error, Result};
use collect::Collect;

mod blob;
mod collect;
mod index;
use index::{apply, has_racy_entries, index_matches, stamp_path, write_stamp};

/// What to snapshot and how.
pub(crate) struct SnapshotSpec<'a> {
    /// The commit the snapshot will be parented on; `None` for a first commit.
    pub base: Option<ObjectId>,
    pub excludes: &'a Excludes,
    /// A private index to use instead of the work tree's own.
    pub index: Option<&'a Path>,
    /// Files larger than this are left out (and reported), so one stray binary cannot bloat
    /// the repository.
    pub max_file_size: u64,
    /// Only these paths (pathspecs relative to the work tree's root, as bytes); all when empty.
    pub paths: &'a [Vec<u8>],
    /// What a watch of the work tree saw: the only paths (relative to its root) that may
    /// differ from the index since a snapshot last wrote it. Trusted only while the index is
    /// the one that snapshot wrote; `None` when nothing is known.
    pub changed: Option<&'a [Vec<u8>]>,
}

/// A file a snapshot left out because of its size.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub(crate) struct SkippedFile {
    pub path: String,
    pub size: u64,
}

/// A snapshot ready to be committed, and the index that matches it.
pub(crate) struct Snapshot {
    pub tree: ObjectId,
    /// Paths whose content went into the tree anew (added, modified or removed).
    pub changed_paths: usize,
    pub skipped: Vec<SkippedFile>,
    /// Which look of a work tree watch this snapshot was taken on, for the watch's owner to
    /// settle once the index is written; set by that owner.
    pub watch_look: Option<u64>,
    index: gix::index::File,
    /// Whether the index, once written, holds exactly the tree: not so after a snapshot of
    /// some paths of an index the stamp did not vouch for (what is staged elsewhere stays in
    /// the index, not in the tree), or one that left out a staged change under an excluded
    /// path. Only then may the stamp vouch for it, or the next snapshot would skip what the
    /// index still holds.
    index_is_tree: bool,
    /// Whether the index on disk already is what writing it would leave there: the one
    /// git-fabro wrote for this very tree, with nothing to record and no racy entry.
    index_current: bool,
}

impl Snapshot {
    /// Writes the index so that it matches the snapshot's tree. Call it only after the commit
    /// holding the tree is on the branch, so that the index never runs ahead of it.
    pub(crate) fn write_index(mut self) -> Result<()> {
        if self.index_current {
            return Ok(());
        }
        if let Some(parent) = self.index.path().parent() {
            std::fs::create_dir_all(parent)
                .map_err(Error::io(format!("cannot create {}", parent.display())))?;
        }
        self.index.remove_tree();
        self.index.remove_resolve_undo();
        self.index
            .write(gix::index::write::Options::default())
            .map_err(|err| {
                Error::Failed(format!("cannot write the index: {}", super::describe(&err)))
            })?;
        // Only a cache: without it the next snapshot compares the index with the tree.
        match self.index.checksum() {
            Some(checksum) if self.index_is_tree => {
                let _ = write_stamp(self.index.path(), self.tree, checksum);
            }
            _ => {
                let _ = std::fs::remove_file(stamp_path(self.index.path()));
            }
        }
        Ok(())
    }
}

pub(super) type Edit = (BString, Option<(EntryKind, ObjectId)>);

impl Repo {
    /// Snapshots this repository's work tree on top of `spec.base`.
    pub(crate) fn snapshot(&self, spec: &SnapshotSpec) -> Result<Snapshot> {
        let base_tree = match spec.base {
            Some(commit) => self.commit_tree(commit)?,
            None => self.empty_tree(),
        };
        let mut index = self.index_for(spec.index, base_tree)?;
        let stamped = index_matches(&index, base_tree);
        let (edits, left_out_staged) = if stamped {
            (Vec::new(), false)
        } else {
            self.staged_edits(base_tree, &index, spec)?
        };
        let workdir = self
            .workdir()
            .ok_or_else(|| Error::Failed("the run has no work tree".into()))?
            .to_owned();
        let observed = match spec.changed {
            // Every path that moved on disk is named, and the index is one a snapshot wrote
            // (the stamp holds), so every other path is as the index says.
            Some(changed) if stamped && spec.paths.is_empty() => {
                self.observe_paths(&index, spec.excludes, changed)?
            }
            _ => self.observe_worktree(&index, spec.excludes, spec.paths, Walk::Snapshot)?,
        };
        if !spec.paths.is_empty() {
            self.refuse_unmatched(spec.paths, &index, &observed, &edits)?;
        }
        let mut collect = Collect {
            repo: self,
            pipeline: self.filter_pipeline(&index, base_tree)?,
            workdir: &workdir,
            index: &index,
            spec,
            edits,
            changes: Vec::new(),
            skipped: Vec::new(),
        };
        for item in observed {
            collect.take(item)?;
        }
        let Collect {
            edits,
            changes,
            skipped,
            ..
        } = collect;
        // A path may be edited twice: as staged (the index against the base; a checkpoint
        // killed before it wrote the index leaves the previous one) and as found on disk. The
        // run holds what is on disk, so the last edit of a path wins, whatever order the tree
        // editor applies removals and additions in.
        let edits = last_edit_per_path(edits);
        let changed_paths = edits.len();
        let tree = self.apply_edits(base_tree, &edits)?;
        // A snapshot of some paths leaves every other entry as it was: the index still holds
        // the tree exactly when it held the base tree before (the stamp vouched for it), so a
        // write before each file edit does not cost the next snapshot a whole comparison.
        let index_is_tree = (spec.paths.is_empty() || stamped) && !left_out_staged;
        let index_current = stamped
            && index_is_tree
            && changes.is_empty()
            && tree == base_tree
            && !has_racy_entries(&index, self.repo.stat_options()?);
        apply(&mut index, changes);
        Ok(Snapshot {
            tree,
            changed_paths,
            skipped,
            watch_look: None,
            index,
            index_is_tree,
            index_current,
        })
    }

    /// The index to compare with: the private one when given (created from the base tree the
    /// first time), else the work tree's own.
    /// The filters (`.gitattributes`, `core.autocrlf`) that turn work tree files into blobs.
    /// gix's own pipeline would read and verify the repository's index once more for the
    /// attributes it holds; the snapshot's index is already in hand.
    fn filter_pipeline(
        &self,
        index: &gix::index::File,
        base_tree: ObjectId,
    ) -> Result<gix::filter::Pipeline<'_>> {
        let repo = &self.repo;
        if repo.is_bare() {
            return Ok(repo.filter_pipeline(Some(base_tree))?.0);
        }
        let source = gix::worktree::stack::state::attributes::Source::WorktreeThenIdMapping;
        let attributes = repo.attributes_only(index, source)?;
        Ok(gix::filter::Pipeline::new(repo, attributes.detach())?)
    }

    pub(super) fn index_for(
        &self,
        private: Option<&Path>,
        base_tree: ObjectId,
    ) -> Result<gix::index::File> {
        let repo = &self.repo;
        let index = match private {
            // The private index is git-fabro's own, written whole and renamed into place, so its
            // trailing checksum is not hashed again on every read (as git reads its index): at
            // 100,000 entries that is a 9 MB SHA-1 per snapshot.
            Some(path) => {
                match gix::index::File::at(path, repo.object_hash(), true, Default::default()) {
                    Ok(index) => index,
                    Err(_) => {
                        let mut index = repo.index_from_tree(&base_tree)?;
                        index.set_path(path);
                        index
                    }
                }
            }
            None => match repo.open_index() {
                Ok(index) => index,
                Err(_) => repo.index_from_tree(&base_tree)?,
            },
        };
        Ok(index)
    }

    /// Differences between the base tree and the index (what `git add` staged) count like
    /// work tree changes. Also says whether a staged change under an excluded path was left out.
    fn staged_edits(
        &self,
        base_tree: ObjectId,
        index: &gix::index::File,
        spec: &SnapshotSpec,
    ) -> Result<(Vec<Edit>, bool)> {
        let mut left_out = false;
        let edits = self
            .index_changes(base_tree, index, spec.paths)?
            .into_iter()
            .filter(|(path, _)| {
                let excluded = spec.excludes.is_excluded(path.as_ref());
                left_out |= excluded;
                !excluded
            })
            .collect();
        Ok((edits, left_out))
    }

    /// Every path (limited to `paths`, all when empty) where the index differs from `tree`,
    /// with what the index holds there.
    pub(super) fn index_changes(
        &self,
        tree: ObjectId,
        index: &gix::index::File,
        paths: &[Vec<u8>],
    ) -> Result<Vec<Edit>> {
        use gix::diff::index::{Action, ChangeRef};
        let mut edits = Vec::new();
        let mut search = self.pathspec_search(paths)?;
        self.repo.tree_index_status(
            &tree,
            index,
            None,
            gix::status::tree_index::TrackRenames::Disabled,
            |change, _, _| {
                let (path, new) = match change {
                    ChangeRef::Addition {
                        location,
                        entry_mode,
                        id,
                        ..
                    }
                    | ChangeRef::Modification {
                        location,
                        entry_mode,
                        id,
                        ..
                    } => (
                        location,
                        entry_mode
                            .to_tree_entry_mode()
                            .map(|m| (m.kind(), id.into_owned())),
                    ),
                    ChangeRef::Deletion { location, .. } => (location, None),
                    ChangeRef::Rewrite { .. } => return Ok(Action::Continue(())),
                };
                let named = search
                    .pattern_matching_relative_path(
                        path.as_ref(),
                        Some(false),
                        &mut |_, _, _, _| false,
                    )
                    .is_some_and(|m| !m.is_excluded());
                if named {
                    edits.push((path.into_owned(), new));
                }
                Ok(Action::Continue(()))
            },
        )?;
        Ok(edits)
    }

    fn apply_edits(&self, base_tree: ObjectId, edits: &[Edit]) -> Result<ObjectId> {
        if edits.is_empty() {
            return Ok(base_tree);
        }
        // Removals first: when a file or symlink became a directory (or the reverse), the walk
        // may report the new entries before the old path's removal, which would then take
        // them away again.
        let mut editor = self.edit_tree(base_tree)?;
        for (path, _) in edits.iter().filter(|(_, new)| new.is_none()) {
            editor.remove(path)?;
        }
        for (path, (kind, id)) in edits.iter().filter_map(|(p, new)| Some((p, new.as_ref()?))) {
            editor.put_entry(path, *kind, *id)?;
        }
        editor.write()
    }

    /// A named path that matches no file is refused, as `git add` refuses it, rather than
    /// saving nothing and reporting success.
    fn refuse_unmatched(
        &self,
        paths: &[Vec<u8>],
        index: &gix::index::File,
        observed: &[Observed],
        edits: &[Edit],
    ) -> Result<()> {
        let found: Vec<&gix::bstr::BStr> = observed
            .iter()
            .filter_map(|item| match item {
                Observed::Untracked { path } => Some(path.as_bstr()),
                // Nothing a snapshot takes: naming only these saves nothing.
                Observed::Tracked { .. }
                | Observed::Repository { .. }
                | Observed::Ignored { .. } => None,
            })
            .chain(edits.iter().map(|(path, _)| path.as_bstr()))
            .collect();
        match self.unmatched_path(paths, index, &found)? {
            Some(path) => Err(Error::Usage(format!(
                "pathspec '{}' did not match any of the run's files (ignored and excluded files are never saved)",
                path.as_bstr()
            ))),
            None => Ok(()),
        }
    }
}

/// `edits` with only the last edit of each path, in their order.
fn last_edit_per_path(edits: Vec<Edit>) -> Vec<Edit> {
    let mut seen = std::collections::HashSet::new();
    let mut kept: Vec<Edit> = edits
        .into_iter()
        .rev()
        .filter(|(path, _)| seen.insert(path.clone()))
        .collect();
    kept.reverse();
    kept
}
