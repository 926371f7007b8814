//! Rules on node and graph attributes: known handler types, fidelity modes, retry targets,
//! goal gates, prompts, layout direction, `@file` references left unresolved, thread reuse and
//! edge selection modes.

use super::Diagnostic;
use crate::engine::graph::{AttrValue, FIDELITIES, Graph, Node};
use crate::engine::handler::Handler;

const DIRECTIONS: &[&str] = &["TB", "LR", "BT", "RL"];
const SELECTIONS: &[&str] = &["deterministic", "random"];

pub(super) fn type_known(g: &Graph, out: &mut Vec<Diagnostic>) {
    for node in g.nodes() {
        if let Some(t) = node
            .str_attr("type")
            .filter(|t| Handler::named(t).is_none())
        {
            // Fabro's message, and the type most likely meant after it.
            let meant = crate::format::suggest::closest(t, Handler::type_names());
            out.push(
                Diagnostic::warning(
                    "type_known",
                    format!(
                        "Node '{}' has unrecognized type '{t}'{}",
                        node.id,
                        super::names::meant_text(meant)
                    ),
                )
                .node(&node.id)
                .fix(match meant {
                    Some(name) => format!("Did you mean {name}?"),
                    None => format!(
                        "Use one of: {}",
                        Handler::type_names().collect::<Vec<_>>().join(", ")
                    ),
                }),
            );
        }
    }
}

pub(super) fn fidelity_valid(g: &Graph, out: &mut Vec<Diagnostic>) {
    let fix = || format!("Use one of: {}", FIDELITIES.join(", "));
    let invalid = |f: &&str| !FIDELITIES.contains(f);
    let warn = |message| Diagnostic::warning("fidelity_valid", message);
    for node in g.nodes() {
        if let Some(f) = node.str_attr("fidelity").filter(invalid) {
            let message = format!("Node '{}' has invalid fidelity mode '{f}'", node.id);
            out.push(warn(message).node(&node.id).fix(fix()));
        }
    }
    for edge in g.edges() {
        if let Some(f) = edge.str_attr("fidelity").filter(invalid) {
            let message = format!(
                "Edge {} -> {} has invalid fidelity mode '{f}'",
                edge.from, edge.to
            );
            out.push(warn(message).edge(&edge.from, &edge.to).fix(fix()));
        }
    }
    let default = g
        .attrs()
        .get("default_fidelity")
        .and_then(AttrValue::as_str);
    if let Some(f) = default.filter(invalid) {
        out.push(warn(format!("Graph has invalid default_fidelity '{f}'")).fix(fix()));
    }
}

pub(super) fn retry_target_exists(g: &Graph, out: &mut Vec<Diagnostic>) {
    let warn = |message| Diagnostic::warning("retry_target_exists", message);
    for node in g.nodes() {
        for attr in ["retry_target", "fallback_retry_target"] {
            if let Some(t) = node.str_attr(attr).filter(|t| g.node(t).is_none()) {
                let message = format!("Node '{}' has {attr} '{t}' that does not exist", node.id);
                let fix = format!("Define node '{t}' or fix {attr}");
                out.push(warn(message).node(&node.id).fix(fix));
            }
        }
    }
    for attr in ["retry_target", "fallback_retry_target"] {
        let target = g.attrs().get(attr).and_then(AttrValue::as_str);
        if let Some(t) = target.filter(|t| g.node(t).is_none()) {
            let message = format!("Graph has {attr} '{t}' that does not exist");
            out.push(warn(message).fix(format!("Define node '{t}' or fix graph {attr}")));
        }
    }
}

pub(super) fn goal_gate_has_retry(g: &Graph, out: &mut Vec<Diagnostic>) {
    let targets = ["retry_target", "fallback_retry_target"];
    let graph_retry = targets
        .iter()
        .any(|k| g.attrs().get(*k).and_then(AttrValue::as_str).is_some());
    for node in g.nodes().iter().filter(|n| n.goal_gate()) {
        if !graph_retry && !targets.iter().any(|k| node.str_attr(k).is_some()) {
            out.push(
                Diagnostic::warning(
                    "goal_gate_has_retry",
                    format!(
                        "Node '{}' has goal_gate=true but no retry_target or fallback_retry_target",
                        node.id
                    ),
                )
                .node(&node.id)
                .fix("Add retry_target or fallback_retry_target attribute"),
            );
        }
    }
}

fn is_llm(node: &Node) -> bool {
    Handler::of(node).runs_agent()
}

pub(super) fn prompt_on_llm_nodes(g: &Graph, out: &mut Vec<Diagnostic>) {
    let filled = |v: Option<&str>| v.is_some_and(|s| !s.is_empty());
    for node in g.nodes().iter().filter(|n| is_llm(n)) {
        if !filled(node.str_attr("prompt")) && !filled(node.str_attr("label")) {
            out.push(
                Diagnostic::warning(
                    "prompt_on_llm_nodes",
                    format!("LLM node '{}' has no prompt or label attribute", node.id),
                )
                .node(&node.id)
                .fix("Add a prompt or label attribute"),
            );
        }
    }
}

pub(super) fn direction_valid(g: &Graph, out: &mut Vec<Diagnostic>) {
    let rankdir = g.attrs().get("rankdir").and_then(AttrValue::as_str);
    if let Some(dir) = rankdir.filter(|d| !DIRECTIONS.contains(d)) {
        out.push(
            Diagnostic::warning(
                "direction_valid",
                format!("Graph has invalid rankdir '{dir}'"),
            )
            .fix(format!("Use one of: {}", DIRECTIONS.join(", "))),
        );
    }
}

pub(super) fn unresolved_file_ref(g: &Graph, out: &mut Vec<Diagnostic>) {
    let fix = "Check that the file exists at a relative path inside the workflow file's \
               directory or the repository (no absolute path, no symlink leading out)";
    for node in g.nodes() {
        if let Some(prompt) = node.str_attr("prompt").filter(|p| p.starts_with('@')) {
            out.push(
                Diagnostic::error(
                    "unresolved_file_ref",
                    format!("Node '{}' has unresolved file reference: {prompt}", node.id),
                )
                .node(&node.id)
                .fix(fix),
            );
        }
    }
    if let Some(goal) = g.goal().filter(|goal| goal.starts_with('@')) {
        out.push(
            Diagnostic::error(
                "unresolved_file_ref",
                format!("Graph goal has unresolved file reference: {goal}"),
            )
            .fix(fix),
        );
    }
}

pub(super) fn thread_id_requires_fidelity_full(g: &Graph, out: &mut Vec<Diagnostic>) {
    let fix = "Add fidelity=\"full\" to enable session reuse, or remove thread_id";
    let default_full = g
        .attrs()
        .get("default_fidelity")
        .and_then(AttrValue::as_str)
        == Some("full");
    if default_full {
        return;
    }
    let warn = |message| Diagnostic::warning("thread_id_requires_fidelity_full", message);
    for node in g.nodes() {
        if node.str_attr("thread_id").is_some() && node.str_attr("fidelity") != Some("full") {
            let message = format!(
                "Node '{}' has thread_id but fidelity is not 'full'",
                node.id
            );
            out.push(warn(message).node(&node.id).fix(fix));
        }
    }
    for edge in g
        .edges()
        .iter()
        .filter(|e| e.str_attr("thread_id").is_some())
    {
        let target_full = g.node(&edge.to).and_then(|n| n.str_attr("fidelity")) == Some("full");
        if edge.str_attr("fidelity") != Some("full") && !target_full {
            let message = format!(
                "Edge {} -> {} has thread_id but fidelity is not 'full'",
                edge.from, edge.to
            );
            out.push(warn(message).edge(&edge.from, &edge.to).fix(fix));
        }
    }
    if g.attrs()
        .get("default_thread")
        .and_then(AttrValue::as_str)
        .is_some()
    {
        let message = "Graph has default_thread but default_fidelity is not 'full'".to_string();
        out.push(warn(message).fix(fix));
    }
}

pub(super) fn selection_valid(g: &Graph, out: &mut Vec<Diagnostic>) {
    for node in g.nodes() {
        if let Some(s) = node
            .str_attr("selection")
            .filter(|s| !SELECTIONS.contains(s))
        {
            out.push(
                Diagnostic::warning(
                    "selection_valid",
                    format!("Node '{}' has invalid selection mode '{s}'", node.id),
                )
                .node(&node.id)
                .fix(format!("Use one of: {}", SELECTIONS.join(", "))),
            );
        }
    }
}
