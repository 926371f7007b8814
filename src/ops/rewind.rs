//! Rewinding: fork a run at a checkpoint, then archive the source as superseded by the fork.
//!
//! The source's archive commit is written first and names the replacement's id and the
//! checkpoint it starts at; the replacement's refs follow. A crash between the two leaves a
//! source that names a replacement that does not exist yet, and running the same rewind again
//! creates exactly that replacement: a retried rewind never mints a second run.

use serde::Serialize;
use serde_json::json;

use crate::config::Config;
use crate::error::{Needs, Result};
use crate::failpoint;
use crate::format::record::ForkSource;
use crate::format::run_id::RunId;
use crate::git::Repo;
use crate::ops::fork::{self, Forked};
use crate::ops::lifecycle::{archived, commit_record};
use crate::run::timeline::Entry;
use crate::run::{self, RunState};

/// Under `status`: the checkpoint a superseded run was rewound to.
const REWOUND_TO: &str = "rewound_to";

#[derive(Clone, Debug, Serialize)]
pub struct Rewound {
    #[serde(flatten)]
    pub fork: Forked,
    /// False when an earlier rewind to the same checkpoint had already done the work.
    pub created: bool,
}

pub fn rewind(
    repo: &Repo,
    state: &RunState,
    entry: &Entry,
    force: bool,
    config: &Config,
) -> Result<Rewound> {
    let from = fork::source_of(&state.id, entry);
    if let Some(replacement) = &state.record.superseded_by {
        return finish_earlier(repo, state, replacement, &from, config);
    }
    let kind = state.record.status.kind;
    if !kind.is_terminal() && !force {
        return Err(state.refused(
            Needs::Ended,
            "rewind a succeeded, failed or dead run, or pass --force",
        ));
    }
    let id = RunId::mint();
    let edits = fork::prepare(repo, &id, state, &from, config)?;
    failpoint::reach("rewind:objects-written");
    let mut record = archived(
        state,
        Some(format!("rewound to @{} as {id}", entry.ordinal)),
    );
    record.superseded_by = Some(id.to_string());
    record.status.extra.insert(REWOUND_TO.into(), json!(from));
    commit_record(
        repo,
        state,
        &record,
        &format!("archive run (rewound to @{} as {id})", entry.ordinal),
        config,
    )?;
    // Two ref transactions: the source is archived (naming its replacement) before the
    // replacement exists, so a rerun finds the name and creates that one, never a second.
    failpoint::reach("rewind:source-archived");
    repo.update_refs(&edits, "fabro: rewind run", &config.identity)?;
    failpoint::reach("rewind:refs-moved");
    Ok(Rewound {
        fork: fork::forked(&id, &from),
        created: true,
    })
}

/// A run that was rewound before: name its replacement, creating it if a crash left it out.
fn finish_earlier(
    repo: &Repo,
    state: &RunState,
    replacement: &str,
    from: &ForkSource,
    config: &Config,
) -> Result<Rewound> {
    let earlier: Option<ForkSource> = state
        .record
        .status
        .extra
        .get(REWOUND_TO)
        .and_then(|v| serde_json::from_value(v.clone()).ok());
    let Some(earlier) = earlier.filter(|e| e.run_commit == from.run_commit) else {
        let to = state
            .record
            .status
            .extra
            .get(REWOUND_TO)
            .and_then(|v| v.get("ordinal"))
            .cloned()
            .unwrap_or(json!("?"));
        return Err(state.refused(
            Needs::Ended,
            format!(
                "it was already rewound (to @{to}) and replaced by {replacement}; fork it to start elsewhere"
            ),
        ));
    };
    let id = RunId::parse(replacement)?;
    let exists = repo.ref_target(&run::meta_branch(&id))?.is_some();
    if !exists {
        repo.update_refs(
            &fork::prepare(repo, &id, state, &earlier, config)?,
            "fabro: rewind run",
            &config.identity,
        )?;
    }
    Ok(Rewound {
        fork: fork::forked(&id, &earlier),
        created: !exists,
    })
}
