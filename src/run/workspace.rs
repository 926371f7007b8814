//! Where a run's files live on this machine. A run started normally has a linked worktree on
//! its run branch; a run started in place works in the user's own directory (a checkout, or a
//! directory outside git kept in a shadow repository) and is snapshotted through a private
//! index, so the user's index, HEAD and files stay exactly as they are. In-place runs are
//! registered under `<git common dir>/fabro/in-place/`, which is local to this clone.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::config::Config;
use crate::error::{Error, Result};
use crate::format::record::SESSION_LABEL;
use crate::format::run_id::RunId;
use crate::git::{ObjectId, Repo, Snapshot, SnapshotSpec, UnrecordedFile};
use crate::run;
use crate::run::RunState;
use crate::run::watch::WorktreeWatch;

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
    /// Where files changed since the last snapshot, once the engine asks to be told.
    watch: Option<RefCell<WorktreeWatch>>,
}

/// The record of an in-place run on this clone.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Registration {
    pub run_id: String,
    pub workdir: PathBuf,
    /// The run's labels, so that an agent's hook finds its session's run among many without
    /// reading each run (absent in registrations of older versions).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub labels: std::collections::BTreeMap<String, String>,
}

impl Workspace {
    /// The run's workspace on this machine, if it has one.
    pub fn find(repo: &Repo, id: &RunId) -> Result<Option<Workspace>> {
        let Some((path, place)) = Workspace::locate(repo, id)? else {
            return Ok(None);
        };
        match Workspace::open(repo, id, path.clone(), place) {
            Ok(workspace) => Ok(Some(workspace)),
            // Another command (gc, finish) removed it, or is removing it, since its
            // registration was read: its `.git` or its registration is gone.
            Err(err) => {
                let going = !path.join(".git").exists() || Workspace::locate(repo, id)?.is_none();
                if going { Ok(None) } else { Err(err) }
            }
        }
    }

    /// The workspace of run `id` at `path`.
    fn open(repo: &Repo, id: &RunId, path: PathBuf, place: Place) -> Result<Workspace> {
        // A command run inside the workspace has opened its repository already (and a
        // shadow repository's work tree is the user's directory, which has no `.git`).
        let repo = match repo.workdir() {
            Some(dir) if same_dir(dir, &path) => repo.clone(),
            _ => Repo::open(&path)?,
        };
        let index = (place == Place::InPlace).then(|| private_index(&repo, id));
        Ok(Workspace {
            path,
            repo,
            place,
            index,
            watch: None,
        })
    }

    /// Where a run in place works once it has ended, when its registration went with its
    /// end, and an agent session's run on a clone it did not run in: the directory it ran
    /// in, when that is a work tree of this repository on this machine; else the work tree
    /// this command runs in (a second clone's checkout, which holds the same project), unless
    /// that is a run's worktree. Restoring a session's
    /// checkpoint works so at any time after the session.
    pub fn after_end(repo: &Repo, state: &RunState) -> Result<Option<Workspace>> {
        let record = &state.record;
        // An agent session's run never goes on in another clone (a session there is a run of
        // its own), so it works here too while the clone it ran in has not seen it end.
        let session = record.spec.labels.contains_key(SESSION_LABEL);
        if !record.spec.in_place || !(record.status.kind.is_terminal() || session) {
            return Ok(None);
        }
        let recorded = record.start.workdir().map(Path::to_owned);
        let here = repo.workdir().map(Path::to_owned);
        let path = match (recorded, here) {
            (Some(dir), Some(here)) if same_dir(&dir, &here) => here,
            (Some(dir), _) if same_repository(repo, &dir) => dir,
            (_, Some(here)) if !in_run_worktree(repo) => here,
            _ => return Ok(None),
        };
        Ok(Some(Workspace::open(
            repo,
            &state.id,
            path,
            Place::InPlace,
        )?))
    }

    /// A linked worktree at `path`, opened as `repo`.
    pub fn linked(repo: Repo, path: PathBuf) -> Workspace {
        Workspace {
            repo,
            path,
            place: Place::Worktree,
            index: None,
            watch: None,
        }
    }

    /// Watches the files from now on, so that each later snapshot looks only at the paths
    /// that changed since the one before (see [`crate::run::watch`]). For a process that
    /// snapshots the workspace again and again: the engine.
    pub fn watch(&mut self, config: &Config) {
        let rule_files = self.repo.rule_files();
        let excludes = config.excludes(&self.path);
        self.watch = Some(RefCell::new(WorktreeWatch::start(
            &self.path, rule_files, excludes,
        )));
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
        let look = match &self.watch {
            Some(watch) if paths.is_empty() => Some(watch.borrow_mut().look(&excludes)),
            _ => None,
        };
        let mut snapshot = self.repo.snapshot(&SnapshotSpec {
            base,
            excludes: &excludes,
            index: self.index.as_deref(),
            max_file_size: config.max_file_size,
            paths,
            changed: look.as_ref().and_then(|look| look.changed.as_deref()),
        })?;
        snapshot.watch_look = look.map(|look| look.number);
        Ok(snapshot)
    }

    /// Writes the index a snapshot of this workspace leaves (see [`Snapshot::write_index`]);
    /// the watch then forgets what that snapshot looked at.
    pub fn write_index(&self, snapshot: Snapshot) -> Result<()> {
        let look = snapshot.watch_look;
        let left_out: Vec<Vec<u8>> = snapshot
            .skipped
            .iter()
            .map(|file| file.path.as_bytes().to_vec())
            .collect();
        snapshot.write_index()?;
        if let (Some(watch), Some(look)) = (&self.watch, look) {
            watch.borrow_mut().settled(look, left_out);
        }
        Ok(())
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

/// Whether `dir` is a work tree of the same repository as `repo` (they share a common dir).
fn same_repository(repo: &Repo, dir: &Path) -> bool {
    dir.is_dir()
        && Repo::open(dir)
            .ok()
            .filter(|other| other.workdir().is_some_and(|w| same_dir(w, dir)))
            .is_some_and(|other| same_dir(&other.common_dir(), &repo.common_dir()))
}

/// Whether `repo` is opened in a run's worktree (its branch is a run branch).
pub fn in_run_worktree(repo: &Repo) -> bool {
    repo.head_branch()
        .is_some_and(|branch| branch.starts_with(run::RUN_BRANCH_PREFIX))
}

/// Whether two paths name the same existing directory.
pub fn same_dir(a: &Path, b: &Path) -> bool {
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

pub fn register(
    repo: &Repo,
    id: &RunId,
    workdir: &Path,
    labels: &std::collections::BTreeMap<String, String>,
) -> Result<()> {
    let dir = registry(repo);
    std::fs::create_dir_all(&dir).map_err(Error::io(format!("cannot create {}", dir.display())))?;
    let record = Registration {
        run_id: id.to_string(),
        workdir: workdir.to_owned(),
        labels: labels.clone(),
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
