use std::path::PathBuf;

use anyhow::Result;

use super::progress::Spinner;
use super::{Ctx, output};
use crate::engine::workflow;
use crate::error::Error;
use crate::input;
use crate::ops::start::{Checkout, StartRequest, start};

/// Start a run: create its run and metadata branches, run directory and worktree
///
/// Mints a run id, creates `fabro/run/<id>` at the base commit and the orphan
/// `fabro/meta/<id>` whose `init run` commit holds `run.json`, creates the run directory and
/// checks out a linked worktree on the run branch in `<run dir>/worktree`. Prints the run id.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What the run is for, recorded in run.json
    #[arg(long, value_name = "TEXT")]
    goal: Option<String>,
    /// Workflow source to store as graph.fabro (its sha256 guards resumes); `-` reads stdin
    #[arg(long, value_name = "FILE")]
    workflow: Option<PathBuf>,
    /// A label recorded in run.json (repeatable)
    #[arg(long = "label", value_name = "K=V", value_parser = parse_label)]
    labels: Vec<(String, String)>,
    /// Commit the run branch starts at
    #[arg(
        long,
        value_name = "REV",
        default_value = "HEAD",
        hide_default_value = true
    )]
    base: String,
    /// Run directory to use instead of <fabro home>/runs/<date>-<id>
    #[arg(long, value_name = "DIR")]
    run_dir: Option<PathBuf>,
    /// run.toml for this run ([checkpoint] exclude_globs, [git.author])
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Work in this directory itself (a checkout, dirty or not, or a directory outside git)
    /// instead of a linked worktree; the user's HEAD, index and files are left as they are
    #[arg(long, conflicts_with = "base")]
    in_place: bool,
    /// Print a JSON object instead of the run id
    #[arg(long)]
    json: bool,
}

fn parse_label(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_owned(), value.to_owned())),
        _ => Err(format!("{text:?} is not K=V")),
    }
}

/// The workflow parsed into Fabro's graph, as the run's `spec.graph` records it. A file that is
/// not a workflow is refused before anything is written.
fn workflow_graph(path: &std::path::Path) -> crate::error::Result<serde_json::Value> {
    let source = input::read_named(path, "--workflow", input::MAX_DEFINITION)?;
    let source = String::from_utf8(source)
        .map_err(|_| Error::Usage(format!("--workflow: {} is not UTF-8 text", path.display())))?;
    let graph = workflow::parse(&source, &path.display().to_string())
        .map_err(|err| Error::Usage(format!("--workflow: {err}")))?;
    Ok(graph.to_fabro_json())
}

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    let graph = args.workflow.as_deref().map(workflow_graph).transpose()?;
    let request = StartRequest {
        goal: args.goal,
        workflow: args.workflow,
        labels: args.labels,
        base: (args.base != "HEAD").then_some(args.base),
        run_dir: args.run_dir,
        config: args.config,
        checkout: Checkout::in_place(args.in_place),
        graph,
        engine: false,
        inputs: Vec::new(),
        spec_extra: Default::default(),
        // The engine does not run it: `resume` runs no workflow of it to approve.
        approve: None,
    };
    let progress = Spinner::start("checking out the run's worktree");
    let started = start(&ctx.repo, &ctx.home, &request)?;
    progress.done();
    if let Some(note) = &started.seed_note {
        output::note(note);
    }
    if args.json {
        output::json(&started)
    } else {
        output::note(format!(
            "started run {} in {}",
            started.run_id,
            started.worktree.display()
        ));
        output::line(&started.run_id)
    }
}
