//! git-fabro's rules on names Fabro does not know: a shape, an attribute, or a node that only
//! an edge names. Fabro accepts each silently and runs the node as an agent (or ignores the
//! attribute), so a typo shows up only when the run asks for an agent command; these warnings
//! point at it with the closest name Fabro knows.

use super::Diagnostic;
use crate::engine::graph::Graph;
use crate::engine::handler::Handler;
use crate::format::suggest::closest;

/// The node attributes Fabro reads (fabro-engine-notes §1.4, legacy aliases included).
const FABRO_ATTRIBUTES: &[&str] = &[
    "label",
    "shape",
    "type",
    "class",
    "max_retries",
    "retry_policy",
    "retry_target",
    "fallback_retry_target",
    "goal_gate",
    "allow_partial",
    "auto_status",
    "max_visits",
    "selection",
    "timeout",
    "script",
    "tool_command",
    "language",
    "duration",
    "join_policy",
    "max_parallel",
    "stack.child_workflow",
    "stack.child_dotfile",
    "stack.child_dot_source",
    "manager.poll_interval",
    "manager.max_cycles",
    "manager.stop_condition",
    "human.default_choice",
    "prompt",
    "model",
    "provider",
    "backend",
    "reasoning_effort",
    "max_tokens",
    "speed",
    "fidelity",
    "thread_id",
    "project_memory",
    "import",
    "codergen_mode",
    "loop_restart",
    "side_effect",
];

/// Graphviz's node attributes, which Fabro keeps and ignores: drawing a workflow is fine.
const LAYOUT_ATTRIBUTES: &[&str] = &[
    "area",
    "color",
    "colorscheme",
    "comment",
    "distortion",
    "fillcolor",
    "fixedsize",
    "fontcolor",
    "fontname",
    "fontsize",
    "gradientangle",
    "group",
    "height",
    "href",
    "id",
    "image",
    "imagepos",
    "imagescale",
    "labelloc",
    "layer",
    "margin",
    "nojustify",
    "ordering",
    "orientation",
    "penwidth",
    "peripheries",
    "pin",
    "pos",
    "rects",
    "regular",
    "root",
    "samplepoints",
    "shapefile",
    "showboxes",
    "sides",
    "skew",
    "sortv",
    "style",
    "target",
    "tooltip",
    "URL",
    "vertices",
    "width",
    "xlabel",
    "xlp",
    "z",
];

pub(super) fn shape_known(g: &Graph, out: &mut Vec<Diagnostic>) {
    for node in g.nodes() {
        // A known `type` decides the handler; the shape is then only drawn.
        let typed = node.str_attr("type").and_then(Handler::named).is_some();
        let shape = node.shape();
        if typed || Handler::for_shape(shape).is_some() {
            continue;
        }
        let meant = closest(shape, Handler::shape_names());
        let fix = match meant {
            Some(name) => format!("Did you mean {name}?"),
            None => format!(
                "Use one of: {}, or set a type",
                Handler::shape_names().collect::<Vec<_>>().join(", ")
            ),
        };
        out.push(
            Diagnostic::warning(
                "shape_known",
                format!(
                    "Node '{}' has shape '{shape}', which Fabro does not know: it runs as an agent{}",
                    node.id,
                    meant_text(meant)
                ),
            )
            .node(&node.id)
            .fix(fix),
        );
    }
}

pub(super) fn attribute_known(g: &Graph, out: &mut Vec<Diagnostic>) {
    let known = |key: &str| FABRO_ATTRIBUTES.contains(&key) || LAYOUT_ATTRIBUTES.contains(&key);
    for node in g.nodes() {
        for key in node.attrs.keys().filter(|key| !known(key)) {
            let candidates = FABRO_ATTRIBUTES.iter().copied();
            let meant = closest(key, candidates);
            let fix = match meant {
                Some(name) => format!("Did you mean {name}?"),
                None => "Remove it, or check the name against Fabro's node attributes".into(),
            };
            out.push(
                Diagnostic::warning(
                    "attribute_known",
                    format!(
                        "Node '{}' has attribute '{key}', which Fabro does not read{}",
                        node.id,
                        meant_text(meant)
                    ),
                )
                .node(&node.id)
                .fix(fix),
            );
        }
    }
}

pub(super) fn edge_target_declared(g: &Graph, out: &mut Vec<Diagnostic>) {
    let declared: Vec<&str> = g
        .nodes()
        .iter()
        .map(|node| node.id.as_str())
        .filter(|id| !g.undeclared.iter().any(|u| u == id))
        .collect();
    for node in g.undeclared() {
        let edge = g
            .incoming(&node.id)
            .next()
            .or_else(|| g.outgoing(&node.id).next());
        let meant = closest(&node.id, declared.iter().copied());
        let fix = match meant {
            Some(name) => format!("Did you mean {name}?"),
            None => format!("Declare it: {} [shape=..., ...]", node.id),
        };
        let mut diagnostic = Diagnostic::warning("edge_target_declared", format!(
                "Node '{}' is named only by an edge, never declared: DOT creates it, and Fabro runs it as an agent{}",
                node.id,
                meant_text(meant)
            ),
        )
        .node(&node.id)
        .fix(fix);
        if let Some(edge) = edge {
            diagnostic = diagnostic.edge(&edge.from, &edge.to);
        }
        out.push(diagnostic);
    }
}

/// `; did you mean X?` for a message, when a name was likely meant.
pub(super) fn meant_text(meant: Option<&str>) -> String {
    meant
        .map(|name| format!("; did you mean {name}?"))
        .unwrap_or_default()
}
