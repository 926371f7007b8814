//! Rules on the workflow's shape: one start node and one exit, every node reachable from the
//! start, nothing entering the start or leaving the exit, node ids that DOT does not reserve,
//! and every import resolved.

use std::collections::{BTreeSet, VecDeque};

use super::Diagnostic;
use crate::engine::graph::{Graph, Node};

const RESERVED_IDS: &[&str] = &[
    "graph", "digraph", "subgraph", "node", "edge", "strict", "if",
];

fn is_start(n: &Node) -> bool {
    n.shape() == "Mdiamond" || n.id == "start" || n.id == "Start"
}

fn is_exit(n: &Node) -> bool {
    n.shape() == "Msquare" || ["exit", "Exit", "end", "End"].contains(&n.id.as_str())
}

pub(super) fn start_node(g: &Graph, out: &mut Vec<Diagnostic>) {
    let rule = "start_node";
    match g.nodes().iter().filter(|n| is_start(n)).count() {
        0 => out.push(
            Diagnostic::error(
                rule,
                "Pipeline must have exactly one start node (shape=Mdiamond or id start/Start)",
            )
            .fix("Add a node with shape=Mdiamond or id 'start'"),
        ),
        1 => {}
        n => out.push(
            Diagnostic::error(
                rule,
                format!("Pipeline has {n} start nodes but must have exactly one"),
            )
            .fix("Remove extra start nodes"),
        ),
    }
}

pub(super) fn terminal_node(g: &Graph, out: &mut Vec<Diagnostic>) {
    let rule = "terminal_node";
    match g.nodes().iter().filter(|n| is_exit(n)).count() {
        0 => out.push(
            Diagnostic::error(
                rule,
                "Pipeline must have exactly one terminal node (shape=Msquare or id exit/end)",
            )
            .fix("Add a node with shape=Msquare or id 'exit'/'end'"),
        ),
        1 => {}
        n => out.push(
            Diagnostic::error(
                rule,
                format!("Pipeline must have exactly one terminal node, found {n}"),
            )
            .fix("Remove extra terminal nodes so exactly one remains"),
        ),
    }
}

pub(super) fn reachability(g: &Graph, out: &mut Vec<Diagnostic>) {
    let Some(start) = g.start_node() else {
        return;
    };
    let mut seen = BTreeSet::from([start.id.as_str()]);
    let mut queue = VecDeque::from([start.id.as_str()]);
    while let Some(id) = queue.pop_front() {
        for edge in g.outgoing(id) {
            if seen.insert(edge.to.as_str()) {
                queue.push_back(edge.to.as_str());
            }
        }
    }
    let mut unreachable: Vec<&str> = g
        .nodes()
        .iter()
        .map(|n| n.id.as_str())
        .filter(|id| !seen.contains(id))
        .collect();
    unreachable.sort_unstable();
    for id in unreachable {
        out.push(
            Diagnostic::warning(
                "reachability",
                format!("Node '{id}' is not reachable from the start node"),
            )
            .node(id)
            .fix(format!("Add an edge path from the start node to '{id}'")),
        );
    }
}

pub(super) fn start_no_incoming(g: &Graph, out: &mut Vec<Diagnostic>) {
    let Some(start) = g.start_node() else {
        return;
    };
    let n = g.incoming(&start.id).count();
    if n > 0 {
        let id = &start.id;
        out.push(
            Diagnostic::error(
                "start_no_incoming",
                format!("Start node '{id}' has {n} incoming edge(s) but must have none"),
            )
            .node(id)
            .fix("Remove incoming edges to the start node"),
        );
    }
}

pub(super) fn exit_no_outgoing(g: &Graph, out: &mut Vec<Diagnostic>) {
    for node in g.nodes().iter().filter(|n| is_exit(n)) {
        let n = g.outgoing(&node.id).count();
        if n > 0 {
            let id = &node.id;
            out.push(
                Diagnostic::error(
                    "exit_no_outgoing",
                    format!("Exit node '{id}' has {n} outgoing edge(s) but must have none"),
                )
                .node(id)
                .fix("Remove outgoing edges from the exit node"),
            );
        }
    }
}

pub(super) fn reserved_keyword_node_id(g: &Graph, out: &mut Vec<Diagnostic>) {
    for node in g.nodes() {
        let lower = node.id.to_lowercase();
        if RESERVED_IDS.contains(&lower.as_str()) {
            let id = &node.id;
            out.push(
                Diagnostic::warning(
                    "reserved_keyword_node_id",
                    format!(
                        "Node ID '{id}' is a DOT reserved keyword and may cause parsing failures"
                    ),
                )
                .node(id)
                .fix(format!(
                    "Rename '{id}' to '{lower}_step' or another non-reserved ID"
                )),
            );
        }
    }
}

/// The imports the loader could not splice in (it left the reason in `import_error`), and
/// those it had no directory to look for (a workflow given as text).
pub(super) fn import_error(g: &Graph, out: &mut Vec<Diagnostic>) {
    for node in g.nodes() {
        if let Some(reason) = node.str_attr("import_error") {
            out.push(
                Diagnostic::error("import_error", reason.to_owned())
                    .node(&node.id)
                    .fix("Fix the imported workflow or the import path"),
            );
        }
        if node.attrs.contains_key("import") {
            out.push(
                Diagnostic::error(
                    "import_error",
                    "unresolved import: a workflow given as text has no directory to import from",
                )
                .node(&node.id)
                .fix("Load the workflow from a file, so that its imports resolve beside it"),
            );
        }
    }
}
