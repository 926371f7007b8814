//! What git-fabro stores and exchanges, as FORMAT.md defines it: run ids, node ids and
//! statuses, `run.json` and the other JSON records, commit messages and their trailers,
//! timestamps, and the files of a run directory. Plain types and their encodings; nothing here
//! reads a repository.

pub mod agent_settings;
pub mod fabro;
pub mod lease;
pub mod message;
pub mod node;
pub mod record;
pub mod redact;
pub mod run_id;
pub mod shell;
pub mod stages;
pub mod store;
pub mod suggest;
pub mod time;
pub mod usage;

/// The first seven hex digits of a sha, as git abbreviates.
pub fn short_sha(sha: &str) -> &str {
    sha.get(..7).unwrap_or(sha)
}
