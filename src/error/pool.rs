//! The errors of runs on a shared remote (`submit`, `worker`, `resume --remote`) and of side
//! effects cut short, whose next step depends on whether a pool worker ran them.

use super::Error;

/// Side-effect stage `stage` (of node `node`) of run `run`, or of its manager child `child`,
/// started and never recorded; `worker` is the pool worker that resumed it, whose command
/// line goes on with it.
#[derive(Debug, thiserror::Error)]
#[error(
    "run {run} stopped while the side-effect node {stage}{} ran (started {started_at}, never recorded): it may have done its work or not",
    child.as_ref().map(|child| format!(" of the child run {child}")).unwrap_or_default()
)]
pub struct CutShort {
    pub run: String,
    pub child: Option<String>,
    pub stage: String,
    pub node: String,
    pub started_at: String,
    pub worker: Option<PoolWorker>,
}

/// Where a run stands on a shared remote that does not wait for a person.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnRemote {
    Queued,
    Running,
    Absent,
}

impl OnRemote {
    pub fn as_str(self) -> &'static str {
        match self {
            OnRemote::Queued => "queued",
            OnRemote::Running => "running",
            OnRemote::Absent => "not queued",
        }
    }
}

/// The shared remote a run stopped on under a pool worker: the decision is given there, for
/// whichever worker takes the run next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolWorker {
    pub remote: String,
}

impl PoolWorker {
    fn command_line(&self, run: &str) -> String {
        format!("git fabro resume {run} --remote {}", self.remote)
    }
}

/// The next step of a pool's or a side effect's error.
pub(super) fn hint(err: &Error) -> Option<String> {
    Some(match err {
        Error::SideEffectCutShort(cut) => {
            let (run, node) = (&cut.run, &cut.node);
            let resume = match &cut.worker {
                None => format!("git fabro resume {run}"),
                Some(worker) => worker.command_line(run),
            };
            format!(
                "check, then `{resume} --rerun {node}` runs it again or `{resume} --assume-done {node}` records it as succeeded and goes on"
            )
        }
        Error::NotWaiting {
            run,
            remote,
            standing,
        } => match standing {
            OnRemote::Absent => format!(
                "it ended or was never queued there: `git fabro fetch {remote} {run}` brings it here, where `git fabro resume {run}` goes on with it"
            ),
            OnRemote::Queued | OnRemote::Running => format!(
                "a worker takes it as it is; `git fabro ps --remote {remote}` shows when it waits"
            ),
        },
        Error::ExecutorFailed { run, remote, .. } => format!(
            "a worker started any other way takes it: `git fabro worker --remote {remote} --run {run}`"
        ),
        _ => return None,
    })
}
