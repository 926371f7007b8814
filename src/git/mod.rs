//! The only door to git. Everything that reads or writes objects, refs, trees, worktrees or
//! config goes through `Repo`, which wraps gix; the domain modules never see gix types beyond
//! `ObjectId`. Keeping gix behind this door confines its frequent API changes to one folder.

mod build_output;
mod commit_cache;
mod diff;
mod error;
mod excludes;
pub(crate) mod flock;
mod history;
mod land;
mod maintenance;
mod object_format;
mod objects;
mod observe;
mod open_options;
mod pathspec;
mod reach;
pub(crate) mod redirects;
mod ref_writer;
mod reflog;
mod refs;
pub(crate) mod remote;
mod restore;
mod restore_plan;
pub(crate) mod shadow;
mod signing;
mod snapshot;
mod transport;
mod tree;
mod unfinished;
mod unrecorded;
mod unsafe_paths;
mod worktree;

use std::path::{Path, PathBuf};

pub use commit_cache::{CommitCache, Learned};
pub(crate) use diff::{FileStat, text_patch};
pub(crate) use error::describe;
pub use error::{Error, Result};
pub(crate) use excludes::Excludes;
pub use gix::ObjectId;
pub(crate) use history::for_each_trailer;
pub use history::{CommitInfo, FirstParentWalk};
pub(crate) use land::Merged;
use object_format::not_a_repository;
pub use objects::Identity;
pub(crate) use reflog::{Movers, ReflogMarks};
pub(crate) use refs::RefEdit;
pub(crate) use restore::{PathAction, PathChange};
pub(crate) use restore_plan::LeftAlone;
pub(crate) use snapshot::{SkippedFile, Snapshot, SnapshotSpec};
pub(crate) use transport::{RefReport, Transfer};
pub(crate) use tree::TreeEdit;
pub(crate) use unrecorded::UnrecordedFile;
pub(crate) use worktree::Worktree;

/// The most memory the cache of decoded objects takes, per thread.
const OBJECT_CACHE: usize = 1 << 20;

/// What reads the commits of a timeline walk. gix's object store reads every object; with
/// `Own`, the default, a run's timeline is read first from the commit cache beside it, which
/// holds each commit exactly as the store does (docs/decisions.md, "Timelines keep the commits
/// they read"). `GIT_FABRO_OBJECT_READER=gix` turns the cache off, so that anything the cache
/// gets wrong shows as a difference; the tests run both ways.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ObjectReader {
    Gix,
    Own,
}

impl ObjectReader {
    /// `gix` or `own`, as `GIT_FABRO_OBJECT_READER` names them.
    pub fn parse(name: &str) -> Option<ObjectReader> {
        match name {
            "gix" => Some(ObjectReader::Gix),
            "own" => Some(ObjectReader::Own),
            _ => None,
        }
    }
}

static GIX_ONLY: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Chooses what reads timelines from here on, for the whole process.
pub(crate) fn use_object_reader(reader: ObjectReader) {
    GIX_ONLY.store(
        reader == ObjectReader::Gix,
        std::sync::atomic::Ordering::Relaxed,
    );
}

/// What reads timelines ([`use_object_reader`]).
pub(crate) fn object_reader() -> ObjectReader {
    match GIX_ONLY.load(std::sync::atomic::Ordering::Relaxed) {
        true => ObjectReader::Gix,
        false => ObjectReader::Own,
    }
}

#[derive(Clone)]
pub struct Repo {
    repo: gix::Repository,
    /// The work tree, absolute whatever path the repository was found by.
    workdir: Option<PathBuf>,
}

impl Repo {
    /// Finds the repository that contains the current directory, `cwd`, as git does. gix is
    /// handed `.`, so the paths it opens stay short and relative, as git's do: every one of a
    /// command's hundred or so file operations would otherwise walk the directories of `cwd`
    /// again. What this type hands out (work tree, git dirs) is absolute all the same.
    pub(crate) fn discover_current(cwd: &Path) -> Result<Repo> {
        let repo = gix::ThreadSafeRepository::discover_opts(
            ".",
            Default::default(),
            open_options::trust_map(),
        )
        .map_err(|_| not_a_repository(cwd))?;
        Repo::checked(repo.into())
    }

    /// Opens the repository or linked worktree whose work tree or git dir is `path`.
    pub fn open(path: &Path) -> Result<Repo> {
        let repo =
            gix::open_opts(path, open_options::options()).map_err(|_| not_a_repository(path))?;
        Repo::checked(repo)
    }

    fn checked(mut repo: gix::Repository) -> Result<Repo> {
        open_options::settle(&mut repo);
        // A command reads the same few objects (a run's metadata tree, its newest commits)
        // several times over; without a cache each read of a loose one opens and inflates it.
        repo.object_cache_size_if_unset(OBJECT_CACHE);
        let storage = repo.config_snapshot().string("extensions.refStorage");
        if storage.is_some_and(|s| s != "files") {
            return Err(Error::Failed(
                "this repository keeps its refs in reftable, which git-fabro cannot update safely yet".into(),
            ));
        }
        let workdir = repo.workdir().map(absolute);
        Ok(Repo { repo, workdir })
    }

    /// The work tree of this repository or linked worktree, if it has one.
    pub(crate) fn workdir(&self) -> Option<&Path> {
        self.workdir.as_deref()
    }

    /// The git dir of this work tree alone (`.git/worktrees/<name>` for a linked worktree).
    pub(crate) fn git_dir(&self) -> PathBuf {
        absolute(self.repo.git_dir())
    }

    /// The git dir shared by the main worktree and all linked worktrees.
    pub(crate) fn common_dir(&self) -> PathBuf {
        absolute(self.repo.common_dir())
    }

    /// The main worktree's directory, or the common git dir of a bare repository.
    pub(crate) fn main_path(&self) -> PathBuf {
        match self.repo.main_repo() {
            Ok(main) => main
                .workdir()
                .map_or_else(|| absolute(main.git_dir()), absolute),
            Err(_) => self.common_dir(),
        }
    }

    /// The index file of this repository's work tree.
    pub(crate) fn index_path(&self) -> PathBuf {
        absolute(&self.repo.index_path())
    }

    /// Whether this is a shadow repository git-fabro keeps for a directory outside git.
    pub(crate) fn is_shadow(&self) -> bool {
        self.repo.git_dir().join(shadow::MARKER).is_file()
    }

    /// The full name of the branch `HEAD` points at, if any.
    pub(crate) fn head_branch(&self) -> Option<String> {
        self.repo
            .head_name()
            .ok()
            .flatten()
            .map(|name| name.as_bstr().to_string())
    }

    /// Resolves a revision such as `HEAD`, a branch or a sha prefix to a commit.
    pub(crate) fn resolve_commit(&self, rev: &str) -> Result<ObjectId> {
        let id = self
            .repo
            .rev_parse_single(rev)
            .map_err(|_| Error::Usage(format!("cannot resolve {rev:?} to a commit")))?;
        let object = id
            .object()
            .map_err(|_| Error::Usage(format!("cannot resolve {rev:?} to a commit")))?;
        let commit = object
            .peel_to_commit()
            .map_err(|_| Error::Usage(format!("{rev:?} does not name a commit")))?;
        Ok(commit.id)
    }

    pub(crate) fn config_string(&self, key: &str) -> Option<String> {
        self.repo
            .config_snapshot()
            .string(key)
            .map(|v| v.to_string())
    }

    /// A boolean as git reads one (`true`, `yes`, `on`, `1`, a key with no value, ...).
    pub(crate) fn config_bool(&self, key: &str) -> Result<Option<bool>> {
        self.repo.config_snapshot().try_boolean(key).map_err(|_| {
            Error::Usage(format!(
                "{key} in git config is not a boolean: use true or false"
            ))
        })
    }

    /// Every value of a multi-valued key, in the order git reads them.
    pub(crate) fn config_strings(&self, key: &str) -> Vec<String> {
        self.repo
            .config_snapshot()
            .strings(key)
            .map(|values| values.iter().map(ToString::to_string).collect())
            .unwrap_or_default()
    }

    /// A path value, with `~/` expanded as git does.
    pub(crate) fn config_path(&self, key: &str) -> Option<PathBuf> {
        let value = self.config_string(key)?;
        match value.strip_prefix("~/") {
            Some(rest) => std::env::var_os("HOME").map(|home| PathBuf::from(home).join(rest)),
            None => Some(PathBuf::from(value)),
        }
    }

    pub(crate) fn object_exists(&self, id: ObjectId) -> bool {
        self.repo.has_object(id)
    }
}

/// `path` made absolute, with the `..` that discovery from a subdirectory leaves
/// (`/repo/sub/..`) taken out: the path is recorded (an in-place run's registration, its
/// manifest) and compared with others. Relative paths here are relative to the current
/// directory, which the system gives without symlinks, so dropping a component for each `..`
/// names the same directory.
fn absolute(path: &Path) -> PathBuf {
    let Ok(path) = std::path::absolute(path) else {
        return path.to_owned();
    };
    let mut clean = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                clean.pop();
            }
            std::path::Component::CurDir => {}
            other => clean.push(other),
        }
    }
    clean
}

/// A tree's path (bytes) as the file system names it. Every byte string is a path on Unix;
/// elsewhere one that is not UTF-8 cannot be named, and is refused rather than mangled.
fn fs_path(path: &gix::bstr::BStr) -> Result<std::borrow::Cow<'_, Path>> {
    gix::path::from_bstr(path)
        .map_err(|_| Error::Failed(format!("{path:?} cannot be a file name on this system")))
}
