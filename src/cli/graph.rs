use std::io::Write;
use std::path::Path;

use anyhow::Result;

use super::{Ctx, workflow_file};
use crate::engine::picture::{self, Picture};
use crate::engine::workflow;
use crate::error::Error;
use crate::run::{GRAPH_FILE, RunState};

/// Draw a workflow, or a run of one, as DOT, SVG or Mermaid
///
/// For a RUN, each node shows the status of its latest visit (green succeeded, yellow
/// partially succeeded, red failed, grey skipped, white not reached), its visits and their
/// duration, and the edges the run took are drawn thick and blue. For a WORKFLOW file, the
/// workflow alone. Without an argument, the current run. SVG is laid out by git-fabro itself:
/// no Graphviz is needed. The picture goes to stdout.
///
/// Examples: `git fabro graph RUN --format svg > run.svg`, `git fabro graph --format mermaid`
/// (a block for a pull request), `git fabro graph RUN | dot -Tpng > run.png`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The run, or a workflow file (.fabro or .dot); a path that exists is the workflow
    #[arg(value_name = "RUN|WORKFLOW")]
    target: Option<String>,
    /// The format of the picture
    #[arg(long, value_enum, default_value_t = Format::Dot)]
    format: Format,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    /// Graphviz DOT, a workflow git-fabro and Fabro read back
    Dot,
    /// A standalone SVG document
    Svg,
    /// A Mermaid flowchart
    Mermaid,
}

pub fn run(ctx: impl FnOnce() -> Result<Ctx>, args: Args) -> Result<()> {
    let picture = match args.target.as_deref() {
        // A workflow is drawn from its file alone: no repository is opened.
        Some(path) if path == "-" || Path::new(path).exists() => {
            Picture::of_workflow(&workflow_file::check(Path::new(path))?.graph)
        }
        run => of_run(&ctx()?, run)?,
    };
    let text = match args.format {
        Format::Dot => picture::dot(&picture),
        Format::Svg => picture::svg(&picture),
        Format::Mermaid => picture::mermaid(&picture),
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

fn of_run(ctx: &Ctx, run: Option<&str>) -> Result<Picture> {
    let id = ctx.run_id(run)?;
    let state = RunState::load(&ctx.repo, &id)?;
    let source = state
        .record
        .graph_source
        .as_deref()
        .ok_or_else(|| Error::NoWorkflow {
            run: id.to_string(),
        })?;
    let graph = workflow::parse(source, GRAPH_FILE)
        .map_err(|err| Error::Failed(format!("run {id}: its recorded workflow: {err}")))?;
    Ok(Picture::of_run(&ctx.repo, &state, &graph)?)
}
