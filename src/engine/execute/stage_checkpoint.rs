//! A stage that ran becomes a checkpoint: the run commit of its work and the walk's state on
//! the metadata branch, built on the run as the walk last left it, unless something else
//! moved a branch meanwhile.

use serde_json::{Value, json};

use super::record::{outcome_json, stage_status};
use super::stage::{Attempted, Stage};
use super::start::Walk;
use super::walk::Routed;
use super::{Engine, StageReport, side_effect};
use crate::engine::handler::Handler;
use crate::error::{Error, Result};
use crate::format::node::NodeId;
use crate::format::run_id::RunId;
use crate::git::ReflogMarks;
use crate::ops::checkpoint::{CheckpointRequest, WalkUpdate, checkpoint, retrying_vanished};
use crate::run::RunState;
use crate::run::workspace::Workspace;

impl Engine<'_> {
    /// Checkpoints the stage (the run commit of its work, the walk on the metadata branch),
    /// then resolves its side-effect intent.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn record(
        &self,
        id: &RunId,
        workspace: &Workspace,
        walk: &mut Walk,
        stage: &Stage,
        attempted: Attempted,
        routed: &Routed,
        report: &StageReport,
        moves: &mut ReflogMarks,
    ) -> Result<()> {
        let (node, outcome, failure) = (stage.node, &routed.outcome, routed.failure.as_ref());
        let changed: Vec<(String, Value)> = walk
            .context
            .iter()
            .filter(|(k, v)| walk.recorded.get(*k) != Some(*v))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let request = CheckpointRequest {
            node: NodeId::parse(&node.id)?,
            status: stage_status(outcome.status),
            next: routed.next.as_deref().map(NodeId::parse).transpose()?,
            context: changed,
            attachments: attempted.ran.files,
            outcome: Some(outcome_json(outcome, failure)),
            notes: Some(outcome.notes.clone()).filter(|n| !n.is_empty()),
            failure_reason: failure.map(|f| f.message.clone()),
            // Fabro's first start has no run commit; a start the walk comes back to (a goal
            // gate's retry target) gets one, so that the next checkpoint builds on it.
            run_commit: Handler::of(node) != Handler::Start || stage.visit > 1,
            diff_patch: true,
            duration_ms: Some(report.duration_ms),
            usage: attempted.ran.usage.clone(),
            walk: WalkUpdate {
                restarted: std::mem::take(&mut walk.restarted),
                retries: u64::from(attempted.attempt - 1),
                signatures: Some((
                    walk.breaker.loop_signatures.clone(),
                    walk.breaker.restart_signatures.clone(),
                )),
            },
            unchanged_files: false,
            meta_trees: Vec::new(),
        };
        // A branch of the run that something other than git-fabro moved meanwhile (a
        // fetch, git by hand) is not built on: the run stops here, resumable.
        self.repo
            .ensure_moved_only_by_allowed(moves)
            .map_err(|err| Error::from(err).in_run(id))?;
        let mut last_state = walk.last_state.take();
        let done = retrying_vanished(|| {
            let state = match last_state.take() {
                Some(state) if state.is_current(self.repo)? => state,
                _ => RunState::load(self.repo, id)?,
            };
            checkpoint(
                self.repo,
                Some(workspace),
                &state,
                self.config,
                &request,
                Some(self.run_dir),
            )
        })?;
        crate::failpoint::reach(&format!("engine:checkpointed:{}", stage.id()));
        if side_effect::is_side_effect(node) {
            self.resolve_intent(id, &node.id, stage.visit)?;
        }
        self.fenced(id)?;
        if request.run_commit {
            self.event(
                id,
                "git.commit",
                node,
                &stage.id(),
                json!({
                    "node_id": node.id, "sha": done.run_commit,
                }),
            );
        }
        walk.recorded = walk.context.clone();
        walk.last_state = Some(done.state);
        Ok(())
    }
}
