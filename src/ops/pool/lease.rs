//! Holding a run's lease on a shared remote. Every write of the holder is one atomic push that
//! also moves the lease one commit on, fenced on the lease commit it last pushed: a worker that
//! was taken over finds its whole push refused, and nothing it wrote lands. Between writes a
//! renewal keeps the lease alive; a holder that could not renew for half the lease's life
//! stops itself, before any taker (who waits the whole life out on its own clock) may begin.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::format::branch_job::Job;
use crate::format::lease::Lease;
use crate::format::pool_ref::PoolRef;
use crate::format::queue::Wait;
use crate::format::run_id::RunId;
use crate::git::{ObjectId, Repo, Transfer};

/// A lease this process holds: on a run, or on a branch job of a run (the same chain of lease
/// commits on the job's ref). It is shared by the engine's threads and the renewals, so its
/// repository (which is not `Sync`) lives in the lock with the rest, and so do the child runs
/// the lease names, which grow as the run's manager loops start them.
pub struct Held {
    remote: String,
    lease: Lease,
    /// The ref the chain lives on, and what its commits say besides the lease.
    name: String,
    chain: Chain,
    state: Mutex<HeldState>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Chain {
    Run,
    Job,
}

struct HeldState {
    repo: Repo,
    children: Vec<RunId>,
    /// Branch jobs whose work the run took: their refs go with the next publish, fenced on
    /// the commit each was taken at.
    settled: Vec<(String, ObjectId)>,
    /// The lease commit the remote holds, as far as this holder knows.
    tip: ObjectId,
    /// When the last push that the remote accepted began.
    renewed: Instant,
    /// Set once a push was refused: someone else holds the run now.
    lost: bool,
}

/// What a push does to the lease ref.
enum Next {
    Renew,
    /// A last renewal that says the lease is over: its life is zero.
    Expire,
    Delete,
    /// Ends a branch job's chain with its done commit.
    Finish(ObjectId),
}

impl Held {
    /// Claims run `id` with a lease ref that must not exist yet (a create-only push), or, with
    /// `after`, takes over the lease commit `after` that was seen unchanged for its whole life.
    /// `None`: another worker got there first.
    pub fn claim(
        repo: &Repo,
        remote: &str,
        id: &RunId,
        owner: String,
        ttl: Duration,
        after: Option<(ObjectId, &Lease)>,
    ) -> Result<Option<Held>> {
        let lease = Lease {
            run: id.clone(),
            owner,
            epoch: after.map_or(1, |(_, old)| old.epoch + 1),
            ttl,
            children: after
                .map(|(_, old)| old.children.clone())
                .unwrap_or_default(),
        };
        let name = PoolRef::Lease.of(id);
        Held::claim_chain(
            repo,
            remote,
            name,
            Chain::Run,
            lease,
            after.map(|(tip, _)| tip),
        )
    }

    /// Claims the branch job `job` of the lease holder's offer `offer`, the job ref's tip.
    /// `None`: another worker got there first.
    pub fn claim_job(
        repo: &Repo,
        remote: &str,
        job: &Job,
        owner: String,
        ttl: Duration,
        offer: ObjectId,
    ) -> Result<Option<Held>> {
        let lease = Lease {
            run: job.run.clone(),
            owner,
            epoch: 1,
            ttl,
            children: Vec::new(),
        };
        Held::claim_chain(repo, remote, job.ref_name(), Chain::Job, lease, Some(offer))
    }

    fn claim_chain(
        repo: &Repo,
        remote: &str,
        name: String,
        chain: Chain,
        lease: Lease,
        after: Option<ObjectId>,
    ) -> Result<Option<Held>> {
        let commit = super::write_commit(repo, after.as_slice(), &chain.message(&lease))?;
        let began = Instant::now();
        let pushed = repo.push_fenced(
            remote,
            &[format!("{commit}:{name}")],
            &[(name.clone(), after)],
        )?;
        if !pushed.ok {
            return match current(repo, remote, &name)? {
                Some(_) => Ok(None),
                None => Err(refused(&lease.run, &pushed)),
            };
        }
        Ok(Some(Held {
            remote: remote.to_owned(),
            name,
            chain,
            state: Mutex::new(HeldState {
                repo: repo.clone(),
                children: lease.children.clone(),
                settled: Vec::new(),
                tip: commit,
                renewed: began,
                lost: false,
            }),
            lease,
        }))
    }

    pub fn lease(&self) -> &Lease {
        &self.lease
    }

    /// The remote the lease is held on.
    pub fn remote(&self) -> &str {
        &self.remote
    }

    /// Pushes the run's refs as this clone has them with the lease renewed, all or nothing;
    /// `written` is the run the engine wrote, the leased one or a child run of its manager
    /// loops, whose refs go with the run's from then on.
    pub fn publish(&self, written: &RunId) -> Result<()> {
        if *written != self.lease.run {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            if !state.children.contains(written) {
                state.children.push(written.clone());
            }
        }
        self.push(true, Next::Renew, &Leaving::Queued, &[])
    }

    /// Publishes the run with branch jobs offered: each `(job ref, offer commit, expected)`
    /// is created, or replaces the job an earlier attempt left at `expected`.
    pub fn offer(&self, offers: &[(String, ObjectId, Option<ObjectId>)]) -> Result<()> {
        let fenced: Vec<Fenced> = offers
            .iter()
            .map(|(name, commit, old)| (format!("{commit}:{name}"), name.clone(), *old))
            .collect();
        self.push(true, Next::Renew, &Leaving::Queued, &fenced)
    }

    /// Takes the branch job at `name` for the holder itself, from its tip `tip` (an offer
    /// nobody claimed, a claim left unchanged for its life): returns the holder's claim
    /// commit, or `None` when the job moved meanwhile (a worker claimed it, or finished).
    pub fn take_job(&self, name: &str, tip: ObjectId) -> Result<Option<ObjectId>> {
        let claim = {
            let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            super::write_commit(&state.repo, &[tip], &Chain::Job.message(&self.lease))?
        };
        let spec = (format!("{claim}:{name}"), name.to_owned(), Some(tip));
        match self.push(false, Next::Renew, &Leaving::Queued, &[spec]) {
            Ok(()) => Ok(Some(claim)),
            Err(Error::Refused(_)) if !self.is_lost() => {
                let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
                match current(&state.repo, &self.remote, name)? == Some(tip) {
                    true => Err(Error::Refused(format!(
                        "the remote refused to give branch job {name} back to its run"
                    ))),
                    false => Ok(None),
                }
            }
            Err(err) => Err(err),
        }
    }

    /// Notes that the run took the work of the branch job at `name`, whose ref stood at
    /// `tip`: the ref is deleted with the run's next publish.
    pub fn settle(&self, name: &str, tip: ObjectId) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.settled.push((name.to_owned(), tip));
    }

    /// Ends a branch job's chain with its done commit `done`, whose first parent must be the
    /// chain's tip: refused whole when the run's holder took the job back meanwhile.
    pub fn finish_job(&self, done: ObjectId) -> Result<()> {
        self.push(false, Next::Finish(done), &Leaving::Queued, &[])
    }

    /// Gives a branch job back unfinished: a last claim commit of zero life, which the run's
    /// holder takes back at its next look instead of waiting the lease out.
    pub fn give_back(&self) -> Result<()> {
        self.push(false, Next::Expire, &Leaving::Queued, &[])
    }

    /// The commit the chain ends at, as far as this holder knows.
    pub fn tip(&self) -> ObjectId {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).tip
    }

    /// The child runs the lease names.
    pub fn children(&self) -> Vec<RunId> {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.children.clone()
    }

    /// Renews the lease alone.
    pub fn renew(&self) -> Result<()> {
        self.push(false, Next::Renew, &Leaving::Queued, &[])
    }

    /// Ends the lease with a last push of the run's refs, the lease ref deleted with them, and
    /// the queue ref as `leaving` says.
    pub fn release(&self, leaving: &Leaving) -> Result<()> {
        self.push(true, Next::Delete, leaving, &[])
    }

    /// Gives the lease up without publishing anything: for a claim that found the run no
    /// longer queued.
    pub fn abandon(&self) -> Result<()> {
        self.push(false, Next::Delete, &Leaving::Queued, &[])
    }

    fn push(&self, run_refs: bool, next: Next, leaving: &Leaving, extra: &[Fenced]) -> Result<()> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.lost {
            return Err(self.lost());
        }
        let id = &self.lease.run;
        let name = &self.name;
        let mut specs = Vec::new();
        let mut fences = vec![(name.clone(), Some(state.tip))];
        let settled = if run_refs { state.settled.len() } else { 0 };
        if run_refs {
            for run in std::iter::once(id).chain(&state.children) {
                specs.extend(super::run_refspecs(&state.repo, run)?);
            }
            for (job, tip) in &state.settled {
                specs.push(format!(":{job}"));
                fences.push((job.clone(), Some(*tip)));
            }
        }
        for (spec, job, expected) in extra {
            specs.push(spec.clone());
            fences.push((job.clone(), *expected));
        }
        let renewal = |ttl| {
            let lease = Lease {
                children: state.children.clone(),
                ttl,
                ..self.lease.clone()
            };
            super::write_commit(&state.repo, &[state.tip], &self.chain.message(&lease))
        };
        let next = match next {
            Next::Delete => None,
            Next::Finish(done) => Some(done),
            Next::Renew => Some(renewal(self.lease.ttl)?),
            Next::Expire => Some(renewal(Duration::ZERO)?),
        };
        specs.push(match next {
            Some(next) => format!("{next}:{name}"),
            None => format!(":{name}"),
        });
        leaving.add_to(&state.repo, id, &mut specs, &mut fences)?;
        let began = Instant::now();
        let pushed = state.repo.push_fenced(&self.remote, &specs, &fences)?;
        if pushed.ok {
            if let Some(next) = next {
                state.tip = next;
            }
            state.settled.drain(..settled);
            state.renewed = began;
            return Ok(());
        }
        if rejected_lease(&pushed, name) {
            state.lost = true;
            return Err(self.lost());
        }
        Err(refused(id, &pushed))
    }

    fn is_lost(&self) -> bool {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).lost
    }

    /// Whether this holder must stop: its lease was taken, or it went unrenewed for half its
    /// life, past which a taker may already be counting.
    pub fn must_stop(&self) -> bool {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.lost || state.renewed.elapsed() > self.lease.ttl / 2
    }

    /// How often renewals are tried: four times within the half life a holder may go unheard.
    pub fn renewal_interval(&self) -> Duration {
        (self.lease.ttl / 8).max(Duration::from_millis(50))
    }

    fn lost(&self) -> Error {
        Error::LeaseLost { run: self.what() }
    }

    /// The run, or the run's branch job, as errors name it.
    fn what(&self) -> String {
        match (self.chain, Job::parse_ref(&self.name)) {
            (Chain::Job, Some(job)) => format!("{} (branch {})", job.run, job.target),
            _ => self.lease.run.to_string(),
        }
    }

    /// Why a holder that [`Held::must_stop`] stops: another worker took the lease, or this one
    /// could not renew it in time (the lease may still be its own, and runs out for a taker).
    pub fn stopped_why(&self) -> Error {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        // Unrenewed for long, it may have been taken meanwhile: the remote says which.
        let taken = || {
            current(&state.repo, &self.remote, &self.name).is_ok_and(|tip| tip != Some(state.tip))
        };
        if state.lost || taken() {
            return self.lost();
        }
        Error::LeaseUnrenewed {
            run: self.what(),
            half_life: crate::format::time::short_duration(self.lease.ttl / 2),
        }
    }
}

/// A refspec of a push with the ref it moves and what that ref must hold for the push to land.
type Fenced = (String, String, Option<ObjectId>);

impl Chain {
    /// A claim's or renewal's commit message.
    fn message(self, lease: &Lease) -> String {
        match self {
            Chain::Run => lease.message(),
            Chain::Job => Job::claim_message(lease),
        }
    }
}

/// Where a run stands on the remote once its worker lets it go: its queue ref `queued` (the
/// commit the worker took it at) stays, goes, or gives way to a wait ref.
pub enum Leaving {
    /// Still queued, for the next worker: interrupted, or refused here.
    Queued,
    /// Off the queue: the run ended.
    Done { queued: ObjectId },
    /// Off the queue until a person says how it goes on.
    Waits { queued: ObjectId, wait: Wait },
}

impl Leaving {
    /// Adds what this leaving pushes, fenced on the queue ref the worker took.
    fn add_to(
        &self,
        repo: &Repo,
        id: &RunId,
        specs: &mut Vec<String>,
        fences: &mut Vec<(String, Option<ObjectId>)>,
    ) -> Result<()> {
        let queued = match self {
            Leaving::Queued => return Ok(()),
            Leaving::Done { queued } | Leaving::Waits { queued, .. } => *queued,
        };
        let queue = PoolRef::Queue.of(id);
        specs.push(format!(":{queue}"));
        fences.push((queue, Some(queued)));
        if let Leaving::Waits { wait, .. } = self {
            let commit = super::write_commit(repo, &[queued], &wait.message(id))?;
            let name = PoolRef::Wait.of(id);
            specs.push(format!("{commit}:{name}"));
            fences.push((name, None));
        }
        Ok(())
    }
}

/// The commit the remote's ref `name` holds, if any (a lease ref, a queue ref).
pub fn current(repo: &Repo, remote: &str, name: &str) -> Result<Option<ObjectId>> {
    Ok(repo
        .ls_remote(remote, name)?
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, sha)| sha))
}

/// Whether git refused the lease ref itself (stale, or moved on the remote meanwhile), not
/// only with the rest of an atomic push that failed on another ref.
fn rejected_lease(pushed: &Transfer, name: &str) -> bool {
    pushed
        .refs
        .iter()
        .any(|r| r.name == name && r.result == "rejected" && !r.detail.contains("atomic"))
}

fn refused(id: &RunId, pushed: &Transfer) -> Error {
    Error::Refused(format!(
        "the remote refused the push of run {id}: {}",
        pushed.messages.trim()
    ))
}
