use std::path::Path;

use anyhow::Result;
use serde::Serialize;

use super::status::{Process, shown_status};
use super::{Ctx, output};
use crate::error::Error;
use crate::format::run_id::RunId;
use crate::format::usage;
use crate::run;
use crate::run::abbrev::Abbreviations;
use crate::run::inspect::{RunSummary, list_runs};

/// List the runs of this repository, found from their refs
///
/// Reads each run's metadata branch, so it works when run directories are gone. Archived
/// runs are listed only with --all (or --status archived). A running run whose run.pid names
/// a process that is gone shows as `running (no process)`. Run ids are shown by their
/// shortest unique prefix (at least eight characters), which every command accepts back.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Include archived runs
    #[arg(long)]
    all: bool,
    /// Only runs with this status (repeatable: any of them)
    #[arg(long = "status", value_name = "STATUS", value_parser = ["submitted", "running", "blocked", "paused", "succeeded", "failed", "dead", "archived"])]
    statuses: Vec<String>,
    /// Only runs started with this label (repeatable: all of them)
    #[arg(long = "label", value_name = "K=V")]
    labels: Vec<String>,
    /// Print a JSON array
    #[arg(long)]
    json: bool,
    /// List the runs a shared remote holds instead: queued, running (on which worker, lease
    /// age), stale, needs-answer or needs-decision (at which nodes), a running run's branches
    /// on other workers under it; REMOTE defaults to `[remote] pool` of settings.toml, else
    /// the remote `push` uses
    #[arg(long, value_name = "REMOTE", num_args = 0..=1, conflicts_with_all = ["all", "statuses", "labels"])]
    remote: Option<Option<String>>,
}

/// A row of `ps --json`: the run's summary and what its run.pid says.
#[derive(Serialize)]
struct Listed<'a> {
    #[serde(flatten)]
    run: &'a RunSummary,
    /// The pid in run.pid, alive or not; null when there is none.
    pid: Option<u32>,
    /// Whether run.pid names a live process.
    process_alive: bool,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    if let Some(remote) = &args.remote {
        let remote = ctx.pool_remote(remote.as_deref())?;
        return super::ps_remote::run(ctx, &remote, args.json);
    }
    let labels = args
        .labels
        .iter()
        .map(|pair| {
            pair.split_once('=')
                .ok_or_else(|| Error::Usage(format!("--label {pair:?} is not K=V")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let archived_asked = args.statuses.iter().any(|s| s == "archived");
    let known = run::list(&ctx.repo)?;
    ctx.abbreviations_of(|| Abbreviations::new(known.iter().map(|(id, _)| id.to_string())));
    let (runs, unreadable) = list_runs(&ctx.repo, known, args.all || archived_asked)?;
    output::warn_unreadable(&unreadable);
    let runs: Vec<RunSummary> = runs
        .into_iter()
        .filter(|r| {
            args.statuses.is_empty() || args.statuses.iter().any(|s| s == r.status.as_str())
        })
        .filter(|r| {
            labels
                .iter()
                .all(|(k, v)| r.labels.get(*k).map(String::as_str) == Some(*v))
        })
        .collect();
    let listing = ctx.runs_listing();
    let processes: Vec<Process> = runs
        .iter()
        .map(|r| match (RunId::parse(&r.run_id), &listing) {
            (Ok(id), Some(listing)) => {
                Process::of_listed(ctx, listing, &id, r.worktree.as_deref().map(Path::new))
            }
            _ => Process::default(),
        })
        .collect();
    if args.json {
        let listed: Vec<Listed> = runs
            .iter()
            .zip(&processes)
            .map(|(run, process)| Listed {
                run,
                pid: process.pid,
                process_alive: process.alive,
            })
            .collect();
        return output::json(&listed);
    }
    if runs.is_empty() && unreadable.is_empty() {
        if args.statuses.is_empty() && labels.is_empty() {
            output::note("no runs; start one with `git fabro start`");
        } else {
            output::note("no runs match");
        }
        return Ok(());
    }
    // Tokens are shown when a run of the list reported some.
    let tokens = runs.iter().any(|r| r.usage.is_some());
    let rows: Vec<Vec<String>> = runs
        .iter()
        .zip(&processes)
        .map(|(r, process)| {
            let mut row = vec![
                ctx.short(&r.run_id).to_owned(),
                match &r.landed {
                    Some(landed) => format!(
                        "{}, landed on {} ({})",
                        shown_status(r.status, process),
                        landed.branch,
                        crate::format::short_sha(&landed.commit)
                    ),
                    None => shown_status(r.status, process),
                },
                r.completed.to_string(),
                output::local_time(&r.start_time),
                r.workflow_name.clone().unwrap_or_else(|| "-".into()),
                r.goal.clone().unwrap_or_default(),
            ];
            if tokens {
                let total = r.usage.map_or(0, |u| u.tokens.total());
                row.insert(3, usage::grouped(total));
            }
            row
        })
        .collect();
    let mut header = vec!["RUN", "STATUS", "DONE", "STARTED", "WORKFLOW", "GOAL"];
    if tokens {
        header.insert(3, "TOKENS");
    }
    output::table(&header, &rows, Some(1))
}
