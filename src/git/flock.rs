//! Advisory locks (`flock`) that the kernel releases the moment their process dies, however it
//! dies. A file or a pid can outlive the process that wrote it; a held `flock` cannot. This is
//! how git-fabro tells a live writer or run holder from one a kill left behind, without
//! trusting a pid (which the system reuses) or an age (which a stalled process exceeds).

use std::fs::File;
use std::io;
use std::path::Path;
use std::time::{Duration, Instant};

/// An exclusive advisory lock on an open file, held until this value is dropped or the
/// process ends.
#[derive(Debug)]
pub(crate) struct Flock {
    file: File,
}

impl Flock {
    /// Locks `path` (created if missing) at once, or `None` while another process holds it.
    pub(crate) fn try_acquire(path: &Path) -> io::Result<Option<Flock>> {
        let file = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        Flock::try_lock(file)
    }

    /// Locks the already open `file` at once, or `None` while another process holds it.
    pub(crate) fn try_lock(file: File) -> io::Result<Option<Flock>> {
        if sys::try_lock_exclusive(&file)? {
            Ok(Some(Flock { file }))
        } else {
            Ok(None)
        }
    }

    /// Locks `path`, waiting with backoff for a holder to let go, up to `bound`; `None` when
    /// the holder kept it that long.
    pub(crate) fn acquire(path: &Path, bound: Duration) -> io::Result<Option<Flock>> {
        let deadline = Instant::now() + bound;
        let mut pause = Duration::from_micros(200);
        loop {
            if let Some(lock) = Flock::try_acquire(path)? {
                return Ok(Some(lock));
            }
            if Instant::now() >= deadline {
                return Ok(None);
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(50));
        }
    }

    /// Like [`Flock::acquire`], making the lock file's directory when it is missing. The lock
    /// is tried first, so only the first locker in a fresh directory pays for making it.
    pub(crate) fn acquire_making_dir(path: &Path, bound: Duration) -> io::Result<Option<Flock>> {
        match Flock::acquire(path, bound) {
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir)?;
                }
                Flock::acquire(path, bound)
            }
            acquired => acquired,
        }
    }

    pub(crate) fn file(&self) -> &File {
        &self.file
    }
}

/// Whether a live process holds an advisory lock on `path` (a missing file is not held).
pub(crate) fn is_held(path: &Path) -> bool {
    let Ok(file) = File::open(path) else {
        return false;
    };
    // A shared lock is enough to learn that nobody holds an exclusive one; it is let go when
    // `file` closes at the end of this function.
    sys::try_lock_shared(&file).is_ok_and(|free| !free)
}

#[cfg(unix)]
mod sys {
    use rustix::fs::{FlockOperation, flock};
    use std::fs::File;
    use std::io;

    fn try_lock(file: &File, operation: FlockOperation) -> io::Result<bool> {
        match flock(file, operation) {
            Ok(()) => Ok(true),
            Err(rustix::io::Errno::WOULDBLOCK) => Ok(false),
            Err(err) => Err(err.into()),
        }
    }

    pub(crate) fn try_lock_exclusive(file: &File) -> io::Result<bool> {
        try_lock(file, FlockOperation::NonBlockingLockExclusive)
    }

    pub(crate) fn try_lock_shared(file: &File) -> io::Result<bool> {
        try_lock(file, FlockOperation::NonBlockingLockShared)
    }
}

/// Without `flock`, every lock is free: liveness falls back to what the callers check besides.
#[cfg(not(unix))]
mod sys {
    use std::fs::File;
    use std::io;

    pub(crate) fn try_lock_exclusive(_: &File) -> io::Result<bool> {
        Ok(true)
    }

    pub(crate) fn try_lock_shared(_: &File) -> io::Result<bool> {
        Ok(true)
    }
}
