//! The operations on runs, one module each: plain functions over typed data that read and
//! write through `git` and return what they did. No argument parsing, no printing, no
//! environment reads: the command line (and, later, the workflow engine) call these.

pub mod agent_hooks;
pub mod agent_process;
pub mod agent_sessions;
pub mod branch_guard;
pub mod build_seed;
pub mod checkpoint;
pub mod codex_worktrees;
pub mod conversation;
pub mod finish;
pub mod fork;
pub mod fsck;
pub mod gc;
pub mod gemini_trust;
pub mod hook_failures;
pub mod hooks;
pub mod interrupted_gc;
pub mod land;
pub mod lifecycle;
pub mod ordered_json;
pub mod pool;
pub mod relink;
pub mod restore;
pub mod resume;
pub mod rewind;
pub mod run_pid;
pub mod snapshot;
pub mod start;
pub mod sync;
pub mod threads;
pub mod trust;
pub mod turn_prompts;
pub mod undo;
pub mod work_tree_file;
pub mod worktree_removal;
