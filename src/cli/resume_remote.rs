//! `resume RUN --remote REMOTE`: the answer or decision a run waiting on a shared remote needs,
//! given from any clone. The run is brought here first (so that what it waits at can be looked
//! at, and the directions checked against its workflow), then queued again on the remote with
//! them, for whichever worker takes it next.

use anyhow::Result;

use super::{Ctx, output};
use crate::engine::execute::Directions;
use crate::error::{Error, OnRemote};
use crate::format::pool_ref::PoolRef;
use crate::format::queue::{Awaits, Told, Wait};
use crate::format::run_id::RunId;
use crate::ops::pool::{self, listing::PoolRefs};
use crate::run::RunState;

pub fn run(
    ctx: &Ctx,
    given: &str,
    remote: &str,
    directions: Directions,
    executor: Option<String>,
) -> Result<()> {
    crate::git::remote::check(remote)?;
    let refs = PoolRefs::read(&ctx.repo, remote)?;
    let id = named(&refs, given, remote)?;
    let Some(&waiting) = refs.waiting.get(&id) else {
        let standing = if refs.leases.contains_key(&id) {
            OnRemote::Running
        } else if refs.queued.contains_key(&id) {
            OnRemote::Queued
        } else {
            OnRemote::Absent
        };
        return Err(Error::NotWaiting {
            run: id.to_string(),
            remote: remote.to_owned(),
            standing,
        }
        .into());
    };
    let config = ctx.base_config()?;
    crate::ops::sync::fetch(
        &ctx.repo,
        &config.runs_dir,
        remote,
        &[id.to_string()],
        false,
    )?;
    if !ctx.repo.object_exists(waiting) {
        ctx.repo.fetch(remote, &[PoolRef::Wait.of(&id)], false)?;
    }
    let wait = Wait::parse(&ctx.repo.commit_info(waiting)?.message);
    let state = RunState::load(&ctx.repo, &id)?;
    let graph = super::resume::engine_graph(&state, None)?;
    super::resume::check_directions(ctx, &state, &graph, &directions)?;
    check_fits(&id, wait.as_ref(), &directions)?;
    let told = Told {
        answers: directions.answers,
        auto_approve: directions.auto_approve,
        rerun: directions.rerun,
        assume_done: directions.assume_done,
        // Approvals count only from the submission itself.
        approved: Vec::new(),
    };
    pool::requeue(&ctx.repo, remote, &id, waiting, &told)?;
    output::note(format!(
        "queued run {id} again on {}: the next worker goes on with it",
        crate::ops::sync::display_remote(&ctx.repo, remote)
    ));
    if let Some(kind) = ctx.executor(executor)? {
        let approved = ctx.approved_here(&state);
        let vouched = approved.len() == crate::engine::trusted::texts(&state.record).len();
        let started = ctx.start_worker(&id, remote, &kind, approved)?;
        output::note(started.described());
        if !vouched {
            output::warn(format!(
                "this machine did not approve run {id}'s workflow and values, so the worker runs it only where a signed submission, an approval of its own or --trust lets it"
            ));
        }
    }
    Ok(())
}

/// The run `given` (an id or its prefix) names among the remote's queued, leased and waiting
/// runs; a full id that none of them is stays that id, for the error that says where it is.
fn named(refs: &PoolRefs, given: &str, remote: &str) -> Result<RunId> {
    if let Ok(id) = RunId::parse(given) {
        return Ok(id);
    }
    let mut on_pool: Vec<RunId> = (refs.waiting.keys())
        .chain(refs.queued.keys())
        .chain(refs.leases.keys())
        .cloned()
        .collect();
    on_pool.sort();
    on_pool.dedup();
    Ok(crate::ops::sync::pick(&on_pool, given, remote)?)
}

/// Refuses directions that do not settle what the run waits for: a gate takes an answer, a
/// side effect cut short a decision on that node.
fn check_fits(id: &RunId, wait: Option<&Wait>, directions: &Directions) -> Result<()> {
    let Some(wait) = wait else { return Ok(()) };
    let nodes = wait.nodes.join(", ");
    let settled = match wait.awaits {
        Awaits::Answer => directions.auto_approve || !directions.answers.is_empty(),
        Awaits::Decision => wait
            .nodes
            .iter()
            .all(|node| directions.rerun.contains(node) || directions.assume_done.contains(node)),
    };
    if settled {
        return Ok(());
    }
    let wants = match wait.awaits {
        Awaits::Answer => format!("--answer NODE=CHOICE (it waits at {nodes}) or --auto-approve"),
        Awaits::Decision => format!("--rerun NODE or --assume-done NODE for {nodes}"),
    };
    Err(Error::Usage(format!(
        "run {id} waits for {} at {nodes}: give {wants}",
        wait.awaits.as_str()
    ))
    .into())
}
