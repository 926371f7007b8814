//! What a stage may put into the run's context. The context is recorded in `run.json` (the
//! checkpoint's `context_values`, and each node's latest `context_updates` in `node_outcomes`),
//! which no command writes past 16 MiB: an agent that returned most of a megabyte of context
//! at every visit made the checkpoint of its 17th visit refused, and the run stayed `running`
//! with no process, failing the same way on `resume`. So, as a command's output is held by
//! its last 16 KiB ([`context_text`]):
//!
//! - a value an agent sets (its routing JSON's `context_updates`) is held whole up to
//!   [`LIMIT`] bytes of JSON; a longer string by its last [`LIMIT`] bytes after a line naming
//!   the stage file that has it all, anything else by that line alone;
//! - a stage whose updates, whatever their handler, come to more than [`STAGE_LIMIT`], or
//!   would take the context past [`CONTEXT_LIMIT`], fails, with a record saying so, and
//!   changes nothing in the context. The run goes on along its failure edges and stays
//!   resumable.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::context_text::{self, LIMIT};
use crate::engine::outcome::Outcome;

/// The most one stage adds to the context, in bytes of JSON (keys and values).
pub const STAGE_LIMIT: usize = 256 << 10;

/// The most the context holds, in bytes of JSON: a quarter of what `run.json` may be, which
/// leaves room for `node_outcomes` and the rest of the record.
pub const CONTEXT_LIMIT: usize = 4 << 20;

/// `value`, set by an agent for `key` and found whole in the stage file `file`, as the
/// context holds it.
pub fn capped(key: &str, value: Value, file: &str) -> Value {
    let size = json_size(&value);
    if size <= LIMIT {
        return value;
    }
    match value {
        Value::String(text) => json!(context_text::context_text(text.as_bytes(), file)),
        _ => json!(format!(
            "[git-fabro: the value of {key} is {size} bytes of JSON, over the {LIMIT} a context \
             value holds; {file} of the stage has it]"
        )),
    }
}

/// `outcome`, or when its context updates are more than a stage may add to `context`, the
/// stage failed in its place with none of them.
pub fn bounded(outcome: Outcome, context: &BTreeMap<String, Value>) -> Outcome {
    let added: usize = (outcome.context_updates.iter())
        .map(|(k, v)| k.len() + json_size(v))
        .sum();
    if added > STAGE_LIMIT {
        return refused(format!(
            "its context updates are {added} bytes of JSON, over the {STAGE_LIMIT} one stage \
             may add"
        ));
    }
    let kept: usize = (context.iter())
        .filter(|(k, _)| !outcome.context_updates.contains_key(*k))
        .map(|(k, v)| k.len() + json_size(v))
        .sum();
    if kept + added > CONTEXT_LIMIT {
        return refused(format!(
            "its context updates ({added} bytes of JSON) would make the run's context {} bytes, \
             over the {CONTEXT_LIMIT} it may hold",
            kept + added
        ));
    }
    outcome
}

fn refused(why: String) -> Outcome {
    Outcome::failed(&format!(
        "{why}; none of them was applied (the stage's files have what it produced)"
    ))
}

fn json_size(value: &Value) -> usize {
    serde_json::to_string(value).map_or(0, |text| text.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::outcome::Status;

    #[test]
    fn a_long_value_keeps_its_end_and_other_json_a_note() {
        assert_eq!(capped("k", json!("short"), "response.md"), json!("short"));
        let long = format!("{}END", "x".repeat(2 * LIMIT));
        let held = capped("k", json!(long), "response.md");
        let held = held.as_str().unwrap();
        assert!(
            held.ends_with("END") && held.len() < LIMIT + 200,
            "{}",
            held.len()
        );
        assert!(held.contains("response.md"), "{held}");
        let list = json!(vec!["y".repeat(100); 500]);
        let note = capped("k", list, "status.json");
        assert!(
            note.as_str().unwrap().contains("the value of k is"),
            "{note}"
        );
    }

    #[test]
    fn a_stage_past_its_share_or_the_contexts_fails_with_nothing_applied() {
        let mut outcome = Outcome::succeeded("done".into());
        outcome
            .context_updates
            .insert("a".into(), json!("x".repeat(STAGE_LIMIT)));
        let failed = bounded(outcome.clone(), &BTreeMap::new());
        assert_eq!(failed.status, Status::Failed);
        assert!(failed.context_updates.is_empty());
        assert!(
            failed.notes.contains("one stage may add"),
            "{}",
            failed.notes
        );

        outcome
            .context_updates
            .insert("a".into(), json!("x".repeat(1000)));
        let full: BTreeMap<String, Value> = (0..(CONTEXT_LIMIT / STAGE_LIMIT))
            .map(|i| (format!("k{i}"), json!("x".repeat(STAGE_LIMIT))))
            .collect();
        let failed = bounded(outcome.clone(), &full);
        assert!(
            failed.notes.contains("over the 4194304 it may hold"),
            "{}",
            failed.notes
        );
        // A key replaced counts once.
        let mut replaced = outcome.clone();
        replaced.context_updates = BTreeMap::from([("k0".into(), json!("small"))]);
        assert_eq!(bounded(replaced.clone(), &full), replaced);
    }
}
