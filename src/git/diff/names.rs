//! The changed paths alone, as `git diff --no-renames --name-only` and `--name-status` print
//! them, byte for byte: one path a line, quoted as `core.quotePath` says, and for
//! `--name-status` the letter of the change and a tab before it.

use super::{ObjectId, Repo, file_type, quote_path};
use crate::git::error::Result;

impl Repo {
    /// `git diff --name-only OLD NEW` (with `status`: `--name-status`).
    pub(crate) fn diff_names(&self, old: ObjectId, new: ObjectId, status: bool) -> Result<Vec<u8>> {
        let quote_fully = self
            .repo
            .config_snapshot()
            .boolean("core.quotePath")
            .unwrap_or(true);
        let mut out = Vec::new();
        for (path, before, after) in self.changed_files(old, new)? {
            if status {
                // A file that became a symlink (or the reverse) is one change of type, `T`.
                let letter = match (before, after) {
                    (None, _) => b'A',
                    (_, None) => b'D',
                    (Some(a), Some(b)) if file_type(a.1) != file_type(b.1) => b'T',
                    _ => b'M',
                };
                out.extend_from_slice(&[letter, b'\t']);
            }
            out.extend_from_slice(&quote_path(&path, quote_fully));
            out.push(b'\n');
        }
        Ok(out)
    }
}
