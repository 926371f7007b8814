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
    exactly_one(g, out, "start_node", is_start, |n| match n {
        0 => (
            "Pipeline must have exactly one start node (shape=Mdiamond or id start/Start)".into(),
            "Add a node with shape=Mdiamond or id 'start'",
        ),
        n => (
            format!("Pipeline has {n} start nodes but must have exactly one"),
            "Remove extra start nodes",
        ),
    });
}

pub(super) fn terminal_node(g: &Graph, out: &mut Vec<Diagnostic>) {
    exactly_one(g, out, "terminal_node", is_exit, |n| match n {
        0 => (
            "Pipeline must have exactly one terminal node (shape=Msquare or id exit/end)".into(),
            "Add a node with shape=Msquare or id 'exit'/'end'",
        ),
        n => (
            format!("Pipeline must have exactly one terminal node, found {n}"),
            "Remove extra terminal nodes so exactly one remains",
        ),
    });
}

/// Refuses a workflow with none, or more than one, of the nodes `is` picks, with what `said`
/// says of their count: the message and the fix (Fabro's words).
fn exactly_one(
    g: &Graph,
    out: &mut Vec<Diagnostic>,
    rule: &'static str,
    is: fn(&Node) -> bool,
    said: impl Fn(usize) -> (String, &'static str),
) {
    let count = g.nodes().iter().filter(|n| is(n)).count();
    if count != 1 {
        let (message, fix) = said(count);
        out.push(Diagnostic::error(rule, message).fix(fix));
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
    if let Some(start) = g.start_node() {
        START_NO_INCOMING.check(out, &start.id, g.incoming(&start.id).count());
    }
}

pub(super) fn exit_no_outgoing(g: &Graph, out: &mut Vec<Diagnostic>) {
    for node in g.nodes().iter().filter(|n| is_exit(n)) {
        EXIT_NO_OUTGOING.check(out, &node.id, g.outgoing(&node.id).count());
    }
}

/// A node that must have no edges one way: its rule, what it is, the way, and the fix.
struct NoEdges {
    rule: &'static str,
    kind: &'static str,
    way: &'static str,
    fix: &'static str,
}

const START_NO_INCOMING: NoEdges = NoEdges {
    rule: "start_no_incoming",
    kind: "Start",
    way: "incoming",
    fix: "Remove incoming edges to the start node",
};

const EXIT_NO_OUTGOING: NoEdges = NoEdges {
    rule: "exit_no_outgoing",
    kind: "Exit",
    way: "outgoing",
    fix: "Remove outgoing edges from the exit node",
};

impl NoEdges {
    /// Refuses the `n` edges node `id` has this way, if any.
    fn check(&self, out: &mut Vec<Diagnostic>, id: &str, n: usize) {
        let NoEdges {
            rule,
            kind,
            way,
            fix,
        } = self;
        if n > 0 {
            let message = format!("{kind} node '{id}' has {n} {way} edge(s) but must have none");
            out.push(Diagnostic::error(rule, message).node(id).fix(*fix));
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
