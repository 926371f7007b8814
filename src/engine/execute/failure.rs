//! A failed node's failure as Fabro records it: the message, its class (from hints in the
//! message, in Fabro's order) and a signature that stays the same when only numbers or hashes
//! change, which is what a loop breaker counts.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Value, json};

pub struct Failure {
    pub message: String,
    pub class: &'static str,
    pub signature: String,
}

const CANCELED: &[&str] = &["cancel", "interrupt"];
const TRANSIENT: &[&str] = &[
    "timeout",
    "timed out",
    "rate limit",
    "connection refused",
    "connection reset",
    "500",
    "502",
    "503",
    "504",
];

static HEX: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b[0-9a-f]{7,64}\b").expect("valid"));
static DIGITS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[0-9]+").expect("valid"));
static SPACE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\s+").expect("valid"));

impl Failure {
    pub fn of(node: &str, message: &str) -> Failure {
        let lower = message.to_lowercase();
        let class = if CANCELED.iter().any(|h| lower.contains(h)) {
            "canceled"
        } else if TRANSIENT.iter().any(|h| lower.contains(h)) {
            "transient_infra"
        } else {
            "deterministic"
        };
        let normalized = HEX.replace_all(&lower, "<hex>");
        let normalized = DIGITS.replace_all(&normalized, "<n>");
        let normalized = SPACE.replace_all(normalized.trim(), " ");
        let reason: String = normalized.chars().take(240).collect();
        Failure {
            message: message.to_string(),
            class,
            signature: format!("{node}|{class}|{reason}"),
        }
    }

    pub fn to_json(&self) -> Value {
        json!({
            "message": self.message,
            "failure_class": self.class,
            "failure_signature": self.signature,
        })
    }
}
