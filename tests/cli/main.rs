//! Integration tests: the real binary against real repositories, checked with plain git.

mod common;

mod archive;
mod auto_gc;
mod checkpoint;
mod completion_bash;
mod concurrency;
mod config;
mod conventions;
mod crash;
mod diff;
mod errors;
mod finish;
mod fork;
mod fsck;
mod generated;
mod git_agrees;
mod hooks;
mod hostile_settings;
mod in_place;
mod log;
mod ps;
mod remote_safety;
mod restore;
mod resume;
mod rewind;
mod shadow;
mod show;
mod snapshot;
mod start;
mod sync;
mod terminal;
mod torture;
