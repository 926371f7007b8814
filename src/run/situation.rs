//! A run's [`Situation`] from its record, and the refusals that carry it, so that the hint
//! names what works for the run as it stands.

use super::RunState;
use crate::error::{Error, Needs, Phase, Situation};
use crate::format::record::{LANDED, StatusKind};

impl RunState {
    pub fn situation(&self) -> Situation {
        let status = self.record.status.kind;
        Situation {
            phase: match status {
                StatusKind::Succeeded => Phase::Succeeded,
                StatusKind::Failed => Phase::Failed,
                StatusKind::Dead => Phase::Dead,
                StatusKind::Archived => Phase::Archived,
                StatusKind::Removing => Phase::Removing,
                _ => Phase::Going,
            },
            status: status.as_str(),
            landed: self.record.extra.contains_key(LANDED),
            checkpointed: self.record.checkpoint.is_some(),
            superseded_by: self.record.superseded_by.clone(),
        }
    }

    /// The run has no worktree here.
    pub fn no_workspace(&self) -> Error {
        Error::NoWorkspace {
            run: self.id.to_string(),
            situation: self.situation(),
        }
    }

    /// The run is not as a command `needs` it; `refusal` says what the command won't do.
    pub fn refused(&self, needs: Needs, refusal: impl Into<String>) -> Error {
        Error::WrongStatus {
            run: self.id.to_string(),
            situation: self.situation(),
            needs,
            refusal: refusal.into(),
        }
    }
}
