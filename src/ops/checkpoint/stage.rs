//! A checkpoint's stage: its `status.json` and its files, with the secrets taken out of what
//! an agent or a node wrote.

use std::borrow::Cow;

use super::{Attachment, CheckpointRequest};
use crate::error::{Error, Result};
use crate::format::record::{StageRecord, pretty};
use crate::format::redact::Redactor;
use crate::format::time::Timestamp;
use crate::git::{ObjectId, Repo, SkippedFile};

/// The stage's `status.json`.
pub(super) fn record(
    request: &CheckpointRequest,
    visit: u64,
    now: Timestamp,
    attachments: &[(&str, &Attachment)],
    skipped: &[SkippedFile],
    redactor: &Redactor,
) -> StageRecord {
    let clean = |text: &Option<String>| text.as_deref().map(|t| redactor.text(t).into_owned());
    StageRecord {
        node_id: request.node.to_string(),
        visit,
        outcome: request.status,
        notes: clean(&request.notes),
        failure_reason: clean(&request.failure_reason),
        timestamp: now.rfc3339(),
        next_node_id: request.next.as_ref().map(ToString::to_string),
        files: attachments
            .iter()
            .map(|(name, _)| (*name).to_owned())
            .collect(),
        skipped_files: skipped.iter().map(|f| f.path.clone()).collect(),
        duration_ms: request.duration_ms,
        usage: request.usage.clone(),
    }
}

/// The stage's folder in the metadata tree: its `status.json` and its files.
pub(super) fn write_tree(
    repo: &Repo,
    stage: &StageRecord,
    attachments: &[(&str, &Attachment)],
) -> Result<ObjectId> {
    let mut tree = repo.edit_tree(repo.empty_tree())?;
    tree.put_file("status.json", &pretty(stage))?;
    for (name, data) in attachments {
        match data {
            Attachment::Bytes(bytes) => tree.put_file(name, bytes)?,
            Attachment::File(path) => tree.put_file_from(name, path)?,
        }
    }
    Ok(tree.write()?)
}

/// The stage's files under their names: each attachment (its redacted copy where it held a
/// secret), and the node's patch unless it changed nothing.
pub(super) fn files<'a>(
    attachments: &'a [(String, Attachment)],
    redacted: &'a [Option<Attachment>],
    patch: &'a Attachment,
) -> Vec<(&'a str, &'a Attachment)> {
    let mut files: Vec<(&str, &Attachment)> = attachments
        .iter()
        .zip(redacted)
        .map(|((name, data), clean)| (name.as_str(), clean.as_ref().unwrap_or(data)))
        .collect();
    if !matches!(patch, Attachment::Bytes(bytes) if bytes.is_empty()) {
        files.push(("diff.patch", patch));
    }
    files
}

/// For each attachment, its redacted copy when it held a secret (a file's content is read
/// whole: the engine caps what a node's output may be).
pub(super) fn redact_attachments(
    redactor: &Redactor,
    attachments: &[(String, Attachment)],
) -> Result<Vec<Option<Attachment>>> {
    attachments
        .iter()
        .map(|(_, data)| {
            let read;
            let bytes = match data {
                Attachment::Bytes(bytes) => bytes.as_slice(),
                Attachment::File(path) => {
                    read = std::fs::read(path)
                        .map_err(Error::io(format!("cannot read {}", path.display())))?;
                    read.as_slice()
                }
            };
            Ok(match redactor.bytes(bytes) {
                Cow::Owned(clean) => Some(Attachment::Bytes(clean)),
                Cow::Borrowed(_) => None,
            })
        })
        .collect()
}
