//! Integration tests: the real binary against real repositories, checked with plain git.

mod common;

mod checkpoint;
mod concurrency;
mod errors;
mod finish;
mod git_agrees;
mod log;
mod ps;
mod show;
mod start;
