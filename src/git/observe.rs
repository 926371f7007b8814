//! The worktree half of a snapshot: which tracked files may have changed, which stat data is
//! stale, and which untracked files are neither ignored nor excluded. It is `git status`
//! computed in-process, with git-fabro's exclusions given to the directory walk as overrides so
//! that an excluded `node_modules/` is pruned rather than walked.

use std::sync::atomic::AtomicBool;

use gix::bstr::{BStr, BString};
use gix::progress::Discard;
use gix::status::plumbing::{
    index_as_worktree::{EntryStatus, traits::FastEq},
    index_as_worktree_with_renames as status_with_renames,
    index_as_worktree_with_renames::{self as status, Entry, Recorder},
};

use super::{Excludes, Repo};
use crate::git::error::{Error, Result};

/// What the worktree walk reported for one path, owned so the index can be edited afterwards.
pub(super) enum Observed {
    Tracked {
        entry: usize,
        path: BString,
        status: EntryStatus<(), ()>,
    },
    Untracked {
        path: BString,
    },
    /// A nested repository: never captured, but its files are still on disk.
    Repository {
        path: BString,
    },
    /// An ignored or excluded file or directory; reported only when asked for, since a
    /// snapshot never takes them.
    Ignored {
        path: BString,
        is_dir: bool,
    },
}

/// Which untracked entries a worktree walk reports besides the ones a snapshot takes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Walk {
    /// What a snapshot may take.
    Snapshot,
    /// Also ignored and excluded entries: everything that is on disk.
    Everything,
}

impl Repo {
    /// [`Repo::observe_worktree`] of exactly `paths` (each a file or a directory, taken
    /// literally), the only ones a watch of the work tree saw change.
    pub(super) fn observe_paths(
        &self,
        index: &gix::index::State,
        excludes: &Excludes,
        paths: &[Vec<u8>],
    ) -> Result<Vec<Observed>> {
        if paths.is_empty() {
            return Ok(Vec::new());
        }
        let patterns = paths.iter().map(|path| {
            gix::pathspec::Pattern::from_literal(path, gix::pathspec::MagicSignature::empty())
        });
        let root = self
            .workdir()
            .ok_or_else(|| Error::Failed("the run has no work tree".into()))?;
        let pathspec = gix::pathspec::Search::from_specs(patterns, None, root)?;
        // A handful of paths: threads would cost more than they save.
        self.observe(index, excludes, pathspec, Walk::Snapshot, Some(1))
    }

    /// Compares the index with the files on disk, reporting tracked changes, stat refreshes,
    /// nested repositories and untracked files that are neither ignored nor excluded (and, with
    /// [`Walk::Everything`], the ignored and excluded ones too).
    pub(super) fn observe_worktree(
        &self,
        index: &gix::index::State,
        excludes: &Excludes,
        paths: &[Vec<u8>],
        walk: Walk,
    ) -> Result<Vec<Observed>> {
        let pathspec = self.pathspec_search(paths)?;
        self.observe(index, excludes, pathspec, walk, None)
    }

    fn observe(
        &self,
        index: &gix::index::State,
        excludes: &Excludes,
        pathspec: gix::pathspec::Search,
        walk: Walk,
        thread_limit: Option<usize>,
    ) -> Result<Vec<Observed>> {
        use gix::worktree::stack::state::{attributes, ignore};
        let repo = &self.repo;
        let workdir = self
            .workdir()
            .ok_or_else(|| Error::Failed("the run has no work tree".into()))?;
        let attributes = repo
            .attributes(
                index,
                attributes::Source::WorktreeThenIdMapping,
                ignore::Source::WorktreeThenIdMappingIfNotSkipped,
                Some(excludes.search().clone()),
            )?
            .detach();
        let cwd = repo.current_dir();
        let git_dir =
            gix::path::realpath_opts(repo.git_dir(), cwd, gix::path::realpath::MAX_SYMLINKS)
                .map_err(|err| Error::Failed(format!("cannot resolve the git dir: {err}")))?;
        let fs = repo.filesystem_options()?;
        let icase = fs.ignore_case.then(|| index.prepare_icase_backing());
        let resource_cache = gix::diff::resource_cache(
            repo,
            gix::diff::blob::pipeline::Mode::ToGit,
            attributes,
            gix::diff::blob::pipeline::WorktreeRoots {
                old_root: None,
                new_root: Some(workdir.to_owned()),
            },
        )?;
        let mut dirwalk = repo
            .dirwalk_options()?
            .emit_untracked(gix::dir::walk::EmissionMode::Matching);
        if walk == Walk::Everything {
            // An ignored directory comes out whole, without walking into it.
            dirwalk = dirwalk.emit_ignored(Some(gix::dir::walk::EmissionMode::Matching));
        }
        let interrupt = AtomicBool::new(false);
        let mut recorder = Recorder::default();
        status_with_renames(
            index,
            workdir,
            &mut recorder,
            FastEq,
            IgnoreSubmodules,
            repo.objects
                .clone()
                .into_arc()
                .map_err(|err| Error::Failed(format!("{err}")))?,
            &mut Discard,
            status::Context {
                pathspec,
                resource_cache,
                should_interrupt: &interrupt,
                dirwalk: status::DirwalkContext {
                    git_dir_realpath: &git_dir,
                    current_dir: cwd,
                    ignore_case_index_lookup: icase.as_ref(),
                },
            },
            status::Options {
                sorting: None,
                tracked_file_modifications: gix::status::plumbing::index_as_worktree::Options {
                    fs,
                    thread_limit,
                    stat: repo.stat_options()?,
                    fscache: false,
                },
                fscache: false,
                dirwalk: Some(dirwalk.into()),
                rewrites: None,
            },
        )
        .map_err(|err| {
            Error::Failed(format!(
                "cannot read the worktree's status: {}",
                super::describe(&err)
            ))
        })?;

        Ok(recorder.records.into_iter().filter_map(observed).collect())
    }
}

/// What the status walk's record says of its path, when it says anything a snapshot or a
/// watch needs.
fn observed(record: Entry<'_, (), ()>) -> Option<Observed> {
    use gix::dir::entry::{Kind, Status};
    match record {
        Entry::Modification {
            entry_index,
            rela_path,
            status,
            ..
        } => Some(Observed::Tracked {
            entry: entry_index,
            path: rela_path.to_owned(),
            status,
        }),
        Entry::DirectoryContents { entry, .. } => {
            let path = entry.rela_path;
            match (entry.status, entry.disk_kind) {
                (_, None) | (Status::Tracked | Status::Pruned, _) => None,
                (Status::Untracked, Some(Kind::Repository)) => Some(Observed::Repository { path }),
                (Status::Untracked, Some(_)) => Some(Observed::Untracked { path }),
                (Status::Ignored(_), Some(kind)) => Some(Observed::Ignored {
                    path,
                    is_dir: matches!(kind, Kind::Directory | Kind::Repository),
                }),
            }
        }
        Entry::Rewrite { .. } => None,
    }
}

/// Submodules are recorded as they are in the index; their insides are not the run's files.
#[derive(Clone)]
struct IgnoreSubmodules;

impl gix::status::plumbing::index_as_worktree::traits::SubmoduleStatus for IgnoreSubmodules {
    type Output = ();
    fn status(
        &mut self,
        _entry: &gix::index::Entry,
        _rela_path: &BStr,
    ) -> std::result::Result<Option<()>, gix::error::Error> {
        Ok(None)
    }
}
