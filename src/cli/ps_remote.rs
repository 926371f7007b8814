//! `ps --remote`: the runs a shared remote holds in its queue, its leases and its waits.

use anyhow::Result;

use super::{Ctx, output};
use crate::ops::pool::listing;

pub fn run(ctx: &Ctx, remote: &str, json: bool) -> Result<()> {
    let runs = listing::list(&ctx.repo, remote)?;
    if json {
        return output::json(&runs);
    }
    if runs.is_empty() {
        output::note(format!(
            "no runs queued, leased or waiting on {}; queue one with `git fabro submit WORKFLOW --remote {remote}`",
            crate::ops::sync::display_remote(&ctx.repo, remote)
        ));
        return Ok(());
    }
    // A run's branch jobs follow it, indented: where its fan-out runs.
    let rows: Vec<Vec<String>> = runs
        .iter()
        .flat_map(|r| {
            let run = vec![
                r.run_id.clone(),
                r.state.to_owned(),
                dash_if_empty(r.waits_at.join(",")),
                r.owner.clone().unwrap_or_else(|| "-".into()),
                r.epoch.map_or_else(|| "-".into(), |e| e.to_string()),
                age(r.lease_age_ms),
            ];
            let branches = r.branches.iter().map(|b| {
                vec![
                    format!("  {}", b.branch),
                    b.state.to_owned(),
                    "-".into(),
                    b.owner.clone().unwrap_or_else(|| "-".into()),
                    "-".into(),
                    age(b.lease_age_ms),
                ]
            });
            std::iter::once(run).chain(branches)
        })
        .collect();
    output::table(
        &["RUN", "STATE", "WAITS AT", "WORKER", "EPOCH", "LEASE AGE"],
        &rows,
        Some(1),
    )?;
    if runs.iter().any(|r| !r.waits_at.is_empty()) {
        output::note(format!(
            "a run that needs an answer or a decision goes on with `git fabro resume RUN --remote {remote}` and --answer NODE=CHOICE, --rerun NODE or --assume-done NODE; `git fabro fetch {remote} RUN` brings it here to look at first"
        ));
    }
    Ok(())
}

fn age(ms: Option<u64>) -> String {
    ms.map_or_else(|| "-".into(), |ms| format!("{}s", ms / 1000))
}

fn dash_if_empty(text: String) -> String {
    if text.is_empty() { "-".into() } else { text }
}
