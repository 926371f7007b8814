//! From statements to a [`Graph`], with Fabro's semantics:
//!
//! - text values that are whole durations (`900s`, `"15m"`, `250ms`) become durations;
//! - `node [..]`/`edge [..]` apply to what is created after them; inside a subgraph, every
//!   default block of that subgraph applies from its start, and the outer ones come back at
//!   its end;
//! - a subgraph's first `label` names a class that every node it mentions gets;
//! - `class="a,b"` adds classes; `codergen_mode` becomes `type` when there is none;
//! - graph attributes set inside a subgraph land on the graph itself (a Fabro quirk kept so
//!   that a workflow means the same thing under both).

use std::collections::HashSet;
use std::time::Duration;

use super::syntax::{AttrList, Document, Statement, Value};
use crate::engine::graph::{AttrValue, Attrs, Edge, Graph, Node};

pub fn build(doc: Document) -> Graph {
    let mut builder = Builder {
        graph: Graph::new(&doc.name),
        node_defaults: Attrs::new(),
        edge_defaults: Attrs::new(),
        declared: HashSet::new(),
    };
    builder.statements(&doc.statements, None);
    let mut graph = builder.graph;
    graph.undeclared = graph
        .nodes()
        .iter()
        .map(|node| node.id.clone())
        .filter(|id| !builder.declared.contains(id))
        .collect();
    graph
}

fn typed(value: &Value) -> AttrValue {
    match value {
        Value::Text(text) => {
            duration(text).map_or_else(|| AttrValue::String(text.clone()), AttrValue::Duration)
        }
        Value::Int(n) => AttrValue::Integer(*n),
        Value::Float(x) => AttrValue::Float(*x),
        Value::Bool(b) => AttrValue::Boolean(*b),
    }
}

/// `<u64>(ms|s|m|h|d)`, as Fabro reads it (`u64` parsing accepts a leading `+`). A value too
/// large for milliseconds in a u64 stays text.
fn duration(text: &str) -> Option<Duration> {
    if let Some(ms) = text.strip_suffix("ms") {
        return ms.parse::<u64>().ok().map(Duration::from_millis);
    }
    let (number, millis_per_unit) = match text.as_bytes().last()? {
        b's' => (&text[..text.len() - 1], 1_000u64),
        b'm' => (&text[..text.len() - 1], 60_000),
        b'h' => (&text[..text.len() - 1], 3_600_000),
        b'd' => (&text[..text.len() - 1], 86_400_000),
        _ => return None,
    };
    let n = number.parse::<u64>().ok()?;
    n.checked_mul(millis_per_unit).map(Duration::from_millis)
}

fn typed_attrs(list: &AttrList) -> Attrs {
    list.iter().map(|(k, v)| (k.clone(), typed(v))).collect()
}

/// `"Loop A"` → `loop-a`: lowercased, spaces to dashes, then only `[a-z0-9-]` kept.
pub(crate) fn class_of_label(label: &str) -> String {
    label
        .to_lowercase()
        .chars()
        .map(|c| if c == ' ' { '-' } else { c })
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect()
}

/// The class a subgraph gives its nodes: from its first textual `label`.
fn subgraph_class(statements: &[Statement]) -> Option<String> {
    statements.iter().find_map(|s| match s {
        Statement::GraphAttr(k, Value::Text(label)) if k == "label" => Some(class_of_label(label)),
        Statement::GraphAttrs(attrs) => attrs.iter().find_map(|(k, v)| match v {
            Value::Text(label) if k == "label" => Some(class_of_label(label)),
            _ => None,
        }),
        _ => None,
    })
}

struct Builder {
    graph: Graph,
    node_defaults: Attrs,
    edge_defaults: Attrs,
    /// The ids a node statement named: the others exist only because an edge names them.
    declared: HashSet<String>,
}

fn add_class(node: &mut Node, class: &str) {
    if !node.classes.iter().any(|c| c == class) {
        node.classes.push(class.to_string());
    }
}

impl Builder {
    fn statements(&mut self, statements: &[Statement], class: Option<&str>) {
        for statement in statements {
            match statement {
                Statement::GraphAttrs(attrs) => self.graph.attrs.extend(typed_attrs(attrs)),
                Statement::GraphAttr(key, value) => {
                    self.graph.attrs.insert(key.clone(), typed(value));
                }
                Statement::NodeDefaults(attrs) => self.node_defaults.extend(typed_attrs(attrs)),
                Statement::EdgeDefaults(attrs) => self.edge_defaults.extend(typed_attrs(attrs)),
                Statement::Node(id, attrs) => self.node(id, attrs.as_ref(), class),
                Statement::Edges(chain, attrs) => self.edges(chain, attrs.as_ref(), class),
                Statement::Subgraph(inner) => self.subgraph(inner),
            }
        }
    }

    fn subgraph(&mut self, inner: &[Statement]) {
        let saved = (self.node_defaults.clone(), self.edge_defaults.clone());
        for statement in inner {
            match statement {
                Statement::NodeDefaults(attrs) => self.node_defaults.extend(typed_attrs(attrs)),
                Statement::EdgeDefaults(attrs) => self.edge_defaults.extend(typed_attrs(attrs)),
                _ => {}
            }
        }
        let class = subgraph_class(inner);
        self.statements(inner, class.as_deref());
        (self.node_defaults, self.edge_defaults) = saved;
    }

    /// Creates a node with the current defaults the first time it is named.
    fn ensure(&mut self, id: &str) -> &mut Node {
        if self.graph.node(id).is_none() {
            let mut node = Node::new(id);
            node.attrs = self.node_defaults.clone();
            self.graph.insert_node(node);
        }
        let Some(node) = self.graph.node_mut(id) else {
            unreachable!("the node was just inserted")
        };
        node
    }

    fn node(&mut self, id: &str, attrs: Option<&AttrList>, class: Option<&str>) {
        self.declared.insert(id.to_owned());
        let node = self.ensure(id);
        if let Some(attrs) = attrs {
            node.attrs.extend(typed_attrs(attrs));
        }
        if let Some(class) = class {
            add_class(node, class);
        }
        if !node.attrs.contains_key("type") {
            let mode = node.attrs.get("codergen_mode").and_then(AttrValue::as_str);
            if let Some(mode) = mode {
                let handler = match mode {
                    "one_shot" => "prompt",
                    "agent_loop" => "agent",
                    other => other,
                };
                let handler = AttrValue::String(handler.to_string());
                node.attrs.insert("type".into(), handler);
            }
        }
        let listed = node
            .attrs
            .get("class")
            .and_then(AttrValue::as_str)
            .map(str::to_string);
        for class in listed.iter().flat_map(|l| l.split(',')) {
            let class = class.trim();
            if !class.is_empty() {
                add_class(node, class);
            }
        }
    }

    fn edges(&mut self, chain: &[String], attrs: Option<&AttrList>, class: Option<&str>) {
        for id in chain {
            let node = self.ensure(id);
            if let Some(class) = class {
                add_class(node, class);
            }
        }
        let own = attrs.map(typed_attrs).unwrap_or_default();
        for pair in chain.windows(2) {
            let mut attrs = self.edge_defaults.clone();
            attrs.extend(own.clone());
            self.graph.push_edge(Edge {
                from: pair[0].clone(),
                to: pair[1].clone(),
                attrs,
            });
        }
    }
}
