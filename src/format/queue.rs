//! Where a run on a shared remote stands between workers (FORMAT.md, "Leases"): a run a worker
//! may take is `refs/fabro/queue/<RUN_ID>`, one that waits for a person (an answer at a human
//! gate, a decision on a side effect cut short) is `refs/fabro/wait/<RUN_ID>`. Both point at
//! commits of the empty tree whose trailers say what the next worker is told, or what the run
//! waits for; each commit's parent is the one it replaced, so the chain is the run's history on
//! the pool. The state is in the ref's name, so a listing alone tells workers what they may take.

use crate::format::message::RUN;
use crate::format::run_id::RunId;

pub const ANSWER: &str = "Fabro-Answer";
pub const AUTO_APPROVE: &str = "Fabro-Auto-Approve";
pub const RERUN: &str = "Fabro-Rerun";
pub const ASSUME_DONE: &str = "Fabro-Assume-Done";
pub const APPROVED: &str = "Fabro-Approved";
pub const WAIT: &str = "Fabro-Wait";
pub const WAIT_NODE: &str = "Fabro-Wait-Node";

/// What the next worker to take a queued run is told, as `resume` is told it on the command line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Told {
    pub answers: Vec<(String, String)>,
    pub auto_approve: bool,
    pub rerun: Vec<String>,
    pub assume_done: Vec<String>,
    /// The sha256 of the workflow and values the submitter's machine approved. A worker counts
    /// them only from a submission signed by a signer it allows (the chain's first commit).
    pub approved: Vec<String>,
}

impl Told {
    /// A queue commit's message: a subject for `git log`, then the trailers.
    pub fn message(&self, run: &RunId) -> String {
        let mut trailers = format!("{RUN}: {run}\n");
        for (node, choice) in &self.answers {
            trailers += &format!("{ANSWER}: {}={}\n", one_line(node), one_line(choice));
        }
        if self.auto_approve {
            trailers += &format!("{AUTO_APPROVE}: true\n");
        }
        for node in &self.rerun {
            trailers += &format!("{RERUN}: {}\n", one_line(node));
        }
        for node in &self.assume_done {
            trailers += &format!("{ASSUME_DONE}: {}\n", one_line(node));
        }
        for sha in &self.approved {
            trailers += &format!("{APPROVED}: {}\n", one_line(sha));
        }
        format!("queue {run}\n\n{trailers}")
    }

    /// Reads a queue commit's message; what it does not say is not told. A queue ref of the
    /// first format, which pointed at the run's metadata commit, tells nothing.
    pub fn parse(message: &[u8]) -> Told {
        let mut told = Told::default();
        crate::git::for_each_trailer(message, |token, value| {
            let named = |name: &str| token.eq_ignore_ascii_case(name);
            if named(ANSWER) {
                if let Some((node, choice)) = value.split_once('=') {
                    told.answers.push((node.to_owned(), choice.to_owned()));
                }
            } else if named(AUTO_APPROVE) {
                told.auto_approve = value == "true";
            } else if named(RERUN) {
                told.rerun.push(value.to_owned());
            } else if named(ASSUME_DONE) {
                told.assume_done.push(value.to_owned());
            } else if named(APPROVED) {
                told.approved.push(value.to_owned());
            }
        });
        told
    }
}

/// What a run taken off the queue waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Awaits {
    /// An answer at a human gate.
    Answer,
    /// A decision on a side-effect node a lost worker cut short: run it again or record it done.
    Decision,
}

impl Awaits {
    pub fn as_str(self) -> &'static str {
        match self {
            Awaits::Answer => "answer",
            Awaits::Decision => "decision",
        }
    }
}

/// A wait commit: what the run waits for, and at which nodes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wait {
    pub awaits: Awaits,
    pub nodes: Vec<String>,
}

impl Wait {
    pub fn message(&self, run: &RunId) -> String {
        let awaits = self.awaits.as_str();
        let nodes: Vec<String> = self.nodes.iter().map(|n| one_line(n)).collect();
        let mut text = format!(
            "wait {run} for {awaits} at {}\n\n{RUN}: {run}\n{WAIT}: {awaits}\n",
            nodes.join(", ")
        );
        for node in &nodes {
            text += &format!("{WAIT_NODE}: {node}\n");
        }
        text
    }

    /// Reads a wait commit's message; `None` when it says not what it waits for.
    pub fn parse(message: &[u8]) -> Option<Wait> {
        let (mut awaits, mut nodes) = (None, Vec::new());
        crate::git::for_each_trailer(message, |token, value| {
            if token.eq_ignore_ascii_case(WAIT) {
                awaits = match value {
                    "answer" => Some(Awaits::Answer),
                    "decision" => Some(Awaits::Decision),
                    _ => None,
                };
            } else if token.eq_ignore_ascii_case(WAIT_NODE) {
                nodes.push(value.to_owned());
            }
        });
        Some(Wait {
            awaits: awaits?,
            nodes,
        })
    }
}

/// A value kept to one trailer line, so that no value can add trailers of its own.
fn one_line(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_worker_is_told_reads_back_as_written() {
        let run = RunId::mint();
        let told = Told {
            answers: vec![
                ("review".into(), "approve".into()),
                ("review".into(), "R".into()),
            ],
            auto_approve: true,
            rerun: vec!["pay".into()],
            assume_done: vec!["ship".into()],
            approved: vec!["ab".repeat(32)],
        };
        assert_eq!(Told::parse(told.message(&run).as_bytes()), told);
        assert_eq!(Told::parse(b"queue x\n\nFabro-Run: x\n"), Told::default());
    }

    #[test]
    fn a_wait_reads_back_as_written_and_one_that_says_nothing_not_at_all() {
        let run = RunId::mint();
        let wait = Wait {
            awaits: Awaits::Decision,
            nodes: vec!["pay".into()],
        };
        assert_eq!(Wait::parse(wait.message(&run).as_bytes()), Some(wait));
        assert_eq!(Wait::parse(b"wait\n\nFabro-Wait: maybe\n"), None);
    }

    #[test]
    fn a_value_cannot_add_lines_to_the_trailer_block() {
        let run = RunId::mint();
        let told = Told {
            answers: vec![("gate".into(), "yes\nFabro-Rerun: pay".into())],
            ..Told::default()
        };
        assert!(Told::parse(told.message(&run).as_bytes()).rerun.is_empty());
    }
}
