//! The git layer's errors. A conflict with another process is told apart here, from gix's own
//! classification of its errors, never from message text; the layers above turn each variant
//! into the domain's error and its exit code.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("not a git repository: {}", .0.display())]
    NotARepository(PathBuf),
    /// A ref moved, appeared or vanished under a compare-and-swap.
    #[error("{0}")]
    Conflict(String),
    /// Another process holds what was needed (a ref lock, a checkout under way).
    #[error("{0}")]
    Busy(String),
    /// What the caller named is not there or cannot be used (a revision, a path, a remote).
    #[error("{0}")]
    Usage(String),
    /// An object in the repository is not what it must be.
    #[error("{0}")]
    Corrupt(String),
    /// A tree holds a path that git's checkout refuses to write.
    #[error("{place} holds an unsafe path {path:?}: {reason}")]
    UnsafePath {
        place: String,
        path: String,
        reason: String,
    },
    /// Changes of the user's in the work tree `workdir` that a checkout would overwrite.
    #[error("changes of yours in {} are in the way: {changes}", workdir.display())]
    InTheWay { workdir: PathBuf, changes: String },
    #[error("{0}")]
    Failed(String),
    #[error("{context}: {source}")]
    Io {
        context: String,
        source: std::io::Error,
    },
    #[error("{}", describe(.0))]
    Gix(gix::Error),
}

impl Error {
    /// An object gix could not find. In a repository just read, it is one that `git gc`
    /// moved from a loose file into a new pack in between: gix checks that a loose object
    /// exists before it opens it, and does not look at the packs again when the file is gone
    /// by then. Reading again finds it.
    pub(crate) fn is_vanished_object(&self) -> bool {
        matches!(self, Error::Gix(err) if err.is_not_found())
    }

    pub(crate) fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> Error {
        let context = context.into();
        move |source| Error::Io { context, source }
    }
}

/// gix says by class whether an error is a conflict (a ref that moved) or a lock another
/// process holds; everything else stays gix's own.
impl From<gix::Error> for Error {
    fn from(err: gix::Error) -> Error {
        if err.is_conflict() {
            Error::Conflict(describe(&err))
        } else if err.is_retryable() {
            Error::Busy(describe(&err))
        } else {
            Error::Gix(err)
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An error and its causes on one line, each cause once (gix repeats context in its chains).
pub(crate) fn describe(err: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut next = Some(err);
    while let Some(cause) = next {
        let text = cause.to_string();
        if !text.is_empty() && !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        next = cause.source();
    }
    parts.join(": ")
}
