//! A workflow file named on the command line, read and checked once for `validate` and `run`:
//! read as a regular file, parsed, its `@file` prompts inlined from beside it (then from the
//! fabro home), validated with Fabro's rules. Diagnostics print as Fabro prints them.

use std::path::Path;

use anyhow::Result;
use serde::Serialize;

use super::output;
use crate::engine::files;
use crate::engine::validate::{self, Diagnostic, Severity};
use crate::engine::workflow::{self, Graph, ParseError};
use crate::error::Error;
use crate::input;

pub struct Checked {
    /// The path as the user gave it, for messages.
    pub shown: String,
    pub graph: Graph,
    pub diagnostics: Vec<Diagnostic>,
}

/// Why a workflow could not be checked at all.
pub enum Unreadable {
    /// Not a readable regular file (or too large): a usage error.
    File(anyhow::Error),
    /// Not Fabro's DOT: where and why.
    Syntax(ParseError),
}

/// Reads and checks the workflow at `given` (relative to the current directory, which `-C DIR`
/// has already made DIR).
pub fn check(given: &Path) -> Result<Checked, Unreadable> {
    let path = given;
    let shown = given.display().to_string();
    let bytes = input::read_file(path, "WORKFLOW", input::MAX_DEFINITION)
        .map_err(|e| Unreadable::File(e.into()))?;
    let source = String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let before = String::from_utf8_lossy(valid);
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        Unreadable::Syntax(ParseError {
            file: shown.clone(),
            line,
            column,
            message: "the file is not UTF-8 text".into(),
        })
    })?;
    let mut graph = workflow::parse(&source, &shown).map_err(Unreadable::Syntax)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let repo = std::env::current_dir()
        .ok()
        .and_then(|here| crate::git::Repo::discover(&here).ok());
    let refs = files::FileRefs {
        dir,
        repo: repo.as_ref().and_then(|r| r.workdir()),
    };
    files::inline_file_refs(&mut graph, &refs);
    let diagnostics = validate::validate(&graph);
    Ok(Checked {
        shown,
        graph,
        diagnostics,
    })
}

impl Unreadable {
    /// The error a command returns, with the exit code it asks for when the workflow is not
    /// DOT (a file that cannot be read is always a usage error).
    pub fn into_error(self, syntax_exit: u8) -> anyhow::Error {
        match self {
            Unreadable::File(err) => err,
            Unreadable::Syntax(err) if syntax_exit == crate::error::exit::USAGE => {
                Error::Usage(err.to_string()).into()
            }
            Unreadable::Syntax(err) => Error::Failed(err.to_string()).into(),
        }
    }
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
            Severity::Info => "info",
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
