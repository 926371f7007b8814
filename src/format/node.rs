//! Node ids and stage outcomes: the two user-supplied words that end up in paths, commit
//! subjects and trailers, so both are checked before anything is written.

use std::fmt;

use crate::error::{Error, Result};

const MAX_NODE_ID: usize = 128;

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(String);

impl NodeId {
    pub fn parse(text: &str) -> Result<NodeId> {
        let invalid = |reason| {
            Err(Error::InvalidNodeId {
                id: text.to_owned(),
                reason,
            })
        };
        let Some(first) = text.chars().next() else {
            return invalid("it is empty");
        };
        if text.len() > MAX_NODE_ID {
            return invalid("it is longer than 128 characters");
        }
        if !(first.is_ascii_alphanumeric() || first == '_') {
            return invalid("it must start with a letter, digit or _");
        }
        if let Some(bad) = text
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || "_-.".contains(*c)))
        {
            return Err(Error::InvalidNodeId {
                id: text.to_owned(),
                reason: if bad == '/' {
                    "it contains a slash"
                } else if bad == '@' {
                    "it contains @"
                } else if bad.is_whitespace() || bad.is_control() {
                    "it contains white space or a control character"
                } else {
                    "it contains a character outside A-Z a-z 0-9 _ - ."
                },
            });
        }
        if text.contains("..") {
            return invalid("it contains ..");
        }
        Ok(NodeId(text.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The outcome of one completed node, as it appears in a run commit's subject.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum StageStatus {
    Succeeded,
    PartiallySucceeded,
    Failed,
    Skipped,
}

impl StageStatus {
    /// Accepts the four names of FORMAT.md and the aliases `success`, `fail` and `error`.
    pub fn parse(text: &str) -> Result<StageStatus> {
        Ok(match text {
            "succeeded" | "success" => StageStatus::Succeeded,
            "partially_succeeded" => StageStatus::PartiallySucceeded,
            "failed" | "fail" | "error" => StageStatus::Failed,
            "skipped" => StageStatus::Skipped,
            other => return Err(Error::UnknownStatus(other.to_owned())),
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            StageStatus::Succeeded => "succeeded",
            StageStatus::PartiallySucceeded => "partially_succeeded",
            StageStatus::Failed => "failed",
            StageStatus::Skipped => "skipped",
        }
    }
}

impl fmt::Display for StageStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::{NodeId, StageStatus};

    #[test]
    fn node_ids_follow_the_format_alphabet() {
        for good in ["plan", "_x", "build.2", "a-b_c", "9lives"] {
            assert!(NodeId::parse(good).is_ok(), "{good}");
        }
        let long = "x".repeat(129);
        for bad in [
            "",
            "../x",
            "a/b",
            "a b",
            "a\nb",
            ".hidden",
            "-x",
            "a@1",
            "a..b",
            long.as_str(),
        ] {
            assert!(NodeId::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn statuses_accept_aliases() {
        assert_eq!(
            StageStatus::parse("success").unwrap(),
            StageStatus::Succeeded
        );
        assert_eq!(StageStatus::parse("error").unwrap(), StageStatus::Failed);
        assert!(StageStatus::parse("done").is_err());
    }
}
