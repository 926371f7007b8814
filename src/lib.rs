//! git-fabro checkpoints workflow runs in git.
//!
//! A run has two branches. The run branch `fabro/run/<id>` holds the work product, one commit
//! per completed node; the orphan metadata branch `fabro/meta/<id>` holds the execution state
//! (`run.json`, the workflow graph, one folder per stage). Each run commit names its metadata
//! commit in a `Fabro-Checkpoint` trailer, so a timeline is rebuilt from git alone on any clone.
//!
//! `git` is the only door to the repository; the other modules are plain functions over typed
//! data, and `cli` turns them into the `git fabro` command.

pub mod checkpoint;
pub mod cli;
pub mod config;
pub mod error;
pub mod finish;
pub mod fork;
pub mod fsck;
pub mod gc;
pub mod git;
pub mod hooks;
pub mod inspect;
pub mod lifecycle;
pub mod message;
pub mod node;
pub mod process;
pub mod record;
pub mod relink;
pub mod remote;
pub mod restore;
pub mod resume;
pub mod rewind;
pub mod run;
pub mod run_id;
pub mod run_pid;
pub mod snapshot;
pub mod start;
pub mod store;
pub mod sync;
pub mod target;
pub mod time;
pub mod timeline;
pub mod workspace;
