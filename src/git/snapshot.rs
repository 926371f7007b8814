//! The run commit's tree: a worktree's files minus excluded paths, computed the way
//! `git add -A && git write-tree` would, but in-process and in O(what changed).
//!
//! The stat cache of the worktree's index tells which files may have changed (as `git status`
//! does); only those are hashed and only the trees on their paths are rewritten. The index is
//! then brought up to date with the new tree, so `git status` in the worktree stays clean and
//! the next snapshot starts warm. Exclusions are fed to the directory walk as overrides, so an
//! excluded `node_modules/` is pruned rather than walked.

use std::sync::atomic::AtomicBool;

use gix::bstr::{BStr, BString, ByteSlice};
use gix::index::entry::{Mode, Stat};
use gix::objs::tree::EntryKind;
use gix::progress::Discard;
use gix::status::plumbing::{
    index_as_worktree::{Change, EntryStatus, traits::FastEq},
    index_as_worktree_with_renames as status_with_renames,
    index_as_worktree_with_renames::{self as status, Entry, Recorder},
};

use super::{ObjectId, Repo};
use crate::error::{Error, Result};

/// Directory names never staged, at any depth (FORMAT.md, Run branch).
pub const DEFAULT_EXCLUDED_DIRS: &[&str] = &[
    "node_modules",
    ".pnpm-store",
    ".npm",
    "target",
    ".next",
    "__pycache__",
    ".venv",
    "venv",
    ".cache",
    ".tox",
    ".pytest_cache",
    ".mypy_cache",
    "dist",
];

/// Paths a snapshot leaves out, on top of `.gitignore`: the default directories and the
/// configured `exclude_globs`, both in gitignore syntax.
#[derive(Clone, Debug)]
pub struct Excludes {
    search: gix::ignore::Search,
}

impl Excludes {
    pub fn new(globs: &[String]) -> Excludes {
        let patterns = DEFAULT_EXCLUDED_DIRS
            .iter()
            .map(|dir| format!("{dir}/"))
            .chain(globs.iter().cloned());
        Excludes {
            search: gix::ignore::Search::from_overrides(
                patterns,
                gix::ignore::search::Ignore {
                    support_precious: false,
                },
            ),
        }
    }

    /// Whether `path` (a file) or any directory above it is excluded.
    pub fn is_excluded(&self, path: &BStr) -> bool {
        let case = gix::glob::pattern::Case::Sensitive;
        let matches = |candidate: &BStr, is_dir| {
            self.search
                .pattern_matching_relative_path(candidate, Some(is_dir), case)
                .is_some_and(|m| !m.pattern.is_negative())
        };
        path.char_indices()
            .filter(|(_, _, c)| *c == '/')
            .any(|(start, _, _)| matches(path[..start].as_bstr(), true))
            || matches(path, false)
    }
}

/// A snapshot ready to be committed, and the worktree index that matches it.
pub struct Snapshot {
    pub tree: ObjectId,
    /// Paths whose content went into the tree anew (added, modified or removed).
    pub changed_paths: usize,
    index: gix::index::File,
}

impl Snapshot {
    /// Writes the worktree's index so that it matches the snapshot's tree. Call it only after
    /// the commit holding the tree is on the branch, so that the index never runs ahead of it.
    pub fn write_index(mut self) -> Result<()> {
        self.index.remove_tree();
        self.index.remove_resolve_undo();
        self.index
            .write(gix::index::write::Options::default())
            .map_err(|err| {
                Error::Failed(format!(
                    "cannot write the worktree index: {}",
                    super::describe(&err)
                ))
            })
    }
}

enum IndexChange {
    Content {
        entry: usize,
        id: ObjectId,
        mode: Mode,
        stat: Stat,
    },
    Stat {
        entry: usize,
        stat: Stat,
    },
    SmudgeSize {
        entry: usize,
    },
    Remove {
        entry: usize,
    },
    Add {
        path: BString,
        id: ObjectId,
        mode: Mode,
        stat: Stat,
    },
}

/// What the worktree walk reported for one path, owned so the index can be edited afterwards.
enum Observed {
    Tracked {
        entry: usize,
        path: BString,
        status: EntryStatus<(), ()>,
    },
    Untracked {
        path: BString,
    },
}

impl Repo {
    /// Snapshots this worktree on top of `base` (the commit the snapshot will be parented on).
    pub fn snapshot(&self, base: ObjectId, excludes: &Excludes) -> Result<Snapshot> {
        let repo = &self.repo;
        let base_tree = self.commit_tree(base)?;
        let mut index = match repo.open_index() {
            Ok(index) => index,
            Err(_) => repo.index_from_tree(&base_tree)?,
        };
        let mut edits: Vec<(BString, Option<(EntryKind, ObjectId)>)> = Vec::new();

        // Staged differences between the base and the index count like worktree changes.
        repo.tree_index_status(
            &base_tree,
            &index,
            None,
            gix::status::tree_index::TrackRenames::Disabled,
            |change, _, _| {
                use gix::diff::index::ChangeRef;
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
                    ChangeRef::Rewrite { .. } => return Ok(gix::diff::index::Action::Continue(())),
                };
                if !excludes.is_excluded(path.as_ref()) {
                    edits.push((path.into_owned(), new));
                }
                Ok(gix::diff::index::Action::Continue(()))
            },
        )?;

        let observed = self.observe_worktree(&index, excludes)?;
        let (mut pipeline, _) = repo.filter_pipeline(Some(base_tree))?;
        let mut changes = Vec::new();
        for item in observed {
            match item {
                Observed::Tracked {
                    entry,
                    path,
                    status,
                } => match status {
                    EntryStatus::NeedsUpdate(stat) => {
                        changes.push(IndexChange::Stat { entry, stat });
                    }
                    EntryStatus::Change(Change::Modification {
                        executable_bit_changed: false,
                        content_change: None,
                        set_entry_stat_size_zero,
                    }) => {
                        if set_entry_stat_size_zero {
                            changes.push(IndexChange::SmudgeSize { entry });
                        }
                    }
                    EntryStatus::Change(Change::SubmoduleModification(_))
                    | EntryStatus::IntentToAdd => {}
                    EntryStatus::Conflict { .. } => {
                        return Err(Error::Failed(format!(
                            "the worktree has an unresolved merge conflict at {path}; resolve it, then checkpoint"
                        )));
                    }
                    EntryStatus::Change(Change::Removed) => {
                        if !excludes.is_excluded(path.as_ref()) {
                            edits.push((path, None));
                            changes.push(IndexChange::Remove { entry });
                        }
                    }
                    EntryStatus::Change(_) => {
                        if excludes.is_excluded(path.as_ref()) {
                            continue;
                        }
                        match pipeline.worktree_file_to_object(path.as_ref(), &index)? {
                            Some((id, kind, metadata)) => {
                                edits.push((path, Some((kind, id))));
                                let stat = stat_of(metadata)?;
                                changes.push(IndexChange::Content {
                                    entry,
                                    id,
                                    mode: mode_of(kind),
                                    stat,
                                });
                            }
                            None => {
                                edits.push((path, None));
                                changes.push(IndexChange::Remove { entry });
                            }
                        }
                    }
                },
                Observed::Untracked { path } => {
                    if let Some((id, kind, metadata)) =
                        pipeline.worktree_file_to_object(path.as_ref(), &index)?
                    {
                        if kind == EntryKind::Commit {
                            continue; // a nested repository is not part of the run's files
                        }
                        edits.push((path.clone(), Some((kind, id))));
                        changes.push(IndexChange::Add {
                            path,
                            id,
                            mode: mode_of(kind),
                            stat: stat_of(metadata)?,
                        });
                    }
                }
            }
        }

        let changed_paths = edits.len();
        let tree = if edits.is_empty() {
            base_tree
        } else {
            let mut editor = self.edit_tree(base_tree)?;
            for (path, new) in &edits {
                let path = path.to_str_lossy();
                match new {
                    Some((kind, id)) => editor.put_entry(&path, *kind, *id)?,
                    None => editor.remove(&path)?,
                }
            }
            editor.write()?
        };
        apply(&mut index, changes);
        Ok(Snapshot {
            tree,
            changed_paths,
            index,
        })
    }

    /// Compares the index with the files on disk, reporting tracked changes, stat refreshes and
    /// untracked files that are neither ignored nor excluded.
    fn observe_worktree(
        &self,
        index: &gix::index::State,
        excludes: &Excludes,
    ) -> Result<Vec<Observed>> {
        use gix::worktree::stack::state::{attributes, ignore};
        let repo = &self.repo;
        let workdir = repo
            .workdir()
            .ok_or_else(|| Error::Failed("the run has no work tree".into()))?;
        let attributes = repo
            .attributes(
                index,
                attributes::Source::WorktreeThenIdMapping,
                ignore::Source::WorktreeThenIdMappingIfNotSkipped,
                Some(excludes.search.clone()),
            )?
            .detach();
        let (pathspec, _) = repo
            .pathspec(
                false,
                None::<&str>,
                true,
                index,
                attributes::Source::WorktreeThenIdMapping,
            )?
            .into_parts();
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
        let dirwalk = repo
            .dirwalk_options()?
            .emit_untracked(gix::dir::walk::EmissionMode::Matching);
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
                    thread_limit: None,
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

        let mut observed = Vec::with_capacity(recorder.records.len());
        for record in recorder.records {
            match record {
                Entry::Modification {
                    entry_index,
                    rela_path,
                    status,
                    ..
                } => {
                    observed.push(Observed::Tracked {
                        entry: entry_index,
                        path: rela_path.to_owned(),
                        status,
                    });
                }
                Entry::DirectoryContents { entry, .. } => {
                    if entry.status == gix::dir::entry::Status::Untracked
                        && !matches!(
                            entry.disk_kind,
                            Some(gix::dir::entry::Kind::Repository) | None
                        )
                    {
                        observed.push(Observed::Untracked {
                            path: entry.rela_path,
                        });
                    }
                }
                Entry::Rewrite { .. } => {}
            }
        }
        Ok(observed)
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

fn apply(index: &mut gix::index::File, changes: Vec<IndexChange>) {
    let mut removed = vec![false; index.entries().len()];
    let mut added = false;
    for change in changes {
        match change {
            IndexChange::Content {
                entry,
                id,
                mode,
                stat,
            } => {
                let e = &mut index.entries_mut()[entry];
                e.id = id;
                e.mode = mode;
                e.stat = stat;
            }
            IndexChange::Stat { entry, stat } => index.entries_mut()[entry].stat = stat,
            IndexChange::SmudgeSize { entry } => index.entries_mut()[entry].stat.size = 0,
            IndexChange::Remove { entry } => removed[entry] = true,
            IndexChange::Add {
                path,
                id,
                mode,
                stat,
            } => {
                index.dangerously_push_entry(
                    stat,
                    id,
                    gix::index::entry::Flags::empty(),
                    mode,
                    path.as_ref(),
                );
                added = true;
            }
        }
    }
    if removed.iter().any(|r| *r) {
        index.remove_entries(|idx, _, _| removed.get(idx).copied().unwrap_or(false));
    }
    if added {
        index.sort_entries();
    }
}

fn mode_of(kind: EntryKind) -> Mode {
    match kind {
        EntryKind::BlobExecutable => Mode::FILE_EXECUTABLE,
        EntryKind::Link => Mode::SYMLINK,
        EntryKind::Commit => Mode::COMMIT,
        EntryKind::Tree => Mode::DIR,
        EntryKind::Blob => Mode::FILE,
    }
}

/// The index's stat data for a file, from the metadata taken before its content was read: a
/// write during the read then shows as a changed stat and is hashed again next time.
#[cfg(unix)]
fn stat_of(md: std::fs::Metadata) -> Result<Stat> {
    use gix::index::entry::stat::Time;
    use std::os::unix::fs::MetadataExt;
    // The index stores 32-bit fields; truncation is what git does too.
    Ok(Stat {
        mtime: Time {
            secs: md.mtime() as u32,
            nsecs: md.mtime_nsec() as u32,
        },
        ctime: Time {
            secs: md.ctime() as u32,
            nsecs: md.ctime_nsec() as u32,
        },
        dev: md.dev() as u32,
        ino: md.ino() as u32,
        uid: md.uid(),
        gid: md.gid(),
        size: md.size() as u32,
    })
}

/// Without unix metadata the entry gets an empty stat, which only means it is hashed again.
#[cfg(not(unix))]
fn stat_of(_md: std::fs::Metadata) -> Result<Stat> {
    Ok(Stat::default())
}
