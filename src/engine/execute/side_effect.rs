//! Side effects, a git-fabro extension: a node with `side_effect=true` acts outside the
//! worktree (a deploy, a mail, a payment) and must not act twice by accident. Before it
//! starts, an intent `intents/<node>@<visit>.json` is committed on the metadata branch (the
//! same compare-and-swap writer as a checkpoint); once the node's checkpoint is recorded, the
//! intent is removed. An intent whose stage has no checkpoint means the engine died while the
//! node ran, and nobody knows whether it acted: `resume` stops there until told to run it
//! again (`--rerun NODE`) or to take it as done (`--assume-done NODE`).
//!
//! The stage pipeline writes the intent wherever the node runs. A node that runs as a parallel
//! branch records its work as a commit on its branch, not as a checkpoint: its intent names
//! the branch, and is resolved once that commit is made. Branches write intents from threads
//! of their own, one at a time ([`WRITING`]), each on the metadata branch's latest tip.

use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::stage::Stage;
use super::{Directions, Engine};
use crate::engine::graph::{AttrValue, Node};
use crate::error::{CutShort, Error, Result};
use crate::format::message;
use crate::format::record::pretty;
use crate::format::run_id::RunId;
use crate::format::time::Timestamp;
use crate::ops::lifecycle::commit_meta_tree;
use crate::run::RunState;

/// Where intents live on the metadata branch.
pub const INTENTS: &str = "intents";

/// A side-effect node about to run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Intent {
    pub node_id: String,
    pub visit: u64,
    /// The same value the node's script gets as `FABRO_IDEMPOTENCY_KEY`.
    pub idempotency_key: String,
    pub started_at: String,
    /// The branch its work is committed on, for a node that runs as a parallel branch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
}

/// Held while an intent is committed: parallel branches write theirs at the same time.
static WRITING: Mutex<()> = Mutex::new(());

impl Intent {
    fn path(node: &str, visit: u64) -> String {
        format!("{INTENTS}/{node}@{visit}.json")
    }

    pub fn stage(&self) -> String {
        format!("{}@{}", self.node_id, self.visit)
    }
}

/// `side_effect=true` (or `"true"`).
pub fn is_side_effect(node: &Node) -> bool {
    match node.attrs.get("side_effect") {
        Some(AttrValue::Boolean(b)) => *b,
        Some(value) => value.as_str() == Some("true"),
        None => false,
    }
}

/// The intents of run `state` whose stage has no checkpoint, and those whose stage has one
/// (left by an engine that died between the checkpoint and the intent's removal).
fn intents(engine: &Engine, state: &RunState) -> Result<(Vec<Intent>, Vec<Intent>)> {
    let repo = engine.repo;
    let Some(dir) = repo.entry_at(state.meta_tree, INTENTS)? else {
        return Ok((Vec::new(), Vec::new()));
    };
    let visits = state
        .record
        .checkpoint
        .as_ref()
        .map(|c| c.node_visits.clone())
        .unwrap_or_default();
    let mut open = Vec::new();
    let mut done = Vec::new();
    for entry in repo.list_tree(dir)?.into_iter().filter(|e| !e.is_tree) {
        let intent: Intent = serde_json::from_slice(&repo.read_blob(entry.id)?).map_err(|err| {
            Error::Corrupt(format!(
                "run {}: {INTENTS}/{} cannot be read: {err}",
                state.id, entry.name
            ))
        })?;
        let recorded = match &intent.branch {
            Some(branch) => branch_committed(engine, state, branch, &intent.node_id)?,
            None => visits.get(&intent.node_id).copied().unwrap_or(0) >= intent.visit,
        };
        if recorded {
            done.push(intent);
        } else {
            open.push(intent);
        }
    }
    Ok((open, done))
}

/// Whether the branch's tip is this run's commit of `node`: the work the intent announced is
/// recorded there (a parallel base records none).
fn branch_committed(engine: &Engine, state: &RunState, branch: &str, node: &str) -> Result<bool> {
    let Some(tip) = engine.repo.ref_target(branch)? else {
        return Ok(false);
    };
    let message = engine.repo.commit_info(tip)?.message;
    let ours = message::Trailers::parse(&message).run.as_deref() == Some(state.id.as_str());
    Ok(ours
        && message::parse_subject(&message)
            .is_some_and(|(n, status)| n == node && status != message::PARALLEL_BASE))
}

impl Engine<'_> {
    /// Commits the intent of the stage before it starts.
    pub(super) fn write_intent(&self, id: &RunId, stage: &Stage) -> Result<()> {
        let (node, visit) = (stage.node, stage.visit);
        let _writing = WRITING.lock().unwrap_or_else(|e| e.into_inner());
        let state = RunState::load(self.repo, id)?;
        let intent = Intent {
            node_id: node.id.clone(),
            visit,
            idempotency_key: format!("{id}:{}@{visit}", node.id),
            started_at: Timestamp::now().rfc3339(),
            branch: stage.branch.map(str::to_owned),
        };
        let mut tree = self.repo.edit_tree(state.meta_tree)?;
        tree.put_file(&Intent::path(&node.id, visit), &pretty(&intent))?;
        let tree = tree.write()?;
        let subject = format!("intent {}", intent.stage());
        commit_meta_tree(self.repo, &state, tree, &subject, self.config)?;
        crate::failpoint::reach(&format!("engine:intent-written:{}", intent.stage()));
        Ok(())
    }

    /// Removes the intent of `node@visit`, whose checkpoint is recorded now.
    pub(super) fn resolve_intent(&self, id: &RunId, node: &str, visit: u64) -> Result<()> {
        let _writing = WRITING.lock().unwrap_or_else(|e| e.into_inner());
        let state = RunState::load(self.repo, id)?;
        let path = Intent::path(node, visit);
        if self.repo.entry_at(state.meta_tree, &path)?.is_none() {
            return Ok(());
        }
        let mut tree = self.repo.edit_tree(state.meta_tree)?;
        tree.remove(&path)?;
        let tree = tree.write()?;
        let subject = format!("resolve intent {node}@{visit}");
        commit_meta_tree(self.repo, &state, tree, &subject, self.config)?;
        Ok(())
    }

    /// Before a resumed run goes on: the stages a dead engine left unresolved are run again
    /// (`--rerun`), taken as done (`--assume-done`: the pipeline records them as succeeded
    /// without running them), or stop the resume with a question. The run the user resumed
    /// checks the flags, against its own stages and those of the manager children it takes
    /// up again; a child applies them to its own.
    pub(super) fn recover_intents(&self, id: &RunId) -> Result<()> {
        let directions = self.directions;
        let state = RunState::load(self.repo, id)?;
        let (open, done) = intents(self, &state)?;
        for intent in &done {
            self.resolve_intent(id, &intent.node_id, intent.visit)?;
        }
        if self.seed.is_none() {
            let mut unfinished = open.clone();
            unfinished.extend(self.open_below(id)?);
            check_flags(id, directions, &unfinished)?;
        }
        for intent in open {
            if directions.rerun.contains(&intent.node_id) {
                self.resolve_intent(id, &intent.node_id, intent.visit)?;
            } else if directions.assume_done.contains(&intent.node_id) {
                directions.assume(intent.stage());
            } else {
                let node = &intent.node_id;
                let root = root_of(self, &state);
                return Err(Error::SideEffectCutShort(Box::new(CutShort {
                    child: (root != *id).then(|| id.to_string()),
                    run: root.to_string(),
                    stage: intent.stage(),
                    node: node.clone(),
                    started_at: intent.started_at.clone(),
                    worker: None,
                })));
            }
        }
        Ok(())
    }

    /// The open intents of the unfinished manager children of run `id`, and of theirs.
    fn open_below(&self, id: &RunId) -> Result<Vec<Intent>> {
        let mut found = Vec::new();
        for (child, _) in crate::run::list(self.repo)? {
            let Ok(state) = RunState::load(self.repo, &child) else {
                continue;
            };
            let parent = state.record.spec.extra.get("parent_run_id");
            let unfinished = state.record.conclusion.is_none();
            if unfinished && parent.and_then(|p| p.as_str()) == Some(id.as_str()) {
                found.extend(intents(self, &state)?.0);
                found.extend(self.open_below(&child)?);
            }
        }
        Ok(found)
    }
}

/// Refuses a `--rerun` or `--assume-done` that names no unfinished side-effect stage.
fn check_flags(id: &RunId, directions: &Directions, open: &[Intent]) -> Result<()> {
    for (flag, nodes) in [
        ("--rerun", &directions.rerun),
        ("--assume-done", &directions.assume_done),
    ] {
        if let Some(node) = nodes
            .iter()
            .find(|n| !open.iter().any(|i| &i.node_id == *n))
        {
            return Err(Error::Usage(format!(
                "{flag} {node}: run {id} has no side-effect stage of {node} left unfinished"
            )));
        }
    }
    Ok(())
}

/// The run at the top of `state`'s chain of manager parents: the one a user resumes.
fn root_of(engine: &Engine, state: &RunState) -> RunId {
    let mut root = state.id.clone();
    let mut at = state.clone();
    for _ in 0..64 {
        let parent = at
            .record
            .spec
            .extra
            .get("parent_run_id")
            .and_then(|p| p.as_str());
        let Some(parent) = parent.and_then(|p| RunId::parse(p).ok()) else {
            break;
        };
        let Ok(next) = RunState::load(engine.repo, &parent) else {
            break;
        };
        root = parent;
        at = next;
    }
    root
}
