//! Targets (FORMAT.md, Targets): how a user names one checkpoint of a timeline.

use crate::error::{Error, Result};
use crate::run::timeline::Entry;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Latest,
    Ordinal(usize),
    /// A node's latest visit, or a hex sha prefix: both are tried.
    NodeOrSha(String),
    NodeVisit(String, u64),
    /// The latest checkpoint whose status is `succeeded` (`restore --last-success`).
    LastSuccess,
    /// `start` or `@0`: the state the run started from, before its first checkpoint (for a
    /// fork, the checkpoint it was forked at).
    Start,
    /// `@-N`: N checkpoints before the latest, so that `@-1` is the state one step back.
    Back(usize),
}

impl Target {
    pub fn parse(text: Option<&str>) -> Result<Target> {
        let Some(text) = text else {
            return Ok(Target::Latest);
        };
        let bad = || {
            Error::Usage(format!(
                "{text:?} is not a target (@N, @-N, start, NODE, NODE@V or a sha prefix)"
            ))
        };
        if text == "start" || text == "@0" {
            return Ok(Target::Start);
        }
        let count = |n: &str| n.parse::<usize>().ok().filter(|n| *n > 0).ok_or_else(bad);
        if let Some(n) = text.strip_prefix("@-") {
            return count(n).map(Target::Back);
        }
        if let Some(n) = text.strip_prefix('@') {
            return count(n).map(Target::Ordinal);
        }
        if let Some((node, visit)) = text.rsplit_once('@') {
            let visit = visit.parse().ok().filter(|v| *v > 0).ok_or_else(bad)?;
            return Ok(Target::NodeVisit(node.to_owned(), visit));
        }
        if text.is_empty() || text.chars().any(char::is_whitespace) {
            return Err(bad());
        }
        Ok(Target::NodeOrSha(text.to_owned()))
    }

    /// The one timeline entry this target names.
    pub fn resolve<'t>(&self, timeline: &'t [Entry], run: &str) -> Result<&'t Entry> {
        let matches: Vec<&Entry> = match self {
            Target::Latest => timeline.last().into_iter().collect(),
            Target::LastSuccess => timeline
                .iter()
                .rev()
                .find(|e| e.status == "succeeded")
                .into_iter()
                .collect(),
            Target::Ordinal(n) => timeline.get(n - 1).into_iter().collect(),
            Target::Back(n) => timeline
                .len()
                .checked_sub(*n)
                .and_then(|i| i.checked_sub(1))
                .and_then(|i| timeline.get(i))
                .into_iter()
                .collect(),
            // Not a checkpoint: `timeline::find` answers it from the run's record.
            Target::Start => Vec::new(),
            Target::NodeVisit(node, visit) => timeline
                .iter()
                .filter(|e| &e.node_id == node && e.visit == *visit)
                .collect(),
            Target::NodeOrSha(text) => {
                let latest_visit = timeline.iter().rev().find(|e| &e.node_id == text);
                let lower = text.to_ascii_lowercase();
                let is_sha = lower.len() >= 7 && lower.chars().all(|c| c.is_ascii_hexdigit());
                let by_sha = timeline.iter().filter(|e| {
                    is_sha
                        && (e.run_commit.starts_with(&lower) || e.meta_commit.starts_with(&lower))
                });
                let mut all: Vec<&Entry> = latest_visit.into_iter().chain(by_sha).collect();
                all.dedup_by_key(|e| e.ordinal);
                all
            }
        };
        match matches.as_slice() {
            [one] => Ok(one),
            [] => Err(self.not_found(run, !timeline.is_empty())),
            many => Err(Error::AmbiguousTarget(format!(
                "{} matches {} checkpoints of run {run}: {}",
                self.describe(),
                many.len(),
                many.iter()
                    .map(|e| format!("@{}", e.ordinal))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }

    /// That this target matches no checkpoint of `run`, which has some (`any`) or none yet.
    pub(crate) fn not_found(&self, run: &str, any: bool) -> Error {
        let message = if any {
            format!("no checkpoint of run {run} matches {}", self.describe())
        } else {
            format!(
                "run {run} has no checkpoints yet, so nothing matches {}",
                self.describe()
            )
        };
        Error::TargetNotFound {
            run: run.to_owned(),
            message,
        }
    }

    fn describe(&self) -> String {
        match self {
            Target::Latest => "the latest checkpoint".into(),
            Target::LastSuccess => "the latest succeeded checkpoint".into(),
            Target::Ordinal(n) => format!("@{n}"),
            Target::Back(n) => format!("@-{n}"),
            Target::Start => "the run's start".into(),
            Target::NodeOrSha(text) => format!("{text:?}"),
            Target::NodeVisit(node, visit) => format!("{node}@{visit}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Target;
    use crate::run::timeline::Entry;

    fn entry(ordinal: usize, node: &str, visit: u64, sha: &str) -> Entry {
        Entry {
            ordinal,
            run_id: "R".into(),
            node_id: node.into(),
            visit,
            status: "succeeded".into(),
            completed: ordinal,
            run_commit: sha.repeat(40 / sha.len()),
            meta_commit: "f".repeat(40),
            timestamp: String::new(),
            snapshot: None,
        }
    }

    #[test]
    fn every_target_form_resolves() {
        let t = vec![
            entry(1, "plan", 1, "a1"),
            entry(2, "code", 1, "b2"),
            entry(3, "plan", 2, "c3"),
        ];
        let pick = |text: Option<&str>| {
            Target::parse(text)
                .unwrap()
                .resolve(&t, "R")
                .map(|e| e.ordinal)
        };
        assert_eq!(pick(None).unwrap(), 3);
        assert_eq!(pick(Some("@2")).unwrap(), 2);
        assert_eq!(pick(Some("plan")).unwrap(), 3);
        assert_eq!(pick(Some("plan@1")).unwrap(), 1);
        assert_eq!(pick(Some("b2b2b2b")).unwrap(), 2);
        assert!(pick(Some("@4")).is_err());
        assert!(pick(Some("review")).is_err());
        assert!(
            pick(Some("fffffff")).is_err(),
            "matches every meta commit: ambiguous"
        );
        assert_eq!(pick(Some("@-1")).unwrap(), 2);
        assert_eq!(pick(Some("@-2")).unwrap(), 1);
        assert!(pick(Some("@-3")).is_err(), "the start is no checkpoint");
        assert!(pick(Some(&format!("@-{}", usize::MAX))).is_err());
        assert_eq!(Target::parse(Some("@0")).unwrap(), Target::Start);
        assert_eq!(Target::parse(Some("start")).unwrap(), Target::Start);
        assert!(Target::parse(Some("@-0")).is_err());
        assert!(Target::parse(Some("@-x")).is_err());
        assert!(Target::parse(Some("plan@x")).is_err());
    }
}
