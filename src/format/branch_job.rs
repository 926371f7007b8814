//! A parallel branch offered to the pool's other workers (FORMAT.md, "Branch jobs"):
//! `refs/fabro/branch/<RUN_ID>/<NODE>/pass<VISIT>/<TARGET>` on the shared remote, one ref per
//! branch of one pass, a chain of commits. The run's lease holder writes the offer (the
//! parallel base as its parent, the pass's context in its tree); the worker that takes it adds
//! its claim and renewals (lease trailers, as a run's lease has); the branch's end is a done
//! commit whose second parent is the branch's work and whose tree holds its outcome and stage
//! files. Only the lease holder takes the work into the run, and deletes the ref.

use crate::format::lease::Lease;
use crate::format::node::NodeId;
use crate::format::run_id::RunId;

pub const PREFIX: &str = "refs/fabro/branch/";

/// Which step of the chain a commit is.
pub const STEP: &str = "Fabro-Branch-Job";

/// In an offer's tree: the context the branch starts with.
pub const CONTEXT_FILE: &str = "context.json";
/// In a done commit's tree: the branch's outcome, as `node_outcomes` holds one.
pub const OUTCOME_FILE: &str = "outcome.json";
/// In a done commit's tree: the folder of the branch's stage files.
pub const FILES_DIR: &str = "files";

/// One branch of one pass of a parallel node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    pub run: RunId,
    pub node: String,
    pub visit: u64,
    pub target: String,
}

impl Job {
    pub fn ref_name(&self) -> String {
        let Job {
            run,
            node,
            visit,
            target,
        } = self;
        format!("{}{target}", Job::pass_prefix(run, node, *visit))
    }

    /// Where the jobs of one pass live.
    pub fn pass_prefix(run: &RunId, node: &str, visit: u64) -> String {
        format!("{PREFIX}{run}/{node}/pass{visit}/")
    }

    /// The job a ref names; `None` for a name that is not one (a ref someone else pushed).
    pub fn parse_ref(name: &str) -> Option<Job> {
        let rest = name.strip_prefix(PREFIX)?;
        let mut parts = rest.split('/');
        let (run, node, pass, target) =
            (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() {
            return None;
        }
        let visit = pass.strip_prefix("pass")?.parse().ok()?;
        NodeId::parse(node).ok()?;
        NodeId::parse(target).ok()?;
        Some(Job {
            run: RunId::parse(run).ok()?,
            node: node.to_owned(),
            visit,
            target: target.to_owned(),
        })
    }

    /// The offer's message.
    pub fn offer_message(&self) -> String {
        format!(
            "branch {} of {} pass {} offered\n\n{}: {}\n{STEP}: offer\n",
            self.target,
            self.node,
            self.visit,
            super::message::RUN,
            self.run
        )
    }

    /// A claim's or renewal's message: the worker's lease on the job.
    pub fn claim_message(lease: &Lease) -> String {
        format!("{}{STEP}: claim\n", lease.message())
    }

    /// The done commit's message.
    pub fn done_message(&self, status: &str) -> String {
        format!(
            "branch {} of {} pass {} {status}\n\n{}: {}\n{STEP}: done\n",
            self.target,
            self.node,
            self.visit,
            super::message::RUN,
            self.run
        )
    }
}

/// What one commit of a job's chain is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Offer,
    Claim(Lease),
    Done,
}

impl Step {
    /// Reads a chain commit's message; `None` for one that is no step of a job of `run`.
    pub fn parse(message: &[u8], run: &RunId) -> Option<Step> {
        let (mut step, mut ours) = (None, false);
        crate::git::for_each_trailer(message, |token, value| {
            if token.eq_ignore_ascii_case(STEP) {
                step = Some(value.to_owned());
            } else if token.eq_ignore_ascii_case(super::message::RUN) {
                ours = value == run.as_str();
            }
        });
        if !ours {
            return None;
        }
        match step.as_deref()? {
            "offer" => Some(Step::Offer),
            "done" => Some(Step::Done),
            "claim" => Lease::parse(message).map(Step::Claim),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn job() -> Job {
        Job {
            run: RunId::mint(),
            node: "fan".into(),
            visit: 2,
            target: "left".into(),
        }
    }

    #[test]
    fn a_job_ref_reads_back_as_written_and_other_names_not_at_all() {
        let job = job();
        assert_eq!(Job::parse_ref(&job.ref_name()), Some(job.clone()));
        let name = job.ref_name();
        assert_eq!(Job::parse_ref(&format!("{name}/more")), None);
        assert_eq!(Job::parse_ref(&name.replace("pass2", "visit2")), None);
        assert_eq!(Job::parse_ref(&name.replace("left", "..")), None);
    }

    #[test]
    fn each_step_reads_back_and_only_for_its_own_run() {
        let job = job();
        let lease = Lease {
            run: job.run.clone(),
            owner: "node2/7/ab".into(),
            epoch: 1,
            ttl: Duration::from_secs(5),
            children: Vec::new(),
        };
        let claim = Job::claim_message(&lease);
        assert_eq!(
            Step::parse(job.offer_message().as_bytes(), &job.run),
            Some(Step::Offer)
        );
        assert_eq!(
            Step::parse(claim.as_bytes(), &job.run),
            Some(Step::Claim(lease))
        );
        let done = job.done_message("succeeded");
        assert_eq!(Step::parse(done.as_bytes(), &job.run), Some(Step::Done));
        assert_eq!(Step::parse(done.as_bytes(), &RunId::mint()), None);
        assert_eq!(
            Step::parse(b"lease x\n\nFabro-Branch-Job: done\n", &job.run),
            None
        );
    }
}
