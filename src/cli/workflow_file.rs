//! A workflow file named on the command line, loaded once for `validate`, `run` and `resume`
//! with the engine's loader (`engine::workflow::load`), its `@file` prompts allowed to read in
//! the repository around the current directory. Diagnostics print as Fabro prints them.

use std::path::Path;

use anyhow::Result;
use serde::Serialize;

use super::output;
use crate::engine::validate::{self, Diagnostic, Severity};
use crate::engine::workflow::{self, Graph};
use crate::error::Error;

pub struct Checked {
    /// The path as the user gave it, for messages.
    pub shown: String,
    pub graph: Graph,
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads and checks the workflow at `given` (relative to the current directory, which `-C DIR`
/// has already made DIR). A file that cannot be read is a usage error (exit 2), one that is not
/// Fabro's DOT an [`Error::WorkflowSyntax`], which `validate` reports with exit 1.
pub fn check(given: &Path) -> Result<Checked, Error> {
    let repo = std::env::current_dir()
        .ok()
        .and_then(|here| crate::git::Repo::discover_current(&here).ok());
    let loaded = workflow::load_named(given, "WORKFLOW", repo.as_ref().and_then(|r| r.workdir()))?;
    Ok(Checked {
        shown: given.display().to_string(),
        graph: loaded.graph,
        diagnostics: loaded.diagnostics,
    })
}

/// `Workflow: NAME (N nodes, M edges)`, Fabro's header, for people.
pub fn header(checked: &Checked) {
    let g = &checked.graph;
    output::note(format!(
        "Workflow: {} ({} nodes, {} edges)",
        g.name(),
        g.node_count(),
        g.edge_count()
    ));
    output::note(format!("Graph: {}", output::escape(&checked.shown)));
}

/// `error|warning [node: X]: message (rule)`, one line per diagnostic, on stderr.
pub fn print_diagnostics(diagnostics: &[Diagnostic]) {
    for d in diagnostics {
        let location = match (&d.node_id, &d.edge) {
            (Some(node), _) => format!(" [node: {node}]"),
            (None, Some((from, to))) => format!(" [edge: {from} -> {to}]"),
            (None, None) => String::new(),
        };
        let word = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        // Messages quote the workflow's text: shown escaped, line by line (a regex error in a
        // condition spans lines), after the coloured severity.
        let text = format!("{location}: {} ({})", d.message, d.rule);
        let shown: Vec<_> = text.lines().map(output::escape).collect();
        eprintln!("{}{}", output::severity(word), shown.join("\n"));
    }
}

/// Fabro's `--json` report of `validate`.
#[derive(Serialize)]
pub struct Report<'a> {
    pub workflow_name: &'a str,
    pub nodes: usize,
    pub edges: usize,
    pub valid: bool,
    pub diagnostics: &'a [Diagnostic],
}

impl<'a> Report<'a> {
    pub fn of(checked: &'a Checked) -> Self {
        Report {
            workflow_name: checked.graph.name(),
            nodes: checked.graph.node_count(),
            edges: checked.graph.edge_count(),
            valid: !validate::has_errors(&checked.diagnostics),
            diagnostics: &checked.diagnostics,
        }
    }
}

/// Refuses a workflow with validation errors (exit 2) after printing them; `consequence` says
/// what was not done.
pub fn refuse_invalid(checked: &Checked, consequence: &str) -> Result<()> {
    if !validate::has_errors(&checked.diagnostics) {
        return Ok(());
    }
    print_diagnostics(&checked.diagnostics);
    Err(Error::Usage(format!(
        "{} is not a valid workflow; {consequence}",
        checked.shown
    ))
    .into())
}
