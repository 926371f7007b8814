//! Waiting for a child to exit without polling it on a timer. A node's `true` takes about a
//! millisecond; a wait that sleeps 10 ms between looks makes it cost ten. On Linux the wait
//! blocks on a pidfd, which becomes readable the moment the child exits (or a signal, such as
//! Ctrl-C, interrupts it); elsewhere it sleeps in steps that start short and grow.

use std::process::Child;
use std::time::Duration;

/// Wakes its owner when the child it watches exits, or after at most the time asked.
pub struct ExitWait {
    #[cfg(target_os = "linux")]
    pidfd: Option<rustix::fd::OwnedFd>,
    step: Duration,
}

/// Where no pidfd can be had: the first sleep; each next one is twice as long, up to the last.
const FIRST_STEP: Duration = Duration::from_micros(250);
const LAST_STEP: Duration = Duration::from_millis(20);

impl ExitWait {
    pub fn new(child: &Child) -> ExitWait {
        ExitWait {
            #[cfg(target_os = "linux")]
            pidfd: i32::try_from(child.id())
                .ok()
                .and_then(rustix::process::Pid::from_raw)
                .and_then(|pid| {
                    rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()).ok()
                }),
            step: FIRST_STEP,
        }
    }

    /// Returns once the child has exited, a signal arrived, or `at_most` has passed, whichever
    /// comes first; the caller then looks at the child, its flags and its clock.
    pub fn wait(&mut self, at_most: Duration) {
        #[cfg(target_os = "linux")]
        if let Some(pidfd) = &self.pidfd {
            use rustix::event::{PollFd, PollFlags, Timespec, poll};
            // Bounded, so the conversion cannot fail.
            if let Ok(timeout) = Timespec::try_from(at_most.min(LAST_STEP)) {
                let mut fds = [PollFd::new(pidfd, PollFlags::IN)];
                // An error (EINTR from a signal) is a wake-up like any other.
                let _ = poll(&mut fds, Some(&timeout));
                return;
            }
        }
        std::thread::sleep(self.step.min(at_most));
        self.step = (self.step * 2).min(LAST_STEP);
    }
}
