//! The workflow as Fabro models it once parsed: nodes, edges in declaration order, graph
//! attributes, each value typed the way Fabro types it. Fabro's accessors are strict (a quoted
//! `"3"` is a string, not an integer; `timeout=900` is not a duration), and the ones here are
//! too, so a workflow behaves under git-fabro as it does under Fabro.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use serde_json::{Value, json};

/// One attribute value, typed as Fabro's `AttrValue` types it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum AttrValue {
    String(String),
    Integer(i64),
    Float(f64),
    Boolean(bool),
    Duration(Duration),
}

impl AttrValue {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            AttrValue::String(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn as_i64(&self) -> Option<i64> {
        match self {
            AttrValue::Integer(n) => Some(*n),
            _ => None,
        }
    }

    pub(crate) fn as_bool(&self) -> Option<bool> {
        match self {
            AttrValue::Boolean(b) => Some(*b),
            _ => None,
        }
    }

    pub(crate) fn as_duration(&self) -> Option<Duration> {
        match self {
            AttrValue::Duration(d) => Some(*d),
            _ => None,
        }
    }

    /// The value as text, as Fabro copies graph attributes into the context (`graph.<key>`):
    /// a duration as whole milliseconds with `ms`.
    pub(crate) fn to_text(&self) -> String {
        match self {
            AttrValue::String(s) => s.clone(),
            AttrValue::Integer(n) => n.to_string(),
            AttrValue::Float(x) => x.to_string(),
            AttrValue::Boolean(b) => b.to_string(),
            AttrValue::Duration(d) => format!("{}ms", d.as_millis()),
        }
    }

    /// The value [`AttrValue::to_fabro_json`] wrote; `None` for anything else.
    pub(crate) fn from_fabro_json(value: &Value) -> Option<AttrValue> {
        let (tag, inner) = value.as_object()?.iter().next()?;
        Some(match tag.as_str() {
            "String" => AttrValue::String(inner.as_str()?.to_owned()),
            "Integer" => AttrValue::Integer(inner.as_i64()?),
            "Float" => AttrValue::Float(inner.as_f64()?),
            "Boolean" => AttrValue::Boolean(inner.as_bool()?),
            "Duration" => AttrValue::Duration(Duration::new(
                inner.get("secs")?.as_u64()?,
                u32::try_from(inner.get("nanos")?.as_u64()?).ok()?,
            )),
            _ => return None,
        })
    }

    /// Fabro's serde shape: an externally tagged enum, a duration as `{secs, nanos}`.
    pub fn to_fabro_json(&self) -> Value {
        match self {
            AttrValue::String(s) => json!({ "String": s }),
            AttrValue::Integer(n) => json!({ "Integer": n }),
            AttrValue::Float(x) => json!({ "Float": x }),
            AttrValue::Boolean(b) => json!({ "Boolean": b }),
            AttrValue::Duration(d) => {
                json!({ "Duration": { "secs": d.as_secs(), "nanos": d.subsec_nanos() } })
            }
        }
    }
}

/// Fabro's fidelity modes (`fidelity`, `default_fidelity`): how much of the run an agent's
/// preamble carries.
pub(crate) const FIDELITIES: &[&str] = &[
    "full",
    "truncate",
    "compact",
    "summary:low",
    "summary:medium",
    "summary:high",
];

/// Attributes by name; sorted, so that everything derived from them is deterministic.
pub(crate) type Attrs = BTreeMap<String, AttrValue>;

fn attrs_from_json(value: &Value) -> Option<Attrs> {
    value
        .as_object()?
        .iter()
        .map(|(k, v)| Some((k.clone(), AttrValue::from_fabro_json(v)?)))
        .collect()
}

fn attrs_json(attrs: &Attrs) -> Value {
    Value::Object(
        attrs
            .iter()
            .map(|(k, v)| (k.clone(), v.to_fabro_json()))
            .collect(),
    )
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Node {
    pub id: String,
    pub attrs: Attrs,
    /// Stylesheet classes: from `class="a,b"` and from the labels of enclosing subgraphs.
    pub classes: Vec<String>,
    /// What the `{{ ... }}` of its rendered script stood for, in order: the script reads them
    /// from `$FABRO_TEMPLATE_1`, ... (`script_template`). Empty before rendering.
    pub template_values: Vec<String>,
}

impl Node {
    pub(crate) fn new(id: &str) -> Self {
        Node {
            id: id.to_string(),
            attrs: Attrs::new(),
            classes: Vec::new(),
            template_values: Vec::new(),
        }
    }

    pub(crate) fn str_attr(&self, key: &str) -> Option<&str> {
        self.attrs.get(key).and_then(AttrValue::as_str)
    }

    pub(crate) fn int_attr(&self, key: &str) -> Option<i64> {
        self.attrs.get(key).and_then(AttrValue::as_i64)
    }

    pub(crate) fn bool_attr(&self, key: &str) -> Option<bool> {
        self.attrs.get(key).and_then(AttrValue::as_bool)
    }

    /// The label, or the id when there is none.
    pub(crate) fn label(&self) -> &str {
        self.str_attr("label").unwrap_or(&self.id)
    }

    /// The shape; `box` (an agent) when there is none.
    pub(crate) fn shape(&self) -> &str {
        self.str_attr("shape").unwrap_or("box")
    }

    pub(crate) fn goal_gate(&self) -> bool {
        self.bool_attr("goal_gate").unwrap_or(false)
    }

    pub(crate) fn selection(&self) -> &str {
        self.str_attr("selection").unwrap_or("deterministic")
    }

    fn to_fabro_json(&self) -> Value {
        let mut node = json!({ "id": self.id, "attrs": attrs_json(&self.attrs) });
        if !self.classes.is_empty() {
            node["classes"] = json!(self.classes);
        }
        node
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Edge {
    pub from: String,
    pub to: String,
    pub attrs: Attrs,
}

impl Edge {
    pub(crate) fn str_attr(&self, key: &str) -> Option<&str> {
        self.attrs.get(key).and_then(AttrValue::as_str)
    }

    pub(crate) fn label(&self) -> Option<&str> {
        self.str_attr("label")
    }

    /// The guard, when there is a non-empty one.
    pub(crate) fn condition(&self) -> Option<&str> {
        self.str_attr("condition").filter(|c| !c.is_empty())
    }

    pub(crate) fn weight(&self) -> i64 {
        self.attrs
            .get("weight")
            .and_then(AttrValue::as_i64)
            .unwrap_or(0)
    }

    pub(crate) fn freeform(&self) -> bool {
        self.attrs
            .get("freeform")
            .and_then(AttrValue::as_bool)
            .unwrap_or(false)
    }
}

/// A parsed workflow. Nodes keep the order in which they were first named; edges keep their
/// declaration order, which Fabro's routing depends on (human-gate choices, parallel branches).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Graph {
    pub(crate) name: String,
    pub(crate) nodes: Vec<Node>,
    pub(crate) index: HashMap<String, usize>,
    pub(crate) edges: Vec<Edge>,
    /// Edge positions by source and by target node, so that routing and validation stay
    /// linear in the size of the workflow.
    leaving: HashMap<String, Vec<usize>>,
    arriving: HashMap<String, Vec<usize>>,
    pub(crate) attrs: Attrs,
    /// Ids that only edges name, which DOT creates as nodes of the defaults (agents, in
    /// Fabro): kept for validation to point at, as they are most often typos.
    pub(crate) undeclared: Vec<String>,
}

impl Graph {
    pub(crate) fn new(name: &str) -> Self {
        Graph {
            name: name.to_string(),
            ..Graph::default()
        }
    }

    /// The name after `digraph`.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// The `goal` graph attribute, when it is a string.
    pub(crate) fn goal(&self) -> Option<&str> {
        self.attrs.get("goal").and_then(AttrValue::as_str)
    }

    pub(crate) fn node_count(&self) -> usize {
        self.nodes.len()
    }

    pub(crate) fn edge_count(&self) -> usize {
        self.edges.len()
    }

    pub(crate) fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    pub(crate) fn edges(&self) -> &[Edge] {
        &self.edges
    }

    pub(crate) fn attrs(&self) -> &Attrs {
        &self.attrs
    }

    /// The nodes no node statement declares, only edges name.
    pub(crate) fn undeclared(&self) -> impl Iterator<Item = &Node> {
        self.undeclared.iter().filter_map(|id| self.node(id))
    }

    pub(crate) fn node(&self, id: &str) -> Option<&Node> {
        self.index.get(id).map(|&i| &self.nodes[i])
    }

    pub(crate) fn node_mut(&mut self, id: &str) -> Option<&mut Node> {
        self.index.get(id).map(|&i| &mut self.nodes[i])
    }

    pub(crate) fn insert_node(&mut self, node: Node) {
        self.index.insert(node.id.clone(), self.nodes.len());
        self.nodes.push(node);
    }

    pub(crate) fn push_edge(&mut self, edge: Edge) {
        let at = self.edges.len();
        self.leaving.entry(edge.from.clone()).or_default().push(at);
        self.arriving.entry(edge.to.clone()).or_default().push(at);
        self.edges.push(edge);
    }

    fn edges_at<'g>(&'g self, at: Option<&'g Vec<usize>>) -> impl Iterator<Item = &'g Edge> {
        at.into_iter().flatten().map(|&i| &self.edges[i])
    }

    /// The edges leaving `id`, in declaration order.
    pub(crate) fn outgoing<'g>(&'g self, id: &str) -> impl Iterator<Item = &'g Edge> + use<'g> {
        self.edges_at(self.leaving.get(id))
    }

    /// The edges arriving at `id`, in declaration order.
    pub(crate) fn incoming<'g>(&'g self, id: &str) -> impl Iterator<Item = &'g Edge> + use<'g> {
        self.edges_at(self.arriving.get(id))
    }

    /// The start node as Fabro finds it: a `Mdiamond`, else the node `start` or `Start`.
    pub(crate) fn start_node(&self) -> Option<&Node> {
        self.nodes
            .iter()
            .find(|n| n.shape() == "Mdiamond")
            .or_else(|| self.node("start"))
            .or_else(|| self.node("Start"))
    }

    /// Fabro's `Graph` as its serde writes it (run.json's `spec.graph`): nodes by id, edges in
    /// order, every value tagged with its type, `classes` left out when empty.
    pub fn to_fabro_json(&self) -> Value {
        let nodes: serde_json::Map<String, Value> = self
            .nodes
            .iter()
            .map(|n| (n.id.clone(), n.to_fabro_json()))
            .collect();
        let edges: Vec<Value> = self
            .edges
            .iter()
            .map(|e| json!({ "from": e.from, "to": e.to, "attrs": attrs_json(&e.attrs) }))
            .collect();
        json!({
            "name": self.name,
            "nodes": nodes,
            "edges": edges,
            "attrs": attrs_json(&self.attrs),
        })
    }

    /// The graph [`Graph::to_fabro_json`] wrote (a run's `spec.graph`), nodes in id order;
    /// `None` when `value` is not one.
    pub(crate) fn from_fabro_json(value: &Value) -> Option<Graph> {
        let mut graph = Graph::new(value.get("name")?.as_str()?);
        graph.attrs = attrs_from_json(value.get("attrs")?)?;
        for (id, node) in value.get("nodes")?.as_object()? {
            let mut parsed = Node::new(id);
            parsed.attrs = attrs_from_json(node.get("attrs")?)?;
            if let Some(classes) = node.get("classes") {
                parsed.classes = serde_json::from_value(classes.clone()).ok()?;
            }
            graph.insert_node(parsed);
        }
        for edge in value.get("edges")?.as_array()? {
            graph.push_edge(Edge {
                from: edge.get("from")?.as_str()?.to_owned(),
                to: edge.get("to")?.as_str()?.to_owned(),
                attrs: attrs_from_json(edge.get("attrs")?)?,
            });
        }
        Some(graph)
    }
}
