//! The picture as a Mermaid flowchart, for pull requests and docs that render Mermaid: nodes
//! by position (`n0`, `n1`, ...) so that any node id is safe, their labels escaped as Mermaid
//! entities, a class per status and the path taken as thick blue links.

use std::fmt::Write;

use super::{NOT_TAKEN, Picture, TAKEN, colours};
use crate::format::node::StageStatus;

pub fn mermaid(picture: &Picture) -> String {
    let mut out = String::from("flowchart TD\n");
    let index = picture.positions();
    for (i, node) in picture.nodes.iter().enumerate() {
        let mut label = escape(&node.label);
        if let Some(summary) = node.summary() {
            label.push_str("<br/>");
            label.push_str(&escape(&summary));
        }
        let (open, close) = brackets(&node.shape);
        let _ = writeln!(out, "  n{i}{open}\"{label}\"{close}");
    }
    let mut taken = Vec::new();
    for (i, edge) in picture.edges.iter().enumerate() {
        let (Some(from), Some(to)) = (index.get(edge.from.as_str()), index.get(edge.to.as_str()))
        else {
            continue;
        };
        match &edge.label {
            Some(label) => {
                let _ = writeln!(out, "  n{from} -->|\"{}\"| n{to}", escape(label));
            }
            None => {
                let _ = writeln!(out, "  n{from} --> n{to}");
            }
        }
        if edge.taken {
            taken.push(i.to_string());
        }
    }
    for status in [
        StageStatus::Succeeded,
        StageStatus::PartiallySucceeded,
        StageStatus::Failed,
        StageStatus::Skipped,
    ] {
        let members: Vec<String> = picture
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.visited.is_some_and(|v| v.status == status))
            .map(|(i, _)| format!("n{i}"))
            .collect();
        if members.is_empty() {
            continue;
        }
        let (fill, line) = colours(Some(status));
        let class = status.as_str();
        let _ = writeln!(out, "  classDef {class} fill:{fill},stroke:{line}");
        let _ = writeln!(out, "  class {} {class}", members.join(","));
    }
    let _ = writeln!(out, "  linkStyle default stroke:{NOT_TAKEN}");
    if !taken.is_empty() {
        let _ = writeln!(
            out,
            "  linkStyle {} stroke:{TAKEN},stroke-width:3px",
            taken.join(",")
        );
    }
    out
}

/// Mermaid's brackets for the shapes Fabro gives meaning to.
fn brackets(shape: &str) -> (&'static str, &'static str) {
    match shape {
        "Mdiamond" | "Msquare" => ("([", "])"),
        "diamond" => ("{", "}"),
        "hexagon" => ("{{", "}}"),
        "parallelogram" => ("[/", "/]"),
        "component" | "tripleoctagon" => ("[[", "]]"),
        _ => ("[", "]"),
    }
}

/// Text inside a quoted Mermaid label: the characters Mermaid reads as syntax or HTML become
/// its `#name;` entities, line breaks `<br/>`.
fn escape(text: &str) -> String {
    super::escaped(text, |c| match c {
        '"' => Some("#quot;"),
        '#' => Some("#35;"),
        '<' => Some("#lt;"),
        '>' => Some("#gt;"),
        '&' => Some("#amp;"),
        '|' => Some("#124;"),
        '\n' => Some("<br/>"),
        _ => None,
    })
}
