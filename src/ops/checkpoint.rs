//! The checkpoint cycle: one completed node becomes a metadata commit (the updated `run.json`
//! and the stage's files, written by editing the previous tree) and a run commit (the
//! worktree's files) that names it in its trailers. Both branches move in one compare-and-swap
//! transaction, so a concurrent checkpoint of the same run either wins whole or loses whole.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;
use serde_json::{Value, json};

use crate::config::Config;
use crate::error::{Error, Result};
use crate::failpoint;
use crate::format::message;
use crate::format::node::{NodeId, StageStatus};
use crate::format::record::{Checkpoint, RunRecord};
use crate::format::redact::Redactor;
use crate::format::stages;
use crate::format::store::RunDir;
use crate::format::time::Timestamp;
use crate::format::usage::Usage;
use crate::git::{ObjectId, Repo, SkippedFile, Snapshot};
use crate::run::workspace::Workspace;
use crate::run::{RUN_JSON, RunState};

mod local;
mod stage;

pub use local::live;

/// How often a checkpoint is tried again when an object it read vanished under it.
pub const VANISHED_TRIES: u32 = 3;

/// Makes `try_once` again, up to [`VANISHED_TRIES`] times, while it fails on an object that
/// `git gc` moved under it ([`crate::git::Error::is_vanished_object`]): a checkpoint that
/// failed before moving its branches recorded nothing, and reading the run again finds it.
pub fn retrying_vanished<T>(mut try_once: impl FnMut() -> Result<T>) -> Result<T> {
    let mut tries = 0;
    loop {
        match try_once() {
            Err(err) if err.is_vanished_object() && tries < VANISHED_TRIES => tries += 1,
            done => return done,
        }
    }
}

#[derive(Clone, Debug)]
pub struct CheckpointRequest {
    pub node: NodeId,
    pub status: StageStatus,
    pub next: Option<NodeId>,
    pub context: Vec<(String, Value)>,
    pub attachments: Vec<(String, Attachment)>,
    /// Fabro's `Outcome` of the node for `node_outcomes`; `{"status"}` when absent.
    pub outcome: Option<Value>,
    /// What the stage's `status.json` says besides its outcome.
    pub notes: Option<String>,
    pub failure_reason: Option<String>,
    /// False for a node Fabro's engine records without a run commit (its start node): the
    /// metadata branch gets the checkpoint, the run branch stays where it is.
    pub run_commit: bool,
    /// Record the node's change to the work as the stage file `diff.patch`, as Fabro's engine
    /// does in git mode (left out when the node changed nothing).
    pub diff_patch: bool,
    /// How long the node ran, for the stage's `status.json` (the engine knows; a harness may not).
    pub duration_ms: Option<u64>,
    /// The models, tokens and tool calls of an agent's work, when it reported them.
    pub usage: Option<Usage>,
    /// What the engine's walk records beyond this node; nothing for a checkpoint by hand.
    pub walk: WalkUpdate,
    /// The run commit keeps the files of the one before: a run whose files nobody tracks
    /// (a store's thread without `--track-files`) has no worktree to snapshot.
    pub unchanged_files: bool,
    /// Folders put into the metadata commit beside the stage (a store's `thread/`).
    pub meta_trees: Vec<(String, ObjectId)>,
}

impl CheckpointRequest {
    /// A checkpoint by hand (`git fabro checkpoint`, an agent's hook): it moves the run
    /// branch, and holds no outcome, notes, diff.patch or walk of the engine's.
    pub fn by_hand(
        node: NodeId,
        status: StageStatus,
        context: Vec<(String, Value)>,
        attachments: Vec<(String, Attachment)>,
    ) -> CheckpointRequest {
        CheckpointRequest {
            node,
            status,
            next: None,
            context,
            attachments,
            outcome: None,
            notes: None,
            failure_reason: None,
            run_commit: true,
            diff_patch: false,
            duration_ms: None,
            usage: None,
            walk: WalkUpdate::default(),
            unchanged_files: false,
            meta_trees: Vec::new(),
        }
    }
}

/// A stage file's content: bytes in memory, or a file on disk (a node's output, which may be
/// gigabytes) that is streamed into git and into the run directory, never read whole.
#[derive(Clone, Debug)]
pub enum Attachment {
    Bytes(Vec<u8>),
    File(PathBuf),
}

impl Attachment {
    /// The output a process wrote to `path`; a process that never started left none.
    pub fn output(path: PathBuf) -> Attachment {
        if path.is_file() {
            Attachment::File(path)
        } else {
            Attachment::Bytes(Vec::new())
        }
    }
}

/// The engine's state that a checkpoint carries for a resume to rebuild.
#[derive(Clone, Debug, Default)]
pub struct WalkUpdate {
    /// The walk started over (a `loop_restart` edge): completed nodes, outcomes, retries and
    /// context are dropped before this node is added; visits are kept.
    pub restarted: bool,
    /// The attempts past the first that this node took; `node_retries` keeps the last nonzero.
    pub retries: u64,
    /// The loop breaker's counts (`loop_failure_signatures`, `restart_failure_signatures`).
    pub signatures: Option<(BTreeMap<String, u64>, BTreeMap<String, u64>)>,
}

/// What a checkpoint recorded, as `checkpoint --json` prints it.
#[derive(Clone, Debug, Serialize)]
pub struct Checkpointed {
    pub run_id: String,
    pub node_id: String,
    pub visit: u64,
    pub ordinal: usize,
    pub completed: usize,
    pub run_commit: String,
    pub meta_commit: String,
    #[serde(skip)]
    pub warnings: Vec<String>,
    /// The run as this checkpoint left it: what the next one builds on, unless something
    /// moved a branch since ([`RunState::is_current`]).
    #[serde(skip)]
    pub state: RunState,
}

/// Parses `KEY=JSON` from `--context`.
pub fn parse_context(arg: &str) -> Result<(String, Value)> {
    let (key, json) = arg
        .split_once('=')
        .filter(|(key, _)| !key.is_empty())
        .ok_or_else(|| Error::Usage(format!("--context {arg:?} is not KEY=JSON")))?;
    let value = serde_json::from_str(json).map_err(|err| {
        // A bare word is the usual slip: JSON strings need their quotes, which the shell
        // takes away unless the whole argument is quoted.
        Error::Usage(format!(
            "--context {key}: the value is not valid JSON ({err}); a string needs its quotes: \
             --context '{key}={}'",
            Value::String(json.to_owned())
        ))
    })?;
    Ok((key.to_owned(), value))
}

/// Checks the name an attachment gets inside the stage folder.
pub fn check_attachment_name(name: &str) -> Result<()> {
    let valid = !name.is_empty()
        && name.len() <= 128
        && !name.starts_with('.')
        && name != "status.json"
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c));
    if valid {
        Ok(())
    } else {
        Err(Error::Usage(format!(
            "invalid attachment name {name:?}: use a file name of A-Z a-z 0-9 _ - . other than status.json"
        )))
    }
}

/// Refuses a run that ended or was archived: only a running run takes checkpoints.
pub fn refuse_ended(state: &RunState) -> Result<()> {
    super::lifecycle::ensure_active(state, "only a running run takes checkpoints")
}

/// Records one completed node. `workspace` is where the run's files are; `None` only for a
/// request with [`CheckpointRequest::unchanged_files`] or without a run commit.
pub fn checkpoint(
    repo: &Repo,
    workspace: Option<&Workspace>,
    state: &RunState,
    config: &Config,
    request: &CheckpointRequest,
    run_dir: Option<&RunDir>,
) -> Result<Checkpointed> {
    refuse_ended(state)?;
    let previous = state.linked_checkpoint(repo)?.unwrap_or_default();
    let node = request.node.as_str();
    let visit = previous.node_visits.get(node).copied().unwrap_or(0) + 1;
    let completed = previous.completed_nodes.len() + 1;
    let stage = format!("{node}@{visit}");
    let now = Timestamp::now();

    let (snapshot, tree) = work_tree(repo, workspace, state, config, request)?;
    let skipped = snapshot
        .as_ref()
        .map(|s| s.skipped.as_slice())
        .unwrap_or(&[]);

    // What an agent or a node wrote is stored only with its secrets taken out.
    let redactor = &config.redactor;
    let redacted = stage::redact_attachments(redactor, &request.attachments)?;
    let patch = Attachment::Bytes(diff_patch(repo, state, request, tree)?);
    let attachments = stage::files(&request.attachments, &redacted, &patch);
    let mut run_json = state.record.clone();
    let record = next_record(previous, request, visit, now, tree.to_string());
    run_json.checkpoint = Some(redacted_record(record, node, redactor));
    let stage_record = stage::record(request, visit, now, &attachments, skipped, redactor);

    let stage_tree = stage::write_tree(repo, &stage_record, &attachments)?;
    let stage_dir = stages::dir(completed, node, visit);
    let subject = format!("checkpoint {stage} ({})", request.status);
    let message = message::meta_commit(&subject, &state.id, Some(&stage));
    let mut folders = vec![(stage_dir.as_str(), stage_tree)];
    folders.extend(
        request
            .meta_trees
            .iter()
            .map(|(path, id)| (path.as_str(), *id)),
    );
    let (meta_tree, meta_commit) =
        write_meta_commit(repo, state, config, &run_json, &folders, &message)?;
    let run_commit = match request.run_commit {
        true => write_run_commit(repo, state, config, request, tree, completed, meta_commit)?,
        // A node recorded without a run commit: the run branch stays where it is.
        false => state.run_tip,
    };
    // Both branches move in one ref transaction: git-fabro has no boundary between the two
    // refs (the transaction orders them, metadata first), so the points are around it.
    failpoint::reach("checkpoint:objects-written");
    state.move_branches(
        repo,
        meta_commit,
        run_commit,
        &format!("fabro: checkpoint {stage}"),
        &config.identity,
    )?;
    failpoint::reach("checkpoint:refs-moved");

    // The checkpoint is durable now; what follows keeps caches and the run directory current.
    let mut outcome = Checkpointed {
        run_id: state.id.to_string(),
        node_id: node.to_owned(),
        visit,
        ordinal: completed.saturating_sub(state.record.spec.completed_offset),
        completed,
        run_commit: run_commit.to_string(),
        meta_commit: meta_commit.to_string(),
        warnings: skipped.iter().map(left_out).collect(),
        state: RunState {
            id: state.id.clone(),
            run_tip: run_commit,
            meta_tip: meta_commit,
            meta_tree,
            record: run_json,
        },
    };
    if let (Some(snapshot), Some(workspace)) = (snapshot, workspace)
        && let Err(err) = workspace.write_index(snapshot)
    {
        outcome.warnings.push(format!(
            "{err}; `git status` in the worktree may show stale entries"
        ));
    }
    failpoint::reach("checkpoint:index-written");
    if let Some(dir) = run_dir
        && let Err(err) = local::record(dir, &stage_record, &attachments, &outcome)
    {
        outcome
            .warnings
            .push(format!("the run directory was not updated: {err}"));
    }
    failpoint::reach("checkpoint:run-dir-written");
    Ok(outcome)
}

/// The worktree's snapshot and its tree, for a checkpoint with a run commit; else the run's
/// tree as it is.
fn work_tree(
    repo: &Repo,
    workspace: Option<&Workspace>,
    state: &RunState,
    config: &Config,
    request: &CheckpointRequest,
) -> Result<(Option<Snapshot>, ObjectId)> {
    if !request.run_commit || request.unchanged_files {
        return Ok((None, repo.commit_tree(state.run_tip)?));
    }
    let workspace = workspace.ok_or_else(|| state.no_workspace())?;
    let snapshot = workspace.snapshot(Some(state.run_tip), config, &[])?;
    let tree = snapshot.tree;
    Ok((Some(snapshot), tree))
}

/// The node's change to the work as a patch, when the request wants `diff.patch`.
fn diff_patch(
    repo: &Repo,
    state: &RunState,
    request: &CheckpointRequest,
    tree: ObjectId,
) -> Result<Vec<u8>> {
    if !(request.diff_patch && request.run_commit) {
        return Ok(Vec::new());
    }
    Ok(repo.diff_trees(repo.commit_tree(state.run_tip)?, tree)?)
}

/// The run commit of the worktree's tree, naming the metadata commit in its trailers.
fn write_run_commit(
    repo: &Repo,
    state: &RunState,
    config: &Config,
    request: &CheckpointRequest,
    tree: ObjectId,
    completed: usize,
    meta_commit: ObjectId,
) -> Result<ObjectId> {
    let message = message::run_commit(
        &state.id,
        &request.node,
        request.status,
        completed,
        &meta_commit.to_string(),
    );
    Ok(repo.write_commit(tree, &[state.run_tip], &message, &config.identity)?)
}

/// The checkpoint record with the secrets taken out of its context and the node's outcome.
fn redacted_record(mut record: Checkpoint, node: &str, redactor: &Redactor) -> Checkpoint {
    for value in record.context_values.values_mut() {
        redactor.json(value);
    }
    if let Some(outcome) = record.node_outcomes.get_mut(node) {
        redactor.json(outcome);
    }
    record
}

/// The metadata commit on top of the run's: the new `run.json` and the stage's folder (its
/// tree, and itself), with any other folders the request brings.
fn write_meta_commit(
    repo: &Repo,
    state: &RunState,
    config: &Config,
    run_json: &RunRecord,
    folders: &[(&str, ObjectId)],
    message: &str,
) -> Result<(ObjectId, ObjectId)> {
    let mut tree = repo.edit_tree(state.meta_tree)?;
    tree.put_file(RUN_JSON, &run_json.to_json()?)?;
    for (path, id) in folders {
        tree.put_tree(path, *id)?;
    }
    let tree = tree.write()?;
    let commit = repo.write_commit(tree, &[state.meta_tip], message, &config.identity)?;
    Ok((tree, commit))
}

fn left_out(file: &SkippedFile) -> String {
    format!(
        "left out {} ({} bytes, over the size limit)",
        file.path, file.size
    )
}

/// Fabro's `Outcome` with the stage's usage and duration, where it holds none of its own.
fn with_usage(outcome: &mut Value, usage: &Usage, duration_ms: Option<u64>) {
    let Some(fields) = outcome.as_object_mut() else {
        return;
    };
    if fields.get("usage").is_none_or(Value::is_null)
        && let Some(billed) = usage.fabro_outcome_usage()
    {
        fields.insert("usage".into(), billed);
    }
    if let Some(ms) = duration_ms {
        fields.entry("duration_ms").or_insert(ms.into());
    }
}

fn next_record(
    previous: Checkpoint,
    request: &CheckpointRequest,
    visit: u64,
    now: Timestamp,
    tree: String,
) -> Checkpoint {
    let node = request.node.to_string();
    let mut record = previous;
    if request.walk.restarted {
        record.completed_nodes.clear();
        record.node_outcomes.clear();
        record.node_retries.clear();
        record.context_values.clear();
    }
    if request.walk.retries > 0 {
        record
            .node_retries
            .insert(request.node.to_string(), request.walk.retries);
    }
    if let Some((loops, restarts)) = &request.walk.signatures {
        record.loop_failure_signatures = loops.clone();
        record.restart_failure_signatures = restarts.clone();
    }
    record.timestamp = now.rfc3339();
    record.current_node = node.clone();
    record.next_node_id = request.next.as_ref().map(ToString::to_string);
    record.completed_nodes.push(node.clone());
    record.node_visits.insert(node.clone(), visit);
    let mut outcome = request
        .outcome
        .clone()
        .unwrap_or_else(|| json!({ "status": request.status.as_str() }));
    if let Some(usage) = &request.usage {
        with_usage(&mut outcome, usage, request.duration_ms);
        record.usage_total = Some(record.usage_total.unwrap_or_default().with(usage));
    }
    record.node_outcomes.insert(node, outcome);
    for (key, value) in &request.context {
        record.context_values.insert(key.clone(), value.clone());
    }
    record.git_tree_sha = Some(tree);
    record
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::{ObjectId, Repo};

    /// The error gix gives for an object that is not there, from a real repository.
    fn vanished() -> Error {
        let dir = tempfile::tempdir().expect("temp dir");
        let init = std::process::Command::new("git")
            .args(["init", "-q"])
            .arg(dir.path())
            .status()
            .expect("git runs");
        assert!(init.success());
        let repo = Repo::open(dir.path()).expect("a repository");
        let missing = ObjectId::from_hex(b"0123456789abcdef0123456789abcdef01234567").unwrap();
        Error::from(repo.read_blob(missing).unwrap_err())
    }

    #[test]
    fn a_checkpoint_that_met_a_vanished_object_is_tried_again_a_bounded_number_of_times() {
        assert!(vanished().is_vanished_object());
        let mut tries = 0;
        let done = retrying_vanished(|| {
            tries += 1;
            if tries < 3 {
                Err(vanished())
            } else {
                Ok(tries)
            }
        });
        assert_eq!(done.unwrap(), 3);

        let mut tries = 0;
        let done: Result<()> = retrying_vanished(|| {
            tries += 1;
            Err(vanished())
        });
        assert!(done.unwrap_err().is_vanished_object());
        assert_eq!(tries, VANISHED_TRIES + 1);

        let mut tries = 0;
        let done: Result<()> = retrying_vanished(|| {
            tries += 1;
            Err(Error::Conflict("moved".into()))
        });
        assert!(done.is_err());
        assert_eq!(tries, 1, "only a vanished object is tried again");
    }
}
