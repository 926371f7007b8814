//! The processes of nodes, as [`crate::process::run_shell`] runs them (own process group,
//! allowlisted environment, output streamed to files, the group stopped when the node ends),
//! stopped also when the engine is interrupted ([`super::interrupt`]).

use std::io;

pub use crate::process::{Ending, Shell};

/// Runs a node's shell until it exits, times out or Ctrl-C stops it.
pub fn run_shell(shell: &Shell) -> io::Result<Ending> {
    crate::process::run_shell(shell, super::interrupt::requested)
}
