//! `validate [import="./validate.fabro"]`: Fabro splices another workflow in place of the
//! node. The imported workflow's nodes take the placeholder's id as a prefix
//! (`validate.lint`), the edges into the placeholder lead to the node after the imported
//! start, and the edges out of it leave from the node before the imported exit; its start and
//! exit themselves disappear. So a workflow built from parts runs, checkpoints and records as
//! one graph, and `resume` needs none of the parts again.
//!
//! An imported file is read as an `@file` reference is ([`FileRefs`]): a relative path, beside
//! the workflow that names it, inside the top workflow's directory or the repository, within
//! the size limit. Its own `@file` prompts and imports are relative to its own directory.
//! When a placeholder cannot be expanded (no such file, a cycle, a part without one plain way
//! in and out), it stays in the graph with the reason in `import_error`, which validation
//! reports, as Fabro does: every problem of a workflow is listed at once, none stops the others.

use std::path::{Path, PathBuf};

use super::dot::{self, class_of_label};
use super::files::{FileRefs, Unreadable, inline_file_refs_from};
use super::graph::{AttrValue, Attrs, Edge, Graph, Node};
use crate::input;

/// Placeholder attributes that become defaults of every imported node (a node's own value
/// wins): the ones that choose how an agent works, not what the node is.
const DEFAULT_ATTRS: &[&str] = &[
    "model",
    "provider",
    "reasoning_effort",
    "speed",
    "backend",
    "fidelity",
    "max_retries",
    "thread_id",
];

/// Edge attributes that change routing: an edge that carries one cannot be dropped or merged
/// without changing what the workflow does.
const ROUTING_EDGE_ATTRS: &[&str] = &[
    "condition",
    "label",
    "weight",
    "fidelity",
    "thread_id",
    "loop_restart",
    "freeform",
];

/// How many files one workflow may import, nested imports included: a few parts imported
/// twice at every level would otherwise make a graph of billions of nodes from kilobytes.
const MAX_IMPORTS: usize = 256;

/// Expands every `import` placeholder of `graph`, a workflow in `refs.dir`.
pub fn expand_imports(graph: Graph, refs: &FileRefs) -> Graph {
    let mut importer = Importer {
        refs,
        chain: Vec::new(),
        read: 0,
    };
    importer.expand_in(graph, refs.dir)
}

struct Importer<'r, 'a> {
    refs: &'r FileRefs<'a>,
    /// The files being imported around the current one, outermost first, to refuse a cycle.
    chain: Vec<PathBuf>,
    /// How many files were imported so far.
    read: usize,
}

impl Importer<'_, '_> {
    /// Expands the placeholders of a workflow in `base`.
    fn expand_in(&mut self, mut graph: Graph, base: &Path) -> Graph {
        let placeholders: Vec<(String, String)> = graph
            .nodes()
            .iter()
            .filter_map(|n| Some((n.id.clone(), n.str_attr("import")?.to_owned())))
            .collect();
        for (id, reference) in placeholders {
            match self.imported(&graph, &id, &reference, base) {
                Ok(spliced) => graph = spliced,
                Err(reason) => poison(&mut graph, &id, reason),
            }
        }
        graph
    }

    /// `graph` with placeholder `id` replaced by the workflow `reference` names.
    fn imported(
        &mut self,
        graph: &Graph,
        id: &str,
        reference: &str,
        base: &Path,
    ) -> Result<Graph, String> {
        let node = graph.node(id).ok_or_else(|| format!("no node {id}"))?;
        if graph.outgoing(id).any(|e| e.to == id) {
            return Err(format!("import placeholder '{id}' has an edge to itself"));
        }
        let placeholder = Placeholder::of(node)?;
        let path = self
            .refs
            .locate(base, reference)
            .map_err(|why| unreadable(reference, why))?;
        if self.chain.contains(&path) {
            let cycle: Vec<String> = self
                .chain
                .iter()
                .chain([&path])
                .map(|p| p.display().to_string())
                .collect();
            return Err(format!("circular import: {}", cycle.join(" -> ")));
        }
        self.read += 1;
        if self.read > MAX_IMPORTS {
            return Err(format!(
                "too many imports: the workflow imports more than {MAX_IMPORTS} files, nested \
                 imports included"
            ));
        }
        let part = read_part(&path, self.refs)?;
        let dir = path.parent().unwrap_or(Path::new("/")).to_path_buf();
        self.chain.push(path);
        let part = self.expand_in(part, &dir);
        self.chain.pop();
        let ends = Ends::of(&part)?;
        splice(graph, id, &placeholder, &part, &ends)
    }
}

fn poison(graph: &mut Graph, id: &str, reason: String) {
    if let Some(node) = graph.node_mut(id) {
        node.attrs.remove("import");
        node.attrs
            .insert("import_error".into(), AttrValue::String(reason));
    }
}

fn unreadable(reference: &str, why: Unreadable) -> String {
    match why {
        Unreadable::Missing => format!("file not found: {reference}"),
        Unreadable::NotRelative => {
            format!("import {reference} is not a relative path beside the workflow")
        }
        Unreadable::Outside => {
            format!("import {reference} leads outside the workflow's directory and the repository")
        }
    }
}

/// The workflow at `path`, parsed, its `@file` prompts inlined from beside it.
fn read_part(path: &Path, refs: &FileRefs) -> Result<Graph, String> {
    let shown = path.display().to_string();
    let bytes =
        input::read_file(path, "import", input::MAX_DEFINITION).map_err(|e| e.to_string())?;
    let text = String::from_utf8(bytes).map_err(|_| format!("{shown} is not UTF-8 text"))?;
    let mut part = dot::parse(&text, &shown).map_err(|e| format!("cannot parse {e}"))?;
    let dir = path.parent().unwrap_or(Path::new("/"));
    inline_file_refs_from(&mut part, refs, dir);
    // Left unresolved, the reference would be reported against the host's node, whose
    // directory is not the one it is relative to.
    for node in part.nodes() {
        if let Some(prompt) = node.str_attr("prompt").filter(|p| p.starts_with('@')) {
            return Err(format!(
                "node '{}' of the imported workflow has an unresolved file reference: {prompt}",
                node.id
            ));
        }
    }
    Ok(part)
}

/// What the placeholder gives the nodes that replace it.
struct Placeholder {
    defaults: Attrs,
    /// Its classes, then one named after its id, so a stylesheet can style the whole part.
    classes: Vec<String>,
}

impl Placeholder {
    fn of(node: &Node) -> Result<Placeholder, String> {
        let mut defaults = Attrs::new();
        for (key, value) in &node.attrs {
            if DEFAULT_ATTRS.contains(&key.as_str()) {
                defaults.insert(key.clone(), value.clone());
            } else if key != "import" && key != "class" {
                return Err(format!(
                    "import placeholder '{}' has attribute '{key}', which an import cannot \
                     pass on",
                    node.id
                ));
            }
        }
        let mut classes = node.classes.clone();
        let own = class_of_label(&node.id);
        if !own.is_empty() && !classes.contains(&own) {
            classes.push(own);
        }
        Ok(Placeholder { defaults, classes })
    }
}

/// Where the imported workflow is entered and left.
struct Ends {
    start: String,
    exit: String,
    /// The node after the start and the one before the exit; `None` for a part with no
    /// nodes of its own.
    first: Option<String>,
    last: Option<String>,
}

// The same sentinels validation counts (`start_node`, `terminal_node`).
fn is_start(n: &Node) -> bool {
    n.shape() == "Mdiamond" || n.id == "start" || n.id == "Start"
}

fn is_exit(n: &Node) -> bool {
    n.shape() == "Msquare" || ["exit", "Exit", "end", "End"].contains(&n.id.as_str())
}

impl Ends {
    fn of(part: &Graph) -> Result<Ends, String> {
        let only = |what: &str, test: fn(&Node) -> bool| {
            let found: Vec<&Node> = part.nodes().iter().filter(|n| test(n)).collect();
            match found.as_slice() {
                [one] => Ok(one.id.clone()),
                many => Err(format!(
                    "the imported workflow must have exactly one {what} node, it has {}",
                    many.len()
                )),
            }
        };
        let start = only("start", is_start)?;
        let exit = only("exit", is_exit)?;
        if part.incoming(&start).next().is_some() {
            return Err(format!("imported start node '{start}' has incoming edges"));
        }
        if part.outgoing(&exit).next().is_some() {
            return Err(format!("imported exit node '{exit}' has outgoing edges"));
        }
        let after = plain_single(part.outgoing(&start), "successor", &start)?;
        let before = plain_single(part.incoming(&exit), "predecessor", &exit)?;
        let empty = part.node_count() == 2;
        if empty {
            return Ok(Ends {
                start,
                exit,
                first: None,
                last: None,
            });
        }
        if after.to == exit {
            return Err(format!(
                "imported start node '{start}' leads straight to the exit, past its other nodes"
            ));
        }
        Ok(Ends {
            first: Some(after.to.clone()),
            last: Some(before.from.clone()),
            start,
            exit,
        })
    }
}

/// The one edge of `edges`, which must carry nothing that routes.
fn plain_single<'g>(
    mut edges: impl Iterator<Item = &'g Edge>,
    what: &str,
    node: &str,
) -> Result<&'g Edge, String> {
    let (Some(edge), None) = (edges.next(), edges.next()) else {
        return Err(format!(
            "imported node '{node}' must have exactly one {what}"
        ));
    };
    if routes(edge) {
        return Err(format!(
            "imported edge '{} -> {}' must not carry routing attributes",
            edge.from, edge.to
        ));
    }
    Ok(edge)
}

fn routes(edge: &Edge) -> bool {
    ROUTING_EDGE_ATTRS
        .iter()
        .any(|k| edge.attrs.contains_key(*k))
}

/// `graph` with node `id` replaced by `part`'s nodes and edges. The host's edges keep their
/// order; the imported edges, then the rewired ones, come after them, as in Fabro.
fn splice(
    graph: &Graph,
    id: &str,
    placeholder: &Placeholder,
    part: &Graph,
    ends: &Ends,
) -> Result<Graph, String> {
    let sentinel = |n: &str| n == ends.start || n == ends.exit;
    let prefixed = |n: &str| format!("{id}.{n}");
    let own: Vec<&Node> = part.nodes().iter().filter(|n| !sentinel(&n.id)).collect();
    if let Some(taken) = own.iter().find(|n| graph.node(&prefixed(&n.id)).is_some()) {
        return Err(format!(
            "import placeholder '{id}' would replace the existing node '{}'",
            prefixed(&taken.id)
        ));
    }
    let incoming: Vec<&Edge> = graph.incoming(id).collect();
    let outgoing: Vec<&Edge> = graph.outgoing(id).collect();
    let mut out = Graph::new(graph.name());
    out.attrs = graph.attrs().clone();
    for node in graph.nodes() {
        if node.id != id {
            out.insert_node(node.clone());
            continue;
        }
        for inner in &own {
            out.insert_node(merged(inner, id, placeholder));
        }
    }
    for edge in graph.edges().iter().filter(|e| e.from != id && e.to != id) {
        out.push_edge(edge.clone());
    }
    let (Some(first), Some(last)) = (&ends.first, &ends.last) else {
        // A part with no nodes of its own: the edges around it meet, when nothing is lost.
        if incoming.iter().chain(&outgoing).any(|e| routes(e)) {
            return Err(format!(
                "empty import '{id}' cannot stand in for edges that carry routing attributes"
            ));
        }
        for from in &incoming {
            for to in &outgoing {
                out.push_edge(edge(&from.from, &to.to, Attrs::new()));
            }
        }
        return Ok(out);
    };
    for e in part.edges() {
        if !sentinel(&e.from) && !sentinel(&e.to) {
            out.push_edge(edge(&prefixed(&e.from), &prefixed(&e.to), e.attrs.clone()));
        }
    }
    for e in incoming {
        out.push_edge(edge(&e.from, &prefixed(first), e.attrs.clone()));
    }
    for e in outgoing {
        out.push_edge(edge(&prefixed(last), &e.to, e.attrs.clone()));
    }
    Ok(out)
}

fn edge(from: &str, to: &str, attrs: Attrs) -> Edge {
    Edge {
        from: from.to_owned(),
        to: to.to_owned(),
        attrs,
    }
}

/// An imported node under its prefixed id, with the placeholder's defaults and classes, its
/// retry targets (ids of the imported workflow) prefixed too.
fn merged(node: &Node, id: &str, placeholder: &Placeholder) -> Node {
    let mut out = node.clone();
    out.id = format!("{id}.{}", node.id);
    out.attrs = placeholder.defaults.clone();
    out.attrs.extend(node.attrs.clone());
    for key in ["retry_target", "fallback_retry_target"] {
        if let Some(target) = out.str_attr(key).map(|t| format!("{id}.{t}")) {
            out.attrs.insert(key.into(), AttrValue::String(target));
        }
    }
    for class in &placeholder.classes {
        if !out.classes.contains(class) {
            out.classes.push(class.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests;
