//! The refs a run has on a shared remote beside its branches (FORMAT.md, "Leases"): at most
//! one of each kind, all outside `refs/heads/`, each named by its kind's prefix and the run's id.

use crate::format::run_id::RunId;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolRef {
    /// `refs/fabro/queue/<RUN_ID>`: the run waits for a worker.
    Queue,
    /// `refs/fabro/wait/<RUN_ID>`: the run waits for a person.
    Wait,
    /// `refs/fabro/lease/<RUN_ID>`: a worker holds the run.
    Lease,
}

impl PoolRef {
    pub const fn prefix(self) -> &'static str {
        match self {
            PoolRef::Queue => "refs/fabro/queue/",
            PoolRef::Wait => "refs/fabro/wait/",
            PoolRef::Lease => "refs/fabro/lease/",
        }
    }

    /// This kind's ref of run `id`.
    pub fn of(self, id: &RunId) -> String {
        format!("{}{id}", self.prefix())
    }
}
