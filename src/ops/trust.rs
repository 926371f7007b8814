//! The trust gate. A workflow is code, and a run's metadata branch travels between clones: a
//! collaborator who pushes a commit rewriting the recorded workflow (and its recorded hash)
//! would otherwise have `resume` run their script here. So a workflow runs only when this
//! machine wrote it (`run`, `start --workflow`) or a person approved it, and approvals are
//! remembered by the workflow's sha256 under `<fabro home>/trusted/`, as direnv's `allow`
//! remembers an `.envrc`: one approval covers every run recording the same bytes, and a
//! change of one byte needs a new one. A refusal comes with what a person needs to judge:
//! the metadata commit that recorded the workflow, who wrote it, where it was fetched from,
//! and a diff against the version last approved in the run's history.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Result};
use crate::format::record::RunRecord;
use crate::format::time::Timestamp;
use crate::git::Repo;
use crate::ops::start::sha256_hex;
use crate::run::{self, RunState};

/// Where approvals live, inside the fabro home.
pub const TRUSTED_DIR: &str = "trusted";

/// What of a run an approval covers: its workflow, or the values the workflow is rendered
/// with (goal, inputs, where it reads files); each is approved by the sha256 of its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    Workflow,
    Values,
}

impl Part {
    /// The part as a refusal names it: "run X: its workflow ...".
    pub fn described(self) -> &'static str {
        match self {
            Part::Workflow => "its workflow",
            Part::Values => "the goal, inputs and workflow directory it renders its workflow with",
        }
    }

    /// The name its diff shows.
    fn file(self) -> &'static str {
        match self {
            Part::Workflow => "graph.fabro",
            Part::Values => "values",
        }
    }
}

fn approval_path(home: &Path, sha256: &str) -> PathBuf {
    home.join(TRUSTED_DIR).join(sha256)
}

/// Whether this machine wrote or approved a workflow of exactly these bytes.
pub fn is_approved(home: &Path, source: &[u8]) -> bool {
    approval_path(home, &sha256_hex(source)).is_file()
}

/// Remembers that the workflow `source` may run here. The file holds the workflow itself, so
/// that what was approved can be read back; it is written beside and renamed into place, so
/// a kill never leaves a half-written approval.
pub fn approve(home: &Path, source: &[u8]) -> Result<()> {
    let sha = sha256_hex(source);
    let path = approval_path(home, &sha);
    if path.is_file() {
        return Ok(());
    }
    let dir = home.join(TRUSTED_DIR);
    let context = format!(
        "cannot record the approval of workflow {sha} in {}",
        dir.display()
    );
    std::fs::create_dir_all(&dir).map_err(Error::io(&context))?;
    let partial = dir.join(format!(".{sha}.{}.tmp", std::process::id()));
    std::fs::write(&partial, source)
        .and_then(|()| std::fs::rename(&partial, &path))
        .map_err(|err| {
            let _ = std::fs::remove_file(&partial);
            Error::Io {
                context,
                source: err,
            }
        })
}

/// What a person needs to judge a workflow before approving it.
#[derive(Clone, Debug, Serialize)]
pub struct Review {
    pub run_id: String,
    pub part: Part,
    pub sha256: String,
    /// The oldest metadata commit of the run's recent history that records this workflow.
    pub recorded_by: Option<Origin>,
    /// The remote the metadata branch was last fetched from, as its reflog tells.
    pub fetched_from: Option<String>,
    /// The sha256 of the newest version approved here that the run recorded before, if any.
    pub approved_sha256: Option<String>,
    /// A unified diff from that version (or from nothing) to this one.
    pub patch: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Origin {
    pub commit: String,
    pub author: String,
    pub date: String,
}

/// Refuses to go on with `text`, the `part` of run `state` that the gate checks, unless this
/// machine wrote or approved it, or `trust` says the user approves it now (which is
/// remembered).
pub fn gate(home: &Path, state: &RunState, part: Part, text: &str, trust: bool) -> Result<()> {
    if trust {
        return approve(home, text.as_bytes());
    }
    if is_approved(home, text.as_bytes()) {
        return Ok(());
    }
    Err(Error::Untrusted {
        run: state.id.to_string(),
        what: part.described(),
        sha256: sha256_hex(text.as_bytes()),
    })
}

/// Reads the run's metadata history for where its workflow `source` came from and how it
/// differs from the version last approved here; `text_of` gives what the gate checked of an
/// earlier record (its `graph_source`, or more: the caller decides), as `source` is for this one.
pub fn review(
    repo: &Repo,
    home: &Path,
    state: &RunState,
    part: Part,
    source: &str,
    text_of: &dyn Fn(&RunRecord) -> Option<String>,
) -> Result<Review> {
    let mut recorded_by = None;
    let mut approved: Option<String> = None;
    let mut changed = false;
    for commit in repo.first_parents(state.meta_tip) {
        let Ok(commit) = commit else { break };
        let origin = commit.id.to_string();
        let Ok(record) = run::read_record(repo, commit.tree, &origin) else {
            break;
        };
        let Some(earlier) = text_of(&record) else {
            break;
        };
        changed |= earlier != source;
        if !changed {
            recorded_by = Some(commit.id);
        } else if is_approved(home, earlier.as_bytes()) {
            approved = Some(earlier);
            break;
        }
    }
    let recorded_by = match recorded_by {
        Some(id) => {
            let (who, seconds) = repo.commit_author(id)?;
            Some(Origin {
                commit: id.to_string(),
                author: format!("{} <{}>", who.name, who.email),
                date: Timestamp::from_seconds(seconds).rfc3339(),
            })
        }
        None => None,
    };
    let old_label = match approved {
        Some(_) => format!("{} (approved here)", part.file()),
        None => "/dev/null".into(),
    };
    let old = approved.as_deref().unwrap_or_default();
    let patch = crate::git::text_patch(
        &old_label,
        &format!("{} (recorded)", part.file()),
        old.as_bytes(),
        source.as_bytes(),
    )?;
    Ok(Review {
        run_id: state.id.to_string(),
        part,
        sha256: sha256_hex(source.as_bytes()),
        recorded_by,
        fetched_from: fetched_from(repo, &state.id),
        approved_sha256: approved.map(|text| sha256_hex(text.as_bytes())),
        patch: String::from_utf8_lossy(&patch).into_owned(),
    })
}

/// The remote named by the newest `git fetch` entry of the metadata branch's reflog: git
/// records its arguments, and the remote is the first one after `--` (as git-fabro's fetch
/// passes it) or the first that is not an option.
fn fetched_from(repo: &Repo, id: &crate::format::run_id::RunId) -> Option<String> {
    let messages = repo.reflog_messages(&run::meta_branch(id));
    let fetch = messages.iter().find(|m| m.starts_with("fetch "))?;
    let mut words = fetch.split_whitespace().skip(1);
    let remote = if fetch.contains(" -- ") {
        words.by_ref().find(|w| *w == "--");
        words.next()
    } else {
        words.find(|w| !w.starts_with('-'))
    }?;
    Some(crate::ops::sync::display_remote(repo, remote))
}
