//! A failed node's failure as Fabro records it: the message, its class (from hints in the
//! message, in Fabro's order: canceled, transient infrastructure, budget exhausted,
//! structural, else deterministic) and a signature that stays the same when only numbers or
//! hashes change, which is what a loop breaker counts. The hint lists are Fabro's, so that a
//! condition on `context.failure_class` and the loop breaker judge a failure as Fabro does.

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
    "rate limited",
    "connection refused",
    "connection reset",
    "500",
    "502",
    "503",
    "504",
    "context deadline exceeded",
    "could not resolve host",
    "could not resolve hostname",
    "temporary failure",
    "network is unreachable",
    "broken pipe",
    "tls handshake timeout",
    "i/o timeout",
    "no route to host",
    "temporarily unavailable",
    "try again",
    "too many requests",
    "service unavailable",
    "gateway timeout",
    "econnrefused",
    "econnreset",
    "dial tcp",
    "transport is closing",
    "stream disconnected",
    "stream closed before",
    "index.crates.io",
    "download of config.json failed",
    "toolchain_or_dependency_registry_unavailable",
    "toolchain dependency resolution blocked by network",
    "toolchain_workspace_io",
    "cross-device link",
    "invalid cross-device link",
    "os error 18",
];
const BUDGET_EXHAUSTED: &[&str] = &[
    "turn limit",
    "token limit",
    "context length",
    "budget",
    "quota exceeded",
    "max_turns",
    "max turns",
    "max_tokens",
    "max tokens",
    "context window exceeded",
    "budget exhausted",
    "token limit exceeded",
];
const STRUCTURAL: &[&str] = &[
    "write_scope_violation",
    "write scope violation",
    "scope violation",
];

/// Fabro's signature keeps at most this many bytes of the normalised message.
const MAX_REASON: usize = 240;

static HEX: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b[0-9a-f]{7,64}\b").expect("valid"));
static DIGITS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b[0-9]+\b").expect("valid"));
static COMMA: LazyLock<Regex> = LazyLock::new(|| Regex::new(r",\s+").expect("valid"));
static SPACE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\s+").expect("valid"));

impl Failure {
    pub fn of(node: &str, message: &str) -> Failure {
        let lower = message.to_lowercase();
        let hinted = |hints: &[&str]| hints.iter().any(|h| lower.contains(h));
        let class = if hinted(CANCELED) {
            "canceled"
        } else if hinted(TRANSIENT) {
            "transient_infra"
        } else if hinted(BUDGET_EXHAUSTED) {
            "budget_exhausted"
        } else if hinted(STRUCTURAL) {
            "structural"
        } else {
            "deterministic"
        };
        let reason = normalized(message);
        let reason = if reason.is_empty() {
            "unknown"
        } else {
            &reason
        };
        Failure {
            message: message.to_string(),
            class,
            signature: format!("{node}|{class}|{reason}"),
        }
    }

    /// Whether the loop breaker counts it: only a failure that happens again the same way
    /// (deterministic, structural) makes a cycle, as in Fabro.
    pub fn is_tracked(&self) -> bool {
        matches!(self.class, "deterministic" | "structural")
    }

    pub fn to_json(&self) -> Value {
        json!({
            "message": self.message,
            "failure_class": self.class,
            "failure_signature": self.signature,
        })
    }
}

/// The message as the signature holds it: lowercased, hashes and whole numbers masked, commas
/// and white space tightened, cut at [`MAX_REASON`] bytes.
fn normalized(message: &str) -> String {
    let lower = message.trim().to_lowercase();
    let text = HEX.replace_all(&lower, "<hex>");
    let text = DIGITS.replace_all(&text, "<n>");
    let text = COMMA.replace_all(&text, ",");
    let text = SPACE.replace_all(&text, " ");
    let text = text.trim();
    let mut end = text.len().min(MAX_REASON);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_follow_fabros_hints_in_order() {
        let class = |m: &str| Failure::of("n", m).class;
        assert_eq!(class("Cancelled by user"), "canceled");
        assert_eq!(class("503 Service Unavailable"), "transient_infra");
        assert_eq!(class("token limit exceeded"), "budget_exhausted");
        assert_eq!(class("write scope violation in src/"), "structural");
        assert_eq!(class("assertion failed"), "deterministic");
        assert!(!Failure::of("n", "token limit exceeded").is_tracked());
        assert!(Failure::of("n", "scope violation").is_tracked());
    }

    #[test]
    fn the_signature_masks_what_changes_between_attempts() {
        let signature = |m: &str| Failure::of("verify", m).signature;
        assert_eq!(
            signature("test assertion: expected 42,   got 0"),
            "verify|deterministic|test assertion: expected <n>,got <n>"
        );
        assert_eq!(
            signature("error in v2 module at deadbeef1"),
            "verify|deterministic|error in v2 module at <hex>"
        );
        assert_eq!(signature("   "), "verify|deterministic|unknown");
        let long = "é".repeat(200);
        assert!(signature(&long).len() <= "verify|deterministic|".len() + MAX_REASON);
    }
}
