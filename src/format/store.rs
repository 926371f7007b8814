//! The local run directory (FORMAT.md, Local run directory): a working area beside git that
//! holds the worktree and files engines like to tail. Git stays the durable store: everything
//! here can be rebuilt from the run's refs, so writes here are atomic but best-effort once the
//! refs have moved.

use std::cell::LazyCell;
use std::collections::HashMap;
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::ops::Deref;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::format::record::{RunRecord, pretty};
use crate::format::run_id::RunId;
use crate::format::time::Timestamp;

pub const MANIFEST: &str = "manifest.json";
pub const WORKTREE_DIR: &str = "worktree";

/// `manifest.json`: what the run is, for tools that look at the directory alone. It reads as
/// Fabro's `RunSpec` (the run's spec, flattened in) and as the run-directory manifest Fabro
/// documents (`workflow_name`, `goal`, `start_time`, `node_count`, `edge_count`, ...).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Manifest {
    pub run_id: String,
    #[serde(default)]
    pub workflow_name: String,
    #[serde(default)]
    pub goal: String,
    pub start_time: String,
    #[serde(default)]
    pub node_count: usize,
    #[serde(default)]
    pub edge_count: usize,
    pub run_branch: String,
    pub meta_branch: String,
    pub base_sha: String,
    /// The main directory of the repository (clone) the run belongs to.
    #[serde(alias = "repository")]
    pub host_repo_path: String,
    /// Fabro's `RunSpec` keys: settings, graph, labels, git, in_place, ...
    #[serde(flatten)]
    pub spec: serde_json::Map<String, serde_json::Value>,
}

impl Manifest {
    pub fn new(record: &RunRecord, repository: &Path) -> Manifest {
        let mut record = record.clone();
        crate::format::fabro::complete(&mut record);
        let count = |key: &str| {
            record.spec.graph.get(key).map_or(0, |v| {
                v.as_object()
                    .map(|o| o.len())
                    .or(v.as_array().map(Vec::len))
                    .unwrap_or(0)
            })
        };
        let mut spec = match serde_json::to_value(&record.spec) {
            Ok(serde_json::Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        };
        spec.remove("run_id");
        spec.remove("goal");
        Manifest {
            run_id: record.run_id.clone(),
            workflow_name: record.spec.workflow_name().unwrap_or_default(),
            goal: record.spec.goal().unwrap_or_default(),
            start_time: record.start.start_time.clone(),
            node_count: count("nodes"),
            edge_count: count("edges"),
            run_branch: record.start.run_branch.clone(),
            meta_branch: record.start.meta_branch.clone(),
            base_sha: record.start.base_sha.clone(),
            host_repo_path: repository.display().to_string(),
            spec,
        }
    }
}

#[derive(Clone, Debug)]
pub struct RunDir {
    pub path: PathBuf,
}

impl RunDir {
    /// `<runs dir>/<YYYYMMDD>-<RUN_ID>`.
    pub fn default_path(runs_dir: &Path, id: &RunId, started: Timestamp) -> PathBuf {
        runs_dir.join(format!("{}-{id}", started.yyyymmdd()))
    }

    /// Finds this clone's run directory of run `id`: `named` when it holds the run (the
    /// caller was told of it, as `resume -- COMMAND` tells its command in `$FABRO_RUN_DIR`),
    /// next to the run's worktree, else in the runs directory.
    /// Clones of one repository share the fabro home, so a directory counts only when its
    /// manifest names `repository` (this clone's main path): another clone's copy of the same
    /// run is never read, held or removed from here.
    pub fn locate(
        runs_dir: &Path,
        id: &RunId,
        named: Option<&Path>,
        worktree: Option<&Path>,
        repository: impl FnOnce() -> PathBuf,
    ) -> Option<RunDir> {
        // Most lookups end beside the worktree: the runs directory is listed only when not.
        let listing = LazyCell::new(|| RunsListing::read(runs_dir));
        Self::locate_listed(&listing, id, named, worktree, repository)
    }

    /// [`RunDir::locate`] in a runs directory listed already. `repository` is asked for at
    /// most once, and only when a manifest must be checked against it: finding a
    /// repository's main path can mean opening it a second time.
    pub fn locate_listed(
        listing: &impl Deref<Target = RunsListing>,
        id: &RunId,
        named: Option<&Path>,
        worktree: Option<&Path>,
        repository: impl FnOnce() -> PathBuf,
    ) -> Option<RunDir> {
        let repository = LazyCell::new(repository);
        let ours = |dir: &Path| {
            read_manifest(dir).is_some_and(|m| {
                m.run_id == id.as_str() && Path::new(&m.host_repo_path) == *repository
            })
        };
        if let Some(dir) = named.filter(|dir| ours(dir)) {
            return Some(RunDir {
                path: dir.to_owned(),
            });
        }
        if let Some(parent) = worktree.and_then(Path::parent)
            && parent.join(MANIFEST).is_file()
        {
            return Some(RunDir {
                path: parent.to_owned(),
            });
        }
        listing.of(id).find(|path| ours(path)).map(|path| RunDir {
            path: path.to_owned(),
        })
    }

    /// Whether some directory [`RunDir::locate_listed`] may find for run `id` holds a file
    /// `name`. When none does, neither does the one it finds, and a listing of many runs
    /// learns that without reading a manifest.
    pub fn may_hold(
        listing: &RunsListing,
        id: &RunId,
        named: Option<&Path>,
        worktree: Option<&Path>,
        name: &str,
    ) -> bool {
        let beside_worktree = worktree.and_then(Path::parent);
        named
            .into_iter()
            .chain(beside_worktree)
            .chain(listing.of(id).filter(|dir| Some(*dir) != beside_worktree))
            .any(|dir| dir.join(name).exists())
    }

    /// Where this clone rebuilds run `id`'s directory: the default path, or when that holds
    /// something already (another clone's copy of the run, say), the same with `-2`, `-3`...
    pub fn free_path(runs_dir: &Path, id: &RunId, started: Timestamp) -> PathBuf {
        let default = Self::default_path(runs_dir, id, started);
        let is_free = |path: &Path| {
            fs::read_dir(path).map_or_else(
                |err| err.kind() == std::io::ErrorKind::NotFound,
                |mut entries| entries.next().is_none(),
            )
        };
        std::iter::once(default.clone())
            .chain((2..).map(|n| {
                let mut name = default.as_os_str().to_owned();
                name.push(format!("-{n}"));
                PathBuf::from(name)
            }))
            .find(|path| is_free(path))
            .unwrap_or(default)
    }

    /// Creates the directory; an existing one must be empty, so no other run's files are mixed in.
    pub fn create(path: &Path) -> Result<RunDir> {
        if path.exists()
            && fs::read_dir(path)
                .map(|mut d| d.next().is_some())
                .unwrap_or(true)
        {
            return Err(Error::Usage(format!(
                "run directory {} already exists and is not empty",
                path.display()
            )));
        }
        fs::create_dir_all(path).map_err(Error::io(format!("cannot create {}", path.display())))?;
        let path = fs::canonicalize(path)
            .map_err(Error::io(format!("cannot resolve {}", path.display())))?;
        Ok(RunDir { path })
    }

    /// Opens a run directory, creating it if needed (for rebuilding one from git).
    pub fn open(path: &Path) -> Result<RunDir> {
        fs::create_dir_all(path).map_err(Error::io(format!("cannot create {}", path.display())))?;
        let path = fs::canonicalize(path)
            .map_err(Error::io(format!("cannot resolve {}", path.display())))?;
        Ok(RunDir { path })
    }

    pub fn worktree(&self) -> PathBuf {
        self.path.join(WORKTREE_DIR)
    }

    /// Writes `name` atomically (a temporary file renamed into place).
    pub fn write(&self, name: &str, data: &[u8]) -> Result<()> {
        self.replace(name, |temp| fs::File::create(temp)?.write_all(data))
    }

    /// Copies the file `source` to `name`, streamed (a node's output may be gigabytes).
    pub fn copy(&self, name: &str, source: &Path) -> Result<()> {
        self.replace(name, |temp| fs::copy(source, temp).map(drop))
    }

    /// Whether `name` in the directory is the very file `source` (a node's output streamed
    /// into its stage folder), which a copy onto itself would destroy.
    pub fn holds(&self, name: &str, source: &Path) -> bool {
        use std::os::unix::fs::MetadataExt;
        match (fs::metadata(self.path.join(name)), fs::metadata(source)) {
            (Ok(ours), Ok(theirs)) => ours.dev() == theirs.dev() && ours.ino() == theirs.ino(),
            _ => false,
        }
    }

    /// Fills a temporary file beside `name`, then renames it over `name`.
    fn replace(&self, name: &str, fill: impl FnOnce(&Path) -> std::io::Result<()>) -> Result<()> {
        let target = self.path.join(name);
        // The run directory itself exists; a stage folder may not yet.
        if let Some(parent) = target.parent().filter(|parent| *parent != self.path) {
            fs::create_dir_all(parent)
                .map_err(Error::io(format!("cannot create {}", parent.display())))?;
        }
        let temp = target.with_file_name(format!(
            ".{}.tmp-{}",
            file_name(&target),
            std::process::id()
        ));
        // No fsync: the rename keeps readers from seeing a torn file, and after a power
        // loss the directory is rebuilt from git, which is the durable store.
        let write = fill(&temp).and_then(|()| fs::rename(&temp, &target));
        write.map_err(|err| {
            let _ = fs::remove_file(&temp);
            Error::io(format!("cannot write {}", target.display()))(err)
        })
    }

    pub fn write_json(&self, name: &str, value: &impl Serialize) -> Result<()> {
        self.write(name, &pretty(value))
    }

    /// Appends one event to `progress.jsonl` as a single line (one `write` with `O_APPEND`, so
    /// concurrent writers do not interleave within a line).
    pub fn append_event(&self, event: &serde_json::Value) -> Result<()> {
        let path = self.path.join("progress.jsonl");
        let mut line = serde_json::to_vec(event).unwrap_or_default();
        line.push(b'\n');
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(&line))
            .map_err(Error::io(format!("cannot append to {}", path.display())))
    }

    /// `nodes/<node>` for the first visit, `nodes/<node>-visit_<N>` after.
    pub fn node_dir(node: &str, visit: u64) -> String {
        if visit <= 1 {
            format!("nodes/{node}")
        } else {
            format!("nodes/{node}-visit_{visit}")
        }
    }
}

fn read_manifest(dir: &Path) -> Option<Manifest> {
    serde_json::from_slice(&fs::read(dir.join(MANIFEST)).ok()?).ok()
}

/// The entries of the runs directory, read once for commands that look for the directories
/// of many runs (reading it again per run costs a listing of every run for each), indexed by
/// the run id their names end with.
pub struct RunsListing {
    entries: Vec<(String, PathBuf)>,
    by_id: HashMap<String, Vec<usize>>,
}

impl RunsListing {
    pub fn read(runs_dir: &Path) -> RunsListing {
        let entries: Vec<(String, PathBuf)> = fs::read_dir(runs_dir)
            .map(|dir| {
                dir.flatten()
                    .map(|entry| {
                        (
                            entry.file_name().to_string_lossy().into_owned(),
                            entry.path(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let mut by_id: HashMap<String, Vec<usize>> = HashMap::new();
        for (index, (name, _)) in entries.iter().enumerate() {
            // `<date>-<id>` or `<date>-<id>-<n>`: the id is the last part or the one before.
            let mut parts = name.rsplit('-');
            let last = parts.next().unwrap_or_default();
            let mut keys = vec![last];
            if !last.is_empty() && last.bytes().all(|b| b.is_ascii_digit()) {
                keys.extend(parts.next());
            }
            keys.dedup();
            for key in keys {
                by_id.entry(key.to_owned()).or_default().push(index);
            }
        }
        RunsListing { entries, by_id }
    }

    /// The directories whose names say they hold run `id`, in the order the listing gave.
    fn of<'a>(&'a self, id: &'a RunId) -> impl Iterator<Item = &'a Path> + 'a {
        self.by_id
            .get(id.as_str())
            .into_iter()
            .flatten()
            .map(|&index| &self.entries[index])
            .filter(move |(name, _)| names_run(name, id))
            .map(|(_, path)| path.as_path())
    }
}

/// Whether a directory name is `<date>-<id>` or `<date>-<id>-<n>`, as [`RunDir::free_path`] names them.
fn names_run(name: &str, id: &RunId) -> bool {
    let suffix = format!("-{id}");
    name.ends_with(&suffix)
        || name.rsplit_once('-').is_some_and(|(head, n)| {
            head.ends_with(&suffix) && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())
        })
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}
