//! Fabro's validation rules, with their names, severities and messages, so that
//! `git fabro validate` says what `fabro validate` says. Rules run in Fabro's order; within a
//! rule, nodes are visited in the order the workflow first names them (Fabro's order there is
//! that of a hash map).
//!
//! Not here yet: `node_model_known` and `stylesheet_model_known`, which need Fabro's model
//! catalog (both warnings). Added by git-fabro: `template_valid`, an error for what would stop
//! Fabro's run at its template step whatever the inputs (a syntax error, an unknown variable).

use std::collections::{BTreeSet, VecDeque};

use serde::Serialize;

use super::condition;
use super::graph::{AttrValue, Graph, Node};
use super::handler::Handler;
use super::stylesheet;
use super::template;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Severity {
    Error,
    Warning,
    Info,
}

/// One finding, in the shape of Fabro's `Diagnostic` (its `--json` output).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub rule: String,
    pub severity: Severity,
    pub message: String,
    pub node_id: Option<String>,
    pub edge: Option<(String, String)>,
    pub fix: Option<String>,
}

impl Diagnostic {
    fn new(rule: &str, severity: Severity, message: String) -> Self {
        Diagnostic {
            rule: rule.to_string(),
            severity,
            message,
            node_id: None,
            edge: None,
            fix: None,
        }
    }

    fn node(mut self, id: &str) -> Self {
        self.node_id = Some(id.to_string());
        self
    }

    fn edge(mut self, from: &str, to: &str) -> Self {
        self.edge = Some((from.to_string(), to.to_string()));
        self
    }

    fn fix(mut self, fix: impl Into<String>) -> Self {
        self.fix = Some(fix.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

const FIDELITIES: &[&str] = &[
    "full",
    "truncate",
    "compact",
    "summary:low",
    "summary:medium",
    "summary:high",
];
const DIRECTIONS: &[&str] = &["TB", "LR", "BT", "RL"];
const SELECTIONS: &[&str] = &["deterministic", "random"];
const RESERVED_IDS: &[&str] = &[
    "graph", "digraph", "subgraph", "node", "edge", "strict", "if",
];

mod recordable;

type Rule = fn(&Graph, &mut Vec<Diagnostic>);

/// Every rule, in the order Fabro runs them, then git-fabro's own.
const RULES: &[Rule] = &[
    start_node,
    terminal_node,
    reachability,
    start_no_incoming,
    exit_no_outgoing,
    condition_syntax,
    stylesheet_syntax,
    type_known,
    fidelity_valid,
    retry_target_exists,
    goal_gate_has_retry,
    prompt_on_llm_nodes,
    freeform_edge_count,
    direction_valid,
    reserved_keyword_node_id,
    all_conditional_edges,
    orphan_custom_outcome,
    script_absolute_cd,
    import_error,
    unresolved_file_ref,
    thread_id_requires_fidelity_full,
    selection_valid,
    random_selection_no_conditions,
    template_valid,
    recordable::node_id_recordable,
    recordable::parallel_branches_distinct,
    recordable::wait_duration_valid,
];

pub fn validate(graph: &Graph) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for rule in RULES {
        rule(graph, &mut out);
    }
    out
}

pub fn has_errors(diagnostics: &[Diagnostic]) -> bool {
    diagnostics.iter().any(Diagnostic::is_error)
}

fn is_start(n: &Node) -> bool {
    n.shape() == "Mdiamond" || n.id == "start" || n.id == "Start"
}

fn is_exit(n: &Node) -> bool {
    n.shape() == "Msquare" || ["exit", "Exit", "end", "End"].contains(&n.id.as_str())
}

fn start_node(g: &Graph, out: &mut Vec<Diagnostic>) {
    let rule = "start_node";
    match g.nodes().iter().filter(|n| is_start(n)).count() {
        0 => out.push(
            Diagnostic::new(
                rule,
                Severity::Error,
                "Pipeline must have exactly one start node (shape=Mdiamond or id start/Start)"
                    .into(),
            )
            .fix("Add a node with shape=Mdiamond or id 'start'"),
        ),
        1 => {}
        n => out.push(
            Diagnostic::new(
                rule,
                Severity::Error,
                format!("Pipeline has {n} start nodes but must have exactly one"),
            )
            .fix("Remove extra start nodes"),
        ),
    }
}

fn terminal_node(g: &Graph, out: &mut Vec<Diagnostic>) {
    let rule = "terminal_node";
    match g.nodes().iter().filter(|n| is_exit(n)).count() {
        0 => out.push(
            Diagnostic::new(
                rule,
                Severity::Error,
                "Pipeline must have exactly one terminal node (shape=Msquare or id exit/end)"
                    .into(),
            )
            .fix("Add a node with shape=Msquare or id 'exit'/'end'"),
        ),
        1 => {}
        n => out.push(
            Diagnostic::new(
                rule,
                Severity::Error,
                format!("Pipeline must have exactly one terminal node, found {n}"),
            )
            .fix("Remove extra terminal nodes so exactly one remains"),
        ),
    }
}

fn reachability(g: &Graph, out: &mut Vec<Diagnostic>) {
    let Some(start) = g.start_node() else {
        return;
    };
    let mut seen = BTreeSet::from([start.id.as_str()]);
    let mut queue = VecDeque::from([start.id.as_str()]);
    while let Some(id) = queue.pop_front() {
        for edge in g.outgoing(id) {
            if seen.insert(edge.to.as_str()) {
                queue.push_back(edge.to.as_str());
            }
        }
    }
    let mut unreachable: Vec<&str> = g
        .nodes()
        .iter()
        .map(|n| n.id.as_str())
        .filter(|id| !seen.contains(id))
        .collect();
    unreachable.sort_unstable();
    for id in unreachable {
        out.push(
            Diagnostic::new(
                "reachability",
                Severity::Warning,
                format!("Node '{id}' is not reachable from the start node"),
            )
            .node(id)
            .fix(format!("Add an edge path from the start node to '{id}'")),
        );
    }
}

fn start_no_incoming(g: &Graph, out: &mut Vec<Diagnostic>) {
    let Some(start) = g.start_node() else {
        return;
    };
    let n = g.incoming(&start.id).count();
    if n > 0 {
        out.push(
            Diagnostic::new(
                "start_no_incoming",
                Severity::Error,
                format!(
                    "Start node '{}' has {n} incoming edge(s) but must have none",
                    start.id
                ),
            )
            .node(&start.id)
            .fix("Remove incoming edges to the start node"),
        );
    }
}

fn exit_no_outgoing(g: &Graph, out: &mut Vec<Diagnostic>) {
    for node in g.nodes().iter().filter(|n| is_exit(n)) {
        let n = g.outgoing(&node.id).count();
        if n > 0 {
            out.push(
                Diagnostic::new(
                    "exit_no_outgoing",
                    Severity::Error,
                    format!(
                        "Exit node '{}' has {n} outgoing edge(s) but must have none",
                        node.id
                    ),
                )
                .node(&node.id)
                .fix("Remove outgoing edges from the exit node"),
            );
        }
    }
}

fn condition_syntax(g: &Graph, out: &mut Vec<Diagnostic>) {
    for edge in g.edges() {
        let Some(text) = edge.condition() else {
            continue;
        };
        if let Err(e) = condition::parse(text) {
            out.push(
                Diagnostic::new(
                    "condition_syntax",
                    Severity::Error,
                    format!(
                        "Condition '{text}' on edge {} -> {} failed parse: {e}",
                        edge.from, edge.to
                    ),
                )
                .edge(&edge.from, &edge.to)
                .fix(
                    "Use key=value, key!=value, key>value, key contains value, key matches \
                     pattern, or bare key syntax",
                ),
            );
        }
    }
}

fn template_valid(g: &Graph, out: &mut Vec<Diagnostic>) {
    let fix = "Use {{ goal }} or {{ inputs.KEY }}, in MiniJinja syntax";
    let strings = |attrs: &'_ super::graph::Attrs| {
        let found: Vec<(String, String)> = attrs
            .iter()
            .filter_map(|(k, v)| Some((k.clone(), template::problem(v.as_str()?)?)))
            .collect();
        found
    };
    for (key, problem) in strings(g.attrs()) {
        let message = format!("Graph attribute '{key}': {problem}");
        out.push(Diagnostic::new("template_valid", Severity::Error, message).fix(fix));
    }
    for node in g.nodes() {
        for (key, problem) in strings(&node.attrs) {
            let message = format!("Node '{}' attribute '{key}': {problem}", node.id);
            let found = Diagnostic::new("template_valid", Severity::Error, message);
            out.push(found.node(&node.id).fix(fix));
        }
    }
    for edge in g.edges() {
        for (key, problem) in strings(&edge.attrs) {
            let message = format!(
                "Edge {} -> {} attribute '{key}': {problem}",
                edge.from, edge.to
            );
            let found = Diagnostic::new("template_valid", Severity::Error, message);
            out.push(found.edge(&edge.from, &edge.to).fix(fix));
        }
    }
}

fn stylesheet_syntax(g: &Graph, out: &mut Vec<Diagnostic>) {
    let sheet = g
        .attrs()
        .get("model_stylesheet")
        .and_then(AttrValue::as_str);
    if let Some(Err(e)) = sheet.filter(|s| !s.is_empty()).map(stylesheet::parse) {
        out.push(
            Diagnostic::new(
                "stylesheet_syntax",
                Severity::Error,
                format!("Model stylesheet parse error: Stylesheet error: {e}"),
            )
            .fix("Fix the model_stylesheet syntax"),
        );
    }
}

fn type_known(g: &Graph, out: &mut Vec<Diagnostic>) {
    for node in g.nodes() {
        if let Some(t) = node
            .str_attr("type")
            .filter(|t| Handler::named(t).is_none())
        {
            out.push(
                Diagnostic::new(
                    "type_known",
                    Severity::Warning,
                    format!("Node '{}' has unrecognized type '{t}'", node.id),
                )
                .node(&node.id)
                .fix(format!(
                    "Use one of: {}",
                    Handler::type_names().collect::<Vec<_>>().join(", ")
                )),
            );
        }
    }
}

fn fidelity_valid(g: &Graph, out: &mut Vec<Diagnostic>) {
    let fix = || format!("Use one of: {}", FIDELITIES.join(", "));
    let invalid = |f: &&str| !FIDELITIES.contains(f);
    let warn = |message| Diagnostic::new("fidelity_valid", Severity::Warning, message);
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

fn retry_target_exists(g: &Graph, out: &mut Vec<Diagnostic>) {
    let warn = |message| Diagnostic::new("retry_target_exists", Severity::Warning, message);
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

fn goal_gate_has_retry(g: &Graph, out: &mut Vec<Diagnostic>) {
    let targets = ["retry_target", "fallback_retry_target"];
    let graph_retry = targets
        .iter()
        .any(|k| g.attrs().get(*k).and_then(AttrValue::as_str).is_some());
    for node in g.nodes().iter().filter(|n| n.goal_gate()) {
        if !graph_retry && !targets.iter().any(|k| node.str_attr(k).is_some()) {
            out.push(
                Diagnostic::new(
                    "goal_gate_has_retry",
                    Severity::Warning,
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

fn prompt_on_llm_nodes(g: &Graph, out: &mut Vec<Diagnostic>) {
    let filled = |v: Option<&str>| v.is_some_and(|s| !s.is_empty());
    for node in g.nodes().iter().filter(|n| is_llm(n)) {
        if !filled(node.str_attr("prompt")) && !filled(node.str_attr("label")) {
            out.push(
                Diagnostic::new(
                    "prompt_on_llm_nodes",
                    Severity::Warning,
                    format!("LLM node '{}' has no prompt or label attribute", node.id),
                )
                .node(&node.id)
                .fix("Add a prompt or label attribute"),
            );
        }
    }
}

fn freeform_edge_count(g: &Graph, out: &mut Vec<Diagnostic>) {
    for node in g
        .nodes()
        .iter()
        .filter(|n| Handler::of(n) == Handler::Human)
    {
        let n = g.outgoing(&node.id).filter(|e| e.freeform()).count();
        if n > 1 {
            out.push(
                Diagnostic::new(
                    "freeform_edge_count",
                    Severity::Error,
                    format!(
                        "wait.human node '{}' has {n} freeform edges but at most one is allowed",
                        node.id
                    ),
                )
                .node(&node.id)
                .fix("Remove extra freeform=true edges so at most one remains"),
            );
        }
    }
}

fn direction_valid(g: &Graph, out: &mut Vec<Diagnostic>) {
    let rankdir = g.attrs().get("rankdir").and_then(AttrValue::as_str);
    if let Some(dir) = rankdir.filter(|d| !DIRECTIONS.contains(d)) {
        out.push(
            Diagnostic::new(
                "direction_valid",
                Severity::Warning,
                format!("Graph has invalid rankdir '{dir}'"),
            )
            .fix(format!("Use one of: {}", DIRECTIONS.join(", "))),
        );
    }
}

fn reserved_keyword_node_id(g: &Graph, out: &mut Vec<Diagnostic>) {
    for node in g.nodes() {
        let lower = node.id.to_lowercase();
        if RESERVED_IDS.contains(&lower.as_str()) {
            out.push(
                Diagnostic::new(
                    "reserved_keyword_node_id",
                    Severity::Warning,
                    format!(
                        "Node ID '{}' is a DOT reserved keyword and may cause parsing failures",
                        node.id
                    ),
                )
                .node(&node.id)
                .fix(format!(
                    "Rename '{}' to '{lower}_step' or another non-reserved ID",
                    node.id
                )),
            );
        }
    }
}

fn all_conditional_edges(g: &Graph, out: &mut Vec<Diagnostic>) {
    for node in g.nodes() {
        let mut edges = g.outgoing(&node.id).peekable();
        if edges.peek().is_some() && edges.all(|e| e.condition().is_some()) {
            out.push(
                Diagnostic::new(
                    "all_conditional_edges",
                    Severity::Error,
                    format!(
                        "Node '{}' has all conditional outgoing edges with no unconditional fallback",
                        node.id
                    ),
                )
                .node(&node.id)
                .fix("Add at least one unconditional edge as a fallback"),
            );
        }
    }
}

fn orphan_custom_outcome(g: &Graph, out: &mut Vec<Diagnostic>) {
    for node in g.nodes() {
        let edges: Vec<_> = g.outgoing(&node.id).collect();
        let routes_on_outcome = edges.iter().any(|e| {
            e.condition().is_some_and(|c| {
                c.split("&&")
                    .any(|clause| clause.trim().starts_with("outcome="))
            })
        });
        if routes_on_outcome && edges.iter().all(|e| e.condition().is_some()) {
            out.push(
                Diagnostic::new(
                    "orphan_custom_outcome",
                    Severity::Warning,
                    format!(
                        "Node '{}' uses outcome-based routing but has no unconditional fallback edge",
                        node.id
                    ),
                )
                .node(&node.id)
                .fix("Add an unconditional edge as a safety net for unmatched outcomes"),
            );
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

fn script_absolute_cd(g: &Graph, out: &mut Vec<Diagnostic>) {
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
                Diagnostic::new(
                    "script_absolute_cd",
                    Severity::Warning,
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

fn import_error(g: &Graph, out: &mut Vec<Diagnostic>) {
    for node in g.nodes().iter().filter(|n| n.attrs.contains_key("import")) {
        out.push(
            Diagnostic::new(
                "import_error",
                Severity::Error,
                "unresolved import (imports are not supported yet by git-fabro)".into(),
            )
            .node(&node.id)
            .fix("Copy the imported workflow's nodes into this one"),
        );
    }
}

fn unresolved_file_ref(g: &Graph, out: &mut Vec<Diagnostic>) {
    let fix = "Check that the file exists at a relative path inside the workflow file's \
               directory or the repository (no absolute path, no symlink leading out)";
    for node in g.nodes() {
        if let Some(prompt) = node.str_attr("prompt").filter(|p| p.starts_with('@')) {
            out.push(
                Diagnostic::new(
                    "unresolved_file_ref",
                    Severity::Error,
                    format!("Node '{}' has unresolved file reference: {prompt}", node.id),
                )
                .node(&node.id)
                .fix(fix),
            );
        }
    }
    if let Some(goal) = g.goal().filter(|goal| goal.starts_with('@')) {
        out.push(
            Diagnostic::new(
                "unresolved_file_ref",
                Severity::Error,
                format!("Graph goal has unresolved file reference: {goal}"),
            )
            .fix(fix),
        );
    }
}

fn thread_id_requires_fidelity_full(g: &Graph, out: &mut Vec<Diagnostic>) {
    let fix = "Add fidelity=\"full\" to enable session reuse, or remove thread_id";
    let default_full = g
        .attrs()
        .get("default_fidelity")
        .and_then(AttrValue::as_str)
        == Some("full");
    if default_full {
        return;
    }
    let warn = |message| {
        Diagnostic::new(
            "thread_id_requires_fidelity_full",
            Severity::Warning,
            message,
        )
    };
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

fn selection_valid(g: &Graph, out: &mut Vec<Diagnostic>) {
    for node in g.nodes() {
        if let Some(s) = node
            .str_attr("selection")
            .filter(|s| !SELECTIONS.contains(s))
        {
            out.push(
                Diagnostic::new(
                    "selection_valid",
                    Severity::Warning,
                    format!("Node '{}' has invalid selection mode '{s}'", node.id),
                )
                .node(&node.id)
                .fix(format!("Use one of: {}", SELECTIONS.join(", "))),
            );
        }
    }
}

fn random_selection_no_conditions(g: &Graph, out: &mut Vec<Diagnostic>) {
    for node in g.nodes().iter().filter(|n| n.selection() == "random") {
        if g.outgoing(&node.id).any(|e| e.condition().is_some()) {
            out.push(
                Diagnostic::new(
                    "random_selection_no_conditions",
                    Severity::Error,
                    format!(
                        "Node '{}' has selection=\"random\" but also has conditional edges; \
                         random selection and conditions cannot be combined",
                        node.id
                    ),
                )
                .node(&node.id)
                .fix(
                    "Remove the condition attributes from outgoing edges, or remove \
                     selection=\"random\" from the node",
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests;
