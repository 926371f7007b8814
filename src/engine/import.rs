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

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::dot::{self, class_of_label};
use super::files::{FileRefs, Unreadable, inline_file_refs_from};
use super::graph::{AttrValue, Attrs, Edge, Graph, Node};
use crate::input;

mod splice;
use splice::Splicer;

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

/// The most text a workflow and its imports may come to, a part counted each time it is
/// imported: what one workflow file may be. Twenty imports of a part of a megabyte would
/// otherwise make a graph no run could record, after gigabytes of memory.
const MAX_SPLICED: u64 = input::MAX_DEFINITION;

/// Expands every `import` placeholder of `graph`, a workflow of `size` bytes in `refs.dir`.
pub fn expand_imports(graph: Graph, size: usize, refs: &FileRefs) -> Graph {
    let mut importer = Importer {
        refs,
        chain: Vec::new(),
        read: 0,
        bytes: size as u64,
        parsed: HashMap::new(),
    };
    importer.expand_in(graph, refs.dir)
}

struct Importer<'r, 'a> {
    refs: &'r FileRefs<'a>,
    /// The files being imported around the current one, outermost first, to refuse a cycle.
    chain: Vec<PathBuf>,
    /// How many files were imported so far.
    read: usize,
    /// How many bytes of workflow text were read so far, the host's included.
    bytes: u64,
    /// Each file imported so far, as [`read_part`] read it: a part imported many times is
    /// read and parsed once.
    parsed: HashMap<PathBuf, (Graph, u64)>,
}

impl Importer<'_, '_> {
    /// Expands the placeholders of a workflow in `base`.
    fn expand_in(&mut self, graph: Graph, base: &Path) -> Graph {
        let placeholders: Vec<(String, String)> = graph
            .nodes()
            .iter()
            .filter_map(|n| Some((n.id.clone(), n.str_attr("import")?.to_owned())))
            .collect();
        if placeholders.is_empty() {
            return graph;
        }
        let mut splicer = Splicer::new(graph);
        for (id, reference) in placeholders {
            if let Err(reason) = self.imported(&mut splicer, &id, &reference, base) {
                splicer.poison(&id, reason);
            }
        }
        splicer.finish()
    }

    /// Replaces placeholder `id` by the workflow `reference` names.
    fn imported(
        &mut self,
        graph: &mut Splicer,
        id: &str,
        reference: &str,
        base: &Path,
    ) -> Result<(), String> {
        let node = graph.node(id).ok_or_else(|| format!("no node {id}"))?;
        if graph.outgoing(id).iter().any(|e| e.to == id) {
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
        let (part, size) = self.part(&path)?;
        self.bytes += size;
        let dir = path.parent().unwrap_or(Path::new("/")).to_path_buf();
        self.chain.push(path);
        let part = self.expand_in(part, &dir);
        self.chain.pop();
        let ends = Ends::of(&part)?;
        graph.splice(id, &placeholder, &part, &ends)
    }

    /// The part at `path` as [`read_part`] reads it, and its size, within what is left of
    /// [`MAX_SPLICED`].
    fn part(&mut self, path: &Path) -> Result<(Graph, u64), String> {
        let left = MAX_SPLICED.saturating_sub(self.bytes);
        let known = self.parsed.get(path).map(|(_, size)| *size);
        let size = known.unwrap_or_else(|| std::fs::metadata(path).map_or(0, |m| m.len()));
        if size > left {
            return Err(format!(
                "the workflow and its imports come to more than {}, the most git-fabro takes \
                 (a part counts each time it is imported)",
                input::human_size(MAX_SPLICED)
            ));
        }
        if let Some(read) = self.parsed.get(path) {
            return Ok(read.clone());
        }
        let read = read_part(path, self.refs, left)?;
        self.parsed.insert(path.to_owned(), read.clone());
        Ok(read)
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

/// The workflow at `path` (at most `limit` bytes), parsed, its `@file` prompts inlined from
/// beside it, and its size.
fn read_part(path: &Path, refs: &FileRefs, limit: u64) -> Result<(Graph, u64), String> {
    let shown = path.display().to_string();
    let bytes = input::read_file(path, "import", limit).map_err(|e| e.to_string())?;
    let size = bytes.len() as u64;
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
    Ok((part, size))
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
