//! Shows a person the workflow the trust gate refused: where it came from and how it differs
//! from the version approved here, so that `--trust` is a decision, not a reflex.

use super::output;
use crate::engine::trusted;
use crate::error::Error;
use crate::format::record::RunRecord;
use crate::git::Repo;
use crate::ops::trust::{self, Part, Review};
use crate::run::RunState;

/// Lets run `state` go on, or prints what a person needs to judge it and refuses (exit 5).
/// What is approved are [`trusted::texts`]: the workflow (with imports, the graph the run
/// recorded too, which is what a resume runs) and the values it is rendered with. With
/// `own_workflow` (`resume --workflow FILE`: the user named the file) only the values are
/// checked. Every part that is refused is shown before the refusal.
pub fn gate(
    repo: &Repo,
    home: &std::path::Path,
    state: &RunState,
    own_workflow: bool,
    trusted: bool,
) -> anyhow::Result<()> {
    let mut refusal = None;
    for (part, text) in trusted::texts(&state.record) {
        if own_workflow && part == Part::Workflow {
            continue;
        }
        let Err(refused) = trust::gate(home, state, part, &text, trusted) else {
            continue;
        };
        if !matches!(refused, Error::Untrusted { .. }) {
            return Err(refused.into());
        }
        let text_of = |record: &RunRecord| {
            let texts = trusted::texts(record);
            texts.into_iter().find(|(p, _)| *p == part).map(|(_, t)| t)
        };
        match trust::review(repo, home, state, part, &text, &text_of) {
            Ok(review) => show(&review),
            Err(err) => output::warn(format!(
                "cannot tell where the run's {} came from: {err}",
                part_name(part)
            )),
        }
        refusal.get_or_insert(refused);
    }
    match refusal {
        Some(refused) => Err(refused.into()),
        None => Ok(()),
    }
}

fn part_name(part: Part) -> &'static str {
    match part {
        Part::Workflow => "workflow",
        Part::Values => "values",
    }
}

fn show(review: &Review) {
    match review.part {
        Part::Workflow => eprintln!(
            "The workflow of run {} is not one this machine wrote or approved.",
            review.run_id
        ),
        Part::Values => eprintln!(
            "The goal, inputs or workflow directory that run {} renders its workflow with are \
             not ones this machine recorded or approved.",
            review.run_id
        ),
    }
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
        None => eprintln!(
            "No earlier version of it was approved here; the whole {}:",
            part_name(review.part)
        ),
    }
    for line in review.patch.lines() {
        eprintln!("{}", output::escape(line));
    }
}
