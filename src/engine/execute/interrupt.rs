//! Ctrl-C and SIGTERM while the engine runs: the signal only raises a flag, and the engine
//! looks at it where it can stop cleanly (between stages, while a script or a wait or a human
//! gate is under way). A stopped node is not checkpointed, so nothing half-recorded survives,
//! and the run is left paused for `git fabro resume`.
//!
//! One signal is one request, however many copies of it arrive. `git fabro` runs git-fabro
//! under git, which passes each signal it gets on to its child: Ctrl-C at a terminal reaches
//! both, and so does a `timeout` (or a CI runner) signalling their process group, so
//! git-fabro gets the same request twice, a moment apart. Copies that arrive within
//! [`COPIES`] of the first count as it. A signal after that, for an engine that does not stop
//! (a node that ignores SIGTERM, a stuck git call), ends the process at once, after stopping
//! every node's process group: refs move by compare-and-swap after their objects are
//! written, so that leaves nothing half-written, and no node is left working unwatched.

use std::io::Read;
use std::os::unix::net::UnixStream;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

static REQUESTED: AtomicBool = AtomicBool::new(false);
static INSTALLED: OnceLock<()> = OnceLock::new();

/// How often a wait looks at the flag.
const POLL: Duration = Duration::from_millis(50);

/// How long after a signal its copies may arrive: git passes a signal on at once, but a
/// loaded machine may run its handler late.
const COPIES: Duration = Duration::from_millis(500);

/// Exit code of a second signal, which ends the process at once.
const SECOND_SIGNAL_EXIT: i32 = 130;

/// Routes SIGINT and SIGTERM to the flag for the rest of the process. The handler only writes
/// a byte to a socket; a thread of its own reads them and decides, so that a process whose
/// engine is stuck still stops its nodes and ends on a second request.
pub fn install() -> Result<()> {
    if INSTALLED.get().is_some() {
        return Ok(());
    }
    let cannot = || Error::io("cannot handle Ctrl-C");
    let (mut signals, handler_end) = UnixStream::pair().map_err(cannot())?;
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        let end = handler_end.try_clone().map_err(cannot())?;
        signal_hook::low_level::pipe::register(signal, end).map_err(cannot())?;
    }
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || watch(&mut signals))
        .map_err(cannot())?;
    let _ = INSTALLED.set(());
    Ok(())
}

/// Reads one byte per signal: the first raises the flag, its copies count as it, and a later
/// one ends the process.
fn watch(signals: &mut UnixStream) {
    let mut first: Option<Instant> = None;
    let mut byte = [0u8; 1];
    while matches!(signals.read(&mut byte), Ok(1)) {
        match first {
            None => {
                first = Some(Instant::now());
                REQUESTED.store(true, Ordering::Relaxed);
            }
            Some(at) if at.elapsed() < COPIES => {}
            Some(_) => {
                crate::process::stop_every_group();
                std::process::exit(SECOND_SIGNAL_EXIT);
            }
        }
    }
}

/// Raises the flag as a signal would: a worker that lost its lease stops its engine so.
pub fn request() {
    REQUESTED.store(true, Ordering::Relaxed);
}

/// Whether Ctrl-C or SIGTERM arrived since [`install`].
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}

/// Sleeps for `duration`, or less when an interruption arrives or the run stalls (a wait is
/// no activity: Fabro's watchdog fires during a long backoff too).
pub fn sleep(duration: Duration) {
    let deadline = Instant::now() + duration;
    while !requested() && !super::watchdog::stalled() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return;
        }
        std::thread::sleep(left.min(POLL));
    }
}
