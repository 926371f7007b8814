//! The domain's errors: each variant says what went wrong in the user's terms, carries the
//! hint that helps, and maps to one of FORMAT.md's exit codes.

use std::path::PathBuf;

mod pool;
mod situation;

pub use pool::{CutShort, OnRemote, PoolWorker};

pub(crate) use situation::{Needs, Phase, Situation};

/// Exit codes of FORMAT.md.
pub mod exit {
    pub const FAILED: u8 = 1;
    pub const USAGE: u8 = 2;
    pub(crate) const CONFLICT: u8 = 3;
    /// The run waits for an answer at a human gate; `resume --answer` goes on.
    pub(crate) const BLOCKED: u8 = 4;
    /// The workflow to run was neither started nor approved on this machine; `--trust` runs it.
    pub(crate) const UNTRUSTED: u8 = 5;
    /// Ctrl-C or SIGTERM stopped the run; `resume` goes on.
    pub(crate) const INTERRUPTED: u8 = 130;
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Usage(String),
    #[error("invalid node id {id:?}: {reason}")]
    InvalidNodeId { id: String, reason: &'static str },
    #[error(
        "unknown status {0:?}; valid statuses: succeeded, partially_succeeded, failed, skipped"
    )]
    UnknownStatus(String),
    #[error("no run matches {0:?}")]
    RunNotFound(String),
    /// No run matches, but one is a likely typo of what was typed.
    #[error("no run matches {text:?}; did you mean {near}?")]
    RunNotFoundNear { text: String, near: String },
    #[error("run prefix {prefix:?} is ambiguous; it matches {}", candidates.join(", "))]
    AmbiguousRun {
        prefix: String,
        candidates: Vec<String>,
    },
    #[error("no run given and none found from --run, $FABRO_RUN_ID or the current directory")]
    NoCurrentRun,
    /// The run has neither a worktree nor a directory it runs in place in, on this machine.
    #[error("run {run} has no worktree on this machine")]
    NoWorkspace { run: String, situation: Situation },
    /// The run has no run directory on this machine.
    #[error("run {run} has no run directory on this machine")]
    NoRunDir { run: String, situation: Situation },
    /// The command works on a run that `needs` it so, and run `run` is not: `refusal` says
    /// what the command does instead, the hint what works for the run as it stands.
    #[error("run {run} {}; {refusal}", situation.said())]
    WrongStatus {
        run: String,
        situation: Situation,
        needs: Needs,
        refusal: String,
    },
    /// `resume` found a directory where it makes the run's worktree.
    #[error(
        "{} is in the way of run {run}'s worktree: it is not empty and no worktree is registered there",
        path.display()
    )]
    InTheWay { path: PathBuf, run: String },
    /// `land` found the run's changes and the branch's conflicting in `paths`.
    #[error("run {run} conflicts with {branch} in {}; nothing was changed", paths.join(", "))]
    LandConflict {
        run: String,
        branch: String,
        paths: Vec<String>,
    },
    /// `land` without --force, of a run that has not succeeded or failed.
    #[error(
        "run {run} {}; land takes a run that succeeded or failed, or one as it is with --force",
        situation.said()
    )]
    Unfinished { run: String, situation: Situation },
    /// `land` would overwrite changes of the user's in the checkout `workdir` (`staged`:
    /// staged changes that are not the landing's); `changes` names them.
    #[error(
        "{} {}; nothing was changed",
        workdir.display(),
        if *staged { format!("has staged changes ({changes})") } else { format!("has changes of yours in the way: {changes}") }
    )]
    ChangesInTheWay {
        run: String,
        workdir: PathBuf,
        changes: String,
        staged: bool,
    },
    /// A resume found a side-effect stage started and never recorded (boxed: it is the
    /// largest of these).
    #[error("{0}")]
    SideEffectCutShort(Box<CutShort>),
    /// `resume --workflow` of a file that is not the workflow the run started with.
    #[error(
        "{} (sha256 {}) is not the workflow run {run} was started with (sha256 {recorded})",
        path.display(),
        &sha256[..sha256.len().min(12)]
    )]
    WorkflowChanged {
        run: String,
        path: PathBuf,
        sha256: String,
        recorded: String,
    },
    /// `fetch` found run `run` moved on at `remote` while its files here are checked out
    /// from its branch: in a worktree at `path`, or (`in_place`) in the checkout `path`.
    #[error(
        "run {run} moved on at {remote} but {} {}; nothing was fetched",
        if *in_place { "runs here in place in" } else { "is checked out here in" },
        path.display()
    )]
    CheckedOutHere {
        run: String,
        remote: String,
        path: PathBuf,
        in_place: bool,
    },
    /// `graph` of a run that records no workflow.
    #[error("run {run} records no workflow to draw (an agent run started with `git fabro start`)")]
    NoWorkflow { run: String },
    /// `undo` found no step before the one the files stand at.
    #[error("nothing to undo in run {run}: the files are as it started")]
    NothingToUndo { run: String },
    /// `message` says what matched nothing in run `run`.
    #[error("{message}")]
    TargetNotFound { run: String, message: String },
    #[error("{0}")]
    AmbiguousTarget(String),
    #[error("{0}")]
    Conflict(String),
    /// Another process holds what this command needs (a run's run.pid, a ref lock, a
    /// checkout under way); the message names it and says what to do.
    #[error("{0}")]
    Busy(String),
    /// A live process holds the run's `run.pid`; `command` is its command line where the
    /// system tells it, and `forcible` whether the command takes `--force`.
    #[error(
        "run {run} is held by process {pid} (run.pid): it is still running{}",
        if *forcible { "; pass --force to go ahead anyway" } else { "" }
    )]
    Held {
        run: String,
        pid: u32,
        command: Option<String>,
        forcible: bool,
    },
    #[error("{0}")]
    Corrupt(String),
    /// A workflow file that is not Fabro's DOT, or not UTF-8 text: `FILE:LINE:COLUMN: why`.
    #[error("{0}")]
    WorkflowSyntax(String),
    /// What run `run` would execute (`what`: its workflow, or the values it renders it with;
    /// sha256 `sha256`) was neither recorded nor approved on this machine.
    #[error(
        "run {run}: {what} (sha256 {}) was not written or approved on this machine; nothing was run",
        &sha256[..sha256.len().min(12)]
    )]
    Untrusted {
        run: String,
        what: &'static str,
        sha256: String,
    },
    /// Another worker took over run `run` on the shared remote: nothing this one wrote since
    /// its last accepted push landed there.
    #[error(
        "run {run}: another worker holds its lease now; this worker stopped, and nothing it wrote since its last push reached the remote"
    )]
    LeaseLost { run: String },
    /// A worker could not renew its lease on run `run` for `half_life` and stopped, before any
    /// other worker may take the run over.
    #[error(
        "run {run}: this worker could not renew its lease for half its life ({half_life}) and stopped; nothing it wrote since its last push reached the remote, and another worker takes the run over once the lease has run out"
    )]
    LeaseUnrenewed { run: String, half_life: String },
    /// `resume --remote` of run `run`, which does not wait on the shared remote for an answer
    /// or a decision: it is `standing` there.
    #[error("run {run} waits for no answer or decision on {remote}: it is {} there", standing.as_str())]
    NotWaiting {
        run: String,
        remote: String,
        standing: OnRemote,
    },
    /// Run `run` was queued on `remote`, and `executor` could not start a worker for it.
    #[error(
        "run {run} is queued on {remote}, but the {executor} executor started no worker for it: {why}"
    )]
    ExecutorFailed {
        run: String,
        remote: String,
        executor: String,
        why: String,
    },
    /// A remote refused a push or fetch; nothing was changed on either side.
    #[error("{0}")]
    Refused(String),
    #[error("{0}")]
    Failed(String),
    /// A `run.json` that its readers would refuse; it was not written.
    #[error(
        "run {run}'s run.json would be {} MiB, over the {} MiB git-fabro reads back; nothing was written",
        size >> 20,
        limit >> 20
    )]
    RecordTooLarge { run: String, size: u64, limit: u64 },
    #[error("{context}: {source}")]
    Io {
        context: String,
        source: std::io::Error,
    },
    /// What the repository layer reported, as it said it: no repository where one was looked
    /// for (a usage error, with a hint), or gix's own errors, which mean nothing more here.
    #[error("{0}")]
    Git(crate::git::Error),
    /// A tree holds a path that git's checkout refuses to write; `place` names the tree.
    #[error("{place} holds an unsafe path {path}: {reason}")]
    UnsafePath {
        place: String,
        path: String,
        reason: String,
    },
}

impl Error {
    /// See [`crate::git::Error::is_vanished_object`].
    pub(crate) fn is_vanished_object(&self) -> bool {
        matches!(self, Error::Git(err) if err.is_vanished_object())
    }

    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Usage(_)
            | Error::InvalidNodeId { .. }
            | Error::UnknownStatus(_)
            | Error::RunNotFound(_)
            | Error::RunNotFoundNear { .. }
            | Error::AmbiguousRun { .. }
            | Error::NoCurrentRun
            | Error::TargetNotFound { .. }
            | Error::AmbiguousTarget(_)
            | Error::Unfinished { .. }
            | Error::Git(crate::git::Error::NotARepository(_))
            | Error::WorkflowSyntax(_) => exit::USAGE,
            Error::Conflict(_) => exit::CONFLICT,
            Error::Busy(_)
            | Error::Held { .. }
            | Error::LeaseLost { .. }
            | Error::LeaseUnrenewed { .. } => exit::CONFLICT,
            Error::Untrusted { .. } => exit::UNTRUSTED,
            _ => exit::FAILED,
        }
    }

    /// A next step for the user, printed as `hint: ...` under the error.
    pub fn hint(&self) -> Option<String> {
        if let Some(hint) = pool::hint(self) {
            return Some(hint);
        }
        Some(match self {
            Error::InvalidNodeId { .. } => {
                "a node id is 1 to 128 characters of A-Z a-z 0-9 _ - . starting with a letter, digit or _"
                    .into()
            }
            Error::RunNotFound(_) | Error::RunNotFoundNear { .. } | Error::AmbiguousRun { .. } => {
                "list runs with `git fabro ps --all`".into()
            }
            Error::NoCurrentRun => {
                "pass --run RUN, set FABRO_RUN_ID, or run the command inside a run's worktree".into()
            }
            Error::NoWorkspace { run, situation } | Error::NoRunDir { run, situation } => {
                situation.without_worktree(run)
            }
            Error::WrongStatus {
                run,
                situation,
                needs,
                ..
            } => situation.next_step(run, *needs),
            Error::Unfinished { run, situation } => situation.next_step(run, Needs::Ended),
            Error::InTheWay { run, .. } => {
                format!("move it aside (it may hold work), then `git fabro resume {run}` again")
            }
            Error::LandConflict { run, .. } => format!(
                "merge it by hand with `git merge fabro/run/{run}`, or apply the run's final.patch and resolve"
            ),
            Error::ChangesInTheWay { run, .. } => format!(
                "commit them, or set them aside with `git stash`, then `git fabro land {run}` again"
            ),
            Error::WorkflowChanged { run, path, .. } => format!(
                "`git fabro resume {run} --workflow {} --force` resumes it under that workflow anyway",
                path.display()
            ),
            Error::CheckedOutHere {
                run,
                remote,
                path,
                in_place: false,
            } => format!(
                "remove that worktree with `git worktree remove {}` (it refuses while files there hold changes no checkpoint took), then `git fabro fetch {remote} {run}`",
                path.display()
            ),
            // Nothing takes a run in place out of the checkout it works in but its end, which
            // writes its record here, and the two records would then diverge.
            Error::CheckedOutHere { run, .. } => format!(
                "a fetch cannot move its branch under the files it works in: go on with it in the clone where it moved on; `git fabro status {run}` says where it stands here"
            ),
            Error::NoWorkflow { run } => {
                format!("`git fabro log {run}` lists its checkpoints")
            }
            Error::NothingToUndo { run } => format!(
                "`git fabro restore --run {run} --list` lists the recovery points each undo kept: restoring one redoes it"
            ),
            Error::TargetNotFound { run, .. } => {
                format!("list the run's checkpoints with `git fabro log {run}`")
            }
            Error::AmbiguousTarget(_) => {
                "list the run's checkpoints with `git fabro log RUN`".into()
            }
            Error::Git(crate::git::Error::NotARepository(_)) => "run it inside a git repository, or pass -C DIR".into(),
            Error::Conflict(_) => "another git-fabro process changed the run at the same time; retry".into(),
            Error::Held { pid, command, .. } => {
                let which = match command {
                    Some(command) => format!("process {pid} ({command})"),
                    None => format!("process {pid}"),
                };
                format!("{which} is working on the run: wait for it to end, or stop it with `kill {pid}`")
            }
            Error::Untrusted { run, .. } => format!(
                "read the workflow and its changes above; `git fabro resume {run} --trust` runs it and remembers the approval"
            ),
            Error::Corrupt(_) => "`git fabro fsck` lists what is wrong and repairs what it can".into(),
            Error::Refused(text) if text.contains("fetch first") || text.contains("non-fast-forward") => {
                "the remote has commits this clone lacks: `git fabro fetch` the run, or push it under a fork".into()
            }
            Error::RecordTooLarge { .. } => {
                "what makes it large is the workflow, the goal or values a node put into the context: keep large texts in files the nodes read".into()
            }
            Error::UnsafePath { .. } => {
                "git-fabro never records such a path: the run came from another clone or was built by hand; `git fabro fsck` lists every run that holds one".into()
            }
            _ => return None,
        })
    }

    /// The same error, naming `place` (a checkpoint, say) instead of a bare tree.
    pub(crate) fn at(self, place: impl Into<String>) -> Error {
        match self {
            Error::UnsafePath { path, reason, .. } => Error::UnsafePath {
                place: place.into(),
                path,
                reason,
            },
            other => other,
        }
    }

    /// The same error, naming run `run` when it is a conflict or a held lock, whose message
    /// names only refs.
    pub(crate) fn in_run(self, run: &impl std::fmt::Display) -> Error {
        match self {
            Error::Conflict(text) => Error::Conflict(format!("run {run}: {text}")),
            Error::Busy(text) if !text.starts_with("run ") => {
                Error::Busy(format!("run {run}: {text}"))
            }
            other => other,
        }
    }

    pub(crate) fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> Error {
        let context = context.into();
        move |source| Error::Io { context, source }
    }
}

/// Each thing the repository layer can report becomes what it means here; only what has no
/// meaning of its own stays a git error.
impl From<crate::git::Error> for Error {
    fn from(err: crate::git::Error) -> Error {
        use crate::git::Error as Git;
        match err {
            Git::Conflict(text) => Error::Conflict(text),
            Git::Busy(text) => Error::Busy(text),
            Git::Usage(text) => Error::Usage(text),
            Git::Corrupt(text) => Error::Corrupt(text),
            Git::UnsafePath {
                place,
                path,
                reason,
            } => Error::UnsafePath {
                place,
                path,
                reason,
            },
            // `land` names the run whose landing goes on once they are aside.
            other @ Git::InTheWay { .. } => Error::Failed(other.to_string()),
            Git::Failed(text) => Error::Failed(text),
            Git::Io { context, source } => Error::Io { context, source },
            other @ (Git::NotARepository(_) | Git::Gix(_)) => Error::Git(other),
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
