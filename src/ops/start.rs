//! Starting a run: the orphan metadata branch with its `init run` commit, the run branch at the
//! base commit, the run directory, and the place the run works in. That is a linked worktree on
//! the run branch, or for a run in place the user's own directory, whose current state (staged,
//! unstaged and untracked files alike) becomes the run's base through a private index. Refs
//! are created only after every object exists, and a failure after that undoes what this call
//! created.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::json;
use sha2::{Digest, Sha256};

use crate::config::{Config, RUN_FILE, Settings};
use crate::error::{Error, Result};
use crate::failpoint;
use crate::format::message;
use crate::format::record::{FORMAT, GitContext, RunRecord, Spec, Start, Status, StatusKind};
use crate::format::run_id::RunId;
use crate::format::store::{Manifest, RunDir};
use crate::format::time::Timestamp;
use crate::git::{ObjectId, RefEdit, Repo, Snapshot, SnapshotSpec};
use crate::input;
use crate::run::workspace;
use crate::run::{self, GRAPH_FILE, RUN_JSON};

#[derive(Clone, Debug, Default)]
pub struct StartRequest {
    pub goal: Option<String>,
    pub workflow: Option<PathBuf>,
    pub labels: Vec<(String, String)>,
    pub base: Option<String>,
    pub run_dir: Option<PathBuf>,
    pub config: Option<PathBuf>,
    /// Work in the repository's own directory instead of a linked worktree.
    pub in_place: bool,
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

pub fn start(repo: &Repo, home: &Path, request: &StartRequest) -> Result<Started> {
    let workflow = request.workflow.as_deref().map(read_workflow).transpose()?;
    // A workflow started here is one this machine wrote: `resume` runs it without asking.
    if let Some((source, _, _)) = &workflow {
        crate::ops::trust::approve(home, source)?;
    }
    let run_toml = match &request.config {
        Some(path) => {
            let bytes = input::read_file(path, "--config", input::MAX_DEFINITION)?;
            Some(String::from_utf8(bytes).map_err(|_| {
                Error::Usage(format!("--config: {} is not UTF-8 text", path.display()))
            })?)
        }
        None => None,
    };
    let settings = match (&run_toml, &request.config) {
        (Some(text), Some(path)) => Some(Settings::parse(text, path)?),
        _ => None,
    };
    let in_place = request.in_place || repo.is_shadow();
    if in_place
        && let Some(dir) = repo.workdir()
        && dir.to_str().is_none()
    {
        // The registration and run.json name the directory in JSON, which holds only UTF-8.
        return Err(Error::Usage(format!(
            "cannot run in place in {}: its path is not UTF-8, which the run's records cannot hold",
            dir.display()
        )));
    }
    if in_place && request.base.is_some() {
        return Err(Error::Usage(
            "--base and --in-place do not go together: a run in place starts from the directory as it is".into(),
        ));
    }
    let id = RunId::mint();
    let now = Timestamp::now();
    let config = Config::load(repo, home, settings.as_ref())?;
    let (base, capture) = if in_place {
        let (base, snapshot) = capture(repo, &id, &config)?;
        (base, Some(snapshot))
    } else {
        (base_commit(repo, request.base.as_deref())?, None)
    };

    let mut record = RunRecord {
        format: FORMAT,
        run_id: id.to_string(),
        spec: Spec {
            run_id: id.to_string(),
            graph: request.graph.clone().unwrap_or_default(),
            workflow_slug: workflow.as_ref().map(|(_, name, _)| name.clone()),
            goal: request.goal.clone(),
            labels: request.labels.iter().cloned().collect(),
            graph_sha256: workflow.as_ref().map(|(_, _, sha)| sha.clone()),
            git: git_context(repo, base, in_place),
            in_place,
            completed_offset: usize::from(request.engine),
            extra: engine_keys(request),
            ..Spec::default()
        },
        graph_source: workflow
            .as_ref()
            .and_then(|(source, _, _)| String::from_utf8(source.clone()).ok()),
        start: Start {
            run_id: id.to_string(),
            start_time: now.rfc3339(),
            run_branch: short_branch(&run::run_branch(&id)),
            meta_branch: short_branch(&run::meta_branch(&id)),
            base_sha: base.to_string(),
            extra: BTreeMap::new(),
        },
        status: Status::new(StatusKind::Running),
        checkpoint: None,
        conclusion: None,
        superseded_by: None,
        extra: BTreeMap::new(),
    };
    let workdir = repo.workdir().map(Path::to_owned);
    if let (true, Some(dir)) = (in_place, &workdir) {
        record.start.extra.insert("in_place".into(), json!(true));
        record.start.extra.insert("workdir".into(), json!(dir));
    }
    for text in request
        .approve
        .map(|texts| texts(&record))
        .unwrap_or_default()
    {
        crate::ops::trust::approve(home, text.as_bytes())?;
    }

    let mut tree = repo.edit_tree(repo.empty_tree())?;
    tree.put_file(RUN_JSON, &record.to_json()?)?;
    if let Some((source, _, _)) = &workflow {
        tree.put_file(GRAPH_FILE, source)?;
    }
    if let Some(text) = &run_toml {
        tree.put_file(RUN_FILE, text.as_bytes())?;
    }
    let tree = tree.write()?;
    let init = repo.write_commit(
        tree,
        &[],
        &message::meta_commit("init run", &id, None),
        &config.identity,
    )?;

    let run_dir = RunDir::create(
        &request
            .run_dir
            .clone()
            .unwrap_or_else(|| RunDir::default_path(&config.runs_dir, &id, now)),
    )?;
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
    if let Err(err) = repo.update_refs(&created, "fabro: start run", &config.identity) {
        let _ = std::fs::remove_dir_all(&run_dir.path);
        workspace::unregister(repo, &id);
        return Err(err.into());
    }
    // Both branches are created in one ref transaction, the run branch first: git-fabro has
    // no boundary between the two refs.
    failpoint::reach("start:refs-moved");
    let finish_local = |capture: Option<Snapshot>| -> Result<PathBuf> {
        run_dir.write_json(
            crate::format::store::MANIFEST,
            &Manifest::new(&record, &repo.main_path()),
        )?;
        if let Some((source, _, _)) = &workflow {
            run_dir.write(GRAPH_FILE, source)?;
        }
        if let Some(text) = &run_toml {
            run_dir.write(RUN_FILE, text.as_bytes())?;
        }
        run_dir.append_event(&json!({
            "event": "run.started", "timestamp": now.rfc3339(), "run_id": id.as_str(), "base_sha": base.to_string(),
        }))?;
        run_dir.write_json("live.json", &crate::ops::checkpoint::live(&record, None))?;
        failpoint::reach("start:run-dir-written");
        match (capture, &workdir) {
            (Some(snapshot), Some(dir)) => {
                workspace::register(repo, &id, dir, &record.spec.labels)?;
                snapshot.write_index()?;
                failpoint::reach("start:index-written");
                Ok(dir.clone())
            }
            _ => {
                repo.add_worktree(&run_dir.worktree(), &run::run_branch(&id), &config.identity)?;
                failpoint::reach("start:worktree-written");
                Ok(run_dir.worktree())
            }
        }
    };
    let worktree = match finish_local(capture) {
        Ok(worktree) => worktree,
        Err(err) => {
            undo(repo, &id, init, base, &config);
            workspace::unregister(repo, &id);
            let _ = std::fs::remove_dir_all(&run_dir.path);
            return Err(err);
        }
    };
    let seed_note = (!in_place)
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

/// Fabro's `GitContext` of a run in a repository: its origin without credentials (empty when
/// it has none), the branch checked out, the base commit, and whether the directory held
/// changes that `HEAD` lacks (known only for a run in place, which captures them).
fn git_context(repo: &Repo, base: ObjectId, in_place: bool) -> Option<GitContext> {
    if repo.is_shadow() {
        return None;
    }
    let head = repo.resolve_commit("HEAD").ok();
    Some(GitContext {
        origin_url: repo
            .config_string("remote.origin.url")
            .map(|url| crate::git::remote::redact_url(&url))
            .unwrap_or_default(),
        branch: repo
            .head_branch()
            .map(|name| short_branch(&name))
            .unwrap_or_default(),
        sha: Some(base.to_string()),
        dirty: match (in_place, head == Some(base)) {
            (true, false) => "dirty",
            (true, true) => "clean",
            (false, _) => "unknown",
        }
        .into(),
        push_outcome: json!({ "type": "not_attempted" }),
    })
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
    let snapshot = repo.snapshot(&SnapshotSpec {
        base: head,
        excludes: &excludes,
        index: Some(&private),
        max_file_size: config.max_file_size,
        paths: &[],
        changed: None,
    });
    let snapshot = match snapshot {
        Ok(snapshot) => snapshot,
        Err(err) => {
            let _ = std::fs::remove_file(&private);
            return Err(err.into());
        }
    };
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

/// Deletes the refs a failed start created, if nobody moved them since.
fn undo(repo: &Repo, id: &RunId, init: ObjectId, base: ObjectId, config: &Config) {
    let edits = [
        RefEdit::Delete {
            name: run::meta_branch(id),
            old: init,
        },
        RefEdit::Delete {
            name: run::run_branch(id),
            old: base,
        },
    ];
    let _ = repo.update_refs(&edits, "fabro: undo failed start", &config.identity);
}

/// `refs/heads/fabro/run/X` -> `fabro/run/X`, the form records and people use.
pub fn short_branch(full: &str) -> String {
    full.strip_prefix("refs/heads/").unwrap_or(full).to_owned()
}

/// `spec.engine` and `spec.inputs`, git-fabro's keys for a run its engine executes.
fn engine_keys(request: &StartRequest) -> BTreeMap<String, serde_json::Value> {
    let mut keys = BTreeMap::new();
    if request.engine {
        keys.insert("engine".into(), json!(ENGINE));
        let inputs: BTreeMap<&str, &str> = request
            .inputs
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        keys.insert("inputs".into(), json!(inputs));
        // A manager loop's child file is named relative to the workflow's directory, which a
        // resume must still know.
        let dir = request.workflow.as_deref().and_then(workflow_dir);
        if let Some(dir) = dir.as_deref().and_then(Path::to_str) {
            keys.insert(WORKFLOW_DIR.into(), json!(dir));
        }
    }
    keys.extend(request.spec_extra.clone());
    keys
}

/// `spec.workflow_dir`: the absolute directory of the workflow file an engine run started with.
pub const WORKFLOW_DIR: &str = "workflow_dir";

fn workflow_dir(workflow: &Path) -> Option<PathBuf> {
    let dir = Some(input::named_dir(workflow)).filter(|d| !d.as_os_str().is_empty());
    std::fs::canonicalize(dir.unwrap_or(Path::new("."))).ok()
}

/// The value of `spec.engine` for runs git-fabro's engine executes.
pub const ENGINE: &str = "git-fabro";
