//! Fabro's validation rules, with their names, severities and messages, so that
//! `git fabro validate` says what `fabro validate` says. Rules run in Fabro's order; within a
//! rule, nodes are visited in the order the workflow first names them (Fabro's order there is
//! that of a hash map).
//!
//! Not here yet: `node_model_known` and `stylesheet_model_known`, which need Fabro's model
//! catalog (both warnings). Added by git-fabro: `template_valid`, an error for what would stop
//! Fabro's run at its template step whatever the inputs (a syntax error, an unknown variable).
//!
//! `RULES` lists them in that order; they live by what they look at: `structure` (start,
//! exit, reachability, node ids), `attributes`, `edges` (conditions and routing), `texts` (the
//! stylesheet, templates and scripts inside values), `recordable` and `names` (git-fabro's
//! own: shapes, node attributes and edge-only nodes Fabro does not diagnose, as warnings
//! naming the closest known name).

use serde::Serialize;

use super::graph::Graph;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) enum Severity {
    Error,
    Warning,
}

/// One finding, in the shape of Fabro's `Diagnostic` (its `--json` output).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub rule: String,
    pub(crate) severity: Severity,
    pub message: String,
    pub node_id: Option<String>,
    pub edge: Option<(String, String)>,
    pub fix: Option<String>,
}

impl Diagnostic {
    fn new(rule: &str, severity: Severity, message: impl Into<String>) -> Self {
        Diagnostic {
            rule: rule.to_string(),
            severity,
            message: message.into(),
            node_id: None,
            edge: None,
            fix: None,
        }
    }

    fn error(rule: &str, message: impl Into<String>) -> Self {
        Diagnostic::new(rule, Severity::Error, message)
    }

    fn warning(rule: &str, message: impl Into<String>) -> Self {
        Diagnostic::new(rule, Severity::Warning, message)
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

    pub(crate) fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

mod attributes;
mod edges;
mod names;
mod recordable;
mod structure;
mod texts;

type Rule = fn(&Graph, &mut Vec<Diagnostic>);

/// Every rule, in the order Fabro runs them, then git-fabro's own.
const RULES: &[Rule] = &[
    structure::start_node,
    structure::terminal_node,
    structure::reachability,
    structure::start_no_incoming,
    structure::exit_no_outgoing,
    edges::condition_syntax,
    texts::stylesheet_syntax,
    attributes::type_known,
    attributes::fidelity_valid,
    attributes::retry_target_exists,
    attributes::goal_gate_has_retry,
    attributes::prompt_on_llm_nodes,
    edges::freeform_edge_count,
    attributes::direction_valid,
    structure::reserved_keyword_node_id,
    edges::all_conditional_edges,
    edges::orphan_custom_outcome,
    texts::script_absolute_cd,
    structure::import_error,
    attributes::unresolved_file_ref,
    attributes::thread_id_requires_fidelity_full,
    attributes::selection_valid,
    edges::random_selection_no_conditions,
    texts::template_valid,
    recordable::node_id_recordable,
    recordable::parallel_branches_distinct,
    recordable::wait_duration_valid,
    names::shape_known,
    names::attribute_known,
    names::edge_target_declared,
];

pub fn validate(graph: &Graph) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for rule in RULES {
        rule(graph, &mut out);
    }
    out
}

pub(crate) fn has_errors(diagnostics: &[Diagnostic]) -> bool {
    diagnostics.iter().any(Diagnostic::is_error)
}

#[cfg(test)]
mod tests;
