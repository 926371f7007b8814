//! A parallel branch that a run's holder offered to the pool, taken by a worker with no run to
//! claim: the offer checked (the run approved here, the branch built on the run's published
//! branch), claimed under a lease of its own on the job's ref, run through the engine in a
//! worktree of its own, and ended with a done commit that the holder takes into the run. The
//! worker never writes the run's refs, here or on the remote: only the run's holder does.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Result;

use super::Worker;
use super::run_one::{approvals, keep_renewed};
use crate::cli::{Ctx, ExitWith, output};
use crate::engine::execute::{
    Directions, Engine, Observer, StageReport, Warnings, interrupt, offered_context, write_done,
};
use crate::engine::graph::Node;
use crate::error::exit;
use crate::format::branch_job::{Job, Step};
use crate::format::run_id::RunId;
use crate::format::store::RunDir;
use crate::git::{ObjectId, RefEdit};
use crate::ops::pool::listing::PoolRefs;
use crate::ops::pool::{self, lease::Held};
use crate::run::{self, RunState};

/// Takes a branch job on offer that this worker may run, and runs it; false when there was
/// none. Workers start at different jobs of the listing (by their owner names), so that idle
/// ones racing for one pass mostly claim different branches. `passed` keeps the job tips this
/// worker looked at and will not take (not an offer, not approved here), so that it does not
/// fetch them again.
pub(super) fn take_one(
    ctx: &Ctx,
    args: &Worker,
    remote: &PoolRefs,
    passed: &mut HashSet<ObjectId>,
) -> Result<bool> {
    let jobs: Vec<(&String, &ObjectId)> = remote.jobs.iter().collect();
    let start = args.owner.bytes().map(usize::from).sum::<usize>() % jobs.len().max(1);
    let mut runs: HashMap<RunId, Option<Run>> = HashMap::new();
    for &(name, &tip) in jobs[start..].iter().chain(&jobs[..start]) {
        if !passed.insert(tip) {
            continue;
        }
        let Some(job) = Job::parse_ref(name) else {
            continue;
        };
        let Some(&queued) = remote.queued.get(&job.run) else {
            continue;
        };
        let run = match runs.get(&job.run) {
            Some(run) => run,
            None => {
                let checked = checked_run(ctx, args, &job.run, queued)?;
                runs.entry(job.run.clone()).or_insert(checked)
            }
        };
        let Some(run) = run else { continue };
        let Some(base) = checked_offer(ctx, args, run, &job, tip)? else {
            continue;
        };
        let owner = args.owner.clone();
        let claim = Held::claim_job(&ctx.repo, &args.remote, &job, owner, args.ttl, tip)?;
        let Some(held) = claim else { continue };
        let offer = Offer { offer: tip, base };
        match run_claimed_job(ctx, &held, &job, run, &offer, args.agent.as_deref()) {
            // Lost as a run's lease is: the worker stops, for the same reasons.
            Err(err) if super::is_lease_lost(&err) => return Err(err),
            // Given back at once, the branch is its run's worker's to run at its next look.
            Err(err) => {
                held.give_back()?;
                if interrupt::requested() {
                    output::note(format!(
                        "branch {} of run {} was interrupted; its run's worker runs it",
                        job.target, job.run
                    ));
                    return Err(ExitWith(exit::INTERRUPTED).into());
                }
                output::warn(format!(
                    "{err:#}; branch {} goes back to run {}'s worker",
                    job.target, job.run
                ));
            }
            Ok(()) => {}
        }
        return Ok(true);
    }
    Ok(false)
}

/// A run whose branch jobs this worker may take: as the remote holds it, and approved here.
struct Run {
    state: RunState,
    directions: Directions,
}

/// An offer this worker checked and may take.
struct Offer {
    /// The offer commit, which the claim is built on.
    offer: ObjectId,
    base: ObjectId,
}

/// Run `id` as the remote holds it, when its workflow may run on this machine (approved here,
/// or by a submission it accepts); `None`, with a note, when it may not.
fn checked_run(ctx: &Ctx, args: &Worker, id: &RunId, queued: ObjectId) -> Result<Option<Run>> {
    let (meta, branch) = (run::meta_branch(id), run::run_branch(id));
    let listed = ctx
        .repo
        .ls_remote_prefixes(&args.remote, &[meta.as_str(), branch.as_str()])?;
    let tip_of = |name: &str| listed.iter().find(|(n, _)| n == name).map(|(_, sha)| *sha);
    let (Some(meta_tip), Some(run_tip)) = (tip_of(&meta), tip_of(&branch)) else {
        return Ok(None);
    };
    let names = [meta, branch, crate::format::pool_ref::PoolRef::Queue.of(id)];
    if !ctx.repo.fetch(&args.remote, &names, false)?.ok {
        return Ok(None);
    }
    let state = RunState::at(&ctx.repo, id, meta_tip, run_tip)?;
    let directions = Directions {
        trust: args.trust,
        approved: approvals(ctx, args, id, queued),
        ..Default::default()
    };
    crate::cli::resume::approve_vouched(ctx, &state, &directions.approved)?;
    let trusted = crate::cli::trust_review::gate(&ctx.repo, &ctx.home, &state, false, args.trust);
    if let Err(err) = trusted {
        output::note(format!(
            "the branches of run {id} are not run here: {err:#}"
        ));
        return Ok(None);
    }
    Ok(Some(Run { state, directions }))
}

/// The base of the job at `tip`, when it is an offer built on the run branch the remote
/// holds; anything else is passed over, a forged offer with a note.
fn checked_offer(
    ctx: &Ctx,
    args: &Worker,
    run: &Run,
    job: &Job,
    tip: ObjectId,
) -> Result<Option<ObjectId>> {
    if !ctx.repo.fetch(&args.remote, &[job.ref_name()], false)?.ok {
        return Ok(None);
    }
    let offer = ctx.repo.commit_info(tip)?;
    let (Some(Step::Offer), Some(base)) =
        (Step::parse(&offer.message, &job.run), offer.first_parent)
    else {
        return Ok(None);
    };
    let run_tip = run.state.run_tip;
    if base != run_tip && !ctx.repo.is_ancestor(base, run_tip) {
        output::note(format!(
            "branch job {} is not built on run {}'s branch; this worker leaves it",
            job.ref_name(),
            job.run
        ));
        return Ok(None);
    }
    Ok(Some(base))
}

/// Runs the claimed job under its lease, renewed meanwhile, and ends it with its done commit;
/// the job's worktree, branch and run directory here go afterwards.
fn run_claimed_job(
    ctx: &Ctx,
    held: &Held,
    job: &Job,
    run: &Run,
    offer: &Offer,
    agent: Option<&str>,
) -> Result<()> {
    output::note(format!(
        "worker {}: running branch {} of run {} ({} pass {})",
        held.lease().owner,
        job.target,
        job.run,
        job.node,
        job.visit
    ));
    interrupt::install()?;
    let place = Place::new(ctx, job)?;
    let done = AtomicBool::new(false);
    let ran = std::thread::scope(|scope| {
        scope.spawn(|| keep_renewed(held, &done));
        let ran = run_job(ctx, job, run, offer, &place, agent);
        done.store(true, Ordering::Relaxed);
        ran
    });
    // A branch stopped because its lease went says so, not that it was interrupted.
    let ran = match held.must_stop() {
        true => Err(held.stopped_why().into()),
        false => ran,
    };
    let ended = ran.and_then(|result| {
        let commit = write_done(&ctx.repo, job, held.tip(), &result)?;
        held.finish_job(commit)?;
        Ok(result.outcome.status)
    });
    place.clear(ctx);
    let status = ended?;
    output::note(format!(
        "branch {} of run {} {}; the run's holder takes it into the run",
        job.target,
        job.run,
        status.as_str()
    ));
    Ok(())
}

/// The job's branch through this machine's engine, with the run's recorded workflow and
/// settings (the worker's `--agent` first) and the context the offer hands it.
fn run_job(
    ctx: &Ctx,
    job: &Job,
    run: &Run,
    offer: &Offer,
    place: &Place,
    agent: Option<&str>,
) -> Result<crate::engine::execute::JobResult> {
    let state = &run.state;
    let context = offered_context(&ctx.repo, offer.offer)?;
    let mut config = ctx.config(state, None)?;
    if let Some(agent) = agent {
        config.agent_command = Some(agent.to_owned());
    }
    let graph = crate::cli::resume::engine_graph(state, None)?;
    let graph = crate::cli::prepare::render_for(&graph, state)?;
    let shown = format!("run {}'s workflow", job.run);
    crate::cli::prepare::require_agent(&graph, &shown, config.agent_command.as_deref())?;
    let warnings = Warnings::default();
    let mut silent = Silent;
    let engine = Engine {
        repo: &ctx.repo,
        config: &config,
        run_dir: &place.run_dir,
        graph: &graph,
        env: std::env::vars_os().collect(),
        observer: &mut silent,
        seed: None,
        directions: &run.directions,
        interviewer: None,
        warnings: &warnings,
        fence: None,
    };
    Ok(engine.run_job(job, offer.base, &context, &place.branch)?)
}

/// Where this clone keeps the branch a job works on while it runs.
const JOB_BRANCH_PREFIX: &str = "refs/heads/fabro/job/";

/// Where a job runs on this machine: a run directory of its own in the fabro home (the stage
/// files before they go into the done commit), held by this process while the job runs, and a
/// branch of its own, neither of them the run's, so that a holder of the run on this same
/// clone is never disturbed. Both end with the same nonce.
struct Place {
    run_dir: RunDir,
    branch: String,
    _hold: crate::ops::run_pid::Hold,
}

impl Place {
    fn new(ctx: &Ctx, job: &Job) -> Result<Place> {
        let nonce = &RunId::mint().to_string()[18..];
        let leaf = format!(
            "{}-{}-pass{}-{}-{nonce}",
            job.run, job.node, job.visit, job.target
        );
        let run_dir = RunDir::create(&places(ctx).join(leaf))?;
        let hold = run_dir.hold(&job.run)?;
        Ok(Place {
            run_dir,
            branch: format!(
                "{JOB_BRANCH_PREFIX}{}/{}/pass{}/{}-{nonce}",
                job.run, job.node, job.visit, job.target
            ),
            _hold: hold,
        })
    }

    /// Removes the job's branch and run directory (its worktree went with the branch's end).
    fn clear(&self, ctx: &Ctx) {
        remove_place(ctx, &self.run_dir.path, Some(&self.branch));
    }
}

/// Where this machine's jobs run.
fn places(ctx: &Ctx) -> PathBuf {
    ctx.home.join("branch-jobs")
}

/// Removes what jobs of this clone that were killed left: their worktrees, branches and run
/// directories, each one no live process holds.
pub(super) fn clear_leftovers(ctx: &Ctx) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(places(ctx)) else {
        return Ok(());
    };
    let branches = ctx.repo.refs_under(JOB_BRANCH_PREFIX)?;
    let worktrees = ctx.repo.worktrees()?;
    for entry in entries.flatten() {
        let path = entry.path();
        let held = RunDir::open(&path).map(|dir| dir.live_holder().is_some());
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some((_, nonce)) = name.rsplit_once('-') else {
            continue;
        };
        if held.unwrap_or(false) {
            continue;
        }
        for worktree in worktrees.iter().filter(|w| w.path.starts_with(&path)) {
            ctx.repo.remove_worktree(&worktree.path)?;
        }
        let suffix = format!("-{nonce}");
        let branch = (branches.iter()).find(|(rest, _)| rest.ends_with(&suffix));
        let branch = branch.map(|(rest, _)| format!("{JOB_BRANCH_PREFIX}{rest}"));
        remove_place(ctx, &path, branch.as_deref());
    }
    Ok(())
}

fn remove_place(ctx: &Ctx, run_dir: &std::path::Path, branch: Option<&str>) {
    if let Some(branch) = branch
        && let Ok(Some(old)) = ctx.repo.ref_target(branch)
    {
        let edit = RefEdit::Delete {
            name: branch.to_owned(),
            old,
        };
        let _ = (ctx.repo).update_refs(&[edit], "fabro: branch job", &pool::identity());
    }
    let _ = std::fs::remove_dir_all(run_dir);
}

/// A job's stages are reported in its done commit, not on this worker's terminal.
struct Silent;

impl Observer for Silent {
    fn stage_started(&mut self, _: &Node, _: u64) {}
    fn stage_finished(&mut self, _: &StageReport) {}
}
