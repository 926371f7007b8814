use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Result;

use super::progress::Spinner;
use super::run_arg::RunArgs;
use super::{Ctx, ExitWith, output, trust_review, workflow_file};
use crate::engine::execute::{
    Directions, Fence, check_answers, nested_workflows, recorded_workflows,
};
use crate::engine::workflow::{self, Graph};
use crate::error::Error;
use crate::format::record::StatusKind;
use crate::format::run_id::RunId;
use crate::format::store::RunDir;
use crate::ops::resume::{ResumeRequest, ResumeState, resume};
use crate::ops::run_pid::HOLDER_ENV;
use crate::ops::start::{ENGINE, WORKFLOW_DIR};
use crate::run::{GRAPH_FILE, RunState};

/// Resume a run: rebuild its run directory and worktree from git, then continue it, print its
/// state or run a command in it
///
/// A run that `git fabro run` started is continued by the engine from its checkpoint's
/// next node, then finished (exit 0 succeeded, 1 failed); no node whose checkpoint was
/// recorded runs again. --prepare-only stops after rebuilding and prints the state instead.
/// A run blocked at a human gate goes on with --answer NODE=CHOICE (or --auto-approve, or an
/// answer typed on the terminal); without one it blocks again (exit 4). A side-effect node
/// the engine was running when it died is not run again silently: resume stops (exit 1) until
/// --rerun NODE or --assume-done NODE says what to do with it. A recorded workflow that this
/// machine neither wrote nor approved (fetched from another clone, or changed there) is not
/// run, nor one whose recorded goal, inputs or workflow directory were changed so: resume shows the metadata commit that recorded it, where it was fetched from and what
/// changed since the version approved here, and exits 5; --trust runs it and remembers the
/// approval (by its sha256, in the fabro home's trusted/).
///
/// With --remote REMOTE, a run that waits on a shared remote (`git fabro ps --remote`: needs-answer,
/// needs-decision) is brought here, and queued again there with the given --answer,
/// --auto-approve, --rerun or --assume-done, for the next worker to go on with; --executor (or
/// `[executor] default`) starts one for it.
///
/// Refuses archived and succeeded runs, and runs whose run.pid names a live process. Without a
/// COMMAND, prints the state an engine continues from as JSON. With one, takes run.pid (of
/// several resumes at once, exactly one runs its command; the others exit 3), runs the
/// command in the worktree with FABRO_RUN_ID, FABRO_RUN_DIR, FABRO_WORKTREE, FABRO_NEXT_NODE,
/// FABRO_RESUME=1 and FABRO_RUN_PID (the holder, whose command may finish or restore the run)
/// set, and exits with its exit code. An unfinished worktree left by an interrupted start or
/// resume is never used: it is removed and checked out again.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    run: RunArgs,
    /// Check that this workflow is the one the run was started with
    #[arg(long, value_name = "FILE")]
    workflow: Option<PathBuf>,
    /// Resume under a workflow whose sha256 differs from the recorded one
    #[arg(long)]
    force: bool,
    /// Run the recorded workflow (and child workflows it reads from files) even though this
    /// machine neither wrote nor approved it, and remember the approval
    #[arg(long)]
    trust: bool,
    /// Print JSON (the state is always printed as JSON without a command)
    #[arg(long)]
    json: bool,
    /// Only rebuild the run directory and worktree and print the state, even for a run the
    /// engine executes
    #[arg(long, conflicts_with = "command")]
    prepare_only: bool,
    /// The command agent and prompt nodes run, instead of the one the run was given (`run
    /// --agent`) or else the configured one: a preset (claude, codex, gemini, aider, copilot,
    /// qwen, opencode: see `git fabro agents`) or a command line; the run keeps it
    #[arg(long, value_name = "COMMAND", conflicts_with = "command")]
    agent: Option<String>,
    /// Answer the human gate NODE with CHOICE: its key, number, label or target node
    /// (repeatable)
    #[arg(long = "answer", value_name = "NODE=CHOICE", value_parser = parse_answer)]
    answers: Vec<(String, String)>,
    /// Answer every human gate with its first choice
    #[arg(long)]
    auto_approve: bool,
    /// Run again the side-effect node NODE that was cut short (repeatable)
    #[arg(long, value_name = "NODE")]
    rerun: Vec<String>,
    /// Record the side-effect node NODE that was cut short as succeeded, without running it
    /// again (repeatable)
    #[arg(long, value_name = "NODE", conflicts_with = "rerun")]
    assume_done: Vec<String>,
    /// Give the answer or decision to the run where it waits on this shared remote, for the
    /// next worker to go on with, instead of going on with it here
    #[arg(
        long,
        value_name = "REMOTE",
        conflicts_with_all = ["command", "prepare_only", "workflow", "force", "trust", "agent", "json"]
    )]
    remote: Option<String>,
    /// With --remote: start a worker for the run with this executor (default: `[executor]
    /// default` of settings.toml), as `submit --executor` does
    #[arg(long, value_name = "EXECUTOR", requires = "remote", value_parser = crate::ops::pool::executor::KINDS)]
    executor: Option<String>,
    /// The command to run in the worktree
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    if let Some(remote) = &args.remote {
        let given =
            (args.run.run_pos.as_deref().or(args.run.flag.run.as_deref())).ok_or_else(|| {
                Error::Usage("resume --remote names the run: RUN or --run RUN".into())
            })?;
        let directions = Directions {
            answers: args.answers,
            auto_approve: args.auto_approve,
            rerun: args.rerun,
            assume_done: args.assume_done,
            ..Default::default()
        };
        return super::resume_remote::run(ctx, given, remote, directions, args.executor);
    }
    let id = args.run.id(ctx)?;
    let state = RunState::load(&ctx.repo, &id)?;
    let existing = ctx.run_dir(&id, None);
    if let Some(pid) = existing.as_ref().and_then(RunDir::live_holder) {
        return Err(crate::ops::run_pid::held(&id, pid, false).into());
    }
    let config = ctx.config(&state, existing.as_ref())?;
    let by_engine = state
        .record
        .spec
        .extra
        .get("engine")
        .and_then(|v| v.as_str())
        == Some(ENGINE);
    // The engine's directions are checked before anything changes.
    let engine = if args.command.is_empty() && by_engine && !args.prepare_only {
        let graph = engine_graph(&state, args.workflow.as_deref())?;
        let own_workflow = args.workflow.is_some();
        trust_review::gate(&ctx.repo, &ctx.home, &state, own_workflow, args.trust)?;
        let directions = Directions {
            answers: args.answers,
            auto_approve: args.auto_approve,
            rerun: args.rerun,
            assume_done: args.assume_done,
            trust: args.trust,
            ..Default::default()
        };
        check_directions(ctx, &state, &graph, &directions)?;
        Some((graph, directions))
    } else {
        None
    };
    let request = ResumeRequest {
        workflow: args.workflow.as_deref(),
        force: args.force,
    };
    let progress = Spinner::start("preparing the run's worktree");
    let resumed = resume(&ctx.repo, &state, &config, &request)?;
    progress.done();
    if let Some(note) = &resumed.seed_note {
        output::note(note);
    }
    if resumed.dirty {
        output::warn(format!(
            "the worktree {} has changes that no checkpoint holds",
            resumed.worktree.display()
        ));
    }
    if let Some((graph, directions)) = engine {
        if state.record.status.kind == StatusKind::Blocked {
            record_unblocked(ctx, &id);
        }
        let agent = args.agent.as_deref();
        return super::execute::execute(ctx, &id, &graph, args.json, agent, &directions, None);
    }
    if args.command.is_empty() {
        return output::json(&resumed);
    }
    let code = supervise(&id, &resumed, &args.command)?;
    if code != 0 {
        return Err(ExitWith(code).into());
    }
    Ok(())
}

/// Runs the command in the worktree while holding run.pid, on git-fabro's terminal: Ctrl-C
/// reaches the command, and git-fabro ends with it.
fn supervise(id: &RunId, state: &ResumeState, command: &[String]) -> Result<u8> {
    let run_dir = RunDir {
        path: state.run_dir.clone(),
    };
    let hold = run_dir.hold(id)?;
    let mut child = Command::new(&command[0]);
    // The command works in the run's worktree, whatever repository the caller's git pointed at.
    for name in crate::git::redirects::inherited_redirects() {
        child.env_remove(name);
    }
    child
        .args(&command[1..])
        .current_dir(&state.worktree)
        .env("FABRO_RUN_ID", &state.run_id)
        .env("FABRO_RUN_DIR", &state.run_dir)
        .env("FABRO_WORKTREE", &state.worktree)
        .env(
            "FABRO_NEXT_NODE",
            state.next_node_id.as_deref().unwrap_or(""),
        )
        .env("FABRO_RESUME", "1")
        .env(HOLDER_ENV, std::process::id().to_string());
    let status = crate::process::run_in_foreground(&mut child);
    drop(hold);
    let status =
        status.map_err(|err| Error::Failed(format!("cannot run {}: {err}", command[0])))?;
    Ok(exit_code(status))
}

#[cfg(unix)]
fn exit_code(status: std::process::ExitStatus) -> u8 {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => code as u8,
        (None, Some(signal)) => 128u8.wrapping_add(signal as u8),
        _ => 1,
    }
}

#[cfg(not(unix))]
fn exit_code(status: std::process::ExitStatus) -> u8 {
    status.code().unwrap_or(1) as u8
}

fn parse_answer(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((node, choice)) if !node.is_empty() => Ok((node.to_owned(), choice.to_owned())),
        _ => Err(format!("{text:?} is not NODE=CHOICE")),
    }
}

/// The workflow a run the engine executes goes on under: the one it recorded or, when
/// `--workflow` names one (the same, or another with `--force`), that file, so that a fixed
/// workflow takes over from the next node. The run's record keeps the workflow it started with.
pub(super) fn engine_graph(state: &RunState, given: Option<&Path>) -> Result<Graph> {
    if let Some(path) = given {
        let checked = workflow_file::check(path)?;
        workflow_file::refuse_invalid(&checked, "the run was not continued")?;
        return Ok(checked.graph);
    }
    let id = &state.id;
    let source =
        state.record.graph_source.as_deref().ok_or_else(|| {
            Error::Failed(format!("run {id} has no recorded workflow to continue"))
        })?;
    let graph = workflow::recorded_graph(source, &state.record.spec.graph, GRAPH_FILE)
        .map_err(|err| Error::Failed(format!("run {id}: its recorded workflow: {err}")))?;
    Ok(graph.ok_or_else(|| {
        Error::Failed(format!(
            "run {id}: its workflow imports others, and the graph it recorded with them \
             (spec.graph) is not one git-fabro can read"
        ))
    })?)
}

/// Refuses answers and side-effect directions that name nothing in the workflow.
/// The directions name nodes of the run's workflow or of the child workflows it nests.
pub(super) fn check_directions(
    ctx: &Ctx,
    state: &RunState,
    graph: &Graph,
    directions: &Directions,
) -> Result<()> {
    let dir = state
        .record
        .spec
        .extra
        .get(WORKFLOW_DIR)
        .and_then(|d| d.as_str());
    let mut nested = nested_workflows(graph, Path::new(dir.unwrap_or("")), ctx.repo.workdir());
    nested.extend(recorded_workflows(&state.record.spec.extra));
    check_answers(graph, &nested, &directions.answers)?;
    for node in directions.rerun.iter().chain(&directions.assume_done) {
        if std::iter::once(graph)
            .chain(&nested)
            .all(|g| g.node(node).is_none())
        {
            return Err(Error::Usage(format!("the run's workflow has no node {node:?}")).into());
        }
    }
    Ok(())
}

/// Continues run `id` through the engine as `resume RUN` does, publishing through `fence`:
/// a worker's way in, refused where `resume` refuses (a live holder here, an archived or
/// succeeded run, a workflow this machine did not approve without `trust`).
pub(crate) fn continue_fenced(
    ctx: &Ctx,
    id: &RunId,
    directions: &Directions,
    agent: Option<&str>,
    fence: &dyn Fence,
) -> Result<()> {
    let state = RunState::load(&ctx.repo, id)?;
    let existing = ctx.run_dir(id, None);
    if let Some(pid) = existing.as_ref().and_then(RunDir::live_holder) {
        return Err(crate::ops::run_pid::held(id, pid, false).into());
    }
    let config = ctx.config(&state, existing.as_ref())?;
    let graph = engine_graph(&state, None)?;
    approve_vouched(ctx, &state, &directions.approved)?;
    trust_review::gate(&ctx.repo, &ctx.home, &state, false, directions.trust)?;
    check_directions(ctx, &state, &graph, directions)?;
    let request = ResumeRequest {
        workflow: None,
        force: false,
    };
    resume(&ctx.repo, &state, &config, &request)?;
    super::execute::execute(ctx, id, &graph, false, agent, directions, Some(fence))
}

/// Remembers as approved here what of run `state` someone this machine trusts approved: its
/// sha256 is one of `approved`.
pub(super) fn approve_vouched(ctx: &Ctx, state: &RunState, approved: &[String]) -> Result<()> {
    for (_, text) in crate::engine::trusted::texts(&state.record) {
        if approved.contains(&crate::ops::start::sha256_hex(text.as_bytes())) {
            crate::ops::trust::approve(&ctx.home, text.as_bytes())?;
        }
    }
    Ok(())
}

/// Records in the run's event log that a blocked run goes on (best effort: the log is for
/// people, and the run's state is in git).
fn record_unblocked(ctx: &Ctx, id: &RunId) {
    if let Some(dir) = ctx.run_dir(id, None) {
        let _ = dir.append_event(&serde_json::json!({
            "ts": crate::format::time::Timestamp::now().rfc3339(),
            "run_id": id.as_str(),
            "event": "run.unblocked",
            "properties": {},
        }));
    }
}
