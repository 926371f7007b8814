//! `gc --remote`: finished runs moved off a run-store remote into this clone.

use anyhow::Result;

use super::{Ctx, output};
use crate::ops::pool::gc::collect;

pub fn run(
    ctx: &Ctx,
    remote: &str,
    older_than: Option<i64>,
    dry_run: bool,
    json: bool,
) -> Result<()> {
    let config = ctx.base_config()?;
    let moved = collect(&ctx.repo, &config.runs_dir, remote, older_than, dry_run)?;
    if json {
        return output::json(&moved);
    }
    let verb = if dry_run { "would move" } else { "moved" };
    for run in &moved.runs {
        output::line(format!(
            "{verb} run {} ({}, finished {}) off {}",
            run.run_id, run.status, run.finished_at, moved.remote
        ))?;
    }
    for kept in &moved.kept {
        output::line(format!(
            "kept run {} on {}: {}",
            kept.run_id,
            moved.remote,
            output::escape(&kept.reason)
        ))?;
    }
    if moved.runs.is_empty() && moved.kept.is_empty() {
        output::note(format!("no finished run to move off {}", moved.remote));
    } else if !moved.runs.is_empty() && !dry_run {
        output::note(
            "they stay in this clone: `git fabro ps` lists them, `git fabro push` puts one back",
        );
    }
    Ok(())
}
