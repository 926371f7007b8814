//! git-fabro's own rules, beyond Fabro's: what its engine and records need of a workflow.
//! `run` refused these only once it was under way (a node id that no checkpoint can hold, a
//! parallel node with two branches to one node) or ran them silently wrong (a wait whose
//! `duration` cannot be read waited 0 ms); here they are validation errors, so `validate` and
//! `run` agree and nothing is written for a workflow that cannot run.

use super::Diagnostic;
use crate::engine::graph::{AttrValue, Graph};
use crate::engine::handler::Handler;
use crate::format::node::NodeId;

pub(super) fn node_id_recordable(g: &Graph, out: &mut Vec<Diagnostic>) {
    for node in g.nodes() {
        if let Err(crate::error::Error::InvalidNodeId { reason, .. }) = NodeId::parse(&node.id) {
            out.push(
                Diagnostic::error(
                    "node_id_recordable",
                    format!(
                        "Node ID '{}' cannot be recorded in a checkpoint: {reason}",
                        node.id
                    ),
                )
                .node(&node.id)
                .fix("Use 1 to 128 characters of A-Z a-z 0-9 _ - . starting with a letter, digit or _"),
            );
        }
    }
}

pub(super) fn parallel_branches_distinct(g: &Graph, out: &mut Vec<Diagnostic>) {
    for node in g
        .nodes()
        .iter()
        .filter(|n| Handler::of(n) == Handler::Parallel)
    {
        let targets: Vec<&str> = g.outgoing(&node.id).map(|e| e.to.as_str()).collect();
        let twice = targets
            .iter()
            .enumerate()
            .find(|(i, t)| targets[..*i].contains(t));
        if let Some((_, target)) = twice {
            out.push(
                Diagnostic::error(
                    "parallel_branches_distinct",
                    format!(
                        "Parallel node '{}' has two branches to '{target}': each branch is named by the node it runs",
                        node.id
                    ),
                )
                .node(&node.id)
                .edge(&node.id, target)
                .fix("Keep one edge to each branch node"),
            );
        }
    }
}

pub(super) fn wait_duration_valid(g: &Graph, out: &mut Vec<Diagnostic>) {
    for node in g.nodes().iter().filter(|n| Handler::of(n) == Handler::Wait) {
        let Some(value) = node.attrs.get("duration") else {
            continue;
        };
        if !matches!(value, AttrValue::Duration(_)) {
            out.push(
                Diagnostic::error(
                    "wait_duration_valid",
                    format!(
                        "Wait node '{}' has a duration that cannot be read: {}",
                        node.id,
                        value.to_text()
                    ),
                )
                .node(&node.id)
                .fix("Give a number with a unit: 250ms, 30s, 5m, 2h or 1d"),
            );
        }
    }
}
