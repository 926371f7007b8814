//! Rules on the other languages a workflow carries in attribute values: the model
//! stylesheet, MiniJinja templates and command scripts.

use super::Diagnostic;
use crate::engine::graph::{AttrValue, Attrs, Graph};
use crate::engine::handler::Handler;
use crate::engine::{stylesheet, template};

pub(super) fn stylesheet_syntax(g: &Graph, out: &mut Vec<Diagnostic>) {
    let sheet = g
        .attrs()
        .get("model_stylesheet")
        .and_then(AttrValue::as_str);
    if let Some(Err(e)) = sheet.filter(|s| !s.is_empty()).map(stylesheet::parse) {
        out.push(
            Diagnostic::error(
                "stylesheet_syntax",
                format!("Model stylesheet parse error: Stylesheet error: {e}"),
            )
            .fix("Fix the model_stylesheet syntax"),
        );
    }
}

pub(super) fn template_valid(g: &Graph, out: &mut Vec<Diagnostic>) {
    let fix = "Use {{ goal }} or {{ inputs.KEY }}, in MiniJinja syntax";
    let strings = |attrs: &'_ Attrs| {
        let found: Vec<(String, String)> = attrs
            .iter()
            .filter_map(|(k, v)| Some((k.clone(), template::problem(v.as_str()?)?)))
            .collect();
        found
    };
    for (key, problem) in strings(g.attrs()) {
        let message = format!("Graph attribute '{key}': {problem}");
        out.push(Diagnostic::error("template_valid", message).fix(fix));
    }
    for node in g.nodes() {
        for (key, problem) in strings(&node.attrs) {
            let message = format!("Node '{}' attribute '{key}': {problem}", node.id);
            let found = Diagnostic::error("template_valid", message);
            out.push(found.node(&node.id).fix(fix));
        }
    }
    for edge in g.edges() {
        for (key, problem) in strings(&edge.attrs) {
            let message = format!(
                "Edge {} -> {} attribute '{key}': {problem}",
                edge.from, edge.to
            );
            let found = Diagnostic::error("template_valid", message);
            out.push(found.edge(&edge.from, &edge.to).fix(fix));
        }
    }
}

/// `cd`, whitespace, then `/`, anywhere in a script (Fabro's scan, kept byte for byte: it
/// never looks at the last three bytes as a start).
fn cds_to_absolute_path(script: &str) -> bool {
    let b = script.as_bytes();
    (0..b.len().saturating_sub(3)).any(|i| {
        b[i] == b'c' && b[i + 1] == b'd' && b[i + 2].is_ascii_whitespace() && {
            let rest = &b[i + 2..];
            rest.iter().find(|c| !c.is_ascii_whitespace()) == Some(&b'/')
        }
    })
}

pub(super) fn script_absolute_cd(g: &Graph, out: &mut Vec<Diagnostic>) {
    for node in g
        .nodes()
        .iter()
        .filter(|n| Handler::of(n) == Handler::Command)
    {
        let script = node
            .attrs
            .get("script")
            .or_else(|| node.attrs.get("tool_command"));
        if cds_to_absolute_path(script.and_then(AttrValue::as_str).unwrap_or("")) {
            out.push(
                Diagnostic::warning(
                    "script_absolute_cd",
                    format!(
                        "Script node '{}' contains `cd /…` with an absolute path",
                        node.id
                    ),
                )
                .node(&node.id)
                .fix(
                    "Use a relative path; the engine sets the working directory to the \
                     worktree automatically",
                ),
            );
        }
    }
}
