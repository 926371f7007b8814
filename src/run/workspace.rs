//! Where a run's files live on this machine. A run started normally has a linked worktree on
//! its run branch; a run started in place works in the user's own directory (a checkout, or a
//! directory outside git kept in a shadow repository) and is snapshotted through a private
//! index, so the user's index, HEAD and files stay exactly as they are. In-place runs are
//! registered under `<git common dir>/fabro/in-place/`, which is local to this clone.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::config::Config;
use crate::error::{Error, Result};
use crate::format::run_id::RunId;
use crate::git::{ObjectId, Repo, Snapshot, SnapshotSpec, UnrecordedFile};
use crate::run;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Place {
    /// A linked worktree on the run branch.
    Worktree,
    /// The user's own directory, through a private index.
    InPlace,
}

pub struct Workspace {
    pub repo: Repo,
    pub path: PathBuf,
    pub place: Place,
    /// The private index of an in-place run.
    pub index: Option<PathBuf>,
}

/// The record of an in-place run on this clone.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Registration {
    pub run_id: String,
    pub workdir: PathBuf,
}

impl Workspace {
    /// The run's workspace on this machine, if it has one.
    pub fn find(repo: &Repo, id: &RunId) -> Result<Option<Workspace>> {
        let Some((path, place)) = Workspace::locate(repo, id)? else {
            return Ok(None);
        };
        if place == Place::Worktree {
            return Ok(Some(Workspace {
                repo: Repo::open(&path)?,
                path,
                place,
                index: None,
            }));
        }
        // A shadow repository's work tree is the user's directory, which has no `.git`.
        let repo = match repo.workdir() {
            Some(dir) if same_dir(dir, &path) => repo.clone(),
            _ => Repo::open(&path)?,
        };
        let index = Some(private_index(&repo, id));
        Ok(Some(Workspace {
            path,
            repo,
            place,
            index,
        }))
    }

    /// Where the run's workspace is on this machine, if it has one, without opening it: what
    /// a command that only looks for the run's directory beside it needs.
    pub fn locate(repo: &Repo, id: &RunId) -> Result<Option<(PathBuf, Place)>> {
        if let Some(registration) = registration(repo, id)? {
            return Ok(Some((registration.workdir, Place::InPlace)));
        }
        // An unfinished checkout is not the run's files: adopting it would record its missing
        // files as deleted.
        Ok(repo
            .worktree_on(&run::run_branch(id))?
            .filter(|w| w.exists && w.unfinished.is_none())
            .map(|worktree| (worktree.path, Place::Worktree)))
    }

    /// Snapshots the workspace's files on top of `base`.
    pub fn snapshot(
        &self,
        base: Option<ObjectId>,
        config: &Config,
        paths: &[Vec<u8>],
    ) -> Result<Snapshot> {
        let excludes = config.excludes(&self.path);
        Ok(self.repo.snapshot(&SnapshotSpec {
            base,
            excludes: &excludes,
            index: self.index.as_deref(),
            max_file_size: config.max_file_size,
            paths,
        })?)
    }

    /// Every path of the workspace whose content `tip` does not hold byte for byte, ignored,
    /// excluded and oversized files included: what removing the workspace would lose.
    pub fn unrecorded(&self, tip: ObjectId, config: &Config) -> Result<Vec<UnrecordedFile>> {
        let excludes = config.excludes(&self.path);
        Ok(self.repo.unrecorded(
            tip,
            self.index.as_deref(),
            &excludes,
            config.max_file_size,
            &config.build_dirs,
        )?)
    }

    /// Whether the workspace holds changes that the run's tip does not.
    pub fn is_dirty(&self, tip: ObjectId, config: &Config) -> Result<bool> {
        Ok(self.snapshot(Some(tip), config, &[])?.tree != self.repo.commit_tree(tip)?)
    }
}

fn same_dir(a: &Path, b: &Path) -> bool {
    std::fs::canonicalize(a)
        .ok()
        .zip(std::fs::canonicalize(b).ok())
        .is_some_and(|(a, b)| a == b)
}

fn registry(repo: &Repo) -> PathBuf {
    repo.common_dir().join("fabro").join("in-place")
}

/// The private index of an in-place run.
pub fn private_index(repo: &Repo, id: &RunId) -> PathBuf {
    registry(repo).join(format!("{id}.index"))
}

pub fn registration(repo: &Repo, id: &RunId) -> Result<Option<Registration>> {
    let path = registry(repo).join(format!("{id}.json"));
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|err| {
            Error::Corrupt(format!(
                "{} is not a valid registration: {err}",
                path.display()
            ))
        }),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(Error::io(format!("cannot read {}", path.display()))(err)),
    }
}

/// Every in-place run registered on this clone.
pub fn registrations(repo: &Repo) -> Vec<Registration> {
    let Ok(entries) = std::fs::read_dir(registry(repo)) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .filter_map(|e| serde_json::from_slice(&std::fs::read(e.path()).ok()?).ok())
        .collect()
}

pub fn register(repo: &Repo, id: &RunId, workdir: &Path) -> Result<()> {
    let dir = registry(repo);
    std::fs::create_dir_all(&dir).map_err(Error::io(format!("cannot create {}", dir.display())))?;
    let record = Registration {
        run_id: id.to_string(),
        workdir: workdir.to_owned(),
    };
    let path = dir.join(format!("{id}.json"));
    std::fs::write(&path, crate::format::record::pretty(&record))
        .map_err(Error::io(format!("cannot write {}", path.display())))
}

/// Forgets an in-place run on this clone (its private index with it).
pub fn unregister(repo: &Repo, id: &RunId) {
    // The registration, the private index and whatever git-fabro keeps beside that index.
    let prefix = format!("{id}.");
    let Ok(entries) = std::fs::read_dir(registry(repo)) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().starts_with(&prefix) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}
