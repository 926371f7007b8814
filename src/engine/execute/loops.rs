//! What stops a workflow from looping forever on the same failure, as Fabro does it.
//!
//! - The loop breaker counts each deterministic or structural failure by its signature (node, class and
//!   reason with numbers and hashes masked). When one signature reaches the graph's
//!   `loop_restart_signature_limit` (3 by default), the run fails: a test → fix loop that keeps
//!   failing the same way ends instead of spinning.
//! - A `loop_restart=true` edge starts the walk over at its target with a fresh context. It is
//!   taken only after a success or a transient failure; any other failure class blocks it and
//!   fails the run, since starting over cannot cure a deterministic failure.
//!
//! The counts are recorded in every checkpoint (`loop_failure_signatures`,
//! `restart_failure_signatures`), so that a resumed run goes on counting.

use std::collections::BTreeMap;

use super::failure::Failure;
use crate::engine::graph::{Edge, Graph};
use crate::format::record::Checkpoint;

/// Fabro's default for `loop_restart_signature_limit`.
const DEFAULT_LIMIT: u64 = 3;

pub fn is_loop_restart(edge: &Edge) -> bool {
    edge.attrs.get("loop_restart").and_then(|v| v.as_bool()) == Some(true)
}

pub(super) struct Breaker {
    limit: u64,
    pub loop_signatures: BTreeMap<String, u64>,
    pub restart_signatures: BTreeMap<String, u64>,
}

impl Breaker {
    pub fn new(graph: &Graph, checkpoint: Option<&Checkpoint>) -> Breaker {
        let limit = graph
            .attrs()
            .get("loop_restart_signature_limit")
            .and_then(|v| v.as_i64())
            .and_then(|n| u64::try_from(n).ok())
            .filter(|n| *n >= 1)
            .unwrap_or(DEFAULT_LIMIT);
        Breaker {
            limit,
            loop_signatures: checkpoint
                .map(|c| c.loop_failure_signatures.clone())
                .unwrap_or_default(),
            restart_signatures: checkpoint
                .map(|c| c.restart_failure_signatures.clone())
                .unwrap_or_default(),
        }
    }

    /// Counts a node's failure; `Err` when its signature has now repeated `limit` times.
    pub fn after_node(&mut self, failure: Option<&Failure>) -> Result<(), String> {
        let Some(failure) = failure.filter(|f| f.is_tracked()) else {
            return Ok(());
        };
        let cycle = "deterministic failure cycle detected";
        bump(
            &mut self.loop_signatures,
            &failure.signature,
            self.limit,
            cycle,
        )
    }

    /// Whether a `loop_restart` edge may be taken after `failure`; `Err` says why not.
    pub fn allow_restart(&mut self, failure: Option<&Failure>) -> Result<(), String> {
        let Some(failure) = failure else {
            return Ok(());
        };
        if failure.class != "transient_infra" {
            return Err(format!(
                "loop_restart blocked: failure_class={} (requires transient_infra), failure_reason={}",
                failure.class,
                first_line(&failure.message)
            ));
        }
        if failure.is_tracked() {
            let breaker = "loop_restart circuit breaker";
            bump(
                &mut self.restart_signatures,
                &failure.signature,
                self.limit,
                breaker,
            )?;
        }
        Ok(())
    }
}

/// Counts one more failure with `signature`; `Err`, headed `what`, once it has repeated
/// `limit` times.
fn bump(
    counts: &mut BTreeMap<String, u64>,
    signature: &str,
    limit: u64,
    what: &str,
) -> Result<(), String> {
    let count = counts.entry(signature.to_string()).or_insert(0);
    *count += 1;
    if *count >= limit {
        return Err(format!(
            "{what}: signature {signature} repeated {count} times (limit {limit})"
        ));
    }
    Ok(())
}

/// A failure's first line: a script's notes go on with its output tails.
fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::graph::AttrValue;

    #[test]
    fn the_same_deterministic_failure_trips_the_breaker_at_the_limit() {
        let mut graph = Graph::new("g");
        graph
            .attrs
            .insert("loop_restart_signature_limit".into(), AttrValue::Integer(2));
        let mut breaker = Breaker::new(&graph, None);
        let failure = Failure::of("test", "Script failed with exit code: 1 after 12 tries");
        assert!(breaker.after_node(Some(&failure)).is_ok());
        let again = Failure::of("test", "Script failed with exit code: 1 after 13 tries");
        let err = breaker.after_node(Some(&again)).unwrap_err();
        assert!(
            err.starts_with("deterministic failure cycle detected: signature test|deterministic|")
        );
        assert!(err.ends_with("repeated 2 times (limit 2)"), "{err}");
    }

    #[test]
    fn transient_failures_are_not_counted_and_may_restart() {
        let mut breaker = Breaker::new(&Graph::new("g"), None);
        let failure = Failure::of("fetch", "connection refused");
        for _ in 0..5 {
            assert!(breaker.after_node(Some(&failure)).is_ok());
            assert!(breaker.allow_restart(Some(&failure)).is_ok());
        }
        assert!(breaker.allow_restart(None).is_ok());
        let err = breaker
            .allow_restart(Some(&Failure::of("t", "assertion failed\nmore")))
            .unwrap_err();
        assert_eq!(
            err,
            "loop_restart blocked: failure_class=deterministic (requires transient_infra), failure_reason=assertion failed"
        );
    }
}
