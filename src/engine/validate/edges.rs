//! Rules on edges and the routing they make: conditions that parse, at most one freeform
//! edge from a human gate, a fallback when every edge is conditional, and no conditions under
//! random selection.

use super::Diagnostic;
use crate::engine::condition;
use crate::engine::graph::Graph;
use crate::engine::handler::Handler;

pub(super) fn condition_syntax(g: &Graph, out: &mut Vec<Diagnostic>) {
    for edge in g.edges() {
        let Some(text) = edge.condition() else {
            continue;
        };
        if let Err(e) = condition::parse(text) {
            out.push(
                Diagnostic::error(
                    "condition_syntax",
                    format!(
                        "Condition '{text}' on edge {} -> {} failed parse: {e}",
                        edge.from, edge.to
                    ),
                )
                .edge(&edge.from, &edge.to)
                .fix(
                    "Use key=value, key!=value, key>value, key contains value, key matches \
                     pattern, or bare key syntax",
                ),
            );
        }
    }
}

pub(super) fn freeform_edge_count(g: &Graph, out: &mut Vec<Diagnostic>) {
    for node in g
        .nodes()
        .iter()
        .filter(|n| Handler::of(n) == Handler::Human)
    {
        let n = g.outgoing(&node.id).filter(|e| e.freeform()).count();
        if n > 1 {
            let id = &node.id;
            out.push(
                Diagnostic::error(
                    "freeform_edge_count",
                    format!(
                        "wait.human node '{id}' has {n} freeform edges but at most one is allowed"
                    ),
                )
                .node(id)
                .fix("Remove extra freeform=true edges so at most one remains"),
            );
        }
    }
}

pub(super) fn all_conditional_edges(g: &Graph, out: &mut Vec<Diagnostic>) {
    for node in g.nodes() {
        let mut edges = g.outgoing(&node.id).peekable();
        if edges.peek().is_some() && edges.all(|e| e.condition().is_some()) {
            let id = &node.id;
            out.push(
                Diagnostic::error(
                    "all_conditional_edges",
                    format!("Node '{id}' has all conditional outgoing edges with no unconditional fallback"),
                )
                .node(id)
                .fix("Add at least one unconditional edge as a fallback"),
            );
        }
    }
}

pub(super) fn orphan_custom_outcome(g: &Graph, out: &mut Vec<Diagnostic>) {
    for node in g.nodes() {
        let edges: Vec<_> = g.outgoing(&node.id).collect();
        let routes_on_outcome = edges.iter().any(|e| {
            e.condition().is_some_and(|c| {
                c.split("&&")
                    .any(|clause| clause.trim().starts_with("outcome="))
            })
        });
        if routes_on_outcome && edges.iter().all(|e| e.condition().is_some()) {
            let id = &node.id;
            out.push(
                Diagnostic::warning(
                    "orphan_custom_outcome",
                    format!("Node '{id}' uses outcome-based routing but has no unconditional fallback edge"),
                )
                .node(id)
                .fix("Add an unconditional edge as a safety net for unmatched outcomes"),
            );
        }
    }
}

pub(super) fn random_selection_no_conditions(g: &Graph, out: &mut Vec<Diagnostic>) {
    for node in g.nodes().iter().filter(|n| n.selection() == "random") {
        if g.outgoing(&node.id).any(|e| e.condition().is_some()) {
            let id = &node.id;
            out.push(
                Diagnostic::error(
                    "random_selection_no_conditions",
                    format!(
                        "Node '{id}' has selection=\"random\" but also has conditional edges; \
                         random selection and conditions cannot be combined"
                    ),
                )
                .node(id)
                .fix(
                    "Remove the condition attributes from outgoing edges, or remove \
                     selection=\"random\" from the node",
                ),
            );
        }
    }
}
