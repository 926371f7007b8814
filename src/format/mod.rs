//! What git-fabro stores and exchanges, as FORMAT.md defines it: run ids, node ids and
//! statuses, `run.json` and the other JSON records, commit messages and their trailers,
//! timestamps, and the files of a run directory. Plain types and their encodings; nothing here
//! reads a repository.

pub(crate) mod agent_settings;
pub(crate) mod branch_job;
pub(crate) mod fabro;
pub(crate) mod lease;
pub mod message;
pub mod node;
pub(crate) mod pool_ref;
pub(crate) mod queue;
pub mod record;
pub(crate) mod redact;
pub mod run_id;
pub(crate) mod shell;
pub(crate) mod stages;
pub(crate) mod store;
pub mod store_protocol;
pub(crate) mod suggest;
pub(crate) mod thread;
pub mod time;
pub(crate) mod usage;

/// The first seven hex digits of a sha, as git abbreviates.
pub(crate) fn short_sha(sha: &str) -> &str {
    sha.get(..7).unwrap_or(sha)
}
