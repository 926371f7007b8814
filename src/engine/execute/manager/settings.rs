//! The `manager.*` attributes with Fabro's defaults, and what the parent takes back from the
//! child's context.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value;

use crate::engine::condition::{self, Facts};
use crate::engine::graph::Node;
use crate::engine::outcome::Status;

/// Fabro's defaults.
const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(45);
const DEFAULT_MAX_CYCLES: u64 = 1000;

pub(super) struct Settings<'a> {
    pub poll_interval: Duration,
    pub max_cycles: u64,
    stop_condition: Option<&'a str>,
}

impl<'a> Settings<'a> {
    pub fn of(node: &'a Node) -> Self {
        let poll_interval = node
            .attrs
            .get("manager.poll_interval")
            .and_then(|v| v.as_duration())
            .unwrap_or(DEFAULT_POLL_INTERVAL);
        let max_cycles = node
            .int_attr("manager.max_cycles")
            .map_or(DEFAULT_MAX_CYCLES, |n| {
                u64::try_from(n).unwrap_or(DEFAULT_MAX_CYCLES)
            })
            .max(1);
        let stop_condition = node
            .str_attr("manager.stop_condition")
            .filter(|c| !c.is_empty());
        Settings {
            poll_interval,
            max_cycles,
            stop_condition,
        }
    }

    /// Fabro checks the stop condition at each poll while the child runs, over the parent's
    /// context with a succeeded outcome: it ends the node once a poll came before the child's end.
    pub fn stopped(&self, parent: &BTreeMap<String, Value>, elapsed: Duration) -> bool {
        let Some(expr) = self.stop_condition else {
            return false;
        };
        let facts = Facts {
            outcome: Status::Succeeded.as_str(),
            preferred_label: None,
            context: parent,
        };
        elapsed >= self.poll_interval && condition::holds(expr, &facts)
    }

    /// The poll cycle in which a child that ran `elapsed` ended: the first, unless it outlived
    /// whole poll intervals.
    pub fn cycle(&self, elapsed: Duration) -> u64 {
        if self.poll_interval.is_zero() {
            return 1;
        }
        u64::try_from(elapsed.as_nanos() / self.poll_interval.as_nanos())
            .unwrap_or(u64::MAX)
            .saturating_add(1)
    }
}

/// The keys the child changed or added, without the engine's own (Fabro's
/// `is_engine_internal_key`).
pub(super) fn changed(
    before: &BTreeMap<String, Value>,
    after: &BTreeMap<String, Value>,
) -> BTreeMap<String, Value> {
    after
        .iter()
        .filter(|(key, value)| before.get(*key) != Some(*value))
        .filter(|(key, _)| !is_engine_internal(key))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn is_engine_internal(key: &str) -> bool {
    ["internal.", "graph.", "thread.", "current"]
        .iter()
        .any(|prefix| key.starts_with(prefix))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_cycle_is_one_poll_interval_of_the_childs_time() {
        let node = Node::new("m");
        let settings = Settings::of(&node);
        assert_eq!(settings.cycle(Duration::from_secs(3)), 1);
        assert_eq!(settings.cycle(Duration::from_secs(45)), 2);
        assert_eq!(settings.cycle(Duration::from_secs(100)), 3);
        let zero = Settings {
            poll_interval: Duration::ZERO,
            ..Settings::of(&node)
        };
        assert_eq!(zero.cycle(Duration::from_secs(100)), 1);
    }

    #[test]
    fn only_keys_the_child_changed_come_back_without_internal_ones() {
        let before = BTreeMap::from([
            ("kept".to_string(), json!(1)),
            ("changed".to_string(), json!("a")),
        ]);
        let after = BTreeMap::from([
            ("kept".to_string(), json!(1)),
            ("changed".to_string(), json!("b")),
            ("added".to_string(), json!(true)),
            ("internal.run_id".to_string(), json!("X")),
            ("graph.goal".to_string(), json!("g")),
            ("current_node".to_string(), json!("n")),
            ("thread.main.current_node".to_string(), json!("n")),
        ]);
        let diff = changed(&before, &after);
        assert_eq!(
            diff,
            BTreeMap::from([
                ("added".to_string(), json!(true)),
                ("changed".to_string(), json!("b")),
            ])
        );
    }

    #[test]
    fn settings_take_fabros_defaults() {
        let node = Node::new("m");
        let settings = Settings::of(&node);
        assert_eq!(settings.poll_interval, DEFAULT_POLL_INTERVAL);
        assert_eq!(settings.max_cycles, DEFAULT_MAX_CYCLES);
        assert!(!settings.stopped(&BTreeMap::new(), Duration::from_secs(3600)));
    }
}
