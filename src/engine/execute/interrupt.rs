//! Ctrl-C and SIGTERM while the engine runs: the signal only raises a flag, and the engine
//! looks at it where it can stop cleanly (between stages, while a script or a wait or a human
//! gate is under way). A stopped node is not checkpointed, so nothing half-recorded survives,
//! and the run is left paused for `git fabro resume`.

use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

static REQUESTED: OnceLock<Arc<AtomicBool>> = OnceLock::new();

/// How often a wait looks at the flag.
const POLL: Duration = Duration::from_millis(50);

/// Exit code of a second signal, which ends the process at once.
const SECOND_SIGNAL_EXIT: i32 = 130;

/// Routes SIGINT and SIGTERM to the flag for the rest of the process. A second one, for an
/// engine that does not stop (a stuck git call), ends the process at once: its refs move by
/// compare-and-swap after their objects are written, so that leaves nothing half-written.
pub fn install() -> Result<()> {
    let flag = REQUESTED.get_or_init(|| Arc::new(AtomicBool::new(false)));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        // Registered first, so it sees the flag as the previous signal left it.
        signal_hook::flag::register_conditional_shutdown(
            signal,
            SECOND_SIGNAL_EXIT,
            Arc::clone(flag),
        )
        .map_err(Error::io("cannot handle Ctrl-C"))?;
        signal_hook::flag::register(signal, Arc::clone(flag))
            .map_err(Error::io("cannot handle Ctrl-C"))?;
    }
    Ok(())
}

/// Whether Ctrl-C or SIGTERM arrived since [`install`].
pub fn requested() -> bool {
    REQUESTED
        .get()
        .is_some_and(|flag| flag.load(Ordering::Relaxed))
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
