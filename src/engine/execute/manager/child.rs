//! The child workflow of a manager loop: where it is read from, and what keeps it from
//! running. A child named by file is recorded with the run when it starts
//! (`spec.child_workflows`), and so passes the run's trust gate with the parent workflow; one
//! whose file the start could not read is read when the node runs, and runs only when this
//! machine wrote or approved it (or the user vouched with `run`/`resume --trust`): the trust
//! gate of `ops::trust`. A child whose workflow is that of a run it descends from,
//! or one past `MAX_DEPTH` nested runs, is refused: a workflow naming itself as its child
//! would otherwise fan out without end.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::super::Engine;
use super::MAX_DEPTH;
use crate::engine::files::{FileRefs, Unreadable};
use crate::engine::graph::Node;
use crate::engine::handler::Handler;
use crate::engine::template::{self, CHILD_SOURCE_ATTR};
use crate::engine::validate;
use crate::engine::workflow::{self, Graph, Loaded};
use crate::format::run_id::RunId;
use crate::ops::start::WORKFLOW_DIR;
use crate::ops::trust;
use crate::run::RunState;

/// The child's graph, its source, and the file it came from (none when inline).
pub(super) struct Child {
    /// Rendered with the parent's goal and inputs.
    pub graph: Graph,
    /// As loaded, before rendering: what the child run records (`spec.graph`), as a run
    /// records its workflow, so that its resume renders it once, as this run does.
    pub loaded: Graph,
    pub source: String,
    pub file: Option<PathBuf>,
    /// Inline in the parent's workflow, or read from a file this machine wrote or approved.
    pub approved: bool,
    /// What the child run records as its goal and inputs, so that it renders the same when
    /// it is resumed on its own: the parent's goal when the child has none of its own.
    pub goal: Option<String>,
    pub inputs: BTreeMap<String, String>,
    /// The child workflows it names by file in turn, as the child run records them.
    pub children: Map<String, Value>,
}

/// The key of `spec` under which a run records, by manager node, the child workflows its
/// manager loops name by file.
pub const CHILD_WORKFLOWS: &str = "child_workflows";

/// Most child workflows one run records, nested ones included.
const MOST_RECORDED: usize = MAX_DEPTH * 4;

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

/// Loads the child workflow (`workflow::load`), checks that it can run and renders it.
pub(super) fn child_graph(
    engine: &Engine,
    parent: &RunState,
    node: &Node,
) -> Result<Child, String> {
    let (loaded, file) = match node.str_attr(CHILD_SOURCE_ATTR) {
        Some(source) => {
            let loaded =
                workflow::load_source(source, CHILD_SOURCE_ATTR).map_err(|e| e.to_string())?;
            (loaded, None)
        }
        None => match recorded(parent, node) {
            Some(loaded) => (loaded, None),
            None => {
                let named = child_name(node).ok_or("No child workflow source")?;
                let file = child_path(engine, parent, named)?;
                let loaded = workflow::load(&file, "stack.child_workflow", engine.repo.workdir())
                    .map_err(|e| e.to_string())?;
                (loaded, Some(file))
            }
        },
    };
    // Inline or recorded, it is part of the parent's run, which the trust gate passed.
    let approved =
        file.is_none() || trust::is_approved(&engine.config.home, loaded.source.as_bytes());
    let children = match (&file, node.str_attr(CHILD_SOURCE_ATTR)) {
        (Some(file), _) => {
            let dir = file.parent().unwrap_or(Path::new("."));
            recorded_children(&loaded.graph, dir, engine.repo.workdir())
        }
        (None, Some(_)) => Map::new(),
        (None, None) => recorded_entry(parent, node)
            .and_then(|entry| entry.get(CHILD_WORKFLOWS)?.as_object().cloned())
            .unwrap_or_default(),
    };
    checked(&loaded, engine.config.agent_command.as_deref())?;
    let inputs = parent.record.spec.inputs();
    let goal = match loaded.graph.goal() {
        Some(_) => None,
        None => engine.graph.goal().map(str::to_owned),
    };
    let graph = template::render_graph(&loaded.graph, goal.as_deref(), &inputs)?;
    Ok(Child {
        graph,
        loaded: loaded.graph,
        source: loaded.source,
        file,
        approved,
        goal,
        inputs,
        children,
    })
}

/// The child workflow the run recorded at its start for manager node `node`, if it did.
fn recorded(parent: &RunState, node: &Node) -> Option<Loaded> {
    let entry = recorded_entry(parent, node)?;
    let graph = Graph::from_fabro_json(entry.get("graph")?)?;
    let source = entry.get("source")?.as_str()?.to_owned();
    let diagnostics = validate::validate(&graph);
    Some(Loaded {
        graph,
        source,
        diagnostics,
    })
}

fn recorded_entry<'r>(parent: &'r RunState, node: &Node) -> Option<&'r Value> {
    parent.record.spec.extra.get(CHILD_WORKFLOWS)?.get(&node.id)
}

/// The child workflows the manager loops of `graph` name by file, found in `dir` as
/// [`locate`] finds them, each loaded (imports spliced in, `@file` texts inlined) with those
/// it names in turn: what a run records at its start (`spec.child_workflows`), so that it runs
/// them as they were then, on this machine or a worker's, as it does its imports. A file that
/// cannot be read is left for its manager node to name when it runs; a child whose workflow
/// is one above it is recorded without its own (the run refuses to start it).
pub fn recorded_children(graph: &Graph, dir: &Path, repo: Option<&Path>) -> Map<String, Value> {
    let mut budget = MOST_RECORDED;
    record_children(graph, dir, repo, &mut Vec::new(), &mut budget)
}

/// The graphs of the child workflows a run recorded in `spec` (`spec.extra`), nested ones
/// too: what an `--answer` may name besides those [`nested_workflows`] finds beside the
/// workflow, which another machine does not have.
pub fn recorded_workflows(spec: &BTreeMap<String, Value>) -> Vec<Graph> {
    let mut found = Vec::new();
    let mut queue: Vec<&Value> = spec.get(CHILD_WORKFLOWS).into_iter().collect();
    while let Some(children) = queue.pop() {
        for entry in children.as_object().into_iter().flat_map(|c| c.values()) {
            found.extend(entry.get("graph").and_then(Graph::from_fabro_json));
            queue.extend(entry.get(CHILD_WORKFLOWS));
        }
    }
    found
}

/// The entry of `spec` that records `children`: none when there are none, so that a run
/// without child files records what it always did.
pub fn children_in_spec(children: Map<String, Value>) -> BTreeMap<String, Value> {
    let entry = (!children.is_empty()).then(|| (CHILD_WORKFLOWS.to_owned(), children.into()));
    entry.into_iter().collect()
}

fn record_children(
    graph: &Graph,
    dir: &Path,
    repo: Option<&Path>,
    above: &mut Vec<String>,
    budget: &mut usize,
) -> Map<String, Value> {
    let mut recorded = Map::new();
    for node in graph.nodes() {
        let by_file =
            Handler::of(node) == Handler::ManagerLoop && node.str_attr(CHILD_SOURCE_ATTR).is_none();
        let Some(named) = child_name(node).filter(|_| by_file) else {
            continue;
        };
        let Ok(file) = locate(named, dir, repo) else {
            continue;
        };
        let Ok(loaded) = workflow::load(&file, "stack.child_workflow", repo) else {
            continue;
        };
        if *budget == 0 {
            break;
        }
        *budget -= 1;
        let mut nested = Map::new();
        if !above.contains(&loaded.source) && above.len() < MAX_DEPTH {
            above.push(loaded.source.clone());
            let dir = file.parent().unwrap_or(Path::new("."));
            nested = record_children(&loaded.graph, dir, repo, above, budget);
            above.pop();
        }
        recorded.insert(
            node.id.clone(),
            json!({
                "workflow": named,
                "source": loaded.source,
                "graph": loaded.graph.to_fabro_json(),
                CHILD_WORKFLOWS: nested,
            }),
        );
    }
    recorded
}

fn child_name(node: &Node) -> Option<&str> {
    node.str_attr("stack.child_workflow")
        .or_else(|| node.str_attr("stack.child_dotfile"))
}

/// The workflows the manager loops of `graph` start, and the ones those start, as far as
/// they can be loaded (a file found in `dir` as [`locate`] finds it): an `--answer` or
/// `--assume-done` may name their nodes. A workflow that nests itself is read a bounded
/// number of times.
pub fn nested_workflows(graph: &Graph, dir: &Path, repo: Option<&Path>) -> Vec<Graph> {
    let mut found: Vec<Graph> = Vec::new();
    let mut queue = vec![(graph.clone(), dir.to_path_buf())];
    while let Some((graph, dir)) = queue.pop() {
        for node in graph.nodes() {
            if found.len() >= MAX_DEPTH * 4 {
                return found;
            }
            if let Some((child, dir)) = nested_source(node, &dir, repo) {
                found.push(child.clone());
                queue.push((child, dir));
            }
        }
    }
    found
}

/// The child workflow a manager loop names, and the directory its own children are taken in.
fn nested_source(node: &Node, dir: &Path, repo: Option<&Path>) -> Option<(Graph, PathBuf)> {
    if Handler::of(node) != Handler::ManagerLoop {
        return None;
    }
    if let Some(source) = node.str_attr(CHILD_SOURCE_ATTR) {
        let loaded = workflow::load_source(source, &node.id).ok()?;
        return Some((loaded.graph, dir.to_owned()));
    }
    let file = locate(child_name(node)?, dir, repo).ok()?;
    let loaded = workflow::load(&file, "stack.child_workflow", None).ok()?;
    Some((
        loaded.graph,
        file.parent().unwrap_or(Path::new(".")).to_owned(),
    ))
}

/// The child file of a run: in the directory it recorded as its workflow's.
fn child_path(engine: &Engine, parent: &RunState, named: &str) -> Result<PathBuf, String> {
    let dir = parent
        .record
        .spec
        .extra
        .get(WORKFLOW_DIR)
        .and_then(Value::as_str)
        .ok_or_else(|| {
            format!("the run did not record its workflow's directory, so {named} cannot be found")
        })?;
    locate(named, Path::new(dir), engine.repo.workdir())
}

/// A child path is read as an `import=` is ([`FileRefs::locate`]): relative to the workflow's
/// directory `dir`, inside it or the repository `repo`, symlinks and `..` resolved. An
/// absolute path, or one leading out, is refused; a missing file is left for the load that
/// follows to name.
fn locate(named: &str, dir: &Path, repo: Option<&Path>) -> Result<PathBuf, String> {
    match (FileRefs { dir, repo }).locate(dir, named) {
        Ok(real) => Ok(real),
        Err(Unreadable::Missing) => Ok(dir.join(named)),
        Err(Unreadable::NotRelative) => Err(format!(
            "stack.child_workflow {named} is not a relative path beside the workflow"
        )),
        Err(Unreadable::Outside) => Err(format!(
            "stack.child_workflow {named} leads outside the workflow's directory and the \
             repository"
        )),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_records_its_child_files_with_theirs_and_reads_every_graph_back() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let file = dir.path().join(name);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        };
        write(
            "child.fabro",
            "digraph C { s [shape=Mdiamond]; e [shape=Msquare]; \
             m [shape=house, stack.child_workflow=\"deep/g.fabro\"]; s -> m -> e }",
        );
        write(
            "deep/g.fabro",
            "digraph G { s [shape=Mdiamond]; e [shape=Msquare]; s -> e }",
        );
        // A workflow naming itself is recorded twice: the second time without its children,
        // since the run refuses to start it.
        let parent = "digraph P { s [shape=Mdiamond]; e [shape=Msquare]; \
                      m [shape=house, stack.child_workflow=\"child.fabro\"]; \
                      me [shape=house, stack.child_workflow=\"p.fabro\"]; s -> m -> me -> e }";
        write("p.fabro", parent);
        let graph = workflow::load_source(parent, "p.fabro").unwrap().graph;
        let recorded = recorded_children(&graph, dir.path(), None);
        assert_eq!(recorded["m"]["workflow"], "child.fabro");
        assert_eq!(
            recorded["m"][CHILD_WORKFLOWS]["m"]["workflow"],
            "deep/g.fabro"
        );
        let spec = children_in_spec(recorded);
        let mut names: Vec<String> = recorded_workflows(&spec)
            .into_iter()
            .map(|g| g.name)
            .collect();
        names.sort();
        assert_eq!(names, ["C", "C", "G", "G", "P", "P"]);
        assert!(children_in_spec(Map::new()).is_empty());
    }
}
