//! Every process git-fabro starts that is not git, and what it knows of other processes: the
//! shells of nodes and agents start here, and process groups, signals and liveness are decided
//! here once, with system calls (rustix) rather than the `kill` program. `src/git/` starts git
//! itself and takes from here what it needs of groups and liveness.

mod group;
mod liveness;
mod shell;

pub use group::own_group;
pub use liveness::{command_line, is_alive, is_alive_since};
pub use shell::{Ending, Shell, run_shell};
