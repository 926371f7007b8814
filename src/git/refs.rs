//! Ref moves, all compare-and-swap (FORMAT.md, rule 3): a ref is created only if absent and
//! updated or deleted only if it still holds the value that was read. Several edits go in one
//! transaction, so a checkpoint moves its metadata and run branches together or not at all.

use gix::refs::{
    FullName, Target,
    transaction::{Change, LogChange, PreviousValue, RefLog},
};

use super::{Identity, ObjectId, Repo};
use crate::error::{Error, Result};
use crate::time::Timestamp;

/// One compare-and-swap edit of a ref. Edits of one transaction are applied in the order
/// given, which callers use so that a crash between two of them leaves a state readers
/// tolerate (a run's branch before its metadata branch, the metadata before the run commit).
#[derive(Clone, Debug)]
pub enum RefEdit {
    Create {
        name: String,
        new: ObjectId,
    },
    /// Creates the ref, or accepts it if it already holds `new` (a retried creation).
    Ensure {
        name: String,
        new: ObjectId,
    },
    Update {
        name: String,
        old: ObjectId,
        new: ObjectId,
    },
    Delete {
        name: String,
        old: ObjectId,
    },
}

impl RefEdit {
    pub fn name(&self) -> &str {
        match self {
            RefEdit::Create { name, .. }
            | RefEdit::Ensure { name, .. }
            | RefEdit::Update { name, .. }
            | RefEdit::Delete { name, .. } => name,
        }
    }
}

impl Repo {
    /// The commit a ref points at, or `None` when it does not exist.
    pub fn ref_target(&self, name: &str) -> Result<Option<ObjectId>> {
        Ok(self
            .repo
            .try_find_reference(name)?
            .and_then(|r| r.target().try_id().map(ToOwned::to_owned)))
    }

    /// Every ref under `prefix` (which ends with `/`), as `(name after the prefix, target)`.
    pub fn refs_under(&self, prefix: &str) -> Result<Vec<(String, ObjectId)>> {
        let platform = self.repo.references()?;
        let mut out = Vec::new();
        for reference in platform.prefixed(prefix)? {
            let Ok(reference) = reference else { continue };
            let target = reference.target();
            let Some(id) = target.try_id().map(ToOwned::to_owned) else {
                continue;
            };
            let name = reference.name().as_bstr().to_string();
            if let Some(rest) = name.strip_prefix(prefix) {
                out.push((rest.to_owned(), id));
            }
        }
        Ok(out)
    }

    /// Applies `edits` as one transaction. A ref that moved, appeared or is locked by another
    /// process makes the whole transaction fail with a conflict that names it.
    pub fn update_refs(&self, edits: &[RefEdit], reflog: &str, who: &Identity) -> Result<()> {
        let signature = who.signature(Timestamp::now());
        let mut time = gix::date::parse::TimeBuf::default();
        let committer = signature.to_ref(&mut time);
        let attempt = || {
            self.repo
                .edit_references_as(to_gix(edits, reflog)?, Some(committer))
        };
        let result = match attempt() {
            Err(err) if is_lock_error(&err) && self.break_stale_locks(edits) => attempt(),
            other => other,
        };
        result.map_err(|err| {
            let text = super::describe(&err);
            if err.is_conflict() || is_lock_error(&err) || self.moved_meanwhile(edits) {
                let names: Vec<&str> = edits.iter().map(RefEdit::name).collect();
                Error::Conflict(format!(
                    "{} changed while this command ran ({text})",
                    names.join(" and ")
                ))
            } else {
                Error::Git(err)
            }
        })?;
        Ok(())
    }

    /// Whether a ref of `edits` no longer holds what the edit expects: deleted or created by
    /// another process, which gix reports as a failed precondition rather than a conflict.
    fn moved_meanwhile(&self, edits: &[RefEdit]) -> bool {
        edits.iter().any(|edit| {
            let Ok(now) = self.ref_target(edit.name()) else {
                return false;
            };
            match edit {
                RefEdit::Create { .. } => now.is_some(),
                RefEdit::Ensure { new, .. } => now.is_some_and(|now| now != *new),
                RefEdit::Update { old, .. } | RefEdit::Delete { old, .. } => now != Some(*old),
            }
        })
    }

    /// Removes lock files of `edits` that no live transaction can own: git-fabro holds a ref
    /// lock for microseconds, so one older than [`STALE_LOCK`] was left by a killed process.
    /// Returns whether any was removed.
    fn break_stale_locks(&self, edits: &[RefEdit]) -> bool {
        let common = self.common_dir();
        let mut broken = false;
        for edit in edits {
            let lock = common.join(format!("{}.lock", edit.name()));
            let age = std::fs::metadata(&lock)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok());
            if age.is_some_and(|age| age >= STALE_LOCK) && std::fs::remove_file(&lock).is_ok() {
                broken = true;
            }
        }
        broken
    }
}

impl Repo {
    /// Lock files under `refs/<dir>` old enough to have been left by a killed process.
    pub fn stale_ref_locks(&self, dir: &str) -> Vec<std::path::PathBuf> {
        let mut found = Vec::new();
        let mut pending = vec![self.common_dir().join("refs").join(dir)];
        while let Some(dir) = pending.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    pending.push(path);
                } else if path.extension().is_some_and(|e| e == "lock") {
                    let age = entry
                        .metadata()
                        .and_then(|m| m.modified())
                        .ok()
                        .and_then(|t| t.elapsed().ok());
                    if age.is_some_and(|age| age >= STALE_LOCK) {
                        found.push(path);
                    }
                }
            }
        }
        found
    }
}

/// How old a lock on one of git-fabro's refs must be to count as left behind by a crash.
pub const STALE_LOCK: std::time::Duration = std::time::Duration::from_secs(5);

fn is_lock_error(err: &gix::Error) -> bool {
    super::describe(err).contains("lock")
}

fn to_gix(edits: &[RefEdit], reflog: &str) -> gix::Result<Vec<gix::refs::transaction::RefEdit>> {
    let mut out = Vec::with_capacity(edits.len());
    for edit in edits {
        let log = LogChange {
            mode: RefLog::AndReference,
            force_create_reflog: false,
            message: reflog.into(),
        };
        let change = match edit {
            RefEdit::Create { new, .. } => Change::Update {
                log,
                expected: PreviousValue::MustNotExist,
                new: Target::Object(*new),
            },
            RefEdit::Ensure { new, .. } => Change::Update {
                log,
                expected: PreviousValue::ExistingMustMatch(Target::Object(*new)),
                new: Target::Object(*new),
            },
            RefEdit::Update { old, new, .. } => Change::Update {
                log,
                expected: PreviousValue::MustExistAndMatch(Target::Object(*old)),
                new: Target::Object(*new),
            },
            RefEdit::Delete { old, .. } => Change::Delete {
                expected: PreviousValue::MustExistAndMatch(Target::Object(*old)),
                log: RefLog::AndReference,
            },
        };
        let name = FullName::try_from(edit.name()).map_err(gix::Error::from_error)?;
        out.push(gix::refs::transaction::RefEdit {
            change,
            name,
            deref: false,
        });
    }
    Ok(out)
}
