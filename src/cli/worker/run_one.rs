//! One claimed run, run to its end under its lease: brought from the remote, continued through
//! the engine with every write pushed under the lease, and let go where it then stands.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Result;

use super::Worker;
use crate::cli::{Ctx, ExitWith, output};
use crate::engine::execute::{Directions, Fence, JobBoard, interrupt};
use crate::error::{Error, PoolWorker};
use crate::format::pool_ref::PoolRef;
use crate::format::queue::{Awaits, Told, Wait};
use crate::format::record::StatusKind;
use crate::format::run_id::RunId;
use crate::git::ObjectId;
use crate::ops::pool::{
    self,
    lease::{Held, Leaving},
};
use crate::run::RunState;
use crate::run::workspace::{Place, Workspace};

/// Runs the claimed run to its end under its lease and returns the exit code its ending has
/// (as `resume`'s), after the last push has released the lease.
pub(super) fn run_claimed(ctx: &Ctx, args: &Worker, held: &Held, queued: ObjectId) -> Result<u8> {
    let id = held.lease().run.clone();
    output::note(format!(
        "worker {}: running run {id} (epoch {})",
        held.lease().owner,
        held.lease().epoch
    ));
    // Renewals begin with the claim: bringing the run here and reading it take time too, and a
    // lease left unrenewed meanwhile would run out under a worker that is only getting ready.
    let done = AtomicBool::new(false);
    let worked = std::thread::scope(|scope| {
        scope.spawn(|| keep_renewed(held, &done));
        let worked = work_on(ctx, args, held, queued);
        done.store(true, Ordering::Relaxed);
        worked
    });
    if held.must_stop() {
        crate::process::stop_every_group();
        return Err(held.stopped_why().into());
    }
    let code = match worked {
        Ok(Worked::EndedAlready) => {
            // A worker whose last push lost its queue ref's deletion: the run is over.
            held.release(&Leaving::Done { queued })?;
            output::note(format!("run {id} had ended already; it leaves the queue"));
            return Ok(0);
        }
        Ok(Worked::Ran) => 0,
        Err(err) => match err.downcast_ref::<ExitWith>() {
            Some(ExitWith(code)) => *code,
            None => return Err(stopped(args, held, queued, err)),
        },
    };
    let state = RunState::load(&ctx.repo, &id)?;
    let leaving = match state.record.status.kind {
        StatusKind::Succeeded | StatusKind::Failed => Leaving::Done { queued },
        StatusKind::Blocked => Leaving::Waits {
            queued,
            wait: Wait {
                awaits: Awaits::Answer,
                nodes: gates_waiting(&state),
            },
        },
        _ => Leaving::Queued,
    };
    held.release(&leaving)?;
    Ok(code)
}

enum Worked {
    /// The engine went on with the run; its record says where it stands.
    Ran,
    /// The run had succeeded or failed before this worker took it.
    EndedAlready,
}

/// Brings the claimed run here with its children and goes on with it through the engine,
/// every write published under the lease, with what the queue tells and the approvals the
/// worker accepts.
fn work_on(ctx: &Ctx, args: &Worker, held: &Held, queued: ObjectId) -> Result<Worked> {
    let id = held.lease().run.clone();
    bring_from_remote(ctx, &args.remote, &id)?;
    for child in held.children() {
        bring_from_remote(ctx, &args.remote, &child)?;
    }
    let status = RunState::load(&ctx.repo, &id)?.record.status.kind;
    if matches!(status, StatusKind::Succeeded | StatusKind::Failed) {
        return Ok(Worked::EndedAlready);
    }
    let told = told(ctx, &args.remote, &id, queued)?;
    let directions = Directions {
        trust: args.trust,
        approved: approvals(ctx, args, &id, queued),
        answers: told.answers,
        auto_approve: told.auto_approve,
        rerun: [told.rerun, args.rerun.clone()].concat(),
        assume_done: [told.assume_done, args.assume_done.clone()].concat(),
        ..Default::default()
    };
    let agent = args.agent.as_deref();
    crate::cli::resume::continue_fenced(ctx, &id, &directions, agent, &Published(held))?;
    Ok(Worked::Ran)
}

/// The approvals this worker accepts for run `id`: those it was given, and those of a
/// submission signed by a key its machine allows.
pub(super) fn approvals(ctx: &Ctx, args: &Worker, id: &RunId, queued: ObjectId) -> Vec<String> {
    let mut approved = args.approved.clone();
    if let Some(allowed) = &args.allowed_signers {
        match pool::signed_approvals(&ctx.repo, id, queued, allowed) {
            Some((signer, vouched)) => {
                output::note(format!(
                    "run {id} was submitted by {signer}, whom this machine allows"
                ));
                approved.extend(vouched);
            }
            None => output::note(format!(
                "run {id}'s submission is not signed by a key of {}",
                allowed.display()
            )),
        }
    }
    approved
}

/// What the queue commit `queued` tells the worker that took run `id`.
fn told(ctx: &Ctx, remote: &str, id: &RunId, queued: ObjectId) -> Result<Told> {
    if !ctx.repo.object_exists(queued) {
        ctx.repo.fetch(remote, &[PoolRef::Queue.of(id)], false)?;
    }
    Ok(Told::parse(&ctx.repo.commit_info(queued)?.message))
}

/// The human gates a blocked run waits at, as its record names them.
fn gates_waiting(state: &RunState) -> Vec<String> {
    let pending = state
        .record
        .extra
        .get(crate::ops::lifecycle::PENDING_INTERVIEWS)
        .and_then(|p| p.as_object());
    pending
        .into_iter()
        .flat_map(|p| p.values())
        .filter_map(|p| Some(p.get("question")?.get("stage")?.as_str()?.to_owned()))
        .collect()
}

/// Run `id` stopped with `err`: a side effect cut short waits for a decision, which the hint
/// says how to give; anything else leaves the run queued, and a note says it.
fn stopped(args: &Worker, held: &Held, queued: ObjectId, err: anyhow::Error) -> anyhow::Error {
    let id = held.lease().run.clone();
    match err.downcast::<Error>() {
        Ok(Error::SideEffectCutShort(mut cut)) => {
            let wait = Wait {
                awaits: Awaits::Decision,
                nodes: vec![cut.node.clone()],
            };
            if let Err(err) = held.release(&Leaving::Waits { queued, wait }) {
                return err.into();
            }
            cut.worker = Some(PoolWorker {
                remote: args.remote.clone(),
            });
            Error::SideEffectCutShort(cut).into()
        }
        other => {
            if let Err(err) = held.release(&Leaving::Queued) {
                return err.into();
            }
            output::note(format!(
                "run {id} stays queued on {} for the next worker",
                args.remote
            ));
            other.map_or_else(|err| err, Into::into)
        }
    }
}

/// Replaces this clone's copy of run `id` with the remote's: the lease holder builds on what
/// the remote recorded. A worktree of the run that an earlier attempt here left goes first,
/// since git does not move a branch checked out in one.
fn bring_from_remote(ctx: &Ctx, remote: &str, id: &RunId) -> Result<()> {
    if let Some(workspace) = Workspace::find(&ctx.repo, id)?
        && workspace.place == Place::Worktree
    {
        ctx.repo.remove_worktree(&workspace.path)?;
    }
    let fetched = ctx.repo.fetch(remote, &pool::fetch_refspecs(id), false)?;
    if !fetched.ok {
        return Err(Error::Refused(format!(
            "cannot fetch run {id} from {remote}: {}",
            fetched.messages.trim()
        ))
        .into());
    }
    Ok(())
}

/// Renews the lease between the engine's pushes until `done`; stops the engine and its node
/// processes as soon as the lease is lost or went unrenewed for half its life.
pub(super) fn keep_renewed(held: &Held, done: &AtomicBool) {
    let mut next = Instant::now() + held.renewal_interval();
    while !done.load(Ordering::Relaxed) {
        if held.must_stop() {
            interrupt::request();
            crate::process::stop_every_group();
            return;
        }
        if Instant::now() >= next {
            // A refusal marks the lease lost; an unreachable remote is tried again.
            let _ = held.renew();
            next = Instant::now() + held.renewal_interval();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The engine's fence: every write it reports is pushed under the lease.
struct Published<'a>(&'a Held);

impl Fence for Published<'_> {
    fn remote(&self) -> Option<&str> {
        Some(self.0.remote())
    }

    fn publish(&self, written: &RunId) -> crate::error::Result<()> {
        self.going_on()?;
        self.0.publish(written)
    }

    fn jobs(&self) -> Option<&dyn JobBoard> {
        Some(self)
    }
}

impl Published<'_> {
    /// Refuses a write once the holder must stop.
    fn going_on(&self) -> crate::error::Result<()> {
        match self.0.must_stop() {
            true => Err(self.0.stopped_why()),
            false => Ok(()),
        }
    }
}

/// The run's branch jobs, on the remote the lease is held on.
impl JobBoard for Published<'_> {
    fn remote(&self) -> &str {
        self.0.remote()
    }

    fn offer(&self, offers: &[(String, ObjectId, Option<ObjectId>)]) -> crate::error::Result<()> {
        self.going_on()?;
        self.0.offer(offers)
    }

    fn take(&self, name: &str, tip: ObjectId) -> crate::error::Result<Option<ObjectId>> {
        self.going_on()?;
        self.0.take_job(name, tip)
    }

    fn settle(&self, name: &str, tip: ObjectId) {
        self.0.settle(name, tip);
    }

    fn ttl(&self) -> Duration {
        self.0.lease().ttl
    }
}
