mod branch_job;
mod claim;
mod run_one;

use std::collections::HashSet;
use std::time::Duration;

use anyhow::Result;

use super::{Ctx, ExitWith, output};
use crate::engine::execute::interrupt;
use crate::error::Error;
use crate::format::queue::Told;
use crate::format::run_id::RunId;
use crate::ops::pool::{self, listing::PoolRefs};
use claim::{Watch, claim_next};
use run_one::run_claimed;

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
/// that ends (succeeded or failed) leaves the queue; one blocked at a human gate, or stopped at
/// a side effect a lost worker cut short, leaves it for `refs/fabro/wait/` until `git fabro
/// resume RUN --remote REMOTE` gives the answer or decision; an interrupted one (Ctrl-C,
/// SIGTERM) stays queued for the next worker. With no run to claim, a worker not bound to one
/// by --run takes a parallel branch that another run's worker offered (a branch job), runs it
/// under a lease of its own and hands its work back to that run's worker, which joins it; a
/// branch job counts as no run. A worker runs only workflows this machine approved, unless
/// --trust (docs/many-machines.md says when that is safe).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The shared remote: a configured remote's name or a URL (default: `[remote] pool` of
    /// settings.toml, else the remote `push` uses)
    #[arg(long, value_name = "REMOTE")]
    remote: Option<String>,
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
    /// How long a lease lives unrenewed before another worker may take the run (default:
    /// `[lease] ttl` of settings.toml, else 60s)
    #[arg(long, value_name = "DURATION", value_parser = crate::config::pool::parse_ttl)]
    ttl: Option<Duration>,
    /// Run workflows this machine neither wrote nor approved
    #[arg(long)]
    trust: bool,
    /// Run the workflow and values of this sha256 as if this machine had approved them
    /// (repeatable): what `submit --executor` passes the worker it starts
    #[arg(long, value_name = "SHA256", value_parser = parse_sha256)]
    approved: Vec<String>,
    /// The command agent and prompt nodes run, instead of the configured one
    #[arg(long, value_name = "COMMAND")]
    agent: Option<String>,
    /// The worker's name in its leases (default: `[worker] name` of settings.toml, else the
    /// host name); its process id follows
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    /// With --run: run again the side-effect node NODE that a lost worker cut short (as
    /// `resume RUN --remote REMOTE --rerun NODE` decides it for any worker)
    #[arg(long, value_name = "NODE", requires = "run")]
    rerun: Vec<String>,
    /// With --run: record the side-effect node NODE that a lost worker cut short as succeeded
    #[arg(long, value_name = "NODE", requires = "run", conflicts_with = "rerun")]
    assume_done: Vec<String>,
}

fn parse_sha256(text: &str) -> Result<String, String> {
    let hex = text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit());
    if hex {
        Ok(text.to_ascii_lowercase())
    } else {
        Err(format!("{text:?} is not a sha256 (64 hexadecimal digits)"))
    }
}

/// The worker's arguments with the machine's settings applied.
struct Worker {
    remote: String,
    run: Option<RunId>,
    once: bool,
    max_runs: Option<usize>,
    exit_when_idle: bool,
    ttl: Duration,
    trust: bool,
    approved: Vec<String>,
    /// `[worker] allowed_signers`: whose signed submissions run here.
    allowed_signers: Option<std::path::PathBuf>,
    agent: Option<String>,
    owner: String,
    rerun: Vec<String>,
    assume_done: Vec<String>,
}

impl Worker {
    fn new(ctx: &Ctx, args: Args) -> Result<Worker> {
        let settings = ctx.settings()?;
        let name = args.name.as_deref().or(settings.worker.name.as_deref());
        Ok(Worker {
            remote: ctx.pool_remote(args.remote.as_deref())?,
            run: args.run.as_deref().map(RunId::parse).transpose()?,
            once: args.once,
            max_runs: args.max_runs,
            exit_when_idle: args.exit_when_idle,
            ttl: args.ttl.map_or_else(|| settings.lease.ttl(), Ok)?,
            trust: args.trust,
            approved: args.approved,
            allowed_signers: settings
                .worker
                .allowed_signers
                .as_ref()
                .map(|f| ctx.home.join(f)),
            agent: args.agent,
            owner: owner(name),
            rerun: args.rerun,
            assume_done: args.assume_done,
        })
    }
}

pub fn run(ctx: &Ctx, args: Args) -> Result<()> {
    let args = Worker::new(ctx, args)?;
    crate::git::remote::check(&args.remote)?;
    let only = args.run.clone();
    let owner = &args.owner;
    let limit = if args.once || only.is_some() {
        Some(1)
    } else {
        args.max_runs
    };
    if let Some(id) = &only {
        decide_here(ctx, &args, id)?;
    }
    branch_job::clear_leftovers(ctx)?;
    let mut watch = Watch::default();
    // Runs this worker cannot run as they are (a workflow its machine did not approve, a
    // side effect waiting for a decision): a pool worker leaves them queued and goes on.
    let mut passed: HashSet<RunId> = HashSet::new();
    let mut looked_at = HashSet::new();
    let (mut ran, mut last) = (0, 0u8);
    while limit.is_none_or(|n| ran < n) && !interrupt::requested() {
        let remote = PoolRefs::read(&ctx.repo, &args.remote)?;
        if let Some(id) = &only
            && !remote.queued.contains_key(id)
        {
            let waits = remote.waiting.contains_key(id);
            output::note(not_queued(&args.remote, id, waits));
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
            owner,
            &mut watch,
        )?;
        let Some((held, queued)) = claimed else {
            // With no run to claim, a worker not bound to one runs a branch another run's
            // holder offered, if any; that is no run of its own.
            if only.is_some() || !branch_job::take_one(ctx, &args, &remote, &mut looked_at)? {
                std::thread::sleep(poll(args.ttl));
            }
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

/// `worker --run RUN --rerun NODE` (or --assume-done) of a run that waits for that decision
/// queues it again with it, as `resume RUN --remote REMOTE` would, and then takes it.
fn decide_here(ctx: &Ctx, args: &Worker, id: &RunId) -> Result<()> {
    if args.rerun.is_empty() && args.assume_done.is_empty() {
        return Ok(());
    }
    let remote = PoolRefs::read(&ctx.repo, &args.remote)?;
    let Some(&waiting) = remote.waiting.get(id) else {
        return Ok(());
    };
    let told = Told {
        rerun: args.rerun.clone(),
        assume_done: args.assume_done.clone(),
        ..Told::default()
    };
    Ok(pool::requeue(&ctx.repo, &args.remote, id, waiting, &told)?)
}

fn not_queued(remote: &str, id: &RunId, waits: bool) -> String {
    if waits {
        format!(
            "run {id} waits on {remote} for an answer or a decision: `git fabro ps --remote {remote}` says which, and `git fabro resume {id} --remote {remote}` gives it"
        )
    } else {
        format!("run {id} is not queued on {remote}")
    }
}

/// A worker that lost a lease stops: what it was told to stop for may hold for all its runs
/// (a partition, a clock that stalled), and whatever started it starts another.
fn is_lease_lost(err: &anyhow::Error) -> bool {
    matches!(
        err.downcast_ref::<Error>(),
        Some(Error::LeaseLost { .. } | Error::LeaseUnrenewed { .. })
    )
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
