//! Side effects, a git-fabro extension: a node with `side_effect=true` acts outside the
//! worktree (a deploy, a mail, a payment) and must not act twice by accident. Before it
//! starts, an intent `intents/<node>@<visit>.json` is committed on the metadata branch (the
//! same compare-and-swap writer as a checkpoint); once the node's checkpoint is recorded, the
//! intent is removed. An intent whose stage has no checkpoint means the engine died while the
//! node ran, and nobody knows whether it acted: `resume` stops there until told to run it
//! again (`--rerun NODE`) or to take it as done (`--assume-done NODE`).

use serde::{Deserialize, Serialize};

use super::Engine;
use crate::engine::graph::{AttrValue, Node};
use crate::error::{Error, Result};
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
}

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
        if visits.get(&intent.node_id).copied().unwrap_or(0) >= intent.visit {
            done.push(intent);
        } else {
            open.push(intent);
        }
    }
    Ok((open, done))
}

impl Engine<'_> {
    /// Commits the intent of `node@visit` before the node starts.
    pub(super) fn write_intent(&self, id: &RunId, node: &Node, visit: u64) -> Result<()> {
        let state = RunState::load(self.repo, id)?;
        let intent = Intent {
            node_id: node.id.clone(),
            visit,
            idempotency_key: format!("{id}:{}@{visit}", node.id),
            started_at: Timestamp::now().rfc3339(),
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
    /// (`--rerun`), taken as done (`--assume-done`, returned: the walk records them as
    /// succeeded without running them), or stop the resume with a question.
    pub(super) fn recover_intents(&self, id: &RunId) -> Result<Vec<String>> {
        let directions = self.directions;
        let state = RunState::load(self.repo, id)?;
        let (open, done) = intents(self, &state)?;
        for intent in &done {
            self.resolve_intent(id, &intent.node_id, intent.visit)?;
        }
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
        let mut assumed = Vec::new();
        for intent in open {
            if directions.rerun.contains(&intent.node_id) {
                self.resolve_intent(id, &intent.node_id, intent.visit)?;
            } else if directions.assume_done.contains(&intent.node_id) {
                assumed.push(intent.stage());
            } else {
                let node = &intent.node_id;
                return Err(Error::Failed(format!(
                    "run {id} stopped while the side-effect node {} ran (started {}, never \
                     checkpointed): it may have done its work or not. Check, then resume with \
                     `git fabro resume {id} --rerun {node}` to run it again or \
                     `git fabro resume {id} --assume-done {node}` to record it as succeeded \
                     and go on",
                    intent.stage(),
                    intent.started_at
                )));
            }
        }
        Ok(assumed)
    }
}
