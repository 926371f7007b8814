use anyhow::Result;

use super::open_run::OpenRun;
use super::run_arg::RunArgs;
use super::{Ctx, output};
use crate::error::Error;
use crate::format::record::Landing;
use crate::git::{Identity, Repo};
use crate::ops::agent_process::{self, Liveness};
use crate::ops::land::{LandMode, LandTarget, land, record_landing};
use crate::run::RUN_BRANCH_PREFIX;
use crate::run::timeline::timeline;
use crate::run::workspace::{self, Place};

/// Land a finished run on your branch: its changes as one commit (or a merge commit)
///
/// This is the one command that writes your own branch, index and files. It merges the run's
/// final tree into the current branch (or --into BRANCH) three-way, with the run's base as the
/// merge base, as `git merge` would, and commits the result with a message that sums up the
/// run's goal and stages and a `Fabro-Run: <id>` trailer. --squash (the default) makes one
/// commit on the branch; --merge a merge commit whose second parent is the run branch's tip.
/// When the branch is checked out (here or in another worktree), its index and files are
/// brought to the new commit as `git merge` brings them; for a run in place landing where it
/// ran, whose files are already there, only the index is. It refuses, changing nothing, on
/// conflicts, on staged changes, when a change or untracked file of yours is in the way, and
/// on a run that has not finished (unless --force).
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    run: RunArgs,
    /// One commit on the branch with the run's changes (the default)
    #[arg(long, conflicts_with = "merge")]
    squash: bool,
    /// A merge commit whose second parent is the run branch's tip
    #[arg(long)]
    merge: bool,
    /// The branch to land on (default: the current branch)
    #[arg(long, value_name = "BRANCH")]
    into: Option<String>,
    /// Land a run that has not finished
    #[arg(long)]
    force: bool,
    /// Print a JSON object
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    let run = ended_session_finished(ctx, args.run.open(ctx)?)?;
    let (state, config) = (&run.state, &run.config);
    let entries = timeline(&ctx.repo, state)?;
    let target = target(&ctx.repo, args.into.as_deref())?;
    let mode = if args.merge {
        LandMode::Merge
    } else {
        LandMode::Squash
    };
    // The commit goes on the user's branch: it is the user's, as `git merge` would sign it.
    let who = Identity {
        name: ctx
            .repo
            .config_string("user.name")
            .unwrap_or_else(|| config.identity.name.clone()),
        email: ctx
            .repo
            .config_string("user.email")
            .unwrap_or_else(|| config.identity.email.clone()),
    };
    let moved = moved_since(ctx, &run, &target)?;
    let landed = land(&ctx.repo, state, &entries, &target, mode, args.force, &who)?;
    if let Some(commit) = &landed.commit {
        let landing = Landing {
            branch: landed.branch.clone(),
            commit: commit.clone(),
            time: crate::format::time::Timestamp::now().rfc3339(),
        };
        if let Err(err) = record_landing(&ctx.repo, state, &landing, config) {
            output::warn(format!("the run's record does not say it landed: {err}"));
        }
    }
    if landed.commit.is_some() && !moved.is_empty() {
        output::warn(format!(
            "run {} landed what it recorded last; the checkout holds other content in {}: {} (`git status` shows it as your change)",
            ctx.short(state.id.as_str()),
            output::counted(moved.len(), "file", "files"),
            moved.join(", ")
        ));
    }
    if args.json {
        return output::json(&landed);
    }
    match &landed.commit {
        Some(commit) => {
            output::note(format!(
                "landed run {} on {} as {} ({})",
                ctx.short(state.id.as_str()),
                landed.branch,
                crate::format::short_sha(commit),
                match mode {
                    LandMode::Squash => "squash",
                    LandMode::Merge => "merge",
                }
            ));
            output::line(commit)
        }
        None => {
            output::note(format!(
                "{} already holds every change of run {}; nothing to land",
                landed.branch,
                ctx.short(state.id.as_str())
            ));
            Ok(())
        }
    }
}

/// A session whose agent exited between turns has ended (Codex sends no event for it): it is
/// finished first, as its end would have finished it.
fn ended_session_finished(ctx: &Ctx, run: OpenRun) -> Result<OpenRun> {
    let running = run.state.record.status.kind == crate::format::record::StatusKind::Running;
    let liveness = run.run_dir.as_ref().and_then(agent_process::liveness);
    if !running || liveness != Some(Liveness::Ended) {
        return Ok(run);
    }
    for warning in super::agent_session::finish_session(ctx, &run)? {
        output::warn(warning);
    }
    ctx.open_run(Some(run.state.id.as_str()))
}

/// For a run in place landing on the checkout it ran in, whose files are not written: the
/// paths whose files moved since the run's last checkpoint, which the landed commit does not
/// hold as they are.
fn moved_since(ctx: &Ctx, run: &OpenRun, target: &LandTarget) -> Result<Vec<String>> {
    let state = &run.state;
    let Some(checkout) = &target.checkout else {
        return Ok(Vec::new());
    };
    let Some(workspace) = run
        .workspace
        .as_ref()
        .filter(|ws| ws.place == Place::InPlace && workspace::same_dir(&ws.path, checkout))
    else {
        return Ok(Vec::new());
    };
    let files = workspace
        .snapshot(Some(state.run_tip), &run.config, &[])?
        .tree;
    let recorded = ctx.repo.commit_tree(state.run_tip)?;
    if files == recorded {
        return Ok(Vec::new());
    }
    let names = ctx.repo.diff_names(recorded, files, false)?;
    Ok(String::from_utf8_lossy(&names)
        .lines()
        .map(|name| output::escape(name).into_owned())
        .collect())
}

/// The branch to land on and the checkout that has it: --into BRANCH, else the current
/// branch, or the main checkout's when the current directory is a run's worktree.
fn target(repo: &Repo, into: Option<&str>) -> Result<LandTarget> {
    let main = Repo::open(&repo.main_path()).ok();
    let branch = match into {
        Some(name) if name.starts_with("refs/") => name.to_owned(),
        Some(name) => format!("refs/heads/{name}"),
        None => repo
            .head_branch()
            .filter(|b| !b.starts_with(RUN_BRANCH_PREFIX))
            .or_else(|| main.as_ref().and_then(Repo::head_branch))
            .filter(|b| !b.starts_with(RUN_BRANCH_PREFIX))
            .ok_or_else(|| {
                Error::Usage("HEAD is not on a branch; name one with --into BRANCH".into())
            })?,
    };
    if branch.starts_with("refs/heads/fabro/") {
        return Err(Error::Usage(format!(
            "{branch} is git-fabro's own branch; land on one of yours"
        ))
        .into());
    }
    let checkout = match main
        .as_ref()
        .filter(|m| m.head_branch().as_deref() == Some(branch.as_str()))
        .and_then(|m| m.workdir().map(ToOwned::to_owned))
    {
        Some(dir) => Some(dir),
        None => repo
            .worktrees()?
            .into_iter()
            .find(|w| w.exists && w.branch.as_deref() == Some(branch.as_str()))
            .map(|w| w.path),
    };
    Ok(LandTarget { branch, checkout })
}
