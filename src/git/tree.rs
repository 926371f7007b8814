//! In-memory tree editing: start from an existing tree, upsert and remove paths, and write only
//! the trees on the changed paths. This keeps a metadata write O(changed paths) however many
//! stages a run has stored.
//!
//! It uses gix's raw editor, which does not re-check every entry of each tree it writes: with
//! a thousand stages that check alone made each metadata write grow with the run. The paths
//! written here are checked where they come from (node ids, attachment names, files found in
//! a work tree).

use gix::bstr::BStr;
use gix::objs::tree::EntryKind;

use super::{ObjectId, Repo};
use crate::git::error::{Error, Result};

pub(crate) struct TreeEdit<'repo> {
    repo: &'repo Repo,
    editor: gix::objs::tree::Editor<'repo>,
}

impl Repo {
    /// Starts editing `base` (use [`Repo::empty_tree`] for a new tree).
    pub(crate) fn edit_tree(&self, base: ObjectId) -> Result<TreeEdit<'_>> {
        Ok(TreeEdit {
            repo: self,
            editor: self.repo.edit_tree(base)?.detach(),
        })
    }
}

impl TreeEdit<'_> {
    /// Puts a regular file with `data` at `path`.
    pub(crate) fn put_file(&mut self, path: &str, data: &[u8]) -> Result<()> {
        let id = self.repo.write_blob(data)?;
        self.put_entry(path, EntryKind::Blob, id)
    }

    /// Puts a regular file at `path` whose content is streamed from the file `source`.
    pub(crate) fn put_file_from(&mut self, path: &str, source: &std::path::Path) -> Result<()> {
        let id = super::objects::write_file_blob(self.repo, source)?;
        self.put_entry(path, EntryKind::Blob, id)
    }

    /// Puts the existing tree `id` at `path`, replacing whatever was there.
    pub(crate) fn put_tree(&mut self, path: &str, id: ObjectId) -> Result<()> {
        self.put_entry(path, EntryKind::Tree, id)
    }

    /// Puts `id` at `path`. Paths are bytes: a file name need not be UTF-8, and it is stored
    /// exactly as the file system has it.
    pub(crate) fn put_entry(
        &mut self,
        path: impl AsRef<[u8]>,
        kind: EntryKind,
        id: ObjectId,
    ) -> Result<()> {
        self.editor
            .upsert(components(path.as_ref()), kind, id)
            .map_err(edit_error)?;
        Ok(())
    }

    pub(crate) fn remove(&mut self, path: impl AsRef<[u8]>) -> Result<()> {
        self.editor
            .remove(components(path.as_ref()))
            .map_err(edit_error)?;
        Ok(())
    }

    /// Writes the changed trees and returns the new root.
    pub(crate) fn write(mut self) -> Result<ObjectId> {
        let repo = self.repo;
        self.editor.write(|tree| repo.write_object(tree))
    }
}

fn components(path: &[u8]) -> impl Iterator<Item = &BStr> {
    path.split(|byte| *byte == b'/').map(BStr::new)
}

fn edit_error(err: impl Into<gix::Error>) -> Error {
    let err: gix::Error = err.into();
    // A subtree that vanished under a `git gc` stays recognisable, so the edit can be retried.
    match err.is_not_found() {
        true => Error::Gix(err),
        false => Error::Failed(format!("cannot edit a tree: {}", super::describe(&err))),
    }
}
