//! The parallel base: before its branches start, a parallel node commits the run's work on the
//! run branch as Fabro does, `fabro(<run>): <node> (parallel_base)` with `Fabro-Run` and
//! `Fabro-Completed: 0`, so that the run branch and every branch show where the fan-out began.
//! The commit completes no node and links no checkpoint: timelines pass over it.

use super::super::Engine;
use crate::engine::graph::Node;
use crate::error::Result;
use crate::format::message;
use crate::format::run_id::RunId;
use crate::git::{ObjectId, RefEdit};
use crate::run;

impl Engine<'_> {
    /// The commit this pass's branches start from: `tip` when it is already the node's
    /// parallel base (a run killed before its branches committed anything), else a new one
    /// on `tip` with the same tree, since the node's own checkpoint records its work.
    pub(super) fn parallel_base(&self, id: &RunId, node: &Node, tip: ObjectId) -> Result<ObjectId> {
        let repo = self.repo;
        if message::is_parallel_base(&repo.commit_info(tip)?.message, id, &node.id) {
            return Ok(tip);
        }
        let text = message::parallel_base_commit(id, &node.id);
        let base =
            repo.write_commit(repo.commit_tree(tip)?, &[tip], &text, &self.config.identity)?;
        let edit = RefEdit::Update {
            name: run::run_branch(id),
            old: tip,
            new: base,
        };
        repo.update_refs(&[edit], "fabro: parallel base", &self.config.identity)?;
        crate::failpoint::reach(&format!("engine:parallel-base:{}", node.id));
        Ok(base)
    }
}
