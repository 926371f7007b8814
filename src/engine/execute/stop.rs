//! A run that stops before its end without failing: blocked on a human gate nobody could
//! answer, or interrupted by Ctrl-C / SIGTERM. The node it stopped at is not checkpointed; one
//! metadata commit records the status in Fabro's vocabulary, and `git fabro resume` goes on
//! from that node (`reopen` makes the run running again).
//!
//! - blocked: `{"kind": "blocked", "blocked_reason": "human_input_required"}`, and the
//!   question in Fabro's `pending_interviews` (`{<question id>: {question, started_at}}`),
//!   which `reopen` clears when the run goes on;
//! - interrupted: Fabro's `{"kind": "paused", "prior_block": null}` (a run Fabro's operator
//!   paused goes on when resumed, as this one does), with git-fabro's `interrupted_at` naming
//!   the stage that was cut short. Fabro's `failed`/`cancelled` would say the run ended.

use serde::Serialize;
use serde_json::{Value, json};

use super::Engine;
use super::human::Question;
use crate::error::Result;
use crate::format::record::{Status, StatusKind};
use crate::format::run_id::RunId;
use crate::format::time::Timestamp;
use crate::ops::checkpoint::live;
use crate::ops::lifecycle::{PENDING_INTERVIEWS, commit_record};
use crate::run::RunState;
use crate::run::active_time::{BLOCKED_SUBJECT, PAUSED_SUBJECT};

/// Why the walk stopped early.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    Blocked(Question),
    Interrupted { stage: String },
}

impl Engine<'_> {
    /// Records the stop as the run's status.
    pub(super) fn record_stop(&self, id: &RunId, stop: &Stop) -> Result<()> {
        let state = RunState::load(self.repo, id)?;
        let mut record = state.record.clone();
        let (status, subject) = match stop {
            Stop::Blocked(question) => {
                let mut status = Status::new(StatusKind::Blocked);
                status
                    .extra
                    .insert("blocked_reason".into(), json!("human_input_required"));
                let pending = json!({ &question.id: {
                    "question": question, "started_at": Timestamp::now().rfc3339(),
                }});
                record.extra.insert(PENDING_INTERVIEWS.into(), pending);
                (status, format!("{BLOCKED_SUBJECT} {}", question.stage))
            }
            Stop::Interrupted { stage } => {
                let mut status = Status::new(StatusKind::Paused);
                status.extra.insert("prior_block".into(), Value::Null);
                status.extra.insert("interrupted_at".into(), json!(stage));
                (status, format!("{PAUSED_SUBJECT} interrupted at {stage}"))
            }
        };
        record.status = status;
        commit_record(self.repo, &state, &record, &subject, self.config)?;
        let _ = self.run_dir.write_json("live.json", &live(&record, None));
        if let Stop::Interrupted { stage } = stop {
            self.run_event(id, "run.paused", json!({ "interrupted_at": stage }));
        }
        Ok(())
    }
}
