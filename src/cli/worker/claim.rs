//! Which queued run a worker takes: one no worker holds, or one whose lease it has seen
//! unchanged for the lease's whole life by its own clock.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use anyhow::Result;

use super::Worker;
use crate::cli::Ctx;
use crate::format::lease::Lease;
use crate::format::pool_ref::PoolRef;
use crate::format::run_id::RunId;
use crate::git::ObjectId;
use crate::ops::pool::listing::PoolRefs;
use crate::ops::pool::{self, lease::Held};

/// Since when this worker has seen each run's lease commit unchanged, by its own clock.
#[derive(Default)]
pub(super) struct Watch(HashMap<RunId, (ObjectId, Instant)>);

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
pub(super) fn claim_next(
    ctx: &Ctx,
    args: &Worker,
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
        if pool::lease::current(&ctx.repo, &args.remote, &PoolRef::Queue.of(id))? == Some(queued) {
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
        ctx.repo
            .fetch(remote, &[PoolRef::Lease.of(id)], false)
            .ok()?;
    }
    let message = ctx.repo.commit_info(tip).ok()?.message;
    Some(Lease::parse(&message).unwrap_or(Lease {
        run: id.clone(),
        owner: String::new(),
        epoch: 0,
        ttl: Duration::ZERO,
        children: Vec::new(),
    }))
}
