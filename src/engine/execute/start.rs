//! Where a walk starts: fresh at the start node, where a run's last checkpoint left it, or
//! again from the top after a `loop_restart` edge.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::fidelity::Threading;
use super::record::status_of;
use super::{Engine, loops};
use crate::engine::outcome::Status;
use crate::error::{Error, Result};
use crate::format::record::Checkpoint;
use crate::run::RunState;

/// Where the walk is: what a checkpoint records and a resume rebuilds.
pub(super) struct Walk {
    pub context: BTreeMap<String, Value>,
    /// The context as the last checkpoint recorded it; a checkpoint records what changed.
    pub recorded: BTreeMap<String, Value>,
    pub visits: BTreeMap<String, u64>,
    pub statuses: BTreeMap<String, Status>,
    /// Attempts past the first, by node (`node_retries`).
    pub retries: BTreeMap<String, u64>,
    /// Set by a `loop_restart` edge until the next checkpoint records the fresh start.
    pub restarted: bool,
    pub breaker: loops::Breaker,
    pub threading: Threading,
    /// The run as the walk's last checkpoint left it, so that the next one need not read
    /// run.json back from the metadata branch while nothing else moved the run.
    pub last_state: Option<RunState>,
}

impl Engine<'_> {
    /// A walk at the start node.
    pub(super) fn fresh(&self, state: &RunState) -> Result<(Walk, String)> {
        let start = self
            .graph
            .start_node()
            .ok_or_else(|| Error::Usage("the workflow has no start node".into()))?;
        let walk = Walk {
            context: self.seed_context(state),
            recorded: BTreeMap::new(),
            visits: BTreeMap::new(),
            statuses: BTreeMap::new(),
            retries: BTreeMap::new(),
            restarted: false,
            breaker: loops::Breaker::new(self.graph, None),
            threading: Threading::default(),
            last_state: None,
        };
        Ok((walk, start.id.clone()))
    }

    /// The context a run starts with, and starts again with after a `loop_restart` edge.
    fn seed_context(&self, state: &RunState) -> BTreeMap<String, Value> {
        // A manager loop's child starts from its parent's context.
        let mut context = self.seed.clone().unwrap_or_default();
        context.extend(
            self.graph
                .attrs()
                .iter()
                .map(|(k, v)| (format!("graph.{k}"), Value::String(v.to_text()))),
        );
        // The graph's goal is the run's goal with its templates rendered, when it has one.
        let goal = self
            .graph
            .goal()
            .map(str::to_owned)
            .or(state.record.spec.goal());
        context.insert("graph.goal".into(), json!(goal.unwrap_or_default()));
        context.insert("internal.run_id".into(), json!(state.id.as_str()));
        if let Some(Value::Object(inputs)) = state.record.spec.extra.get("inputs") {
            for (key, value) in inputs {
                context.insert(format!("inputs.{key}"), value.clone());
            }
        }
        context
    }

    /// The walk as the checkpoint left it, and the node to run next: `next_node_id`, else (as
    /// Fabro) the first declared edge's target, else the checkpoint's node again. A checkpoint
    /// whose next node came through a `loop_restart` edge resumes with the fresh start.
    pub(super) fn resumed(
        &self,
        state: &RunState,
        checkpoint: &Checkpoint,
    ) -> Result<(Walk, String)> {
        let statuses = checkpoint
            .node_outcomes
            .iter()
            .filter_map(|(node, outcome)| {
                let status = outcome.get("status").and_then(Value::as_str)?;
                Some((node.clone(), status_of(status)?))
            })
            .collect();
        let next = checkpoint.next_node_id.clone().unwrap_or_else(|| {
            self.graph
                .outgoing(&checkpoint.current_node)
                .next()
                .map(|e| e.to.clone())
                .unwrap_or_else(|| checkpoint.current_node.clone())
        });
        let mut walk = Walk {
            context: checkpoint.context_values.clone(),
            recorded: checkpoint.context_values.clone(),
            visits: checkpoint.node_visits.clone(),
            statuses,
            retries: checkpoint.node_retries.clone(),
            restarted: false,
            breaker: loops::Breaker::new(self.graph, Some(checkpoint)),
            threading: Threading {
                incoming: None,
                previous: Some(checkpoint.current_node.clone()),
                degrade: true,
            },
            last_state: None,
        };
        let restarting = checkpoint.next_node_id.as_ref().is_some_and(|next| {
            self.graph
                .outgoing(&checkpoint.current_node)
                .any(|e| &e.to == next && loops::is_loop_restart(e))
        });
        if restarting {
            self.restart(state, &mut walk);
        }
        Ok((walk, next))
    }

    /// Fabro's restart: a fresh context, no outcomes or retries; visits go on counting.
    pub(super) fn restart(&self, state: &RunState, walk: &mut Walk) {
        walk.context = self.seed_context(state);
        walk.recorded = BTreeMap::new();
        walk.statuses.clear();
        walk.retries.clear();
        walk.restarted = true;
    }
}
