//! The branch threads of one pass as a queue that can grow while they run: a pool run's holder
//! adds the branches it takes back from the remote, and asks how many threads are free before
//! it takes one, so that what it cannot run yet stays on offer for other workers.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard};

use super::branches::Branch;

pub(super) struct Slots<'b, 'g> {
    state: Mutex<State<'b, 'g>>,
    ready: Condvar,
    threads: usize,
}

struct State<'b, 'g> {
    queue: VecDeque<&'b Branch<'g>>,
    running: usize,
    /// No branch is added any more: a thread that finds the queue empty ends.
    closed: bool,
}

impl<'b, 'g> Slots<'b, 'g> {
    pub fn new(branches: &[&'b Branch<'g>], threads: usize, closed: bool) -> Self {
        Slots {
            state: Mutex::new(State {
                queue: branches.iter().copied().collect(),
                running: 0,
                closed,
            }),
            ready: Condvar::new(),
            threads,
        }
    }

    /// The next branch for a thread, waiting for one while the queue may still grow; `None`
    /// once it is closed and empty. Each branch taken must be followed by [`Slots::done`].
    pub fn next(&self) -> Option<&'b Branch<'g>> {
        let mut state = self.lock();
        loop {
            if let Some(branch) = state.queue.pop_front() {
                state.running += 1;
                return Some(branch);
            }
            if state.closed {
                return None;
            }
            state = self.ready.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// A thread finished the branch it took.
    pub fn done(&self) {
        self.lock().running -= 1;
    }

    pub fn push(&self, branch: &'b Branch<'g>) {
        self.lock().queue.push_back(branch);
        self.ready.notify_one();
    }

    pub fn close(&self) {
        self.lock().closed = true;
        self.ready.notify_all();
    }

    /// Threads that would have nothing to run.
    pub fn free(&self) -> usize {
        let state = self.lock();
        self.threads
            .saturating_sub(state.running + state.queue.len())
    }

    fn lock(&self) -> MutexGuard<'_, State<'b, 'g>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}
