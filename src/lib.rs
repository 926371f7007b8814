//! git-fabro checkpoints workflow runs in git.
//!
//! A run has two branches. The run branch `fabro/run/<id>` holds the work product, one commit
//! per completed node; the orphan metadata branch `fabro/meta/<id>` holds the execution state
//! (`run.json`, the workflow graph, one folder per stage). Each run commit names its metadata
//! commit in a `Fabro-Checkpoint` trailer, so a timeline is rebuilt from git alone on any clone.
//!
//! The modules are layers, each using only those below it:
//!
//! - `process`: the processes git-fabro starts that are not git (nodes' shells, the command of
//!   `resume -- COMMAND`, the pager), process groups, signals, and whether a process lives;
//! - `git`: the only door to the repository (gix, and the `git` binary for push and fetch);
//! - `format`: what is stored, as FORMAT.md defines it (ids, records, messages, trailers);
//! - `config`: the settings, from flags, files and git config;
//! - `run`: a run read back from git (state, timeline, targets, where its files live);
//! - `ops`: the operations that change runs (start, checkpoint, fork, restore, gc, ...);
//! - `engine`: Fabro workflows: the DOT dialect, the workflow model, validation, dry runs;
//! - `cli`: the `git fabro` command, one file per command, and all printing.
//!
//! `error`, `input` (files a user names on the command line) and `failpoint` (named crash
//! points at write boundaries, armed only in test builds) are shared by all of them.

pub mod cli;
pub mod config;
pub mod engine;
pub mod error;
pub(crate) mod failpoint;
pub mod format;
pub mod git;
pub(crate) mod input;
pub(crate) mod ops;
pub(crate) mod process;
pub mod run;
