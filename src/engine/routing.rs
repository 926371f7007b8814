//! Which edge a node's outcome follows, in Fabro's tiers:
//!
//! 1. edges whose condition holds (highest `weight`, then the smallest target id);
//! 2. the first unconditional edge whose label matches the outcome's preferred label
//!    (compared without case, spaces or an accelerator such as `[A] `, `A) `, `A - `);
//! 3. the first unconditional edge to one of the suggested next nodes, in their order;
//! 4. a human gate that failed with neither label nor suggestion selects nothing;
//! 5. unconditional edges (highest weight, then the smallest target id), **even after a
//!    failure**: a failed node still follows its plain edge, as in Fabro.
//!
//! `selection="random"` picks among a tier by weight in Fabro; git-fabro's dry run takes the
//! deterministic choice instead, so that a dry run always shows the same path.

use std::collections::BTreeMap;

use serde_json::Value;

use super::condition::{self, Facts};
use super::graph::{AttrValue, Edge, Graph, Node};
use super::handler::Handler;
use super::outcome::Outcome;

/// A node that ends the run when reached: `Msquare`, or a handler type `exit`.
pub fn is_terminal(node: &Node) -> bool {
    node.shape() == "Msquare" || Handler::of(node) == Handler::Exit
}

/// How a label is compared with a preferred label: lowercased, trimmed, accelerator removed.
pub fn normalize_label(label: &str) -> String {
    let s = label.trim().to_lowercase();
    if let Some(close) = s.strip_prefix('[').and_then(|r| r.find(']').map(|i| i + 1)) {
        return s[close + 1..].trim_start().to_string();
    }
    if s.as_bytes().get(1) == Some(&b')') {
        return s[2..].trim_start().to_string();
    }
    if let Some(rest) = s.get(1..).and_then(|r| r.strip_prefix(" - ")) {
        return rest.to_string();
    }
    s
}

fn best(edges: &[&Edge]) -> Option<String> {
    let mut best = *edges.first()?;
    for &edge in &edges[1..] {
        if edge.weight() > best.weight() || (edge.weight() == best.weight() && edge.to < best.to) {
            best = edge;
        }
    }
    Some(best.to.clone())
}

/// The edge taken after `node` ended with `outcome`, or `None` when it has nowhere to go.
pub fn select_edge<'g>(
    graph: &'g Graph,
    node: &Node,
    outcome: &Outcome,
    context: &BTreeMap<String, Value>,
) -> Option<&'g Edge> {
    let edges: Vec<&Edge> = graph.outgoing(&node.id).collect();
    let facts = Facts {
        outcome: outcome.status.as_str(),
        preferred_label: outcome.preferred_label.as_deref(),
        context,
    };
    let by_target = |to: Option<String>, among: &[&'g Edge]| {
        to.and_then(|to| among.iter().copied().find(|e| e.to == to))
    };
    let matched: Vec<&Edge> = edges
        .iter()
        .copied()
        .filter(|e| e.condition().is_some_and(|c| condition::holds(c, &facts)))
        .collect();
    if !matched.is_empty() {
        return by_target(best(&matched), &matched);
    }
    let unconditional: Vec<&Edge> = edges
        .iter()
        .copied()
        .filter(|e| e.condition().is_none())
        .collect();
    if let Some(preferred) = &outcome.preferred_label {
        let preferred = normalize_label(preferred);
        let labelled = unconditional
            .iter()
            .find(|e| e.label().is_some_and(|l| normalize_label(l) == preferred));
        if let Some(edge) = labelled {
            return Some(edge);
        }
    }
    for id in &outcome.suggested_next_ids {
        if let Some(edge) = unconditional.iter().find(|e| &e.to == id) {
            return Some(edge);
        }
    }
    let gate_failed_closed = Handler::of(node) == Handler::Human
        && outcome.status.is_failure()
        && outcome.preferred_label.is_none()
        && outcome.suggested_next_ids.is_empty();
    if gate_failed_closed {
        return None;
    }
    by_target(best(&unconditional), &unconditional)
}

/// Where a failed node, or a failed goal gate, sends the run: the node's `retry_target`,
/// its `fallback_retry_target`, then the graph's, the first that names an existing node.
pub fn retry_target(graph: &Graph, node_id: &str) -> Option<String> {
    let node = graph.node(node_id);
    let candidates = [
        node.and_then(|n| n.str_attr("retry_target")),
        node.and_then(|n| n.str_attr("fallback_retry_target")),
        graph
            .attrs()
            .get("retry_target")
            .and_then(AttrValue::as_str),
        graph
            .attrs()
            .get("fallback_retry_target")
            .and_then(AttrValue::as_str),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|t| graph.node(t).is_some())
        .map(str::to_string)
}
