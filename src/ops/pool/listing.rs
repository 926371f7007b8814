//! What a shared remote says of its runs: which wait in its queue, which a worker holds and
//! which wait for a person, read from the queue, lease and wait refs alone (asked for by
//! prefix, so a remote with many other refs sends only these) and the commits they point at.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use serde::Serialize;

use crate::error::Result;
use crate::format::branch_job::{Job, Step};
use crate::format::lease::Lease;
use crate::format::pool_ref::PoolRef;
use crate::format::queue::Wait;
use crate::format::run_id::RunId;
use crate::format::time::Timestamp;
use crate::git::{ObjectId, Repo};

/// One run of the remote's queue or leases, as `ps --remote --json` prints it.
#[derive(Clone, Debug, Serialize)]
pub struct RemoteRun {
    pub run_id: String,
    /// `queued` (no worker holds it), `running` (a worker renewed its lease within its
    /// life), `stale` (the last renewal is older than the lease's life: its worker is likely
    /// gone, and the next worker takes it over once it has seen the lease unchanged that long),
    /// `needs-answer` (blocked at a human gate), `needs-decision` (a side effect cut short).
    pub state: &'static str,
    /// The nodes a run that needs an answer or a decision waits at.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub waits_at: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub epoch: Option<u64>,
    /// Since the lease's last renewal, by the clock of the machine that wrote it: shown, never
    /// used to decide.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lease_age_ms: Option<u64>,
    /// The run's parallel branches on offer to other workers or run by them (branch jobs).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub branches: Vec<RemoteBranch>,
}

/// One branch job of a run, as `ps --remote --json` prints it.
#[derive(Clone, Debug, Serialize)]
pub struct RemoteBranch {
    /// `<node>@<visit>/<target>`.
    pub branch: String,
    /// `offered` (no worker claimed it), `running` (its worker renewed its claim within the
    /// claim's life), `stale` (it did not: the run's holder takes it back), `done` (the holder
    /// takes its work into the run at its next look).
    pub state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lease_age_ms: Option<u64>,
}

/// The remote's queue, leases and waits: the commit of each run's queue, lease and wait ref.
pub struct PoolRefs {
    pub queued: BTreeMap<RunId, ObjectId>,
    pub leases: BTreeMap<RunId, ObjectId>,
    pub waiting: BTreeMap<RunId, ObjectId>,
    /// The branch jobs on offer or under way, by ref name.
    pub jobs: BTreeMap<String, ObjectId>,
}

impl PoolRefs {
    /// All four, read with one listing.
    pub fn read(repo: &Repo, remote: &str) -> Result<PoolRefs> {
        let prefixes = [
            PoolRef::Queue.prefix(),
            PoolRef::Lease.prefix(),
            PoolRef::Wait.prefix(),
            crate::format::branch_job::PREFIX,
        ];
        let refs = repo.ls_remote_prefixes(remote, &prefixes)?;
        let under = |prefix: &str| {
            refs.iter()
                .filter_map(|(name, sha)| {
                    Some((RunId::parse(name.strip_prefix(prefix)?).ok()?, *sha))
                })
                .collect()
        };
        Ok(PoolRefs {
            queued: under(PoolRef::Queue.prefix()),
            leases: under(PoolRef::Lease.prefix()),
            waiting: under(PoolRef::Wait.prefix()),
            jobs: (refs.iter())
                .filter(|(name, _)| name.starts_with(crate::format::branch_job::PREFIX))
                .map(|(name, sha)| (name.clone(), *sha))
                .collect(),
        })
    }
}

/// The remote's queued, leased and waiting runs, by id.
pub fn list(repo: &Repo, remote: &str) -> Result<Vec<RemoteRun>> {
    crate::git::remote::check(remote)?;
    let PoolRefs {
        queued,
        leases,
        waiting,
        jobs,
    } = PoolRefs::read(repo, remote)?;
    // The lease, wait and branch job commits' objects only: no ref of this clone moves.
    let names: Vec<String> = (leases.keys().map(|id| PoolRef::Lease.of(id)))
        .chain(waiting.keys().map(|id| PoolRef::Wait.of(id)))
        .chain(jobs.keys().cloned())
        .collect();
    if !names.is_empty() {
        repo.fetch(remote, &names, false)?;
    }
    let now = Timestamp::now().seconds();
    let ids: BTreeSet<&RunId> = queued
        .keys()
        .chain(leases.keys())
        .chain(waiting.keys())
        .collect();
    Ok(ids
        .into_iter()
        .map(|id| match (leases.get(id), waiting.get(id)) {
            (Some(&tip), _) => RemoteRun {
                branches: branches_of(repo, id, &jobs, now),
                ..leased(repo, id, tip, now)
            },
            (None, Some(&tip)) => waits(repo, id, tip),
            (None, None) => RemoteRun::unheld(id, "queued", Vec::new()),
        })
        .collect())
}

/// The branch jobs of run `id` among the remote's `jobs`, by job ref name.
fn branches_of(
    repo: &Repo,
    id: &RunId,
    jobs: &BTreeMap<String, ObjectId>,
    now: i64,
) -> Vec<RemoteBranch> {
    jobs.iter()
        .filter_map(|(name, &tip)| Some((Job::parse_ref(name).filter(|j| j.run == *id)?, tip)))
        .map(|(job, tip)| {
            let commit = repo.commit_info(tip).ok();
            let age = commit.as_ref().map(|c| age_of(c.time, now));
            let step = commit.and_then(|c| Step::parse(&c.message, id));
            let (state, owner) = match step {
                Some(Step::Offer) => ("offered", None),
                Some(Step::Done) => ("done", None),
                Some(Step::Claim(lease)) if age.is_some_and(|age| age <= lease.ttl) => {
                    ("running", Some(lease.owner))
                }
                Some(Step::Claim(lease)) => ("stale", Some(lease.owner)),
                None => ("stale", None),
            };
            RemoteBranch {
                branch: format!("{}@{}/{}", job.node, job.visit, job.target),
                state,
                lease_age_ms: owner.as_ref().and(age).map(millis),
                owner,
            }
        })
        .collect()
}

fn age_of(time: i64, now: i64) -> Duration {
    Duration::from_secs(u64::try_from(now - time).unwrap_or(0))
}

fn millis(age: Duration) -> u64 {
    u64::try_from(age.as_millis()).unwrap_or(u64::MAX)
}

impl RemoteRun {
    fn unheld(id: &RunId, state: &'static str, waits_at: Vec<String>) -> RemoteRun {
        RemoteRun {
            run_id: id.to_string(),
            state,
            waits_at,
            owner: None,
            epoch: None,
            lease_age_ms: None,
            branches: Vec::new(),
        }
    }
}

fn waits(repo: &Repo, id: &RunId, tip: ObjectId) -> RemoteRun {
    let wait = repo
        .commit_info(tip)
        .ok()
        .and_then(|c| Wait::parse(&c.message));
    match wait {
        Some(wait) => {
            let state = match wait.awaits {
                crate::format::queue::Awaits::Answer => "needs-answer",
                crate::format::queue::Awaits::Decision => "needs-decision",
            };
            RemoteRun::unheld(id, state, wait.nodes)
        }
        None => RemoteRun::unheld(id, "needs-decision", Vec::new()),
    }
}

fn leased(repo: &Repo, id: &RunId, tip: ObjectId, now: i64) -> RemoteRun {
    let commit = repo.commit_info(tip).ok();
    let lease = commit.as_ref().and_then(|c| Lease::parse(&c.message));
    let age = commit.map(|c| age_of(c.time, now));
    let stale = match (&lease, age) {
        (Some(lease), Some(age)) => age > lease.ttl,
        // A lease no worker could have written: the next worker takes it over as stale.
        _ => true,
    };
    RemoteRun {
        run_id: id.to_string(),
        state: if stale { "stale" } else { "running" },
        waits_at: Vec::new(),
        owner: lease.as_ref().map(|l| l.owner.clone()),
        epoch: lease.as_ref().map(|l| l.epoch),
        lease_age_ms: age.map(millis),
        branches: Vec::new(),
    }
}
