use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Result;

use super::{Ctx, ExitWith, output};
use crate::engine::execute::{Directions, Fence, interrupt};
use crate::error::{Error, PoolWorker};
use crate::format::lease::{Lease, lease_ref, queue_ref};
use crate::format::record::StatusKind;
use crate::format::run_id::RunId;
use crate::git::ObjectId;
use crate::ops::pool::listing::PoolRefs;
use crate::ops::pool::{self, lease::Held};
use crate::run::RunState;
use crate::run::workspace::{Place, Workspace};

/// Take queued runs from a shared remote and run them, each under a lease that fences every
/// write
///
/// Lists REMOTE's queue (`refs/fabro/queue/`) and leases (`refs/fabro/lease/`), claims a
/// queued run with a lease ref that must not exist yet, brings the run from REMOTE (replacing
/// what this clone has of it), and continues it through the engine as `resume` does. Every
/// checkpoint, and every side-effect node's intent before its process starts, is one atomic
/// push of the run's branches with the lease moved one commit on, refused whole if another
/// worker took the lease. Between pushes the lease is renewed; a worker that cannot renew for
/// half the lease's life (or learns that it lost it) stops its engine and node processes
/// (exit 3), before any other worker may take over. A lease left unchanged for its whole life,
/// by this machine's clock, is taken over with the next epoch, and the run goes on from its
/// last published checkpoint, the interrupted node running again as after a crash. A run
/// that ends (succeeded, failed, or blocked at a human gate) leaves the queue; an interrupted
/// one (Ctrl-C, SIGTERM) stays queued for the next worker. A worker runs only workflows this
/// machine approved, unless --trust (docs/many-machines.md says when that is safe).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The shared remote: a configured remote's name or a URL
    #[arg(long, value_name = "REMOTE")]
    remote: String,
    /// Run only this run (its full id), then exit; waits out another worker's lease on it
    #[arg(long, value_name = "RUN")]
    run: Option<String>,
    /// Run one run, then exit
    #[arg(long)]
    once: bool,
    /// Exit after this many runs
    #[arg(long, value_name = "N")]
    max_runs: Option<usize>,
    /// Exit when no run is queued or leased, instead of waiting for one
    #[arg(long)]
    exit_when_idle: bool,
    /// How long a lease lives unrenewed before another worker may take the run (default 60s)
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = parse_ttl)]
    ttl: Duration,
    /// Run workflows this machine neither wrote nor approved
    #[arg(long)]
    trust: bool,
    /// The command agent and prompt nodes run, instead of the configured one
    #[arg(long, value_name = "COMMAND")]
    agent: Option<String>,
    /// The worker's name in its leases (default: the host name); its process id follows
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    /// With --run: run again the side-effect node NODE that a lost worker cut short
    #[arg(long, value_name = "NODE", requires = "run")]
    rerun: Vec<String>,
    /// With --run: record the side-effect node NODE that a lost worker cut short as succeeded
    #[arg(long, value_name = "NODE", requires = "run", conflicts_with = "rerun")]
    assume_done: Vec<String>,
}

fn parse_ttl(text: &str) -> Result<Duration, String> {
    let span: jiff::Span = text
        .parse()
        .map_err(|_| format!("{text:?} is not a duration (like 500ms, 30s, 2m)"))?;
    let millis = span
        .total(jiff::SpanTotal::from(jiff::Unit::Millisecond).days_are_24_hours())
        .map_err(|_| format!("{text:?} is not a duration"))?;
    if !(1.0..=86_400_000.0).contains(&millis) {
        return Err(format!("{text:?}: a lease lives between 1ms and a day"));
    }
    Ok(Duration::from_millis(millis as u64))
}

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    crate::git::remote::check(&args.remote)?;
    let only = args.run.as_deref().map(RunId::parse).transpose()?;
    let owner = owner(args.name.as_deref());
    let limit = if args.once || only.is_some() {
        Some(1)
    } else {
        args.max_runs
    };
    let mut watch = Watch::default();
    // Runs this worker cannot run as they are (a workflow its machine did not approve, a
    // side effect waiting for a decision): a pool worker leaves them queued and goes on.
    let mut passed: HashSet<RunId> = HashSet::new();
    let (mut ran, mut last) = (0, 0u8);
    while limit.is_none_or(|n| ran < n) && !interrupt::requested() {
        let remote = PoolRefs::read(&ctx.repo, &args.remote)?;
        if let Some(id) = &only
            && !remote.queued.contains_key(id)
        {
            output::note(format!("run {id} is not queued on {}", args.remote));
            break;
        }
        if args.exit_when_idle && remote.queued.keys().all(|id| passed.contains(id)) {
            break;
        }
        let claimed = claim_next(
            ctx,
            &args,
            &remote,
            only.as_ref(),
            &passed,
            &owner,
            &mut watch,
        )?;
        let Some((held, queued)) = claimed else {
            std::thread::sleep(poll(args.ttl));
            continue;
        };
        match run_claimed(ctx, &args, &held, queued) {
            Ok(code) => last = code,
            Err(err) if limit != Some(1) && !is_lease_lost(&err) => {
                output::warn(format!("{err:#}"));
                passed.insert(held.lease().run.clone());
            }
            Err(err) => return Err(err),
        }
        ran += 1;
    }
    if last != 0 {
        return Err(ExitWith(last).into());
    }
    Ok(())
}

/// A worker that lost a lease stops: what it was told to stop for may hold for all its runs
/// (a partition, a clock that stalled), and whatever started it starts another.
fn is_lease_lost(err: &anyhow::Error) -> bool {
    matches!(err.downcast_ref::<Error>(), Some(Error::LeaseLost { .. }))
}

/// How often the remote is asked again while nothing can be claimed.
fn poll(ttl: Duration) -> Duration {
    (ttl / 8).clamp(Duration::from_millis(50), Duration::from_secs(1))
}

/// `host/pid/nonce`: the nonce tells apart two workers that reuse a pid.
fn owner(name: Option<&str>) -> String {
    let host = name.map(str::to_owned).unwrap_or_else(|| {
        std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|h| h.trim().to_owned())
            .unwrap_or_else(|_| "localhost".into())
    });
    let nonce = &RunId::mint().to_string()[18..];
    format!("{host}/{}/{nonce}", std::process::id())
}

/// Since when this worker has seen each run's lease commit unchanged, by its own clock.
#[derive(Default)]
struct Watch(HashMap<RunId, (ObjectId, Instant)>);

impl Watch {
    /// Whether `tip` has stood unchanged for longer than `ttl` since this worker first saw it.
    fn expired(&mut self, id: &RunId, tip: ObjectId, ttl: Duration) -> bool {
        let seen = self.0.entry(id.clone()).or_insert((tip, Instant::now()));
        if seen.0 != tip {
            *seen = (tip, Instant::now());
        }
        seen.1.elapsed() > ttl
    }
}

/// Claims the first queued run that has no lease, or whose lease this worker has seen
/// unchanged for the whole of its life.
fn claim_next(
    ctx: &Ctx,
    args: &Args,
    remote: &PoolRefs,
    only: Option<&RunId>,
    passed: &HashSet<RunId>,
    owner: &str,
    watch: &mut Watch,
) -> Result<Option<(Held, ObjectId)>> {
    for (id, &queued) in &remote.queued {
        if only.is_some_and(|only| only != id) || passed.contains(id) {
            continue;
        }
        let after = match remote.leases.get(id) {
            None => None,
            Some(&tip) => {
                let Some(lease) = read_lease(ctx, &args.remote, id, tip) else {
                    continue;
                };
                if !watch.expired(id, tip, lease.ttl) {
                    continue;
                }
                Some((tip, lease))
            }
        };
        let after = after.as_ref().map(|(tip, lease)| (*tip, lease));
        let claim = Held::claim(&ctx.repo, &args.remote, id, owner.into(), args.ttl, after)?;
        let Some(held) = claim else { continue };
        // The listing may be older than the last worker's release, which deletes the queue ref
        // and the lease together: a claim made after it finds the queue ref gone.
        if pool::lease::current(&ctx.repo, &args.remote, &queue_ref(id))? == Some(queued) {
            return Ok(Some((held, queued)));
        }
        held.abandon()?;
    }
    Ok(None)
}

/// The lease commit `tip` of run `id`, fetched from the remote when this clone lacks it. An
/// unreadable one reads as a lease of the shortest life, so that it is taken over.
fn read_lease(ctx: &Ctx, remote: &str, id: &RunId, tip: ObjectId) -> Option<Lease> {
    if !ctx.repo.object_exists(tip) {
        ctx.repo.fetch(remote, &[lease_ref(id)], false).ok()?;
    }
    let message = ctx.repo.commit_info(tip).ok()?.message;
    Some(Lease::parse(&message).unwrap_or(Lease {
        run: id.clone(),
        owner: String::new(),
        epoch: 0,
        ttl: Duration::ZERO,
    }))
}

/// Runs the claimed run to its end under its lease and returns the exit code its ending has
/// (as `resume`'s), after the last push has released the lease.
fn run_claimed(ctx: &Ctx, args: &Args, held: &Held, queued: ObjectId) -> Result<u8> {
    let id = held.lease().run.clone();
    output::note(format!(
        "worker {}: running run {id} (epoch {})",
        held.lease().owner,
        held.lease().epoch
    ));
    bring_from_remote(ctx, &args.remote, &id)?;
    let status = RunState::load(&ctx.repo, &id)?.record.status.kind;
    if matches!(status, StatusKind::Succeeded | StatusKind::Failed) {
        // A worker whose last push lost its queue ref's deletion: the run is over.
        held.release(Some(queued))?;
        output::note(format!("run {id} had ended already; it leaves the queue"));
        return Ok(0);
    }
    let done = AtomicBool::new(false);
    let ended = std::thread::scope(|scope| {
        scope.spawn(|| keep_renewed(held, &done));
        let directions = Directions {
            trust: args.trust,
            rerun: args.rerun.clone(),
            assume_done: args.assume_done.clone(),
            ..Default::default()
        };
        let ended = super::resume::continue_fenced(
            ctx,
            &id,
            &directions,
            args.agent.as_deref(),
            &Published(held),
        );
        done.store(true, Ordering::Relaxed);
        ended
    });
    if held.must_stop() {
        crate::process::stop_every_group();
        return Err(Error::LeaseLost {
            run: id.to_string(),
        }
        .into());
    }
    let code = match ended {
        Ok(()) => 0,
        Err(err) => match err.downcast_ref::<ExitWith>() {
            Some(ExitWith(code)) => *code,
            None => {
                held.release(None)?;
                return Err(stays_queued(args, &id, err));
            }
        },
    };
    let status = RunState::load(&ctx.repo, &id)?.record.status.kind;
    let ended = matches!(
        status,
        StatusKind::Succeeded | StatusKind::Failed | StatusKind::Blocked
    );
    held.release(ended.then_some(queued))?;
    Ok(code)
}

/// Run `id` stopped with `err` and stays queued: a side effect cut short is settled through
/// this worker's command line, which the hint names; of anything else, a note says it.
fn stays_queued(args: &Args, id: &RunId, err: anyhow::Error) -> anyhow::Error {
    match err.downcast::<Error>() {
        Ok(Error::SideEffectCutShort(mut cut)) => {
            cut.worker = Some(PoolWorker {
                remote: args.remote.clone(),
                trust: args.trust,
            });
            Error::SideEffectCutShort(cut).into()
        }
        other => {
            output::note(format!(
                "run {id} stays queued on {}; `git fabro worker --remote {} --run {id}` takes \
                 resume's --trust, --rerun and --assume-done",
                args.remote, args.remote
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
fn keep_renewed(held: &Held, done: &AtomicBool) {
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
    fn publish(&self, _: &RunId) -> crate::error::Result<()> {
        if self.0.must_stop() {
            return Err(Error::LeaseLost {
                run: self.0.lease().run.to_string(),
            });
        }
        self.0.publish()
    }
}
