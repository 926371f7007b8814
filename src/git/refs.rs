//! Ref moves, all compare-and-swap (FORMAT.md, rule 3): a ref is created only if absent and
//! updated or deleted only if it still holds the value that was read. Several edits go in one
//! transaction, so a checkpoint moves its metadata and run branches together or not at all.

use gix::refs::{
    FullName, Target,
    transaction::{Change, LogChange, PreviousValue, RefLog},
};

use std::time::Duration;

use gix::lock::acquire::Fail;

use super::ref_writer::RefWriter;
use super::{Identity, ObjectId, Repo};
use crate::git::error::{Error, Result};

const PACKED_LOCK: &str = "packed-refs.lock";

/// One compare-and-swap edit of a ref. Edits of one transaction are applied in the order
/// given, which callers use so that a crash between two of them leaves a state readers
/// tolerate (a run's branch before its metadata branch, the metadata before the run commit).
#[derive(Clone, Debug)]
pub(crate) enum RefEdit {
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
    pub(crate) fn name(&self) -> &str {
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
    pub(crate) fn ref_target(&self, name: &str) -> Result<Option<ObjectId>> {
        Ok(self
            .repo
            .try_find_reference(name)?
            .and_then(|r| r.target().try_id().map(ToOwned::to_owned)))
    }

    /// Every ref under `prefix` (which ends with `/`), as `(name after the prefix, target)`.
    pub(crate) fn refs_under(&self, prefix: &str) -> Result<Vec<(String, ObjectId)>> {
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

    /// Applies `edits` as one transaction. A ref that moved or appeared makes the whole
    /// transaction fail with a conflict that names it. The transaction runs under the ref
    /// writer lock (ref_writer.rs), which clears what a killed writer left; a lock file another
    /// process holds (git's own) is waited for as git waits (`core.filesRefLockTimeout`,
    /// `core.packedRefsTimeout`), then named, never broken.
    /// After the write, every ref is read back, so a lock removed under this process (by hand,
    /// or by a repair that took it for stale) cannot let it report a write another one undid.
    pub(crate) fn update_refs(
        &self,
        edits: &[RefEdit],
        reflog: &str,
        who: &Identity,
    ) -> Result<()> {
        let signature = who.signature_now();
        let mut time = gix::date::parse::TimeBuf::default();
        let committer = signature.to_ref(&mut time);
        let writer = self.ref_writer()?;
        let attempt = || self.transact(&writer, edits, reflog, committer);
        let result = match attempt()? {
            // gix keeps packed-refs in memory while its file's mtime stays the same, and a
            // `git pack-refs` (run by git gc) can rewrite it within the same mtime tick: a ref
            // just moved into it then reads as an older value. Reread packed-refs and try the
            // compare-and-swap once more; a ref that really moved fails it again. (With no
            // packed-refs file there is nothing to reread, and the refresh reports that.)
            Err(err) if err.is_conflict() => {
                let _ = self.repo.refs.force_refresh_packed_buffer();
                attempt()?
            }
            // `git pack-refs --prune` (run by git gc) removes a ref's emptied directory, and
            // can do so between the creation of that directory and of the lock file in it:
            // the lock then fails with "not found". Git tries again in that case; so does
            // this, a few times.
            Err(err) if lost_its_directory(&err) => {
                let mut result = attempt()?;
                for _ in 0..DIRECTORY_RETRIES {
                    match &result {
                        Err(err) if lost_its_directory(err) => result = attempt()?,
                        _ => break,
                    }
                }
                result
            }
            other => other,
        };
        writer.release();
        result.map_err(|err| {
            // gix classifies a lock another process holds as retryable.
            // The messages name the refs and what happened to them; gix's own wording of
            // the failed precondition says nothing more to a user.
            if err.is_retryable() {
                Error::Busy(self.describe_held_locks(edits))
            } else if err.is_conflict() || self.moved_meanwhile(edits) {
                let names: Vec<&str> = edits.iter().map(RefEdit::name).collect();
                Error::Conflict(format!(
                    "{} changed while this command ran: another process wrote {} first, so \
                     this command wrote nothing",
                    names.join(" and "),
                    if names.len() == 1 { "it" } else { "them" }
                ))
            } else {
                Error::Gix(err)
            }
        })?;
        self.confirm_written(edits)
    }

    /// One try at the transaction, its lock files recorded in the writer lock as gix takes
    /// them. The outer error is the record's, the inner one gix's.
    fn transact(
        &self,
        writer: &RefWriter,
        edits: &[RefEdit],
        reflog: &str,
        committer: gix::actor::SignatureRef<'_>,
    ) -> Result<gix::Result<()>> {
        let common = self.common_dir();
        let mut locks: Vec<std::path::PathBuf> = edits
            .iter()
            .map(|edit| common.join(format!("{}.lock", edit.name())))
            .collect();
        // gix takes packed-refs.lock for a deletion, for any edit while packed-refs exists (to
        // read it under its lock), and for any edit while the lock file is there (waiting for
        // its holder first).
        let deletes = edits.iter().any(|e| matches!(e, RefEdit::Delete { .. }));
        let packed_lock = common.join(PACKED_LOCK);
        let packed_before = common.join("packed-refs").exists();
        let mut intended = locks.clone();
        if deletes || packed_before || packed_lock.exists() {
            intended.push(packed_lock.clone());
        }
        writer.intend(&intended)?;
        // While packed-refs exists, the lock file there is certainly this process's once gix
        // prepared; otherwise it may be git's, and stays only intended.
        let (ref_files, packed_refs) = self.lock_modes();
        let prepared = to_gix(edits, reflog).and_then(|edits| {
            self.repo
                .refs
                .transaction()
                .prepare(edits, ref_files, packed_refs)
        });
        let transaction = match prepared {
            Ok(transaction) => transaction,
            Err(err) => return Ok(Err(err)),
        };
        if packed_before && common.join("packed-refs").exists() {
            locks.push(packed_lock);
        }
        writer.confirm(&locks)?;
        crate::failpoint::reach("refs:locked");
        Ok(transaction.commit(Some(committer)).map(drop))
    }

    /// How long to wait for a lock file another process holds, as git and gix read it from
    /// `core.filesRefLockTimeout` and `core.packedRefsTimeout` (milliseconds; negative waits
    /// without end). Unset, both wait 3 s, longer than git's 100 ms and 1 s: a git-fabro ref
    /// update records work already done (a node that ran), and a `git gc` beside it on a busy
    /// machine can hold `packed-refs.lock` past git's second.
    fn lock_modes(&self) -> (Fail, Fail) {
        let config = self.repo.config_snapshot();
        let mode = |key: &str, default: i64| match config.integer(key).unwrap_or(default) {
            0 => Fail::Immediately,
            ms if ms < 0 => Fail::AfterDurationWithBackoff(Duration::from_secs(24 * 3600)),
            ms => Fail::AfterDurationWithBackoff(Duration::from_millis(ms.unsigned_abs())),
        };
        (
            mode("core.filesRefLockTimeout", FOREIGN_LOCK_WAIT_MS),
            mode("core.packedRefsTimeout", FOREIGN_LOCK_WAIT_MS),
        )
    }

    /// Refuses (`Busy`) while a lock file holds one of `names`: a process about to do work
    /// that only a ref update records (the engine before a node) asks first, so that a lock
    /// held for good does not cost the work. What a killed git-fabro writer left is cleared
    /// here, and another process's lock is waited for as a ref update would.
    pub(crate) fn ensure_unlocked(&self, names: &[&str]) -> Result<()> {
        let _writer = self.ref_writer()?;
        let wait = match self.lock_modes() {
            (_, Fail::AfterDurationWithBackoff(packed)) => packed,
            (Fail::AfterDurationWithBackoff(files), Fail::Immediately) => files,
            (Fail::Immediately, Fail::Immediately) => Duration::ZERO,
        };
        let deadline = std::time::Instant::now() + wait;
        let mut pause = Duration::from_millis(1);
        loop {
            match self.held_locks(names) {
                None => return Ok(()),
                Some(message) if std::time::Instant::now() >= deadline => {
                    return Err(Error::Busy(message));
                }
                Some(_) => {}
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(50));
        }
    }

    /// Names the lock files that stopped `edits`, and says how to clear one a killed process left.
    fn describe_held_locks(&self, edits: &[RefEdit]) -> String {
        let names: Vec<&str> = edits.iter().map(RefEdit::name).collect();
        self.held_locks(&names).unwrap_or_else(|| {
            format!(
                "{} is locked by another process; retry in a moment",
                names.join(" or ")
            )
        })
    }

    /// What holds `names` locked, if a lock file does.
    fn held_locks(&self, names: &[&str]) -> Option<String> {
        let common = self.common_dir();
        let mut held = Vec::new();
        let mut stale = false;
        for lock in names
            .iter()
            .map(|name| common.join(format!("{name}.lock")))
            .chain([common.join("packed-refs.lock")])
        {
            if let Some(age) = lock_age(&lock) {
                stale |= age >= STALE_LOCK;
                held.push(lock.display().to_string());
            }
        }
        if held.is_empty() {
            return None;
        }
        let advice = if stale {
            "; git-fabro clears the locks its own killed commands leave, so a git command holds it or left it: \
             if no git command is working on this repository, `git fabro fsck --repair` removes it"
        } else {
            "; another process is writing it, retry in a moment"
        };
        Some(format!("{} is locked{advice}", held.join(" and ")))
    }

    /// Reads every edited ref back: each must hold what was written, or a descendant that a
    /// later writer committed on top of it (a checkpoint racing right behind this one).
    fn confirm_written(&self, edits: &[RefEdit]) -> Result<()> {
        for edit in edits {
            let now = self.ref_target(edit.name())?;
            let holds = match edit {
                RefEdit::Create { new, .. }
                | RefEdit::Ensure { new, .. }
                | RefEdit::Update { new, .. } => now.is_some_and(|now| self.builds_on(now, *new)),
                RefEdit::Delete { .. } => now.is_none(),
            };
            if !holds {
                let found = now.map_or_else(|| "nothing".to_owned(), |id| id.to_string());
                return Err(Error::Conflict(format!(
                    "{} holds {found} right after this command wrote it: another process wrote it at the same time, so this write is not kept; check the run with `git fabro fsck`",
                    edit.name()
                )));
            }
        }
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

    /// Whether `ancestor` is `tip` or one of its nearest first parents.
    fn builds_on(&self, tip: ObjectId, ancestor: ObjectId) -> bool {
        const NEAR: usize = 64;
        // The usual answer needs no commit read: nothing moved the ref since this write.
        tip == ancestor
            || self
                .first_parents(tip)
                .take(NEAR)
                .map_while(|commit| commit.ok())
                .any(|commit| commit.id == ancestor)
    }
}

fn lock_age(lock: &std::path::Path) -> Option<std::time::Duration> {
    let modified = std::fs::metadata(lock).and_then(|m| m.modified()).ok()?;
    Some(modified.elapsed().unwrap_or_default())
}

impl Repo {
    /// Lock files under `refs/<dir>` old enough to have been left by a killed process.
    pub(crate) fn stale_ref_locks(&self, dir: &str) -> Vec<std::path::PathBuf> {
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
                } else if path.extension().is_some_and(|e| e == "lock")
                    && lock_age(&path).is_some_and(|age| age >= STALE_LOCK)
                {
                    found.push(path);
                }
            }
        }
        found
    }
}

/// How long a ref update waits for a lock file another process holds, unless git config says;
/// less than [`STALE_LOCK`], so that a lock it gave up on is not yet called stale.
const FOREIGN_LOCK_WAIT_MS: i64 = 3_000;

/// How old a lock on one of git-fabro's refs must be to count as left behind by a crash:
/// git-fabro holds one for microseconds.
pub(crate) const STALE_LOCK: std::time::Duration = std::time::Duration::from_secs(5);

/// How many more times a lock is tried when its directory vanished under it.
const DIRECTORY_RETRIES: usize = 8;

/// Whether the error is a directory removed while the lock file was being made in it: the
/// file was not found, or creating the directory again met one that exists (another process
/// made it in between) and gix gave up on it. A lock file another process holds is neither.
fn lost_its_directory(err: &gix::Error) -> bool {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(err);
    let mut exists = false;
    while let Some(err) = cause {
        exists |= err
            .downcast_ref::<std::io::Error>()
            .is_some_and(|err| err.kind() == std::io::ErrorKind::AlreadyExists);
        cause = err.source();
    }
    err.is_not_found() || (exists && !err.is_retryable())
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
