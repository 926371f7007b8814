use anyhow::Result;

use super::run_arg::RunFlag;
use super::{Ctx, colour, output, pager};
use crate::git::ObjectId;
use crate::ops::fork::parse_sha;
use crate::run::RunState;
use crate::run::target::Target;
use crate::run::timeline::{Entry, find};

/// Show the changes between two checkpoints, or between a checkpoint and the worktree
///
/// Without targets, shows the run's whole change: its base commit (for a fork, the base of the
/// run its line of work started in) against its latest checkpoint. With FROM alone, compares
/// FROM with the latest, or with the worktree's current files under --worktree. The patch is what `git diff` prints, in git's colours on a
/// terminal, through a pager as git uses one.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The run (or --run RUN; default: the current run, and then the words are FROM and TO)
    #[arg(value_name = "RUN")]
    run_pos: Option<String>,
    /// The older checkpoint
    #[arg(value_name = "FROM")]
    from: Option<String>,
    /// The newer checkpoint
    #[arg(value_name = "TO")]
    to: Option<String>,
    #[command(flatten)]
    run: RunFlag,
    /// Compare FROM (default: the latest checkpoint) with the files in the run's worktree
    #[arg(long)]
    worktree: bool,
    /// Print a summary of changed files instead of the patch
    #[arg(long, group = "format")]
    stat: bool,
    /// Print only the names of changed files
    #[arg(long, group = "format")]
    name_only: bool,
    /// Print the names and kinds (A, D, M, T) of changed files
    #[arg(long, group = "format")]
    name_status: bool,
    /// Colour the patch: always, never or auto (default: color.diff, color.ui, else auto)
    #[arg(
        long,
        value_name = "WHEN",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "always"
    )]
    color: Option<colour::When>,
    /// Print a JSON object with the per-file counts and the patch
    #[arg(long, group = "format")]
    json: bool,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    let (id, targets) = ctx.run_and_targets(
        args.run.run.as_deref(),
        &[args.run_pos, args.from, args.to],
        2,
    )?;
    let mut targets = targets.into_iter();
    let (from_text, to_text) = (targets.next(), targets.next());
    if args.worktree && to_text.is_some() {
        return Err(crate::error::Error::Usage(
            "--worktree compares one checkpoint with the worktree: give FROM alone".into(),
        )
        .into());
    }
    let state = RunState::load(&ctx.repo, &id)?;
    let label = Entry::label;
    let checkpoint = |text: Option<&str>| -> Result<(ObjectId, String)> {
        let entry = find(&ctx.repo, &state, &Target::parse(text)?)?;
        Ok((parse_sha(&entry.run_commit)?, label(&entry)))
    };
    // `place` names what was compared, for an error about a path one of them holds.
    let (from, to, place) = if args.worktree {
        let (from, from_label) = checkpoint(from_text.as_deref())?;
        let workspace = ctx.workspace(&id)?;
        let config = ctx.config(&state, ctx.run_dir_of(&id, &workspace).as_ref())?;
        let to = workspace.snapshot(Some(state.run_tip), &config, &[])?.tree;
        let place = format!("checkpoint {from_label} or the worktree");
        (ctx.repo.commit_tree(from)?, to, place)
    } else if from_text.is_some() {
        let (from, from_label) = checkpoint(from_text.as_deref())?;
        let (to, to_label) = checkpoint(to_text.as_deref())?;
        (from, to, format!("checkpoint {from_label} or {to_label}"))
    } else {
        // The whole run: what `land` would merge and `final.patch` holds.
        let changes = state.changes(&ctx.repo)?;
        let place = "the run's base commit or its latest checkpoint".to_owned();
        (changes.base, changes.tip, place)
    };
    let at = |err: crate::git::Error| crate::error::Error::from(err).at(&place);
    let painted = colour::decide(&ctx.repo, args.color, "color.diff");
    let _pager = pager::start(&ctx.repo);
    if args.name_only || args.name_status {
        use std::io::Write;
        let names = ctx
            .repo
            .diff_names(from, to, args.name_status)
            .map_err(at)?;
        std::io::stdout().lock().write_all(&names)?;
        return Ok(());
    }
    if args.json {
        let patch =
            String::from_utf8_lossy(&ctx.repo.diff_trees(from, to).map_err(at)?).into_owned();
        output::json(&serde_json::json!({
            "from": from.to_string(),
            "to": to.to_string(),
            "files": ctx.repo.diff_stat(from, to).map_err(at)?,
            "patch": patch,
        }))
    } else if args.stat {
        super::diff_stat::print(&ctx.repo.diff_stat(from, to).map_err(at)?, painted)
    } else {
        use std::io::Write;
        let patch = ctx.repo.diff_trees(from, to).map_err(at)?;
        let patch = if painted {
            colour::paint_patch(&patch)
        } else {
            patch
        };
        std::io::stdout().lock().write_all(&patch)?;
        Ok(())
    }
}
