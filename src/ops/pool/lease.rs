//! Holding a run's lease on a shared remote. Every write of the holder is one atomic push that
//! also moves the lease one commit on, fenced on the lease commit it last pushed: a worker that
//! was taken over finds its whole push refused, and nothing it wrote lands. Between writes a
//! renewal keeps the lease alive; a holder that could not renew for half the lease's life
//! stops itself, before any taker (who waits the whole life out on its own clock) may begin.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::format::lease::Lease;
use crate::format::pool_ref::PoolRef;
use crate::format::queue::Wait;
use crate::format::run_id::RunId;
use crate::git::{ObjectId, Repo, Transfer};

/// A lease this process holds. It is shared by the engine's threads and the renewals, so its
/// repository (which is not `Sync`) lives in the lock with the rest, and so do the child runs
/// the lease names, which grow as the run's manager loops start them.
pub struct Held {
    remote: String,
    lease: Lease,
    state: Mutex<HeldState>,
}

struct HeldState {
    repo: Repo,
    children: Vec<RunId>,
    /// The lease commit the remote holds, as far as this holder knows.
    tip: ObjectId,
    /// When the last push that the remote accepted began.
    renewed: Instant,
    /// Set once a push was refused: someone else holds the run now.
    lost: bool,
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
        let epoch = after.map_or(1, |(_, old)| old.epoch + 1);
        let lease = Lease {
            run: id.clone(),
            owner,
            epoch,
            ttl,
            children: after
                .map(|(_, old)| old.children.clone())
                .unwrap_or_default(),
        };
        let parents: Vec<ObjectId> = after.map(|(tip, _)| tip).into_iter().collect();
        let commit = super::write_commit(repo, &parents, &lease.message())?;
        let name = PoolRef::Lease.of(id);
        let began = Instant::now();
        let pushed = repo.push_fenced(
            remote,
            &[format!("{commit}:{name}")],
            &[(name.clone(), after.map(|(tip, _)| tip))],
        )?;
        if !pushed.ok {
            return match current(repo, remote, &name)? {
                Some(_) => Ok(None),
                None => Err(refused(id, &pushed)),
            };
        }
        Ok(Some(Held {
            remote: remote.to_owned(),
            state: Mutex::new(HeldState {
                repo: repo.clone(),
                children: lease.children.clone(),
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
        self.push(true, false, &Leaving::Queued)
    }

    /// The child runs the lease names.
    pub fn children(&self) -> Vec<RunId> {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.children.clone()
    }

    /// Renews the lease alone.
    pub fn renew(&self) -> Result<()> {
        self.push(false, false, &Leaving::Queued)
    }

    /// Ends the lease with a last push of the run's refs, the lease ref deleted with them, and
    /// the queue ref as `leaving` says.
    pub fn release(&self, leaving: &Leaving) -> Result<()> {
        self.push(true, true, leaving)
    }

    /// Gives the lease up without publishing anything: for a claim that found the run no
    /// longer queued.
    pub fn abandon(&self) -> Result<()> {
        self.push(false, true, &Leaving::Queued)
    }

    fn push(&self, run_refs: bool, end: bool, leaving: &Leaving) -> Result<()> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.lost {
            return Err(self.lost());
        }
        let id = &self.lease.run;
        let name = PoolRef::Lease.of(id);
        let mut specs = Vec::new();
        if run_refs {
            for run in std::iter::once(id).chain(&state.children) {
                specs.extend(super::run_refspecs(&state.repo, run)?);
            }
        }
        let mut fences = vec![(name.clone(), Some(state.tip))];
        let next = if end {
            specs.push(format!(":{name}"));
            None
        } else {
            let lease = Lease {
                children: state.children.clone(),
                ..self.lease.clone()
            };
            let next = super::write_commit(&state.repo, &[state.tip], &lease.message())?;
            specs.push(format!("{next}:{name}"));
            Some(next)
        };
        leaving.add_to(&state.repo, id, &mut specs, &mut fences)?;
        let began = Instant::now();
        let pushed = state.repo.push_fenced(&self.remote, &specs, &fences)?;
        if pushed.ok {
            if let Some(next) = next {
                state.tip = next;
            }
            state.renewed = began;
            return Ok(());
        }
        if rejected_lease(&pushed, &name) {
            state.lost = true;
            return Err(self.lost());
        }
        Err(refused(id, &pushed))
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
        Error::LeaseLost {
            run: self.lease.run.to_string(),
        }
    }

    /// Why a holder that [`Held::must_stop`] stops: another worker took the lease, or this one
    /// could not renew it in time (the lease may still be its own, and runs out for a taker).
    pub fn stopped_why(&self) -> Error {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        // Unrenewed for long, it may have been taken meanwhile: the remote says which.
        let name = PoolRef::Lease.of(&self.lease.run);
        let taken =
            || current(&state.repo, &self.remote, &name).is_ok_and(|tip| tip != Some(state.tip));
        if state.lost || taken() {
            return self.lost();
        }
        Error::LeaseUnrenewed {
            run: self.lease.run.to_string(),
            half_life: crate::format::time::short_duration(self.lease.ttl / 2),
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
