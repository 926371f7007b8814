//! Splicing imported parts into the host graph in place. Built anew for each placeholder, the
//! host was copied once per import: twenty imports of a part of ten thousand nodes copied two
//! million nodes to make a graph of two hundred thousand, and the time grew with the square of
//! the imports. Here the host is taken apart once: a placeholder's slot receives its part's
//! nodes, the edges around it are struck out of the edge list and the new ones appended, and
//! the graph is put together once at the end. Node and edge order are those of splicing the
//! placeholders one after the other, which routing depends on.

use std::collections::{HashMap, HashSet};

use super::{Ends, Placeholder, edge, merged, routes};
use crate::engine::graph::{AttrValue, Attrs, Edge, Graph, Node};

/// A host graph while its placeholders are spliced.
pub(super) struct Splicer {
    name: String,
    attrs: Attrs,
    undeclared: Vec<String>,
    /// The host's nodes in order, one to a slot; a spliced placeholder's slot holds its
    /// part's nodes.
    slots: Vec<Vec<Node>>,
    slot_of: HashMap<String, usize>,
    /// Every node id the graph has now.
    ids: HashSet<String>,
    /// The edges in order; one struck out is `None`.
    edges: Vec<Option<Edge>>,
    leaving: HashMap<String, Vec<usize>>,
    arriving: HashMap<String, Vec<usize>>,
    spliced: bool,
}

impl Splicer {
    pub fn new(graph: Graph) -> Splicer {
        let mut splicer = Splicer {
            name: graph.name,
            attrs: graph.attrs,
            undeclared: graph.undeclared,
            slots: Vec::with_capacity(graph.nodes.len()),
            slot_of: HashMap::with_capacity(graph.nodes.len()),
            ids: HashSet::with_capacity(graph.nodes.len()),
            edges: Vec::with_capacity(graph.edges.len()),
            leaving: HashMap::new(),
            arriving: HashMap::new(),
            spliced: false,
        };
        for node in graph.nodes {
            splicer.slot_of.insert(node.id.clone(), splicer.slots.len());
            splicer.ids.insert(node.id.clone());
            splicer.slots.push(vec![node]);
        }
        for edge in graph.edges {
            splicer.push(edge);
        }
        splicer
    }

    /// The host node `id`, while it is not spliced.
    pub fn node(&self, id: &str) -> Option<&Node> {
        let slot = &self.slots[*self.slot_of.get(id)?];
        slot.first().filter(|node| slot.len() == 1 && node.id == id)
    }

    /// The live edges at `positions`, in order.
    fn live(&self, positions: Option<&Vec<usize>>) -> Vec<Edge> {
        let at = positions.into_iter().flatten();
        at.filter_map(|&i| self.edges[i].clone()).collect()
    }

    pub fn outgoing(&self, id: &str) -> Vec<Edge> {
        self.live(self.leaving.get(id))
    }

    fn push(&mut self, edge: Edge) {
        let at = self.edges.len();
        self.leaving.entry(edge.from.clone()).or_default().push(at);
        self.arriving.entry(edge.to.clone()).or_default().push(at);
        self.edges.push(Some(edge));
    }

    /// Leaves placeholder `id` in the graph, with why it was not expanded.
    pub fn poison(&mut self, id: &str, reason: String) {
        let Some(&slot) = self.slot_of.get(id) else {
            return;
        };
        if let Some(node) = self.slots[slot].iter_mut().find(|n| n.id == id) {
            node.attrs.remove("import");
            node.attrs
                .insert("import_error".into(), AttrValue::String(reason));
        }
    }

    /// Replaces placeholder `id` by `part`'s nodes and edges. The edges around it keep their
    /// order; the part's edges, then the rewired ones, come after them, as in Fabro. Nothing
    /// changes when it fails.
    pub fn splice(
        &mut self,
        id: &str,
        placeholder: &Placeholder,
        part: &Graph,
        ends: &Ends,
    ) -> Result<(), String> {
        let sentinel = |n: &str| n == ends.start || n == ends.exit;
        let prefixed = |n: &str| format!("{id}.{n}");
        let own: Vec<&Node> = part.nodes().iter().filter(|n| !sentinel(&n.id)).collect();
        if let Some(taken) = own.iter().find(|n| self.ids.contains(&prefixed(&n.id))) {
            return Err(format!(
                "import placeholder '{id}' would replace the existing node '{}'",
                prefixed(&taken.id)
            ));
        }
        let incoming = self.live(self.arriving.get(id));
        let outgoing = self.outgoing(id);
        let ways = ends.first.as_ref().zip(ends.last.as_ref());
        if ways.is_none() && incoming.iter().chain(&outgoing).any(routes) {
            return Err(format!(
                "empty import '{id}' cannot stand in for edges that carry routing attributes"
            ));
        }
        self.strike(id);
        let slot = self.slot_of[id];
        self.slots[slot] = own.iter().map(|n| merged(n, id, placeholder)).collect();
        self.ids
            .extend(self.slots[slot].iter().map(|n| n.id.clone()));
        self.spliced = true;
        let Some((first, last)) = ways else {
            // A part with no nodes of its own: the edges around it meet.
            for from in &incoming {
                for to in &outgoing {
                    self.push(edge(&from.from, &to.to, Attrs::new()));
                }
            }
            return Ok(());
        };
        for e in part.edges() {
            if !sentinel(&e.from) && !sentinel(&e.to) {
                self.push(edge(&prefixed(&e.from), &prefixed(&e.to), e.attrs.clone()));
            }
        }
        for e in incoming {
            self.push(edge(&e.from, &prefixed(first), e.attrs));
        }
        for e in outgoing {
            self.push(edge(&prefixed(last), &e.to, e.attrs));
        }
        Ok(())
    }

    /// Takes node `id` and every edge at it out of the graph.
    fn strike(&mut self, id: &str) {
        let at = self.leaving.remove(id).into_iter().flatten();
        for i in at.chain(self.arriving.remove(id).into_iter().flatten()) {
            self.edges[i] = None;
        }
        self.ids.remove(id);
    }

    /// The graph put together. A graph with a part spliced in keeps none of the host's
    /// edge-only nodes to warn about, as when it was built anew for each part.
    pub fn finish(self) -> Graph {
        let mut graph = Graph::new(&self.name);
        graph.attrs = self.attrs;
        if !self.spliced {
            graph.undeclared = self.undeclared;
        }
        for node in self.slots.into_iter().flatten() {
            graph.insert_node(node);
        }
        for edge in self.edges.into_iter().flatten() {
            graph.push_edge(edge);
        }
        graph
    }
}
