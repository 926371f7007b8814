//! Running the run hooks of `[[hooks]]` (see [`crate::config::hooks`]) at the walk's events,
//! with Fabro's contract. A hook is a script like a command node's: `/bin/bash -c` in the
//! run's worktree, in a process group of its own, stopped at its timeout or on Ctrl-C, with
//! the environment [`super::environment`] lets scripts see plus `FABRO_EVENT`,
//! `FABRO_RUN_ID`, `FABRO_WORKFLOW`, `FABRO_NODE_ID` and `FABRO_HOOK_CONTEXT` (the event as
//! JSON, also given on stdin).
//!
//! Exit 0 proceeds, unless stdout is a decision (`{"decision": "skip" | "block" | "override",
//! ...}`); exit 2 blocks unless stdout says otherwise; any other exit, a timeout or a command
//! that cannot start blocks. Only blocking hooks decide: they run one after the other and the
//! first block wins; a non-blocking hook's decision is ignored. What a decision does depends
//! on the event: `run_start` and `stage_start` may block (the run fails), `stage_start` may
//! skip the stage, `edge_selected` may block or send the walk down another edge of the node.
//! Fabro's override may name any node; git-fabro refuses, with a warning, one that no edge
//! from the node leads to, so that a hook cannot send a walk back to `start` without end.
//!
//! Each hook's input and output stay in the run directory's `hooks/` folder.

mod runner;

use runner::Decision;

use super::Engine;
use super::command::Ran;
use super::stage::{Attempted, Stage};
use super::walk::Routed;
use crate::config::hooks::HookEvent;
use crate::engine::graph::{Edge, Node};
use crate::engine::outcome::{Outcome, Status};
use crate::format::run_id::RunId;
use crate::run::workspace::Workspace;

/// Where a walk goes after the `edge_selected` hooks.
enum EdgeVerdict {
    Proceed,
    To(String),
    Blocked(String),
}

impl<'a> Engine<'a> {
    /// `run_start`: the reason the run may not start, if a hook blocks it.
    pub(super) fn run_start_hooks(&self, id: &RunId, workspace: &Workspace) -> Option<String> {
        let context = self.hook_context(id, HookEvent::RunStart, &workspace.path);
        blocked(self.run_hooks(&context), "run_start")
    }

    /// `run_complete` or `run_failed`, as the run ends (before it is finished, as in Fabro).
    pub(super) fn run_end_hooks(&self, id: &RunId, workspace: &Workspace, failure: Option<&str>) {
        let event = match failure {
            None => HookEvent::RunComplete,
            Some(_) => HookEvent::RunFailed,
        };
        let mut context = self.hook_context(id, event, &workspace.path);
        context.failure_reason = failure.map(str::to_owned);
        self.run_hooks(&context);
    }

    /// `stage_start`, before each attempt: the stage as a skip or a block decided it, or
    /// None to run it.
    pub(super) fn stage_start_hooks(
        &self,
        id: &RunId,
        workspace: &Workspace,
        stage: &Stage,
        (attempt, max_attempts): (u32, u32),
    ) -> Option<Attempted> {
        let context = self.hook_context(id, HookEvent::StageStart, &workspace.path);
        let mut context = context.with_node(stage.node);
        (context.attempt, context.max_attempts) = (Some(attempt), Some(max_attempts));
        let (outcome, blocked) = match self.run_hooks(&context) {
            Decision::Skip { reason } => {
                let reason = reason.unwrap_or_else(|| "skipped by stage_start hook".into());
                let outcome = Outcome {
                    status: Status::Skipped,
                    ..Outcome::succeeded(reason)
                };
                (outcome, None)
            }
            decision => {
                let reason = blocked(decision, "stage_start")?;
                (Outcome::failed(&reason), Some(reason))
            }
        };
        Some(Attempted {
            ran: Ran::outcome(outcome),
            attempt,
            max_attempts,
            blocked,
        })
    }

    /// `stage_complete` or `stage_failed`; nothing for a stage a hook skipped or blocked.
    pub(super) fn stage_end_hooks(
        &self,
        id: &RunId,
        workspace: &Workspace,
        stage: &Stage,
        attempted: &Attempted,
    ) {
        let outcome = &attempted.ran.outcome;
        if outcome.status == Status::Skipped || attempted.blocked.is_some() {
            return;
        }
        let event = match outcome.status.is_failure() {
            true => HookEvent::StageFailed,
            false => HookEvent::StageComplete,
        };
        let mut context = self
            .hook_context(id, event, &workspace.path)
            .with_node(stage.node);
        context.status = Some(outcome.status.as_str().to_owned());
        context.failure_reason = (outcome.status.is_failure()).then(|| outcome.notes.clone());
        self.run_hooks(&context);
    }

    /// `stage_retrying`, before another attempt.
    pub(super) fn stage_retrying_hooks(
        &self,
        id: &RunId,
        workspace: &Workspace,
        stage: &Stage,
        (attempt, max_attempts): (u32, u32),
    ) {
        let context = self.hook_context(id, HookEvent::StageRetrying, &workspace.path);
        let mut context = context.with_node(stage.node);
        (context.attempt, context.max_attempts) = (Some(attempt), Some(max_attempts));
        self.run_hooks(&context);
    }

    /// The `edge_selected` hooks' word on where the walk goes: another node, or nowhere.
    pub(super) fn apply_edge_hooks(
        &self,
        id: &RunId,
        workspace: &Workspace,
        node: &Node,
        ran: &mut Routed<'a>,
    ) {
        let Some(to) = ran.next.as_deref().filter(|_| ran.breaks.is_none()) else {
            return;
        };
        match self.edge_hooks(id, workspace, node, to, ran.edge) {
            EdgeVerdict::Proceed => {}
            EdgeVerdict::Blocked(reason) => ran.breaks = Some(reason),
            EdgeVerdict::To(target) => match self.graph.outgoing(&node.id).find(|e| e.to == target)
            {
                Some(edge) => {
                    ran.edge = Some(edge);
                    ran.next = Some(target);
                }
                // Fabro jumps anywhere, `start` included, which restarts the walk without end.
                None => self.warn(format!(
                    "edge_selected hook: its override to {target:?} was refused, as no edge \
                     leads there from {}; the walk took the edge it had selected, to {to}",
                    node.id
                )),
            },
        }
    }

    /// `edge_selected`, once the walk knows where it goes from `node`.
    fn edge_hooks(
        &self,
        id: &RunId,
        workspace: &Workspace,
        node: &Node,
        to: &str,
        edge: Option<&Edge>,
    ) -> EdgeVerdict {
        let mut context = self.hook_context(id, HookEvent::EdgeSelected, &workspace.path);
        context.edge_from = Some(node.id.clone());
        context.edge_to = Some(to.to_owned());
        context.edge_label = edge.and_then(Edge::label).map(str::to_owned);
        match self.run_hooks(&context) {
            Decision::Override { edge_to } => EdgeVerdict::To(edge_to),
            decision => match blocked(decision, "edge_selected") {
                Some(reason) => EdgeVerdict::Blocked(reason),
                None => EdgeVerdict::Proceed,
            },
        }
    }

    /// `parallel_start` or `parallel_complete` of a parallel node (they only tell).
    pub(super) fn parallel_hooks(
        &self,
        id: &RunId,
        workspace: &Workspace,
        node: &Node,
        event: HookEvent,
    ) {
        let context = self
            .hook_context(id, event, &workspace.path)
            .with_node(node);
        self.run_hooks(&context);
    }

    /// `checkpoint_saved`, once the stage of `node` is recorded.
    pub(super) fn checkpoint_hooks(&self, id: &RunId, workspace: &Workspace, node: &Node) {
        let mut context = self.hook_context(id, HookEvent::CheckpointSaved, &workspace.path);
        context.node_id = Some(node.id.clone());
        self.run_hooks(&context);
    }
}

/// The run's failure when `decision` blocks, in Fabro's words.
fn blocked(decision: Decision, event: &str) -> Option<String> {
    match decision {
        Decision::Block { reason } => {
            let reason = reason.unwrap_or_else(|| "no reason given".into());
            Some(format!("blocked by {event} hook: {reason}"))
        }
        _ => None,
    }
}
