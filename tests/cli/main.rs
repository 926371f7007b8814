//! Integration tests: the real binary against real repositories, checked with plain git.

mod common;

mod archive;
mod checkpoint;
mod completion_bash;
mod concurrency;
mod config;
mod conventions;
mod crash;
mod diff;
mod errors;
mod escapes;
mod finish;
mod fork;
mod fsck;
mod generated;
mod git_agrees;
mod hooks;
mod hostile_trees;
mod in_place;
mod log;
mod ps;
mod restore;
mod restore_safety;
mod resume;
mod rewind;
mod shadow;
mod show;
mod snapshot;
mod start;
mod sync;
mod terminal;
mod torture;
