//! Which run an agent hook works on. A run named by the environment, or the run whose worktree
//! the agent works in, as for every command; where sessions are on (see
//! [`crate::ops::agent_sessions`]), the session's own run in place, started by the session's
//! first hook, unless the user started a run in place here by hand.

use std::time::Duration;

use anyhow::Result;
use serde_json::Value;

use super::Ctx;
use super::open_run::OpenRun;
use super::output;
use crate::error::Error;
use crate::format::record::StatusKind;
use crate::format::run_id::RunId;
use crate::git::flock::Flock;
use crate::ops::agent_process::{self, Liveness};
use crate::ops::agent_sessions::{self, AGENT_LABEL, SESSION_LABEL};
use crate::ops::finish::FinishRequest;
use crate::ops::start::{Checkout, StartRequest, start};

/// How long a hook waits for another hook of the same work tree that is starting a run.
const LOCK_WAIT: Duration = Duration::from_secs(20);

/// The run a hook works on, and whether it is a session's own run (which the session's end
/// finishes). `may_start`: whether this hook may start the session's run.
pub fn open(
    ctx: &Ctx,
    agent: &str,
    input: &Value,
    may_start: bool,
) -> Result<Option<(OpenRun, bool)>> {
    let git_dir = ctx.repo.git_dir();
    let session = input["session_id"]
        .as_str()
        .filter(|id| !id.is_empty() && id.len() <= super::agent_hook::MAX_SESSION_ID);
    let in_run_worktree = ctx.in_run_worktree();
    let (Some(session), Some(workdir), false, None) = (
        session,
        ctx.repo.workdir(),
        in_run_worktree,
        ctx.env.run_id.as_deref(),
    ) else {
        return by_hand(ctx, may_start);
    };
    if !agent_sessions::enabled(&git_dir, agent) {
        return by_hand(ctx, may_start);
    }
    let lock_path = agent_sessions::lock_path(&git_dir);
    let _lock = Flock::acquire(&lock_path, LOCK_WAIT)
        .map_err(Error::io(format!("cannot lock {}", lock_path.display())))?
        .ok_or_else(|| {
            Error::Conflict(format!(
                "another hook held {} for {}s",
                lock_path.display(),
                LOCK_WAIT.as_secs()
            ))
        })?;
    let found = agent_sessions::in_place(&ctx.repo, workdir, agent, session);
    if let Some(id) = found.own {
        return Ok(Some((ctx.open_run(Some(&id.to_string()))?, true)));
    }
    if !found.by_hand.is_empty() {
        return by_hand(ctx, may_start);
    }
    if !may_start {
        return Ok(None);
    }
    settle(ctx, &found.others);
    // Named by what it was asked, when the hook that starts it carries the prompt.
    let redactor = ctx.base_config()?.redactor;
    let goal = super::agent_hook::asked(agent, input)
        .map(|prompt| redactor.text(prompt).into_owned())
        .and_then(|prompt| crate::ops::turn_prompts::name(&prompt))
        .unwrap_or_else(|| format!("{agent} session {session}"));
    let request = StartRequest {
        goal: Some(goal),
        labels: vec![
            (AGENT_LABEL.to_owned(), agent.to_owned()),
            (SESSION_LABEL.to_owned(), session.to_owned()),
        ],
        checkout: Checkout::InPlace,
        ..StartRequest::default()
    };
    let started = start(&ctx.repo, &ctx.home, &request)?;
    Ok(Some((ctx.open_run(Some(&started.run_id))?, true)))
}

/// Before a new session starts beside them, the sessions whose agent is gone: one that ended
/// between turns is finished; one cut off mid-turn is named, since what it wrote last is in no
/// checkpoint of its own (this session's start holds it).
fn settle(ctx: &Ctx, others: &[RunId]) {
    for id in others {
        let Ok(run) = ctx.open_run(Some(id.as_str())) else {
            continue;
        };
        match run.run_dir.as_ref().and_then(agent_process::liveness) {
            Some(Liveness::Ended) => {
                if let Err(err) = finish_session(ctx, &run) {
                    output::warn(format!("git-fabro: session run {id} ended, but: {err:#}"));
                }
            }
            Some(Liveness::Interrupted) => output::warn(format!(
                "git-fabro: session run {} ({}) was cut off mid-turn: its agent exited, and what it wrote after its last checkpoint is in no checkpoint of it; `git fabro undo {}` takes that back",
                ctx.short(id.as_str()),
                run.state.record.spec.goal().unwrap_or_default(),
                ctx.short(id.as_str()),
            )),
            _ => {}
        }
    }
}

/// Finishes a session's run as its end does (also one whose agent exited between turns);
/// returns the warnings.
pub fn finish_session(ctx: &Ctx, run: &OpenRun) -> Result<Vec<String>> {
    let request = FinishRequest {
        status: StatusKind::Succeeded,
        reason: None,
        keep_worktree: false,
        stages: None,
    };
    let finished = run.finish(&ctx.repo, &request)?;
    Ok(finished.warnings)
}

/// The run the current directory or the environment names, as for every command; none (not an
/// error) for the end of a session, which has nothing to finish then.
fn by_hand(ctx: &Ctx, may_start: bool) -> Result<Option<(OpenRun, bool)>> {
    match ctx.open_run(None) {
        Ok(run) => Ok(Some((run, false))),
        Err(err)
            if !may_start && matches!(err.downcast_ref::<Error>(), Some(Error::NoCurrentRun)) =>
        {
            Ok(None)
        }
        Err(err) => Err(err),
    }
}
