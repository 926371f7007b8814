//! Shows a person the workflow the trust gate refused: where it came from and how it differs
//! from the version approved here, so that `--trust` is a decision, not a reflex.

use super::output;
use crate::engine::workflow;
use crate::error::Error;
use crate::format::record::RunRecord;
use crate::git::Repo;
use crate::ops::trust::{self, Review};
use crate::run::RunState;

/// Lets run `state`'s recorded workflow `source` run, or prints what a person needs to judge
/// it and refuses (exit 5). What is approved is [`workflow::trusted_text`]: with imports, the
/// graph the run recorded too, which is what a resume runs.
pub fn gate(
    repo: &Repo,
    home: &std::path::Path,
    state: &RunState,
    source: &str,
    trusted: bool,
) -> anyhow::Result<()> {
    let text = workflow::trusted_text(source, &state.record.spec.graph);
    let Err(refused) = trust::gate(home, state, &text, trusted) else {
        return Ok(());
    };
    if matches!(refused, Error::Untrusted { .. }) {
        let text_of = |record: &RunRecord| {
            let source = record.graph_source.as_deref()?;
            Some(workflow::trusted_text(source, &record.spec.graph).into_owned())
        };
        match trust::review(repo, home, state, &text, &text_of) {
            Ok(review) => show(&review),
            Err(err) => output::warn(format!("cannot tell where the workflow came from: {err}")),
        }
    }
    Err(refused.into())
}

fn show(review: &Review) {
    eprintln!(
        "The workflow of run {} is not one this machine wrote or approved.",
        review.run_id
    );
    eprintln!("  sha256:       {}", review.sha256);
    if let Some(origin) = &review.recorded_by {
        eprintln!(
            "  recorded by:  metadata commit {} by {} on {}",
            origin.commit,
            output::escape(&origin.author),
            origin.date
        );
    }
    match &review.fetched_from {
        Some(remote) => eprintln!("  fetched from: {}", output::escape(remote)),
        None => eprintln!("  fetched from: no fetch is recorded in the branch's reflog"),
    }
    match &review.approved_sha256 {
        Some(sha) => eprintln!("Changes since the version approved here (sha256 {sha}):"),
        None => eprintln!("No earlier version of it was approved here; the whole workflow:"),
    }
    for line in review.patch.lines() {
        eprintln!("{}", output::escape(line));
    }
}
