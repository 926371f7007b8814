//! Paths a command names, as pathspecs relative to the work tree's root.
//!
//! gix would prefix every pattern with the directory the process runs in; the command line has
//! already resolved its paths against that directory, so they are parsed here with no prefix:
//! each path is resolved exactly once. Patterns are bytes, so a file name that is not UTF-8 is
//! named exactly.

use gix::bstr::{BStr, ByteSlice};
use gix::pathspec::Search;

use super::Repo;
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
