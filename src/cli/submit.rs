use std::path::PathBuf;

use anyhow::Result;

use super::output;
use crate::ops::pool::{self, executor};
use crate::ops::start::Checkout;
use crate::run::RunState;

/// Queue a workflow's run on a shared remote, for a worker to run: start it here without
/// executing it, push it, print its id
///
/// Validates WORKFLOW and starts its run as `run` does (nothing is written for a workflow
/// that cannot run), without checking its files out here (a worker does), and pushes the
/// run's branches with `refs/fabro/queue/<RUN_ID>` to REMOTE in one atomic push. A worker
/// (`git fabro worker --remote REMOTE`) claims it there, runs it under a lease and pushes each
/// checkpoint; `git fabro ps --remote REMOTE` says where each queued run stands, and `git fabro
/// fetch REMOTE` brings its record here. A worker runs only workflows its machine approved
/// (see docs/many-machines.md).
///
/// With --executor (or `[executor] default` of settings.toml), a worker for the run is started
/// too: `local` here in the background, `slurm` as a `sbatch --requeue` job, `ssh` on one of
/// the hosts `[executor.ssh] hosts` lists, `kubernetes` as a Job rendered from the template
/// `[executor.kubernetes] template` names. Each runs `git fabro worker --run RUN` with the
/// sha256 of the workflow and values this machine approved (`--approved`), so that it runs
/// exactly what was submitted. If the executor fails, the run stays queued.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The workflow file (.fabro or .dot)
    #[arg(value_name = "WORKFLOW")]
    workflow: PathBuf,
    /// The shared remote: a configured remote's name or a URL (default: `[remote] pool` of
    /// settings.toml, else the remote `push` uses)
    #[arg(long, value_name = "REMOTE")]
    remote: Option<String>,
    /// Sign the submission with the key git signs commits with (`user.signingKey`; workers
    /// accept SSH signatures by the keys of their `[worker] allowed_signers`), so that workers
    /// that allow this key run it without --trust
    #[arg(long)]
    sign: bool,
    /// Start a worker for the run with this executor
    #[arg(long, value_name = "EXECUTOR", value_parser = executor::KINDS)]
    executor: Option<String>,
    /// The run's goal, instead of the workflow's `goal` attribute
    #[arg(long, value_name = "TEXT")]
    goal: Option<String>,
    /// A workflow input, KEY=VALUE (repeatable)
    #[arg(long = "input", value_name = "KEY=VALUE", value_parser = super::run::parse_input)]
    inputs: Vec<(String, String)>,
    /// A label recorded in run.json (repeatable)
    #[arg(long = "label", value_name = "K=V", value_parser = super::run::parse_input)]
    labels: Vec<(String, String)>,
    /// Commit the run branch starts at (default: HEAD)
    #[arg(long, value_name = "REV")]
    base: Option<String>,
    /// run.toml for this run
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Print {"run_id", "remote", "approved", "worker"} as JSON
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<()> {
    let given_remote = args.remote.clone();
    let launch = super::run::Launch {
        workflow: &args.workflow,
        goal: args.goal,
        inputs: args.inputs,
        labels: args.labels,
        base: args.base,
        checkout: Checkout::Elsewhere,
        config: args.config,
        // A worker's machine runs the agent its own configuration names, and checks it.
        agent: None,
        check_agent: false,
        answers: &[],
        quiet: args.json,
    };
    let (ctx, id, _) = super::run::start_workflow(launch)?;
    let remote = ctx.pool_remote(given_remote.as_deref())?;
    let approved = ctx.approved_here(&RunState::load(&ctx.repo, &id)?);
    pool::submit(&ctx.repo, &remote, &id, &approved, args.sign)?;
    let shown = crate::ops::sync::display_remote(&ctx.repo, &remote);
    let kind = ctx.executor(args.executor)?;
    let started = match &kind {
        Some(kind) => Some(ctx.start_worker(&id, &remote, kind, approved.clone())?),
        None => None,
    };
    let worker = started.as_ref().map(|s| s.what.clone());
    if args.json {
        let submitted = serde_json::json!({
            "run_id": id.to_string(), "remote": shown, "approved": approved, "worker": worker,
        });
        return output::json(&submitted);
    }
    output::line(&id)?;
    output::note(format!("queued run {id} on {shown}"));
    if let Some(started) = started {
        output::note(started.described());
    }
    Ok(())
}
