//! Commit messages of FORMAT.md: the run commit's subject and trailer block, written byte for
//! byte, and read back through git's own trailer rules (gix implements them), so that
//! timelines rebuilt on any clone agree with `git interpret-trailers`.

use crate::format::node::{NodeId, StageStatus};
use crate::format::run_id::RunId;

pub(crate) const RUN: &str = "Fabro-Run";
pub(crate) const COMPLETED: &str = "Fabro-Completed";
pub(crate) const CHECKPOINT: &str = "Fabro-Checkpoint";
pub(crate) const STAGE: &str = "Fabro-Stage";
pub(crate) const SNAPSHOT: &str = "Fabro-Snapshot";

/// `fabro(<RUN_ID>): <node> (<status>)` and the three trailers, as FORMAT.md prints them.
pub(crate) fn run_commit(
    run: &RunId,
    node: &NodeId,
    status: StageStatus,
    completed: usize,
    meta_commit: &str,
) -> String {
    format!(
        "fabro({run}): {node} ({status})\n\n{RUN}: {run}\n{COMPLETED}: {completed}\n{CHECKPOINT}: {meta_commit}\n"
    )
}

/// The status word of the commit the engine writes on the run branch before a fan-out, as
/// Fabro does: the commit every branch starts from.
pub(crate) const PARALLEL_BASE: &str = "parallel_base";

/// `fabro(<RUN_ID>): <node> (parallel_base)` with Fabro's two trailers and its literal count 0:
/// the commit completes no node and has no checkpoint, so timelines pass over it.
pub(crate) fn parallel_base_commit(run: &RunId, node: &str) -> String {
    format!("fabro({run}): {node} ({PARALLEL_BASE})\n\n{RUN}: {run}\n{COMPLETED}: 0\n")
}

/// Whether `message` is the parallel base commit of `node` in `run`.
pub(crate) fn is_parallel_base(message: &[u8], run: &RunId, node: &str) -> bool {
    Trailers::parse(message).run.as_deref() == Some(run.as_str())
        && parse_subject(message).is_some_and(|(n, status)| n == node && status == PARALLEL_BASE)
}

/// A metadata commit: the subject starts with one of `init run`, `checkpoint`, `finalize run`.
pub(crate) fn meta_commit(subject: &str, run: &RunId, stage: Option<&str>) -> String {
    let mut message = format!("{subject}\n\n{RUN}: {run}\n");
    if let Some(stage) = stage {
        message.push_str(&format!("{STAGE}: {stage}\n"));
    }
    message
}

/// The line of a recovery commit's body that names the command that made it.
pub(crate) const RECOVERY_COMMAND: &str = "Made by: ";

/// A recovery commit (`refs/fabro/recovery/`): the subject, the command that made it in the
/// body, and the `Fabro-Run` trailer.
pub(crate) fn recovery_commit(subject: &str, run: &RunId, command: Option<&str>) -> String {
    match command {
        // One line, whatever the command's arguments held.
        Some(command) => format!(
            "{subject}\n\n{RECOVERY_COMMAND}{}\n\n{RUN}: {run}\n",
            command.replace(['\n', '\r'], " ")
        ),
        None => meta_commit(subject, run, None),
    }
}

/// The subject of a recovery commit and the command that made it, where it names one.
pub(crate) fn read_recovery(message: &[u8]) -> (String, Option<String>) {
    let text = String::from_utf8_lossy(message);
    let subject = text.lines().next().unwrap_or_default().to_owned();
    let command = text
        .lines()
        .find_map(|line| line.strip_prefix(RECOVERY_COMMAND))
        .map(ToOwned::to_owned);
    (subject, command)
}

/// A snapshot commit: between checkpoints, completing no node.
pub(crate) fn snapshot_commit(run: &RunId, reason: &str) -> String {
    format!("fabro({run}): snapshot ({reason})\n\n{RUN}: {run}\n{SNAPSHOT}: {reason}\n")
}

/// The `Fabro-*` trailers of one commit message.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trailers {
    pub run: Option<String>,
    pub completed: Option<usize>,
    pub checkpoint: Option<String>,
    pub stage: Option<String>,
    pub snapshot: Option<String>,
}

impl Trailers {
    /// Reads the trailer block of `message` as `git interpret-trailers --parse` does, and when
    /// that holds no `Fabro-*` trailer, the block before one footer paragraph: Fabro ends its
    /// run commits with a footer line after the trailers.
    pub fn parse(message: &[u8]) -> Trailers {
        let trailers = Trailers::parse_last_block(message);
        if trailers != Trailers::default() {
            return trailers;
        }
        match without_footer(message) {
            Some(rest) => Trailers::parse_last_block(rest),
            None => trailers,
        }
    }

    fn parse_last_block(message: &[u8]) -> Trailers {
        let mut trailers = Trailers::default();
        crate::git::for_each_trailer(message, |token, value| {
            let named = |name: &str| token.eq_ignore_ascii_case(name);
            if named("fabro-run") {
                trailers.run = Some(value.to_owned());
            } else if named("fabro-completed") {
                trailers.completed = value.parse().ok();
            } else if named("fabro-checkpoint") {
                trailers.checkpoint = Some(value.to_owned());
            } else if named("fabro-stage") {
                trailers.stage = Some(value.to_owned());
            } else if named("fabro-snapshot") {
                trailers.snapshot = Some(value.to_owned());
            }
        });
        trailers
    }
}

/// `message` without its last paragraph, when it has a body of at least two paragraphs.
fn without_footer(message: &[u8]) -> Option<&[u8]> {
    let text = message.strip_suffix(b"\n").unwrap_or(message);
    let text = text.strip_suffix(b"\r").unwrap_or(text);
    let end = text
        .windows(2)
        .rposition(|w| w == b"\n\n")
        .or_else(|| text.windows(4).rposition(|w| w == b"\r\n\r\n"))?;
    let rest = &message[..end + 1];
    // The subject alone is no trailer block.
    rest.windows(2).any(|w| w == b"\n\n").then_some(rest)
}

/// Whether `message` has a run commit's subject but no `Fabro-*` trailer git-fabro can read:
/// a checkpoint whose link to its metadata is lost (a rewritten message, an unknown footer).
pub(crate) fn is_unreadable_checkpoint(message: &[u8]) -> bool {
    parse_subject(message).is_some() && Trailers::parse(message) == Trailers::default()
}

/// Splits a run commit subject `fabro(<id>): <node> (<status>)` into node and status.
pub fn parse_subject(message: &[u8]) -> Option<(String, String)> {
    let subject = message.split(|b| *b == b'\n').next()?;
    let subject = std::str::from_utf8(subject).ok()?;
    let rest = subject.strip_prefix("fabro(")?;
    let (_, rest) = rest.split_once("): ")?;
    let (node, status) = rest.rsplit_once(" (")?;
    Some((node.to_owned(), status.strip_suffix(')')?.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_commit_messages_parse_back() {
        let run = RunId::mint();
        let node = NodeId::parse("plan").unwrap();
        let sha = "0123456789012345678901234567890123456789";
        let message = run_commit(&run, &node, StageStatus::Succeeded, 3, sha);
        let trailers = Trailers::parse(message.as_bytes());
        assert_eq!(trailers.run.as_deref(), Some(run.as_str()));
        assert_eq!(trailers.completed, Some(3));
        assert_eq!(trailers.checkpoint.as_deref(), Some(sha));
        assert_eq!(
            parse_subject(message.as_bytes()),
            Some(("plan".into(), "succeeded".into()))
        );
    }

    #[test]
    fn trailers_followed_by_one_footer_paragraph_are_found() {
        let message = "fabro(X): a (succeeded)\n\nFabro-Run: X\nFabro-Completed: 2\n\n\u{2692}\u{fe0f} Generated with [Fabro](https://fabro.sh)\n";
        let trailers = Trailers::parse(message.as_bytes());
        assert_eq!(trailers.run.as_deref(), Some("X"));
        assert_eq!(trailers.completed, Some(2));
        assert_eq!(Trailers::parse(b"subject only\n"), Trailers::default());
        assert_eq!(Trailers::parse(b"subject\n\nfooter\n"), Trailers::default());
        // Two paragraphs after the block: not a footer, so no trailers.
        let two = "s\n\nFabro-Run: X\n\none\n\ntwo\n";
        assert_eq!(Trailers::parse(two.as_bytes()), Trailers::default());
    }

    #[test]
    fn folded_values_are_unfolded() {
        let trailers = Trailers::parse(b"s\n\nFabro-Stage: plan\n  @2\nFabro-Run: R\n");
        assert_eq!(trailers.stage.as_deref(), Some("plan @2"));
        assert_eq!(trailers.run.as_deref(), Some("R"));
    }

    /// The trailers git itself reads from `message`, keeping the Fabro ones.
    fn git_reads(message: &str) -> Trailers {
        use std::io::Write;
        let mut git = std::process::Command::new("git")
            .args(["interpret-trailers", "--parse"])
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("git runs");
        git.stdin
            .take()
            .unwrap()
            .write_all(message.as_bytes())
            .unwrap();
        let out = git.wait_with_output().unwrap();
        Trailers::parse(format!("s\n\n{}", String::from_utf8_lossy(&out.stdout)).as_bytes())
    }

    #[test]
    fn reads_what_git_interpret_trailers_reads() {
        for message in [
            "fabro(R): a (succeeded)\n\nFabro-Run: R\nFabro-Completed: 2\nFabro-Checkpoint: abc\n",
            "s\r\n\r\nFabro-Run: R\r\nFabro-Completed: 3\r\n",
            "s\n\nbody text\n\nFabro-Run: R\nnot a trailer\nSigned-off-by: A <a@b>\n",
            "s\n\nFabro-Stage: plan\n  @2\nFabro-Run: R\n",
            "only a subject\n",
        ] {
            assert_eq!(
                Trailers::parse(message.as_bytes()),
                git_reads(message),
                "{message:?}"
            );
        }
    }
}
