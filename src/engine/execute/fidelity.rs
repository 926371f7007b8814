//! Fabro's fidelity and thread of a stage, set in the context before its node runs:
//! `internal.fidelity` (how much of the run an agent's preamble carries: the incoming edge's
//! `fidelity`, else the node's, else the graph's `default_fidelity`, else `compact`; the first
//! node after a resume degrades `full` to `summary:high`, as Fabro's does) and
//! `internal.thread_id` (the incoming edge's `thread_id`, else the node's, else the graph's
//! `default_thread`, else the node's first class, else the previous node; null for none), with
//! `thread.<id>.current_node`. git-fabro writes no preamble itself: the keys are there for
//! conditions and for agent commands that read the context, as in Fabro.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::engine::graph::{Edge, FIDELITIES, Graph, Node};

/// What the stage before left for the next one.
#[derive(Default)]
pub(super) struct Threading {
    /// The edge the walk came along.
    pub incoming: Option<Edge>,
    pub previous: Option<String>,
    /// Set on resume, for the first node only.
    pub degrade: bool,
}

impl Threading {
    /// Sets the stage's fidelity and thread in `context`.
    pub fn before_node(
        &mut self,
        graph: &Graph,
        node: &Node,
        context: &mut BTreeMap<String, Value>,
    ) {
        let edge = self.incoming.take();
        let fidelity = [
            edge.as_ref().and_then(|e| e.str_attr("fidelity")),
            node.str_attr("fidelity"),
            graph
                .attrs()
                .get("default_fidelity")
                .and_then(|v| v.as_str()),
        ]
        .into_iter()
        .flatten()
        .find(|mode| FIDELITIES.contains(mode))
        .unwrap_or("compact");
        let fidelity = match std::mem::take(&mut self.degrade) {
            true if fidelity == "full" => "summary:high",
            _ => fidelity,
        };
        context.insert("internal.fidelity".into(), json!(fidelity));
        let thread = edge
            .as_ref()
            .and_then(|e| e.str_attr("thread_id"))
            .or_else(|| node.str_attr("thread_id"))
            .or_else(|| graph.attrs().get("default_thread").and_then(|v| v.as_str()))
            .or_else(|| node.classes.first().map(String::as_str))
            .or(self.previous.as_deref())
            .map(str::to_owned);
        if let Some(thread) = &thread {
            context.insert(format!("thread.{thread}.current_node"), json!(node.id));
        }
        context.insert("internal.thread_id".into(), json!(thread));
    }

    /// Notes the stage that ran and the edge it chose.
    pub fn after_node(&mut self, node: &Node, edge: Option<&Edge>) {
        self.previous = Some(node.id.clone());
        self.incoming = edge.cloned();
    }
}
