use std::path::PathBuf;

use anyhow::Result;

use super::{ExitWith, output, workflow_file};
use crate::engine::validate;
use crate::error::{Error, exit};

/// Check a Fabro workflow as `fabro validate` does
///
/// Reads WORKFLOW (Fabro's dialect of Graphviz DOT), inlines its `@file` prompts, and applies
/// Fabro's validation rules, printing each finding as `error|warning [node: X]: message (rule)`
/// on stderr, then `Validation: OK`. Exits 1 when there is an error (a syntax error is shown as
/// FILE:LINE:COLUMN), 2 when the file cannot be read. Needs no repository.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The workflow file (.fabro or .dot); `-` or a pipe (`<(...)`) is read as a file
    #[arg(value_name = "WORKFLOW")]
    workflow: PathBuf,
    /// Print Fabro's JSON report: workflow_name, nodes, edges, valid, diagnostics
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<()> {
    let checked = workflow_file::check(&args.workflow).map_err(|err| match err {
        // As `fabro validate`: a workflow that does not parse fails validation (exit 1).
        Error::WorkflowSyntax(text) => Error::Failed(text),
        other => other,
    })?;
    let invalid = validate::has_errors(&checked.diagnostics);
    if args.json {
        output::json(&workflow_file::Report::of(&checked))?;
    } else {
        workflow_file::header(&checked);
        workflow_file::print_diagnostics(&checked.diagnostics);
    }
    if invalid {
        eprintln!("  × Validation failed");
        return Err(ExitWith(exit::FAILED).into());
    }
    if !args.json {
        output::note("Validation: OK");
    }
    Ok(())
}
