//! Fabro's stall watchdog: a run whose engine shows no activity for the graph's
//! `stall_timeout` (30 minutes by default; `0s` turns it off) fails with `stall watchdog: node
//! "<id>" had no activity for <N>s` and a `watchdog.timeout` event. Activity is any event the
//! engine records and any output a node's process writes, so a silent script or agent that
//! hangs is stopped (its process group with it) while a chatty one runs on.
//!
//! The watch is looked at where the engine waits (a node's process, a retry's backoff, a wait
//! node): a person taking their time at a human gate is not a stall. It is one per process,
//! armed by the run at the top; a manager loop's child runs under its parent's.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::engine::graph::Graph;

/// Fabro's default `stall_timeout`.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30 * 60);

struct Watch {
    timeout: Duration,
    last: Instant,
}

static WATCH: Mutex<Option<Watch>> = Mutex::new(None);
static FIRED: AtomicBool = AtomicBool::new(false);

/// The graph's `stall_timeout`; None when it is zero.
pub fn timeout(graph: &Graph) -> Option<Duration> {
    match graph
        .attrs()
        .get("stall_timeout")
        .and_then(|v| v.as_duration())
    {
        Some(d) if d.is_zero() => None,
        Some(d) => Some(d),
        None => Some(DEFAULT_TIMEOUT),
    }
}

/// Starts watching for the run of `graph`.
pub fn arm(graph: &Graph) {
    let watch = timeout(graph).map(|timeout| Watch {
        timeout,
        last: Instant::now(),
    });
    *lock() = watch;
    FIRED.store(false, Ordering::Relaxed);
}

/// Something happened: the watch starts over.
pub fn touch() {
    if let Some(watch) = lock().as_mut() {
        watch.last = Instant::now();
    }
}

/// Whether nothing happened for the whole timeout; once true, it stays true.
pub fn stalled() -> bool {
    if FIRED.load(Ordering::Relaxed) {
        return true;
    }
    let stalled = lock()
        .as_ref()
        .is_some_and(|watch| watch.last.elapsed() >= watch.timeout);
    if stalled {
        FIRED.store(true, Ordering::Relaxed);
    }
    stalled
}

/// Whether the watchdog fired during the run.
pub fn fired() -> bool {
    FIRED.load(Ordering::Relaxed)
}

/// The message the run fails with, and the idle time Fabro reports, in whole seconds.
pub fn failure(node: &str) -> (String, u64) {
    let idle = lock().as_ref().map_or(0, |watch| watch.timeout.as_secs());
    let message = format!("stall watchdog: node \"{node}\" had no activity for {idle}s");
    (message, idle)
}

fn lock() -> std::sync::MutexGuard<'static, Option<Watch>> {
    WATCH.lock().unwrap_or_else(|e| e.into_inner())
}

/// A node's output files: growing is activity.
pub struct Output {
    paths: [PathBuf; 2],
    size: Mutex<u64>,
}

impl Output {
    pub fn new(stdout: &Path, stderr: &Path) -> Output {
        Output {
            paths: [stdout.to_owned(), stderr.to_owned()],
            size: Mutex::new(0),
        }
    }

    /// Whether the run stalled, counting output written since the last look as activity.
    pub fn stalled(&self) -> bool {
        let size: u64 = self
            .paths
            .iter()
            .map(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
            .sum();
        let mut seen = self.size.lock().unwrap_or_else(|e| e.into_inner());
        if size != *seen {
            *seen = size;
            touch();
        }
        stalled()
    }
}
