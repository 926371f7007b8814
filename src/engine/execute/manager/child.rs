//! The child workflow of a manager loop: where it is read from, and what keeps it from
//! running. A child read from a file runs only when this machine wrote or approved it (or the
//! user vouched with `run`/`resume --trust`): the trust gate of `ops::trust`, which the
//! recorded parent workflow passed. A child whose workflow is that of a run it descends from,
//! or one past `MAX_DEPTH` nested runs, is refused: a workflow naming itself as its child
//! would otherwise fan out without end.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::super::Engine;
use super::MAX_DEPTH;
use crate::engine::graph::Node;
use crate::engine::handler::Handler;
use crate::engine::workflow::{self, Graph, Loaded};
use crate::format::run_id::RunId;
use crate::ops::start::WORKFLOW_DIR;
use crate::ops::trust;
use crate::run::RunState;

/// The child's graph, its source, and the file it came from (none when inline).
pub(super) struct Child {
    pub graph: Graph,
    pub source: String,
    pub file: Option<PathBuf>,
    /// Inline in the parent's workflow, or read from a file this machine wrote or approved.
    pub approved: bool,
}

/// Refuses a child that would start a chain of runs without end: one whose workflow is that
/// of the parent or of a run above it (a workflow naming itself as its child), and one past
/// `MAX_DEPTH` nested runs (a chain of ever new workflows).
pub(super) fn refuse_unbounded(
    engine: &Engine,
    parent: &RunState,
    node: &Node,
    child: &Child,
) -> Result<(), String> {
    let mut depth = 0;
    let mut run = Some(parent.clone());
    while let Some(state) = run {
        if state.record.graph_source.as_deref() == Some(child.source.as_str()) {
            return Err(format!(
                "manager loop {}: its child workflow is the workflow of run {}, which this run \
                 descends from; a workflow that starts itself never ends, so the child was not \
                 started",
                node.id, state.id
            ));
        }
        depth += 1;
        if depth >= MAX_DEPTH {
            return Err(format!(
                "manager loop {}: manager loops nest deeper than {MAX_DEPTH} runs; the child was \
                 not started",
                node.id
            ));
        }
        run = parent_of(&state).and_then(|id| RunState::load(engine.repo, &id).ok());
    }
    Ok(())
}

fn parent_of(state: &RunState) -> Option<RunId> {
    let id = state.record.spec.extra.get("parent_run_id")?.as_str()?;
    RunId::parse(id).ok()
}

/// Loads the child workflow (`workflow::load`) and checks that it can run.
pub(super) fn child_graph(
    engine: &Engine,
    parent: &RunState,
    node: &Node,
) -> Result<Child, String> {
    if let Some(source) = node.str_attr("stack.child_dot_source") {
        let loaded =
            workflow::load_source(source, "stack.child_dot_source").map_err(|e| e.to_string())?;
        checked(&loaded, engine.config.agent_command.as_deref())?;
        return Ok(Child {
            graph: loaded.graph,
            source: loaded.source,
            file: None,
            approved: true,
        });
    }
    let named = node
        .str_attr("stack.child_workflow")
        .or_else(|| node.str_attr("stack.child_dotfile"))
        .ok_or("No child workflow source")?;
    let file = child_path(parent, named)?;
    let loaded = workflow::load(&file, "stack.child_workflow", engine.repo.workdir())
        .map_err(|e| e.to_string())?;
    let approved = trust::is_approved(&engine.config.home, loaded.source.as_bytes());
    checked(&loaded, engine.config.agent_command.as_deref())?;
    Ok(Child {
        graph: loaded.graph,
        source: loaded.source,
        file: Some(file),
        approved,
    })
}

/// The child workflow files the manager loops of `graph` name, a relative one taken in `dir`
/// (the workflow's directory): `run` approves them with the workflow, as the user's own.
pub fn child_files(graph: &Graph, dir: &Path) -> Vec<PathBuf> {
    graph
        .nodes()
        .iter()
        .filter(|node| node.str_attr("stack.child_dot_source").is_none())
        .filter_map(|node| {
            node.str_attr("stack.child_workflow")
                .or_else(|| node.str_attr("stack.child_dotfile"))
        })
        .map(|named| dir.join(named))
        .collect()
}

/// The workflows the manager loops of `graph` start, and the ones those start, as far as
/// they can be loaded (a relative file taken in `dir`): an `--answer` or `--assume-done` may
/// name their nodes. A workflow that nests itself is read a bounded number of times.
pub fn nested_workflows(graph: &Graph, dir: &Path) -> Vec<Graph> {
    let mut found: Vec<Graph> = Vec::new();
    let mut queue = vec![(graph.clone(), dir.to_path_buf())];
    while let Some((graph, dir)) = queue.pop() {
        for node in graph.nodes() {
            if found.len() >= MAX_DEPTH * 4 {
                return found;
            }
            if let Some((child, dir)) = nested_source(node, &dir) {
                found.push(child.clone());
                queue.push((child, dir));
            }
        }
    }
    found
}

/// The child workflow a manager loop names, and the directory its own children are taken in.
fn nested_source(node: &Node, dir: &Path) -> Option<(Graph, PathBuf)> {
    if Handler::of(node) != Handler::ManagerLoop {
        return None;
    }
    if let Some(source) = node.str_attr("stack.child_dot_source") {
        let loaded = workflow::load_source(source, &node.id).ok()?;
        return Some((loaded.graph, dir.to_owned()));
    }
    let named = node
        .str_attr("stack.child_workflow")
        .or_else(|| node.str_attr("stack.child_dotfile"))?;
    let file = dir.join(named);
    let loaded = workflow::load(&file, "stack.child_workflow", None).ok()?;
    Some((
        loaded.graph,
        file.parent().unwrap_or(Path::new(".")).to_owned(),
    ))
}

/// A relative child path is beside the parent's workflow file.
fn child_path(parent: &RunState, named: &str) -> Result<PathBuf, String> {
    let named = Path::new(named);
    if named.is_absolute() {
        return Ok(named.to_owned());
    }
    let dir = parent
        .record
        .spec
        .extra
        .get(WORKFLOW_DIR)
        .and_then(Value::as_str)
        .ok_or_else(|| {
            format!(
                "the run did not record its workflow's directory, so {} cannot be found",
                named.display()
            )
        })?;
    Ok(Path::new(dir).join(named))
}

/// Validation errors fail the stage; so do agent nodes when no agent command is set.
fn checked(loaded: &Loaded, agent: Option<&str>) -> Result<(), String> {
    if let Some(error) = loaded.diagnostics.iter().find(|d| d.is_error()) {
        return Err(format!("{} ({})", error.message, error.rule));
    }
    let agents = super::super::agent_nodes(&loaded.graph);
    if !agents.is_empty() && agent.is_none_or(|a| a.trim().is_empty()) {
        return Err(format!(
            "the child has agent or prompt nodes ({}) and no agent command to run them; set \
             one with `--agent`, `git config fabro.agentCommand` or `[agent] command`",
            agents.join(", ")
        ));
    }
    Ok(())
}
