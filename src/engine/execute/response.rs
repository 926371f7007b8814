//! Routing directives in an agent's response, read as Fabro reads them: the last balanced
//! `{...}` that parses as a JSON object holding one of `outcome`, `preferred_next_label`,
//! `suggested_next_ids`, `context_updates` or `failure_reason` is the agent's say on its
//! outcome and next edge. Everything else in the response is text.

use serde_json::{Map, Value};

use super::context_budget::capped;
use crate::engine::outcome::{Outcome, Status};

const FIELDS: &[&str] = &[
    "preferred_next_label",
    "outcome",
    "failure_reason",
    "suggested_next_ids",
    "context_updates",
];

/// Every balanced `{...}` in `text`, braces inside JSON strings not counted.
fn objects(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    for start in (0..bytes.len()).filter(|&i| bytes[i] == b'{') {
        let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
        for (at, &byte) in bytes.iter().enumerate().skip(start) {
            if escaped {
                escaped = false;
            } else if byte == b'\\' && in_string {
                escaped = true;
            } else if byte == b'"' {
                in_string = !in_string;
            } else if !in_string && byte == b'{' {
                depth += 1;
            } else if !in_string && byte == b'}' {
                depth -= 1;
                if depth == 0 {
                    found.push(&text[start..=at]);
                    break;
                }
            }
        }
    }
    found
}

/// The status words an agent may give: Fabro's, and (a git-fabro extension, as conditions
/// accept them) the spellings Fabro used before 2026-04-30.
fn status(word: &str) -> Option<Status> {
    Some(match word {
        "succeeded" | "success" => Status::Succeeded,
        "partially_succeeded" | "partial_success" => Status::PartiallySucceeded,
        "failed" | "fail" => Status::Failed,
        "skipped" => Status::Skipped,
        _ => return None,
    })
}

/// The routing object of `text`, if it has one.
pub fn directives(text: &str) -> Option<Map<String, Value>> {
    objects(text).into_iter().rev().find_map(|candidate| {
        match serde_json::from_str::<Value>(candidate).ok()? {
            Value::Object(object) if FIELDS.iter().any(|f| object.contains_key(*f)) => Some(object),
            _ => None,
        }
    })
}

/// Merges the directives, found in the stage file `file`, into `outcome`. A failure's reason
/// becomes its notes, which is what the run reports and classifies; a context value is held
/// as [`capped`] holds it.
pub fn apply(directives: &Map<String, Value>, file: &str, outcome: &mut Outcome) {
    if let Some(label) = directives
        .get("preferred_next_label")
        .and_then(Value::as_str)
    {
        outcome.preferred_label = Some(label.to_owned());
    }
    let ids: Vec<String> = directives
        .get("suggested_next_ids")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect();
    if !ids.is_empty() {
        outcome.suggested_next_ids = ids;
    }
    if let Some(new) = directives
        .get("outcome")
        .and_then(Value::as_str)
        .and_then(status)
    {
        outcome.status = new;
        if new.is_failure() {
            outcome.notes = match directives.get("failure_reason").and_then(Value::as_str) {
                Some(reason) => reason.to_owned(),
                None => "the agent reported outcome failed".to_owned(),
            };
        }
    }
    if let Some(Value::Object(updates)) = directives.get("context_updates") {
        for (key, value) in updates {
            let value = capped(key, value.clone(), file);
            outcome.context_updates.insert(key.clone(), value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_object_with_a_routing_field_counts() {
        let text = r#"Plan: {"a": 1}
{"outcome": "succeeded", "preferred_next_label": "first"}
Then {"preferred_next_label": "Ship it", "note": "a } in \"a string\""} done."#;
        let found = directives(text).unwrap();
        assert_eq!(found["preferred_next_label"], "Ship it");
        assert!(directives(r#"no routing {"a": 1} {broken"#).is_none());
    }

    #[test]
    fn directives_set_status_label_ids_and_context() {
        let mut outcome = Outcome::succeeded("Stage completed: a".into());
        let text = r#"{"outcome": "failed", "failure_reason": "tests fail",
            "suggested_next_ids": ["fix", 3], "context_updates": {"tries": 2}}"#;
        apply(&directives(text).unwrap(), "response.md", &mut outcome);
        assert_eq!(outcome.status, Status::Failed);
        assert_eq!(outcome.notes, "tests fail");
        assert_eq!(outcome.suggested_next_ids, ["fix"]);
        assert_eq!(outcome.context_updates["tries"], 2);
        let mut outcome = Outcome::succeeded(String::new());
        apply(
            &directives(r#"{"outcome": "maybe"}"#).unwrap(),
            "response.md",
            &mut outcome,
        );
        assert_eq!(outcome.status, Status::Succeeded);
    }
}
