use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::Serialize;

use super::{ExitWith, output, workflow_file};
use crate::engine::dry_run::{self, DryRun, Options};
use crate::engine::outcome::Status;
use crate::engine::validate;
use crate::error::{Error, exit};

/// Run a Fabro workflow: with --dry-run, simulate it and show the path it takes
///
/// With --dry-run, walks WORKFLOW from its start node as Fabro's --dry-run does: every handler
/// simulated (agents answer "[Simulated] ...", commands are skipped, human gates take their first
/// choice, parallel branches are simulated and joined), edges chosen by Fabro's rules, visit
/// limits and goal gates applied. Prints the path taken, one `node@visit status` line per
/// stage, and writes nothing to any repository. An invalid workflow is refused (exit 2) with its
/// validation errors; a run that fails exits 1.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The workflow file (.fabro or .dot)
    #[arg(value_name = "WORKFLOW")]
    workflow: PathBuf,
    /// Simulate every node instead of running it; nothing is written
    #[arg(long)]
    dry_run: bool,
    /// Answer every human gate with its first choice
    #[arg(long)]
    auto_approve: bool,
    /// The run's goal, instead of the workflow's `goal` attribute
    #[arg(long, value_name = "TEXT")]
    goal: Option<String>,
    /// A workflow input, KEY=VALUE (repeatable)
    #[arg(long = "input", value_name = "KEY=VALUE", value_parser = parse_input)]
    inputs: Vec<(String, String)>,
    /// Print the result as one JSON document: status, stages [{node_id, visit, status}]
    #[arg(long)]
    json: bool,
}

fn parse_input(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_owned(), value.to_owned())),
        _ => Err(format!("{text:?} is not KEY=VALUE")),
    }
}

/// The `--json` document.
#[derive(Serialize)]
struct Summary<'a> {
    #[serde(flatten)]
    run: &'a DryRun,
}

pub fn run(directory: Option<&Path>, args: Args) -> Result<()> {
    if !args.dry_run {
        return Err(Error::Usage(
            "only `git fabro run --dry-run` is available in this version of git-fabro".into(),
        )
        .into());
    }
    let checked =
        workflow_file::check(directory, &args.workflow).map_err(|e| e.into_error(exit::USAGE))?;
    if !args.json {
        workflow_file::header(&checked);
        if let Some(goal) = args.goal.as_deref().or(checked.graph.goal()) {
            output::note(format!("Goal: {}", output::escape(goal)));
        }
    }
    if validate::has_errors(&checked.diagnostics) {
        workflow_file::print_diagnostics(&checked.diagnostics);
        return Err(Error::Usage(format!(
            "{} is not a valid workflow; nothing was run",
            checked.shown
        ))
        .into());
    }
    if !args.json {
        workflow_file::print_diagnostics(&checked.diagnostics);
    }
    let options = Options { goal: args.goal };
    let result = dry_run::dry_run(&checked.graph, &options);
    if args.json {
        output::json(&Summary { run: &result })?;
    } else {
        for stage in &result.stages {
            let line = format!(
                "{}@{} {}",
                stage.node_id,
                stage.visit,
                stage.status.as_str()
            );
            output::line(output::escape(&line))?;
        }
    }
    match (&result.status, &result.failure) {
        (Status::Succeeded, _) => {
            if !args.json {
                output::note("Status: SUCCEEDED (dry run: nothing was written)");
            }
            Ok(())
        }
        (_, failure) => {
            let reason = failure.as_deref().unwrap_or("the run failed");
            eprintln!("{} {}", output::prefix("error"), output::escape(reason));
            Err(ExitWith(exit::FAILED).into())
        }
    }
}
