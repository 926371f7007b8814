//! Every process git-fabro starts that is not git, and what it knows of other processes: the
//! shells of nodes and agents start here, and process groups, signals and liveness are decided
//! here once, with system calls (rustix) rather than the `kill` program. `src/git/` starts git
//! itself and takes from here what it needs of groups and liveness.
//!
//! Children stand in one of two relations to the terminal:
//! - a node's shell leads a group of its own ([`run_shell`]): the terminal's Ctrl-C reaches
//!   git-fabro alone, which stops the whole group when it decides to (git's detached
//!   `gc --auto` has its own group too, [`own_group`], so that Ctrl-C does not stop it);
//! - the command of `resume -- COMMAND` and the pager share git-fabro's group and terminal
//!   ([`run_in_foreground`], [`spawn_on_terminal`]): the terminal's signals reach them as
//!   they would reach them started from the shell, and git-fabro waits for them rather than
//!   go first.

mod exit_wait;
mod foreground;
mod group;
mod liveness;
mod shell;

pub use foreground::{run_in_foreground, spawn_on_terminal};
pub use group::{own_group, stop_every_group};
pub use liveness::{command_line, is_alive, is_alive_since, name_and_parent};
pub use shell::{Ending, Shell, run_shell};
