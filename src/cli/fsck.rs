use anyhow::Result;

use super::{Ctx, output};
use crate::ops::fsck::{Finding, Report, fsck};

/// Check that runs hold together, and repair what can be repaired without losing anything
///
/// Checks that every run commit's Fabro-Checkpoint names a metadata commit of the same run,
/// that completed counts rise by one, that every checkpoint tree holds only paths git's
/// checkout accepts, that every run.json parses under a known format, and
/// that worktree registrations, in-place registrations and run directories match the refs.
/// Lists metadata commits left by a checkpoint that lost a race (harmless). Exits 1 when a
/// problem remains. --repair removes stale worktree registrations, lock files and run
/// directories, deletes run branches left without a run by a killed start, and rebuilds
/// missing run directories from git; it says what it did. Unfinished checkouts and
/// unreadable worktree registrations an interrupted start or resume left are reported, and
/// removed by --repair once the process that made them is gone.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only these runs (default: every run, and the repository's state around them)
    runs: Vec<String>,
    /// Repair what can be repaired
    #[arg(long)]
    repair: bool,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    let ids = args
        .runs
        .iter()
        .map(|text| ctx.run_id(Some(text)))
        .collect::<Result<Vec<_>>>()?;
    let report = fsck(&ctx.repo, &ctx.base_config()?, &ids, args.repair)?;
    if args.json {
        output::json(&report)?;
    } else {
        print(&report)?;
    }
    if report.is_clean() {
        Ok(())
    } else {
        Err(crate::error::Error::Failed("git fabro fsck found problems".into()).into())
    }
}

fn print(report: &Report) -> Result<()> {
    let line = |finding: &Finding, label: &str| {
        let run = finding
            .run_id
            .as_deref()
            .map(|r| format!("{} ", &r[..8.min(r.len())]))
            .unwrap_or_default();
        output::line(format!(
            "{label:<9} {}{}: {}",
            output::escape(&run),
            finding.kind,
            output::escape(&finding.message)
        ))
    };
    for finding in &report.problems {
        let label = match (finding.repaired, finding.repairable) {
            (true, _) => "repaired",
            (false, true) => "fixable",
            (false, false) => "problem",
        };
        line(finding, label)?;
    }
    for note in &report.notes {
        line(note, "note")?;
    }
    let remaining = report.problems.iter().filter(|p| !p.repaired).count();
    let fixable = report
        .problems
        .iter()
        .filter(|p| !p.repaired && p.repairable)
        .count();
    match remaining {
        0 => output::note(format!(
            "checked {}: ok",
            output::counted(report.runs_checked, "run", "runs")
        )),
        n => output::note(format!(
            "checked {}: {}{}",
            output::counted(report.runs_checked, "run", "runs"),
            output::counted(n, "problem", "problems"),
            if fixable > 0 {
                format!(", {fixable} of them fixable with `git fabro fsck --repair`")
            } else {
                String::new()
            }
        )),
    }
    Ok(())
}
