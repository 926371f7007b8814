//! In-memory tree editing: start from an existing tree, upsert and remove paths, and write only
//! the trees on the changed paths. This keeps a metadata write O(changed paths) however many
//! stages a run has stored.

use gix::objs::tree::EntryKind;

use super::{ObjectId, Repo};
use crate::error::Result;

pub struct TreeEdit<'repo> {
    editor: gix::object::tree::Editor<'repo>,
}

impl Repo {
    /// Starts editing `base` (use [`Repo::empty_tree`] for a new tree).
    pub fn edit_tree(&self, base: ObjectId) -> Result<TreeEdit<'_>> {
        Ok(TreeEdit {
            editor: self.repo.edit_tree(base)?,
        })
    }
}

impl TreeEdit<'_> {
    /// Puts a regular file with `data` at `path`.
    pub fn put_file(&mut self, path: &str, data: &[u8]) -> Result<()> {
        let id = self.editor.repo.write_blob(data)?.detach();
        self.editor.upsert(path, EntryKind::Blob, id)?;
        Ok(())
    }

    /// Puts the existing tree `id` at `path`, replacing whatever was there.
    pub fn put_tree(&mut self, path: &str, id: ObjectId) -> Result<()> {
        self.editor.upsert(path, EntryKind::Tree, id)?;
        Ok(())
    }

    pub fn put_entry(&mut self, path: &str, kind: EntryKind, id: ObjectId) -> Result<()> {
        self.editor.upsert(path, kind, id)?;
        Ok(())
    }

    pub fn remove(&mut self, path: &str) -> Result<()> {
        self.editor.remove(path)?;
        Ok(())
    }

    /// Writes the changed trees and returns the new root.
    pub fn write(mut self) -> Result<ObjectId> {
        Ok(self.editor.write()?.detach())
    }
}
