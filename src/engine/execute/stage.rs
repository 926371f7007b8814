//! The one stage pipeline. Whatever runs a node (the top-level walk, a parallel branch, a
//! manager loop's child through its own walk) runs it here, so a node behaves the same
//! wherever it is: recorded as done without running (`--assume-done`); else its side-effect
//! intent committed first; then its handler, with Fabro's attempts and backoff; a stop (a
//! gate nobody can answer, Ctrl-C) ends it unrecorded, to run again on resume. Every wait is
//! the interruptible sleep, so Ctrl-C during a backoff stops the run at once.
//!
//! The caller records what the stage came to (a checkpoint, a branch's commit) and then
//! resolves its intent.

use std::collections::BTreeMap;
use std::time::Instant;

use serde_json::{Value, json};

use super::command::Ran;
use super::failure::Failure;
use super::{Engine, Stop, context_budget, interrupt, retry, side_effect, watchdog};
use crate::engine::graph::Node;
use crate::engine::handler::Handler;
use crate::engine::outcome::{Outcome, Retry, Status};
use crate::error::Result;
use crate::format::run_id::RunId;
use crate::run::workspace::Workspace;

/// One visit of a node.
pub(super) struct Stage<'n> {
    pub node: &'n Node,
    pub visit: u64,
    /// Its place among the run's stages, as Fabro's events number them.
    pub index: u64,
    /// The branch its work is committed on, when it runs as a parallel branch.
    pub branch: Option<&'n str>,
}

/// A stage on its way through the pipeline: the visit, the run it is part of, the worktree it
/// works in, and the context it starts with.
pub(super) struct Staged<'s> {
    pub id: &'s RunId,
    pub workspace: &'s Workspace,
    pub stage: &'s Stage<'s>,
    pub context: &'s BTreeMap<String, Value>,
}

impl Stage<'_> {
    /// `node@visit`.
    pub fn id(&self) -> String {
        format!("{}@{}", self.node.id, self.visit)
    }
}

/// What a handler came to: a result, or a stop that leaves the stage unrecorded.
pub(super) enum Step {
    Ran(Ran),
    Stopped(Stop),
}

/// A stage that ran: its last attempt's result, which attempt that was, and how many it had.
pub(super) struct Attempted {
    pub ran: Ran,
    pub attempt: u32,
    pub max_attempts: u32,
    /// Set when a `stage_start` hook blocked the stage: the run fails with this reason.
    pub blocked: Option<String>,
}

impl Engine<'_> {
    /// Runs the stage through the pipeline. `Err` is an engine failure (a ref race, a full
    /// disk), which leaves the run resumable; a node's own failure is an `Ok` outcome.
    pub(super) fn run_stage(
        &self,
        staged: &Staged,
    ) -> Result<std::result::Result<Attempted, Stop>> {
        let (id, workspace, stage) = (staged.id, staged.workspace, staged.stage);
        let stage_id = stage.id();
        if self.directions.take_assumed(&stage_id) {
            self.stage_started(id, stage, 1, 1);
            let notes = format!("Assumed done (--assume-done): {stage_id} was not run again");
            return Ok(Ok(Attempted {
                ran: Ran::outcome(Outcome::succeeded(notes)),
                attempt: 1,
                max_attempts: 1,
                blocked: None,
            }));
        }
        if side_effect::is_side_effect(stage.node) {
            self.write_intent(id, stage)?;
            self.fenced(id)?;
        }
        let mut attempted = self.attempts(staged)?;
        // A node that Ctrl-C cut short is not recorded: it runs again on resume.
        if interrupt::requested() {
            return Ok(Err(Stop::Interrupted { stage: stage_id }));
        }
        if let Ok(attempted) = &mut attempted {
            let outcome = std::mem::replace(&mut attempted.ran.outcome, Outcome::failed(""));
            attempted.ran.outcome = context_budget::bounded(outcome, staged.context);
            self.stage_end_hooks(id, workspace, stage, attempted);
        }
        Ok(attempted)
    }

    /// The handler until it succeeds, fails for good, stops, or its attempts run out, with
    /// Fabro's events: `stage.started` for each attempt, `stage.failed` (`will_retry`) and
    /// `stage.retrying` before each new one. Only a failure that asks for it is tried again: a
    /// handler's retry request, or an error another attempt may cure.
    fn attempts(&self, staged: &Staged) -> Result<std::result::Result<Attempted, Stop>> {
        let (id, workspace, stage) = (staged.id, staged.workspace, staged.stage);
        let node = stage.node;
        let policy = retry::policy(node, self.graph);
        let mut attempt = 1;
        loop {
            let attempts = (attempt, policy.max_attempts);
            if let Some(gated) = self.stage_start_hooks(id, workspace, stage, attempts) {
                return Ok(Ok(gated));
            }
            self.stage_started(id, stage, attempt, policy.max_attempts);
            let clock = Instant::now();
            let mut ran = match self.run_handler(staged)? {
                Step::Ran(ran) => ran,
                Step::Stopped(stop) => return Ok(Err(stop)),
            };
            let outcome = &mut ran.outcome;
            let retryable = outcome.status == Status::Failed && outcome.retry != Retry::No;
            let stopping = interrupt::requested() || watchdog::fired();
            if retryable && attempt < policy.max_attempts && !stopping {
                let delay = policy.backoff.delay(attempt);
                let failure = Failure::of(&node.id, &outcome.notes);
                self.event(
                    id,
                    "stage.failed",
                    node,
                    &stage.id(),
                    json!({
                        "index": stage.index, "failure": failure.to_json(), "will_retry": true,
                        "duration_ms": millis(clock),
                    }),
                );
                self.event(
                    id,
                    "stage.retrying",
                    node,
                    &stage.id(),
                    json!({
                        "index": stage.index, "attempt": attempt,
                        "max_attempts": policy.max_attempts,
                        "delay_ms": u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
                    }),
                );
                self.stage_retrying_hooks(id, workspace, stage, attempts);
                interrupt::sleep(delay);
                if interrupt::requested() {
                    return Ok(Err(Stop::Interrupted { stage: stage.id() }));
                }
                if watchdog::fired() {
                    return Ok(Ok(Attempted {
                        ran,
                        attempt,
                        max_attempts: policy.max_attempts,
                        blocked: None,
                    }));
                }
                attempt += 1;
                continue;
            }
            // A request that ran out of attempts may still count as partial success.
            if retryable
                && outcome.retry == Retry::Requested
                && node.bool_attr("allow_partial") == Some(true)
            {
                outcome.status = Status::PartiallySucceeded;
            }
            return Ok(Ok(Attempted {
                ran,
                attempt,
                max_attempts: policy.max_attempts,
                blocked: None,
            }));
        }
    }

    fn stage_started(&self, id: &RunId, stage: &Stage, attempt: u32, max_attempts: u32) {
        let handler = Handler::of(stage.node).as_str();
        self.event(
            id,
            "stage.started",
            stage.node,
            &stage.id(),
            json!({
                "index": stage.index, "handler_type": handler,
                "attempt": attempt, "max_attempts": max_attempts,
            }),
        );
    }
}

pub(super) fn millis(clock: Instant) -> u64 {
    u64::try_from(clock.elapsed().as_millis()).unwrap_or(u64::MAX)
}
