//! The picture as Graphviz DOT: the workflow's own nodes, shapes and edges, each node filled
//! with its status colour and labelled with what the run did there, the path taken drawn thick
//! in blue. It stays a workflow git-fabro's parser reads back.

use std::fmt::Write;

use super::{NOT_TAKEN, Picture, TAKEN, colours};

pub fn dot(picture: &Picture) -> String {
    let mut out = format!("digraph {} {{\n", ident(&picture.name));
    out.push_str("  node [style=filled, fontname=\"Helvetica\"];\n");
    out.push_str("  edge [fontname=\"Helvetica\"];\n");
    for node in &picture.nodes {
        let (fill, line) = colours(node.visited.map(|v| v.status));
        let label = match node.summary() {
            Some(summary) => format!("{}\n{summary}", node.label),
            None => node.label.clone(),
        };
        let _ = writeln!(
            out,
            "  {} [label={}, shape={}, fillcolor=\"{fill}\", color=\"{line}\"];",
            ident(&node.id),
            quote(&label),
            quote(&node.shape)
        );
    }
    for edge in &picture.edges {
        let mut attrs = Vec::new();
        if let Some(label) = &edge.label {
            attrs.push(format!("label={}", quote(label)));
        }
        if edge.taken {
            attrs.push(format!("color=\"{TAKEN}\", penwidth=2.5"));
        } else {
            attrs.push(format!("color=\"{NOT_TAKEN}\""));
        }
        let _ = writeln!(
            out,
            "  {} -> {} [{}];",
            ident(&edge.from),
            ident(&edge.to),
            attrs.join(", ")
        );
    }
    out.push_str("}\n");
    out
}

/// A name as Fabro writes workflow and node names: a bare identifier, never a quoted string.
/// The names come from a parsed workflow, so this changes nothing but a hostile record's.
fn ident(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// A DOT string: quotes and backslashes escaped, a line break as `\n`.
fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
