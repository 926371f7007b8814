//! Which folders of a work tree hold build output: a folder named as one of the build folders
//! (`target`, `node_modules`, ...; see `config::worktrees`) that git itself ignores, at any
//! depth. Both halves are needed: a folder git tracks or would take is the user's work, and an
//! ignored folder under another name (a `.env/`, `secrets/`) may be the only copy of something.

use std::path::Path;
use std::sync::atomic::AtomicBool;

use gix::bstr::{BStr, ByteSlice};
use gix::dir::walk::{EmissionMode, delegate::Collect};
use gix::index::entry::Mode;
use gix::worktree::stack::state::ignore::Source;

use super::Repo;
use crate::git::error::{Error, Result};

/// The kind of the entry at `path` (relative to `workdir`) when its name is in `names` and it
/// is a directory or a symbolic link (removing a link deletes nothing it points to), never a
/// file that happens to share the name: `Some(true)` for a directory.
fn named_folder(workdir: &Path, path: &BStr, names: &[String]) -> Option<bool> {
    let name = path.rsplit_str("/").next().unwrap_or_default();
    if !names.iter().any(|n| n.as_bytes() == name) {
        return None;
    }
    let kind = std::fs::symlink_metadata(workdir.join(path.to_str_lossy().as_ref()))
        .ok()?
        .file_type();
    (kind.is_dir() || kind.is_symlink()).then_some(kind.is_dir())
}

impl Repo {
    /// Whether the entry at `path` is build output: a build folder that git's own rules
    /// ignore (the run's exclusions, which name `target/` and `node_modules/` whether or not
    /// git ignores them, do not count).
    pub(super) fn is_build_output(&self, path: &BStr, names: &[String]) -> Result<bool> {
        let path = path.trim_end_with(|c| c == '/').as_bstr();
        let workdir = self.workdir().map(Path::to_owned).unwrap_or_default();
        match named_folder(&workdir, path, names) {
            Some(is_dir) => self.git_ignores(&path.to_str_lossy(), is_dir),
            None => Ok(false),
        }
    }

    /// The build folders of this work tree that are real directories (a symbolic link is
    /// skipped: copying its target would share it), as paths relative to the work tree.
    pub(crate) fn ignored_build_folders(&self, names: &[String]) -> Result<Vec<String>> {
        let workdir = self.workdir().map(Path::to_owned).unwrap_or_default();
        let index = self
            .repo
            .index_or_empty()
            .map_err(|err| Error::Failed(format!("cannot read the index: {err}")))?;
        let options = self
            .repo
            .dirwalk_options()?
            .emit_ignored(Some(EmissionMode::Matching));
        let mut found = Collect::default();
        let interrupt = AtomicBool::new(false);
        let no_patterns: [&BStr; 0] = [];
        self.repo
            .dirwalk(&index, no_patterns, &interrupt, options, &mut found)?;
        let mut folders: Vec<String> = found
            .unorded_entries
            .into_iter()
            .filter(|(entry, _)| matches!(entry.status, gix::dir::entry::Status::Ignored(_)))
            .map(|(entry, _)| entry.rela_path)
            .filter(|path| named_folder(&workdir, path.as_ref(), names) == Some(true))
            .map(|path| path.to_str_lossy().into_owned())
            .collect();
        folders.sort();
        Ok(folders)
    }

    /// Whether git ignores a directory (or, with `is_dir` false, a symbolic link) at `path`
    /// (relative to the work tree) in this work tree, by its own rules (`.gitignore` files,
    /// `info/exclude`, `core.excludesFile`).
    pub(crate) fn git_ignores(&self, path: &str, is_dir: bool) -> Result<bool> {
        let index = self
            .repo
            .index_or_empty()
            .map_err(|err| Error::Failed(format!("cannot read the index: {err}")))?;
        let mut stack =
            self.repo
                .excludes(&index, None, Source::WorktreeThenIdMappingIfNotSkipped)?;
        let platform = stack
            .at_path(path, Some(if is_dir { Mode::DIR } else { Mode::SYMLINK }))
            .map_err(|err| Error::Failed(format!("cannot read the ignore rules: {err}")))?;
        Ok(platform.is_excluded())
    }
}
