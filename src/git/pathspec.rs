//! Paths a command names, as pathspecs relative to the work tree's root.
//!
//! gix would prefix every pattern with the directory the process runs in; the command line has
//! already resolved its paths against that directory, so they are parsed here with no prefix:
//! each path is resolved exactly once. Patterns are bytes, so a file name that is not UTF-8 is
//! named exactly.

use gix::bstr::{BStr, ByteSlice};
use gix::pathspec::Search;

use super::{ObjectId, PathChange, Repo};
use crate::git::error::{Error, Result};

impl Repo {
    /// A search for `paths` (relative to the work tree's root); it matches everything when
    /// `paths` is empty.
    pub(super) fn pathspec_search(&self, paths: &[Vec<u8>]) -> Result<Search> {
        let defaults = self.repo.pathspec_defaults()?;
        let patterns = paths
            .iter()
            .map(|path| {
                gix::pathspec::parse(path, defaults).map_err(|err| {
                    Error::Usage(format!(
                        "invalid path {}: {}",
                        path.as_bstr(),
                        super::describe(&err)
                    ))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let root = self
            .workdir()
            .ok_or_else(|| Error::Failed("the run has no work tree".into()))?;
        Ok(Search::from_specs(patterns, None, root)?)
    }

    /// The first of `paths` that matches none of `candidates` (the index's entries, the
    /// untracked files found and the paths edited), as `git add` refuses a pathspec that
    /// matches no file.
    pub(super) fn unmatched_path<'a>(
        &self,
        paths: &'a [Vec<u8>],
        index: &gix::index::State,
        others: &[&BStr],
    ) -> Result<Option<&'a [u8]>> {
        for path in paths {
            let mut search = self.pathspec_search(std::slice::from_ref(path))?;
            let prefix = search.common_prefix().to_owned();
            let mut matches = |candidate: &BStr| {
                search
                    .pattern_matching_relative_path(candidate, Some(false), &mut |_, _, _, _| false)
                    .is_some_and(|m| !m.is_excluded())
            };
            let tracked = index
                .prefixed_entries(prefix.as_ref())
                .unwrap_or_default()
                .iter()
                .any(|entry| matches(entry.path(index)));
            if !tracked && !others.iter().any(|candidate| matches(candidate)) {
                return Ok(Some(path));
            }
        }
        Ok(None)
    }
}

impl Repo {
    /// Keeps the changes of a restore to tree `target` that `paths` (pathspecs relative to the
    /// root, as `git restore --source` takes them) match. Like git, a path that names no file
    /// of `target` nor of `current` (the worktree as a snapshot records it) is refused, and so
    /// is a target that holds a path git's checkout refuses, before its entries are read.
    pub(crate) fn changes_under(
        &self,
        changes: Vec<PathChange>,
        paths: &[Vec<u8>],
        current: ObjectId,
        target: ObjectId,
    ) -> Result<Vec<PathChange>> {
        if let Some(entry) = self.find_unsafe_entry(target, &mut Default::default())? {
            return Err(entry.into_error(target));
        }
        let in_target = self.repo.index_from_tree(&target)?;
        let in_current = self.repo.index_from_tree(&current)?;
        let current_paths: Vec<&BStr> = in_current
            .entries()
            .iter()
            .map(|entry| entry.path(&in_current))
            .collect();
        if let Some(path) = self.unmatched_path(paths, &in_target, &current_paths)? {
            return Err(Error::Usage(format!(
                "path {} matches no file of the target or of the run's files",
                path.as_bstr()
            )));
        }
        let mut search = self.pathspec_search(paths)?;
        Ok(changes
            .into_iter()
            .filter(|change| {
                search
                    .pattern_matching_relative_path(
                        change.raw.as_bstr(),
                        Some(false),
                        &mut |_, _, _, _| false,
                    )
                    .is_some_and(|m| !m.is_excluded())
            })
            .collect())
    }
}
