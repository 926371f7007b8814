use std::io::IsTerminal;

use anyhow::Result;

use super::{Ctx, output};
use crate::error::Error;
use crate::ops::sync::{Synced, push};
use crate::run;

/// Push runs (both branches of each) to a remote, never forcing
///
/// Pushes `fabro/run/<id>` and `fabro/meta/<id>` of each RUN (default: the current run; every
/// run with --all) with explicit refspecs, atomically: either every ref moves or none does. A
/// remote whose branch moved on refuses the push, and the refusal is reported with the
/// remote's reason. A lone argument that names a run (and no remote) is taken as RUN.
/// REMOTE defaults to the configured remote (`[remote] name`, `fabro.remote`), else `origin`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The remote name or URL
    remote: Option<String>,
    /// The runs to push
    runs: Vec<String>,
    /// Push every run of the repository
    #[arg(long, conflicts_with = "runs")]
    all: bool,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Ctx, mut args: Args) -> Result<()> {
    shift_run_argument(ctx, &mut args.remote, &mut args.runs);
    let remote = args.remote.clone().unwrap_or(ctx.base_config()?.remote);
    let ids = if args.all {
        // A run that cannot be read (a broken record, a missing branch) would fail the whole
        // atomic push; it stays here, with a warning.
        let (states, unreadable) = run::load_all(&ctx.repo)?;
        output::warn_unreadable(&unreadable);
        states.into_iter().map(|state| state.id).collect()
    } else if args.runs.is_empty() {
        vec![ctx.run_id(None).map_err(|_| {
            Error::Usage("name the runs to push, or pass --all (no current run here)".into())
        })?]
    } else {
        args.runs
            .iter()
            .map(|text| ctx.run_id(Some(text)))
            .collect::<Result<Vec<_>>>()?
    };
    let synced = push(&ctx.repo, &remote, &ids, progress())?;
    report(&synced, "pushed", args.json)
}

/// `push RUN` means the run, not a remote named like it: a first argument that is neither a
/// configured remote nor a URL or path, but names a run, is taken as a run.
pub fn shift_run_argument(ctx: &Ctx, remote: &mut Option<String>, runs: &mut Vec<String>) {
    let Some(first) = remote.as_deref() else {
        return;
    };
    let is_remote = ctx
        .repo
        .config_string(&format!("remote.{first}.url"))
        .is_some()
        || first.contains(['/', ':', '.']);
    if !is_remote && crate::run::resolve(&ctx.repo, first).is_ok() {
        runs.insert(0, first.to_owned());
        *remote = None;
    }
}

/// Progress from git only when a person watches stderr.
pub fn progress() -> bool {
    std::io::stderr().is_terminal() && !output::is_quiet()
}

pub fn report(synced: &Synced, verb: &str, json: bool) -> Result<()> {
    if json {
        return output::json(synced);
    }
    for r in &synced.refs {
        output::line(format!(
            "{:<10}  {}",
            r.result,
            r.name.trim_start_matches("refs/heads/")
        ))?;
    }
    let runs = synced.runs.len();
    output::note(format!(
        "{verb} {runs} run{} with {}",
        if runs == 1 { "" } else { "s" },
        synced.remote
    ));
    Ok(())
}
