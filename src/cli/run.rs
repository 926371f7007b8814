use std::path::PathBuf;

use anyhow::Result;
use serde::Serialize;

use super::{Ctx, ExitWith, output, prepare, workflow_file};
use crate::engine::dry_run::{self, DryRun, Options};
use crate::engine::execute;
use crate::engine::outcome::Status;
use crate::engine::trusted;
use crate::error::exit;
use crate::format::run_id::RunId;
use crate::ops::start::{Checkout, StartRequest, start};

/// Run a Fabro workflow: start a run, execute it node by node, checkpoint every node, finish
///
/// Validates WORKFLOW (an invalid one is refused with exit 2 before anything is written),
/// starts a run exactly as `start` does, prints its id as the first line of stdout (on stderr
/// with --json), then runs the workflow in the run's worktree: each node is checkpointed (the
/// start node on the metadata branch only, as Fabro counts it), edges are chosen by Fabro's
/// rules, and the run is finished as `finish` does. One line per stage goes to stderr. Exits
/// 0 when the run succeeded, 1 when it failed. Every node type of Fabro runs: start, exit,
/// conditional, wait, command, agent, prompt, human, parallel, fan-in and manager loop; a node
/// of a type Fabro does not know runs as an agent, as in Fabro. Agent and prompt nodes run
/// through the agent command: --agent, else `[agent] command` in the --config file,
/// else git config `fabro.agentCommand`, else `[agent] command` in settings.toml; a workflow
/// that needs one and has none is refused (exit 2). Templates (`{{ goal }}`,
/// `{{ inputs.KEY }}`) are rendered strictly before the run starts; in a command's script each
/// value is read from `$FABRO_TEMPLATE_<n>`, never pasted in as code. Nodes get an allowlisted
/// environment (`[env] pass` in run.toml or settings.toml adds to it), and whatever a node
/// leaves running is stopped when it ends.
///
/// A human gate takes its answer from --answer, else --auto-approve, else asks on the terminal
/// (when stdin and stderr are one); with none of them the run blocks there (exit 4) until
/// `git fabro resume RUN --answer NODE=CHOICE`. Ctrl-C or SIGTERM stops the running node, which
/// is not recorded, and leaves the run paused for `git fabro resume` (exit 130).
///
/// With --dry-run, walks WORKFLOW from its start node as Fabro's --dry-run does: every handler
/// simulated (agents answer "[Simulated] ...", commands are skipped, human gates take their first
/// choice, parallel branches are simulated and joined), edges chosen by Fabro's rules, visit
/// limits and goal gates applied. Prints the path taken, one `node@visit status` line per
/// stage, and writes nothing to any repository. An invalid workflow is refused (exit 2) with its
/// validation errors; a run that fails exits 1.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The workflow file (.fabro or .dot); `-` or a pipe (`<(...)`) is read as a file
    #[arg(value_name = "WORKFLOW")]
    workflow: PathBuf,
    /// Simulate every node instead of running it; nothing is written
    #[arg(long)]
    dry_run: bool,
    /// Answer every human gate with its first choice
    #[arg(long)]
    auto_approve: bool,
    /// Answer the human gate NODE with CHOICE: its key, number, label or target node
    /// (repeatable)
    #[arg(long = "answer", value_name = "NODE=CHOICE", value_parser = parse_input)]
    answers: Vec<(String, String)>,
    /// The run's goal, instead of the workflow's `goal` attribute (taken as written, never
    /// rendered as a template)
    #[arg(long, value_name = "TEXT")]
    goal: Option<String>,
    /// A workflow input, KEY=VALUE (repeatable)
    #[arg(long = "input", value_name = "KEY=VALUE", value_parser = parse_input)]
    inputs: Vec<(String, String)>,
    /// A label recorded in run.json (repeatable)
    #[arg(long = "label", value_name = "K=V", value_parser = parse_input)]
    labels: Vec<(String, String)>,
    /// Commit the run branch starts at (default: HEAD)
    #[arg(long, value_name = "REV")]
    base: Option<String>,
    /// Work in this directory itself instead of a linked worktree
    #[arg(long, conflicts_with = "base")]
    in_place: bool,
    /// run.toml for this run ([checkpoint] exclude_globs, [git.author], [agent] command)
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The command agent and prompt nodes run: a preset (claude, codex, gemini, aider, copilot,
    /// qwen, opencode: see `git fabro agents`) or a command line (`/bin/bash -c COMMAND` in the
    /// worktree, the prompt on stdin and in $FABRO_PROMPT_FILE, the response on stdout)
    #[arg(long, value_name = "COMMAND")]
    agent: Option<String>,
    /// Print the result as one JSON document, the only thing on stdout: run_id, status,
    /// stages [{node_id, visit, status, duration_ms}], duration_ms, active_ms (less the time
    /// it stood blocked or paused), failure; a run that
    /// blocked or was interrupted: status blocked or paused and stop (a dry run: status,
    /// stages)
    #[arg(long)]
    json: bool,
}

pub(super) fn parse_input(text: &str) -> Result<(String, String), String> {
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

pub fn run(args: Args) -> Result<()> {
    if !args.dry_run {
        return run_for_real(args);
    }
    let checked = workflow_file::check(&args.workflow)?;
    if !args.json {
        workflow_file::header(&checked);
        if let Some(goal) = args.goal.as_deref().or(checked.graph.goal()) {
            output::note(format!("Goal: {}", output::escape(goal)));
        }
    }
    workflow_file::refuse_invalid(&checked, "nothing was run")?;
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

/// Validates, checks templates, the agent command and the answers, starts the run and
/// executes it.
fn run_for_real(args: Args) -> Result<()> {
    let launch = Launch {
        workflow: &args.workflow,
        goal: args.goal,
        inputs: args.inputs,
        labels: args.labels,
        base: args.base,
        checkout: Checkout::in_place(args.in_place),
        config: args.config,
        agent: args.agent.as_deref(),
        check_agent: true,
        answers: &args.answers,
        quiet: args.json,
    };
    let (ctx, id, graph) = start_workflow(launch)?;
    let directions = execute::Directions {
        answers: args.answers,
        auto_approve: args.auto_approve,
        // The user named the workflow: what it reads from files beside it is theirs too.
        trust: true,
        ..Default::default()
    };
    super::execute::execute(
        &ctx,
        &id,
        &graph,
        args.json,
        args.agent.as_deref(),
        &directions,
        None,
    )
}

/// What starting a workflow's run takes, for `run` and `submit`.
pub(super) struct Launch<'a> {
    pub workflow: &'a std::path::Path,
    pub goal: Option<String>,
    pub inputs: Vec<(String, String)>,
    pub labels: Vec<(String, String)>,
    pub base: Option<String>,
    pub checkout: Checkout,
    pub config: Option<PathBuf>,
    /// `--agent`; `None` with `check_agent` false: the machine that executes it checks.
    pub agent: Option<&'a str>,
    pub check_agent: bool,
    pub answers: &'a [(String, String)],
    /// No diagnostics or notes for people (`--json`).
    pub quiet: bool,
}

/// Validates the workflow, checks its templates, agent command and answers, and starts its
/// run, approved on this machine with the child workflows beside it: nothing is written for a
/// workflow that cannot run.
pub(super) fn start_workflow(
    launch: Launch,
) -> Result<(Ctx, RunId, crate::engine::workflow::Graph)> {
    let checked = workflow_file::check(launch.workflow)?;
    workflow_file::refuse_invalid(&checked, "nothing was run")?;
    let inputs = launch.inputs.iter().cloned().collect();
    prepare::render(
        &checked.graph,
        &checked.shown,
        launch.goal.as_deref(),
        &inputs,
    )?;
    let here = std::env::current_dir().ok();
    let repo = here.and_then(|dir| crate::git::Repo::discover_current(&dir).ok());
    if launch.check_agent {
        let agent =
            prepare::configured_agent(launch.agent, repo.as_ref(), launch.config.as_deref())?;
        prepare::require_agent(&checked.graph, &checked.shown, agent.as_deref())?;
    }
    let dir = crate::input::named_dir(launch.workflow);
    let workdir = repo.as_ref().and_then(|r| r.workdir());
    let nested = execute::nested_workflows(&checked.graph, dir, workdir);
    execute::check_answers(&checked.graph, &nested, launch.answers)?;
    if !launch.quiet {
        workflow_file::print_diagnostics(&checked.diagnostics);
    }
    let ctx = Ctx::open(true)?;
    let graph = checked.graph.to_fabro_json();
    // The child workflows it names by file, as they are now: what it runs, here or on a
    // worker's machine. They are the user's too: approved here, as the workflow is.
    let children = execute::recorded_children(&checked.graph, dir, ctx.repo.workdir());
    for source in children.values().filter_map(|c| c["source"].as_str()) {
        crate::ops::trust::approve(&ctx.home, source.as_bytes())?;
    }
    let request = StartRequest {
        goal: launch.goal,
        workflow: Some(launch.workflow.to_owned()),
        labels: launch.labels,
        base: launch.base,
        run_dir: None,
        config: launch.config,
        checkout: launch.checkout,
        graph: Some(graph),
        engine: true,
        inputs: launch.inputs,
        spec_extra: execute::children_in_spec(children),
        // What `resume` will run: with imports, the graph recorded from them, and the values.
        approve: Some(trusted::approved_at_start),
    };
    let progress = super::progress::Spinner::start("checking out the run's worktree");
    let started = start(&ctx.repo, &ctx.home, &request)?;
    progress.stop();
    if let Some(note) = &started.seed_note {
        output::note(note);
    }
    let id = RunId::parse(&started.run_id)?;
    Ok((ctx, id, checked.graph))
}
