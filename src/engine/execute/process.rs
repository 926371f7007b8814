//! The processes of nodes, as [`crate::process::run_shell`] runs them (own process group,
//! allowlisted environment, output streamed to files, the group stopped when the node ends),
//! stopped also when the engine is interrupted ([`super::interrupt`]) or its stall watchdog
//! fires ([`super::watchdog`]: the node's output counts as activity).

use std::io;

pub use crate::process::{Ending, Shell};

/// Runs a node's shell until it exits, times out, Ctrl-C stops it or it stalls.
pub fn run_shell(shell: &Shell) -> io::Result<Ending> {
    let output = super::watchdog::Output::new(&shell.stdout, &shell.stderr);
    crate::process::run_shell(shell, || super::interrupt::requested() || output.stalled())
}
