//! The manager loop (`shape=house`, `type=stack.manager_loop`): a child workflow run to its
//! end as a run of its own.
//!
//! As in Fabro, the child's graph is `stack.child_dot_source` (inline) or the file
//! `stack.child_workflow` (or `stack.child_dotfile`), validated before it runs; it starts from
//! a copy of the parent's context; the node takes the child's status, and the context keys the
//! child changed, engine-internal ones aside, come back as the node's context updates.
//!
//! git-fabro's choices: the child is a run of its own (`child_run`), started in place in the
//! parent's worktree (so its file changes are the parent's next run commit, as Fabro's child
//! shares the sandbox), recording `spec.parent_run_id`, `parent_node_id` and `parent_visit`.
//! Its id, status and run branch go to the stage's `child_run.json` and to the context
//! (`stack.child.run_id`, `stack.child.status`). A relative child path is read from the parent
//! workflow's directory, which the parent recorded as `spec.workflow_dir`. The child runs in
//! this process to its end, so Fabro's poll loop is judged once it is over: a cycle is one
//! `manager.poll_interval` of the child's running time; a child that outlived
//! `manager.max_cycles` cycles fails the node, and a `manager.stop_condition` that held over
//! the parent's context (Fabro evaluates it there, at every poll) once a poll came ends the
//! node succeeded.
//!
//! A child workflow that cannot run (unreadable, invalid, unapproved, starting itself) fails
//! the node. A child that stops (a gate nobody answered, Ctrl-C) stops the parent, and an
//! engine failure inside it (a ref race, a full disk) is the parent's: either way the parent
//! stays resumable, and its resume takes the child up where it was.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};

use super::Engine;
use super::command::Ran;
use super::stage::Step;
use crate::engine::graph::Node;
use crate::engine::outcome::{Outcome, Status};
use crate::error::Result;
use crate::format::run_id::RunId;
use crate::ops::checkpoint::Attachment;
use crate::ops::start::short_branch;
use crate::run::workspace::Workspace;
use crate::run::{self, RunState};

mod child;
mod child_run;
mod settings;

pub use child::{
    CHILD_WORKFLOWS, children_in_spec, nested_workflows, recorded_children, recorded_workflows,
};
use child::{child_graph, refuse_unbounded};
use child_run::{ChildEnd, Ended, Parent, run_child};
use settings::{Settings, changed};

/// Children of children of ...: a chain of workflows that each start another stops here.
const MAX_DEPTH: usize = 16;

const CHILD_RUN_FILE: &str = "child_run.json";

/// Runs the manager loop `node` of run `id`.
pub(super) fn run(
    engine: &Engine,
    id: &RunId,
    workspace: &Workspace,
    node: &Node,
    visit: u64,
) -> Result<Step> {
    let parent = RunState::load(engine.repo, id)?;
    let refused = |reason: String| Ok(Step::Ran(Ran::outcome(Outcome::failed(&reason))));
    let child = match child_graph(engine, &parent, node) {
        Ok(child) => child,
        Err(reason) => return refused(format!("Failed to parse child pipeline: {reason}")),
    };
    if let Err(reason) = refuse_unbounded(engine, &parent, node, &child) {
        return refused(reason);
    }
    if !child.approved && !engine.directions.trust {
        let file = child.file.as_deref().unwrap_or(Path::new("")).display();
        return refused(format!(
            "manager loop {}: its child workflow {file} was not written or approved on this \
             machine; `git fabro resume {id} --trust` runs it",
            node.id
        ));
    }
    let before = parent_context(engine, &parent, node, visit)?;
    let parent = Parent {
        engine,
        id,
        workspace,
        node,
        visit,
    };
    let ended = match run_child(&parent, &child, &before)? {
        ChildEnd::Ended(ended) => ended,
        ChildEnd::Stopped(stop) => return Ok(Step::Stopped(stop)),
    };
    let after = RunState::load(engine.repo, &ended.id)?
        .linked_checkpoint(engine.repo)?
        .map(|checkpoint| checkpoint.context_values)
        .unwrap_or_default();
    let outcome = outcome(node, &ended, &before, &after);
    let link = json!({
        "run_id": ended.id.as_str(),
        "status": ended.status.as_str(),
        "run_branch": short_branch(&run::run_branch(&ended.id)),
    });
    let link = crate::format::record::pretty(&link);
    Ok(Step::Ran(Ran {
        outcome,
        exit_code: None,
        files: vec![(CHILD_RUN_FILE.to_string(), Attachment::Bytes(link))],
        usage: None,
    }))
}

/// The node's outcome: Fabro's stop condition and cycle limit, else the child's status with
/// the context keys it changed.
fn outcome(
    node: &Node,
    ended: &Ended,
    before: &BTreeMap<String, Value>,
    after: &BTreeMap<String, Value>,
) -> Outcome {
    let settings = Settings::of(node);
    let cycle = settings.cycle(ended.elapsed);
    let mut outcome = if settings.stopped(before, ended.elapsed) {
        Outcome::succeeded("Stop condition satisfied at cycle 1".into())
    } else if cycle > settings.max_cycles {
        Outcome::failed(&format!(
            "Max cycles ({}) exceeded for manager loop node: {}",
            settings.max_cycles, node.id
        ))
    } else {
        let mut outcome = Outcome::succeeded(format!("Child completed at cycle {cycle}"));
        outcome.context_updates = changed(before, after);
        if ended.status.is_failure() {
            outcome.status = Status::Failed;
            let reason = ended.failure.as_deref().unwrap_or("the child run failed");
            outcome.notes = format!("Child run {} failed: {reason}", ended.id);
        }
        outcome
    };
    let updates = &mut outcome.context_updates;
    updates.insert("stack.child.run_id".into(), json!(ended.id.as_str()));
    updates.insert("stack.child.status".into(), json!(ended.status.as_str()));
    outcome
}

/// The parent's context as the walk holds it at this node: its last checkpoint's, which the
/// walk only extends by the node it is at.
fn parent_context(
    engine: &Engine,
    parent: &RunState,
    node: &Node,
    visit: u64,
) -> Result<BTreeMap<String, Value>> {
    let checkpoint = parent.linked_checkpoint(engine.repo)?;
    let mut context = checkpoint.map(|c| c.context_values).unwrap_or_default();
    context.insert("current_node".into(), json!(node.id));
    context.insert("internal.node_visit_count".into(), json!(visit));
    Ok(context)
}
