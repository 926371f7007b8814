//! Retry policies as Fabro makes them; the stage pipeline (`stage`) applies them. A node gets
//! `retry_policy`'s attempts when it names a preset, else `max_retries + 1`, else the graph's
//! `default_max_retries + 1` (one attempt by default). Only a failure that asks for it is tried again: a handler's retry request, or an
//! error another attempt may cure (a timeout, a process that did not start). A script's
//! non-zero exit is never retried, whatever the node says.
//!
//! Between attempts the engine waits `initial × factor^(attempt−1)`, capped at a minute, then
//! scaled by a random factor in [0.5, 1.5) — Fabro's numbers, jitter included.

use std::hash::{BuildHasher, Hasher};
use std::time::{Duration, SystemTime};

use crate::engine::graph::{Graph, Node};

/// How many attempts a node gets and how long to wait between them.
#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    pub max_attempts: u32,
    pub backoff: Backoff,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Backoff {
    pub initial: Duration,
    pub factor: f64,
    pub max: Duration,
    pub jitter: bool,
}

/// Fabro's backoff when a preset does not change it: 5 s, doubling, at most a minute.
const DEFAULT_BACKOFF: Backoff = Backoff {
    initial: Duration::from_secs(5),
    factor: 2.0,
    max: Duration::from_secs(60),
    jitter: true,
};

/// The node's retry policy: a `retry_policy` preset, else `max_retries` (an integer; a quoted
/// `"3"` is a string and ignored, as in Fabro), else the graph's `default_max_retries`.
pub fn policy(node: &Node, graph: &Graph) -> Policy {
    if let Some(policy) = node.str_attr("retry_policy").and_then(preset) {
        return policy;
    }
    let retries = node
        .int_attr("max_retries")
        .or_else(|| {
            graph
                .attrs()
                .get("default_max_retries")
                .and_then(|v| v.as_i64())
        })
        .unwrap_or(0);
    Policy {
        max_attempts: u32::try_from(retries.saturating_add(1)).unwrap_or(1).max(1),
        backoff: DEFAULT_BACKOFF,
    }
}

/// Fabro's named policies; an unknown name falls back to `max_retries`.
fn preset(name: &str) -> Option<Policy> {
    let (max_attempts, backoff) = match name {
        "none" => (1, DEFAULT_BACKOFF),
        "standard" => (5, DEFAULT_BACKOFF),
        "aggressive" => (
            5,
            Backoff {
                initial: Duration::from_millis(500),
                ..DEFAULT_BACKOFF
            },
        ),
        "linear" => (
            3,
            Backoff {
                initial: Duration::from_millis(500),
                factor: 1.0,
                ..DEFAULT_BACKOFF
            },
        ),
        "patient" => (
            3,
            Backoff {
                initial: Duration::from_secs(2),
                factor: 3.0,
                ..DEFAULT_BACKOFF
            },
        ),
        _ => return None,
    };
    Some(Policy {
        max_attempts,
        backoff,
    })
}

impl Backoff {
    /// The wait after attempt `attempt` (1 for the first) failed.
    pub fn delay(&self, attempt: u32) -> Duration {
        let exponent = i32::try_from(attempt.saturating_sub(1)).unwrap_or(i32::MAX);
        let base = self
            .initial
            .mul_f64(self.factor.powi(exponent).min(1e6))
            .min(self.max);
        if self.jitter {
            base.mul_f64(0.5 + unit_random())
        } else {
            base
        }
    }
}

/// A number in [0, 1) that differs from call to call; jitter needs no better randomness.
fn unit_random() -> f64 {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    hasher.write_u128(nanos);
    (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::graph::AttrValue;

    fn node_with(key: &str, value: AttrValue) -> Node {
        let mut node = Node::new("n");
        node.attrs.insert(key.into(), value);
        node
    }

    #[test]
    fn attempts_come_from_the_preset_then_max_retries_then_the_graph() {
        let graph = Graph::new("g");
        assert_eq!(policy(&Node::new("n"), &graph).max_attempts, 1);
        let n = node_with("max_retries", AttrValue::Integer(3));
        assert_eq!(policy(&n, &graph).max_attempts, 4);
        // Quoted, it is a string: ignored, as Fabro ignores it.
        let n = node_with("max_retries", AttrValue::String("3".into()));
        assert_eq!(policy(&n, &graph).max_attempts, 1);
        let n = node_with("max_retries", AttrValue::Integer(-5));
        assert_eq!(policy(&n, &graph).max_attempts, 1);
        let mut graph = Graph::new("g");
        graph
            .attrs
            .insert("default_max_retries".into(), AttrValue::Integer(2));
        assert_eq!(policy(&Node::new("n"), &graph).max_attempts, 3);
        for (name, attempts) in [
            ("none", 1),
            ("standard", 5),
            ("aggressive", 5),
            ("linear", 3),
            ("patient", 3),
        ] {
            let n = node_with("retry_policy", AttrValue::String(name.into()));
            assert_eq!(policy(&n, &graph).max_attempts, attempts, "{name}");
        }
        let n = node_with("retry_policy", AttrValue::String("sometimes".into()));
        assert_eq!(policy(&n, &graph).max_attempts, 3);
    }

    #[test]
    fn backoff_grows_by_its_factor_up_to_a_minute() {
        let exact = Backoff {
            jitter: false,
            ..DEFAULT_BACKOFF
        };
        let secs = |a| exact.delay(a).as_secs_f64();
        assert_eq!(
            (secs(1), secs(2), secs(3), secs(4)),
            (5.0, 10.0, 20.0, 40.0)
        );
        assert_eq!(secs(5), 60.0);
        assert_eq!(secs(u32::MAX), 60.0);
        let patient = preset("patient").unwrap().backoff;
        let patient = Backoff {
            jitter: false,
            ..patient
        };
        assert_eq!(patient.delay(2), Duration::from_secs(6));
        let linear = preset("linear").unwrap().backoff;
        for attempt in 1..4 {
            let delay = linear.delay(attempt);
            assert!(delay >= Duration::from_millis(250) && delay < Duration::from_millis(750));
        }
    }
}
