//! Starting a run: the orphan metadata branch with its `init run` commit, the run branch at the
//! base commit, the run directory, and the place the run works in. That is a linked worktree on
//! the run branch, or for a run in place the user's own directory, whose current state (staged,
//! unstaged and untracked files alike) becomes the run's base through a private index. Refs
//! are created only after every object exists, and a failure at any step undoes what this call
//! wrote, on one path (`Written`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::json;
use sha2::{Digest, Sha256};

use crate::config::{Config, RUN_FILE, Settings};
use crate::error::{Error, Result};
use crate::failpoint;
use crate::format::message;
use crate::format::record::RunRecord;
use crate::format::run_id::RunId;
use crate::format::store::{Manifest, RunDir};
use crate::format::time::Timestamp;
use crate::git::{ObjectId, RefEdit, Repo, Snapshot, SnapshotSpec};
use crate::input;
use crate::run::workspace;
use crate::run::{self, GRAPH_FILE, RUN_JSON};

mod record;

pub use record::{ENGINE, WORKFLOW_DIR};

/// Where a starting run's files are checked out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Checkout {
    /// A linked worktree on the run branch, in the run directory.
    #[default]
    Worktree,
    /// The repository's own directory: the run works in place.
    InPlace,
    /// Nowhere yet: the run is executed on another machine (`submit`), and a `resume`
    /// checks its worktree out where it runs. Checking out here a tree that is removed
    /// again at once would cost a big repository seconds for nothing.
    Elsewhere,
}

impl Checkout {
    /// `--in-place` or not.
    pub fn in_place(yes: bool) -> Checkout {
        if yes {
            Checkout::InPlace
        } else {
            Checkout::Worktree
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct StartRequest {
    pub goal: Option<String>,
    pub workflow: Option<PathBuf>,
    pub labels: Vec<(String, String)>,
    pub base: Option<String>,
    pub run_dir: Option<PathBuf>,
    pub config: Option<PathBuf>,
    /// Where the run's files are checked out.
    pub checkout: Checkout,
    /// The workflow parsed into Fabro's `Graph` shape (the engine parses; the run records it).
    pub graph: Option<serde_json::Value>,
    /// The run is executed by git-fabro's engine, which counts its start node as Fabro does
    /// (`completed_offset` 1) and records `spec.engine`, so that `resume` continues it.
    pub engine: bool,
    /// The workflow's inputs (`--input KEY=VALUE`), recorded as `spec.inputs`.
    pub inputs: Vec<(String, String)>,
    /// More of git-fabro's keys for `spec` (a child run's `parent_run_id`, say).
    pub spec_extra: BTreeMap<String, serde_json::Value>,
    /// The texts of the record that `resume`'s trust gate checks (the engine's
    /// `trusted::approved_at_start`): approved before the run is recorded, as this machine's
    /// own, so that no kill leaves a run of this machine that `resume` refuses.
    pub approve: Option<fn(&RunRecord) -> Vec<String>>,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct Started {
    pub run_id: String,
    pub run_branch: String,
    pub meta_branch: String,
    pub base_sha: String,
    pub run_dir: PathBuf,
    /// Where the run's files are: its linked worktree, or the directory it runs in place.
    pub worktree: PathBuf,
    pub in_place: bool,
    /// What seeding the worktree's build folders did, for the user (see `build_seed`).
    #[serde(skip)]
    pub seed_note: Option<String>,
}

/// The identifier after `digraph`, as a workflow names itself (the engine checks the rest).
fn digraph_name(text: &str) -> String {
    let after = text.split_once("digraph").map_or("", |(_, rest)| rest);
    after
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// Reads a workflow file: its bytes, its name (the file stem) and their SHA-256.
pub fn read_workflow(path: &Path) -> Result<(Vec<u8>, String, String)> {
    let source = input::read_named(path, "--workflow", input::MAX_DEFINITION)?;
    // A stream (`-`, `<(...)`) has no file name worth showing: the workflow names itself.
    let name = if input::is_stream(path) {
        digraph_name(&String::from_utf8_lossy(&source))
    } else {
        path.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let sha = sha256_hex(&source);
    Ok((source, name, sha))
}

pub fn sha256_hex(data: &[u8]) -> String {
    Sha256::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What a start reads from the files its request names: the workflow (its bytes, name and
/// SHA-256) and the run's settings file (its text, and what it sets).
struct Sources {
    workflow: Option<(Vec<u8>, String, String)>,
    run_toml: Option<String>,
    settings: Option<Settings>,
}

impl Sources {
    fn read(request: &StartRequest) -> Result<Self> {
        let workflow = request.workflow.as_deref().map(read_workflow).transpose()?;
        let Some(path) = &request.config else {
            return Ok(Sources {
                workflow,
                run_toml: None,
                settings: None,
            });
        };
        let bytes = input::read_file(path, "--config", input::MAX_DEFINITION)?;
        let text = String::from_utf8(bytes)
            .map_err(|_| Error::Usage(format!("--config: {} is not UTF-8 text", path.display())))?;
        let settings = Settings::parse(&text, path)?;
        Ok(Sources {
            workflow,
            run_toml: Some(text),
            settings: Some(settings),
        })
    }

    fn workflow_source(&self) -> Option<&[u8]> {
        self.workflow
            .as_ref()
            .map(|(source, _, _)| source.as_slice())
    }
}

pub fn start(repo: &Repo, home: &Path, request: &StartRequest) -> Result<Started> {
    let sources = Sources::read(request)?;
    // A workflow started here is one this machine wrote: `resume` runs it without asking.
    if let Some(source) = sources.workflow_source() {
        crate::ops::trust::approve(home, source)?;
    }
    let in_place = request.checkout == Checkout::InPlace || repo.is_shadow();
    if in_place {
        check_in_place(repo, request)?;
    }
    let id = RunId::mint();
    let now = Timestamp::now();
    let config = Config::load(repo, home, sources.settings.as_ref())?;
    let mut written = Written::new(repo, &id, &config);
    let (base, capture) = if in_place {
        let (base, snapshot) = capture(repo, &id, &config)?;
        (base, Some(snapshot))
    } else {
        (base_commit(repo, request.base.as_deref())?, None)
    };
    let record = record::run_record(repo, request, &sources, &id, now, base, in_place);
    for text in request
        .approve
        .map(|texts| texts(&record))
        .unwrap_or_default()
    {
        crate::ops::trust::approve(home, text.as_bytes())?;
    }
    let init = init_commit(repo, &record, &sources, &id, &config)?;
    let run_dir_path = (request.run_dir.clone())
        .unwrap_or_else(|| RunDir::default_path(&config.runs_dir, &id, now));
    let run_dir = RunDir::create(&run_dir_path)?;
    written.run_dir = Some(run_dir.path.clone());
    failpoint::reach("start:objects-written");
    // The run branch first, as in a fork: a crash between the two never leaves a run
    // without its branch.
    let created = [
        RefEdit::Create {
            name: run::run_branch(&id),
            new: base,
        },
        RefEdit::Create {
            name: run::meta_branch(&id),
            new: init,
        },
    ];
    repo.update_refs(&created, "fabro: start run", &config.identity)?;
    written.refs = Some(Created { base, init });
    // Both branches are created in one ref transaction, the run branch first: git-fabro has
    // no boundary between the two refs.
    failpoint::reach("start:refs-moved");
    write_run_dir(repo, &run_dir, &record, &sources, now)?;
    let worktree = match (capture, repo.workdir().filter(|_| in_place)) {
        (Some(snapshot), Some(dir)) => {
            workspace::register(repo, &id, dir, &record.spec.labels)?;
            snapshot.write_index()?;
            failpoint::reach("start:index-written");
            dir.to_owned()
        }
        _ if request.checkout == Checkout::Elsewhere => run_dir.worktree(),
        _ => {
            repo.add_worktree(&run_dir.worktree(), &run::run_branch(&id), &config.identity)?;
            failpoint::reach("start:worktree-written");
            run_dir.worktree()
        }
    };
    written.keep();
    let seed_note = (!in_place && request.checkout == Checkout::Worktree)
        .then(|| crate::ops::build_seed::seed(repo, &worktree, &config))
        .flatten();
    Ok(Started {
        run_id: id.to_string(),
        run_branch: short_branch(&run::run_branch(&id)),
        meta_branch: short_branch(&run::meta_branch(&id)),
        base_sha: base.to_string(),
        worktree,
        run_dir: run_dir.path,
        in_place,
        seed_note,
    })
}

/// Whether this repository and request can run in place.
fn check_in_place(repo: &Repo, request: &StartRequest) -> Result<()> {
    if let Some(dir) = repo.workdir()
        && dir.to_str().is_none()
    {
        // The registration and run.json name the directory in JSON, which holds only UTF-8.
        return Err(Error::Usage(format!(
            "cannot run in place in {}: its path is not UTF-8, which the run's records cannot hold",
            dir.display()
        )));
    }
    if request.base.is_some() {
        return Err(Error::Usage(
            "--base and --in-place do not go together: a run in place starts from the directory as it is".into(),
        ));
    }
    Ok(())
}

/// The metadata branch's first commit: `run.json`, and the workflow and settings files the
/// run started with.
fn init_commit(
    repo: &Repo,
    record: &RunRecord,
    sources: &Sources,
    id: &RunId,
    config: &Config,
) -> Result<ObjectId> {
    let mut tree = repo.edit_tree(repo.empty_tree())?;
    tree.put_file(RUN_JSON, &record.to_json()?)?;
    if let Some(source) = sources.workflow_source() {
        tree.put_file(GRAPH_FILE, source)?;
    }
    if let Some(text) = &sources.run_toml {
        tree.put_file(RUN_FILE, text.as_bytes())?;
    }
    let tree = tree.write()?;
    let message = message::meta_commit("init run", id, None);
    Ok(repo.write_commit(tree, &[], &message, &config.identity)?)
}

/// The run directory's files of a run that starts: the manifest, the workflow and settings,
/// the first event and the live status.
fn write_run_dir(
    repo: &Repo,
    run_dir: &RunDir,
    record: &RunRecord,
    sources: &Sources,
    now: Timestamp,
) -> Result<()> {
    let manifest = Manifest::new(record, &repo.main_path());
    run_dir.write_json(crate::format::store::MANIFEST, &manifest)?;
    if let Some(source) = sources.workflow_source() {
        run_dir.write(GRAPH_FILE, source)?;
    }
    if let Some(text) = &sources.run_toml {
        run_dir.write(RUN_FILE, text.as_bytes())?;
    }
    run_dir.append_event(&json!({
        "event": "run.started", "timestamp": now.rfc3339(), "run_id": record.run_id, "base_sha": record.start.base_sha,
    }))?;
    run_dir.write_json("live.json", &crate::ops::checkpoint::live(record, None))?;
    failpoint::reach("start:run-dir-written");
    Ok(())
}

/// The two branches a start created.
struct Created {
    base: ObjectId,
    init: ObjectId,
}

/// What a start has written so far, undone when it is dropped before `keep`: every failure
/// after the first write takes this one way back. (A kill runs no code; what it leaves is a
/// run that `fsck` and `gc` know.)
struct Written<'a> {
    repo: &'a Repo,
    id: &'a RunId,
    config: &'a Config,
    run_dir: Option<PathBuf>,
    refs: Option<Created>,
    kept: bool,
}

impl<'a> Written<'a> {
    fn new(repo: &'a Repo, id: &'a RunId, config: &'a Config) -> Self {
        Written {
            repo,
            id,
            config,
            run_dir: None,
            refs: None,
            kept: false,
        }
    }

    fn keep(mut self) {
        self.kept = true;
    }
}

impl Drop for Written<'_> {
    fn drop(&mut self) {
        if self.kept {
            return;
        }
        if let Some(created) = &self.refs {
            // Only if nobody moved them since.
            let edits = [
                RefEdit::Delete {
                    name: run::meta_branch(self.id),
                    old: created.init,
                },
                RefEdit::Delete {
                    name: run::run_branch(self.id),
                    old: created.base,
                },
            ];
            let identity = &self.config.identity;
            let _ = (self.repo).update_refs(&edits, "fabro: undo failed start", identity);
        }
        // The registration and private index of a run in place.
        workspace::unregister(self.repo, self.id);
        if let Some(dir) = &self.run_dir {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

fn base_commit(repo: &Repo, base: Option<&str>) -> Result<ObjectId> {
    repo.resolve_commit(base.unwrap_or("HEAD"))
        .map_err(|err| match base {
            None => Error::Usage(
                "HEAD does not name a commit yet; make a first commit or pass --base REV".into(),
            ),
            Some(_) => err.into(),
        })
}

/// The base of a run in place: `HEAD` when the directory matches it exactly, else a commit on
/// top of `HEAD` (or a first commit, outside git) holding the directory as it is. The private
/// index starts as a copy of the user's, so its stat cache is warm from the first snapshot.
fn capture(repo: &Repo, id: &RunId, config: &Config) -> Result<(ObjectId, Snapshot)> {
    let workdir = repo
        .workdir()
        .ok_or_else(|| Error::Usage("a bare repository has no directory to run in place".into()))?;
    let head = repo.resolve_commit("HEAD").ok();
    let private = workspace::private_index(repo, id);
    if let Some(parent) = private.parent() {
        std::fs::create_dir_all(parent)
            .map_err(Error::io(format!("cannot create {}", parent.display())))?;
    }
    if head.is_some() {
        // Without a copy (no index yet), the first snapshot only hashes every file once.
        let _ = std::fs::copy(repo.index_path(), &private);
    }
    let excludes = config.excludes(workdir);
    // A failure from here leaves the private index to the start's `Written`, which removes it.
    let snapshot = repo.snapshot(&SnapshotSpec {
        base: head,
        excludes: &excludes,
        index: Some(&private),
        max_file_size: config.max_file_size,
        paths: &[],
        changed: None,
    })?;
    if let Some(head) = head.filter(|head| repo.commit_tree(*head).ok() == Some(snapshot.tree)) {
        return Ok((head, snapshot));
    }
    let message = format!(
        "fabro({id}): the working directory at the start of the run\n\n{}: {id}\n",
        message::RUN
    );
    let parents: Vec<ObjectId> = head.into_iter().collect();
    let commit = repo.write_commit(snapshot.tree, &parents, &message, &config.identity)?;
    Ok((commit, snapshot))
}

/// `refs/heads/fabro/run/X` -> `fabro/run/X`, the form records and people use.
pub fn short_branch(full: &str) -> String {
    full.strip_prefix("refs/heads/").unwrap_or(full).to_owned()
}
