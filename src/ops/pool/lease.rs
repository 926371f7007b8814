//! Holding a run's lease on a shared remote. Every write of the holder is one atomic push that
//! also moves the lease one commit on, fenced on the lease commit it last pushed: a worker that
//! was taken over finds its whole push refused, and nothing it wrote lands. Between writes a
//! renewal keeps the lease alive; a holder that could not renew for half the lease's life
//! stops itself, before any taker (who waits the whole life out on its own clock) may begin.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::format::lease::{self, Lease};
use crate::format::run_id::RunId;
use crate::git::{Identity, ObjectId, Repo, Transfer};

/// A lease this process holds. It is shared by the engine's threads and the renewals, so its
/// repository (which is not `Sync`) lives in the lock with the rest.
pub struct Held {
    remote: String,
    identity: Identity,
    lease: Lease,
    state: Mutex<HeldState>,
}

struct HeldState {
    repo: Repo,
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
        };
        let identity = Identity {
            name: "git-fabro worker".into(),
            email: "noreply@fabro.sh".into(),
        };
        let parents: Vec<ObjectId> = after.map(|(tip, _)| tip).into_iter().collect();
        let tree = repo.write_empty_tree()?;
        let commit = repo.write_commit(tree, &parents, &lease.message(), &identity)?;
        let name = lease::lease_ref(id);
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
            identity,
            lease,
            state: Mutex::new(HeldState {
                repo: repo.clone(),
                tip: commit,
                renewed: began,
                lost: false,
            }),
        }))
    }

    pub fn lease(&self) -> &Lease {
        &self.lease
    }

    /// Pushes the run's refs as this clone has them with the lease renewed, all or nothing.
    pub fn publish(&self) -> Result<()> {
        self.push(true, false, None)
    }

    /// Renews the lease alone.
    pub fn renew(&self) -> Result<()> {
        self.push(false, false, None)
    }

    /// Ends the lease with a last push of the run's refs, the lease ref deleted with them, and
    /// with `queued` (the queue ref's commit) the run taken off the queue too.
    pub fn release(&self, queued: Option<ObjectId>) -> Result<()> {
        self.push(true, true, queued)
    }

    /// Gives the lease up without publishing anything: for a claim that found the run no
    /// longer queued.
    pub fn abandon(&self) -> Result<()> {
        self.push(false, true, None)
    }

    fn push(&self, run_refs: bool, end: bool, dequeue: Option<ObjectId>) -> Result<()> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.lost {
            return Err(self.lost());
        }
        let id = &self.lease.run;
        let name = lease::lease_ref(id);
        let mut specs = if run_refs {
            super::run_refspecs(&state.repo, id)?
        } else {
            Vec::new()
        };
        let mut fences = vec![(name.clone(), Some(state.tip))];
        let next = if end {
            specs.push(format!(":{name}"));
            None
        } else {
            let tree = state.repo.write_empty_tree()?;
            let message = self.lease.message();
            let next = state
                .repo
                .write_commit(tree, &[state.tip], &message, &self.identity)?;
            specs.push(format!("{next}:{name}"));
            Some(next)
        };
        if let Some(queued) = dequeue {
            let queue = lease::queue_ref(id);
            specs.push(format!(":{queue}"));
            fences.push((queue, Some(queued)));
        }
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
