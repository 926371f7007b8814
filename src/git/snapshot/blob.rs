//! A work tree file as an object, as gix's `Pipeline::worktree_file_to_object` makes it, but
//! with a file gix's filters leave unchanged streamed into the store past 1 MiB (gix reads it
//! whole into memory first), and a file that changes size while it is read refused rather
//! than stored as a blob that disagrees with its header.

use std::fs::Metadata;
use std::path::Path;

use gix::bstr::BStr;
use gix::filter::plumbing::pipeline::convert::ToGitOutcome;
use gix::objs::tree::EntryKind;

use crate::git::error::{Error, Result};
use crate::git::objects::write_opened_file_blob;
use crate::git::{ObjectId, Repo};

/// The object for the file at `rela_path` under `workdir` with its kind and metadata, `None`
/// when it is gone or of a kind git does not track.
pub(super) fn file_to_object(
    repo: &Repo,
    pipeline: &mut gix::filter::Pipeline<'_>,
    workdir: &Path,
    rela_path: &BStr,
    index: &gix::index::State,
) -> Result<Option<(ObjectId, EntryKind, Metadata)>> {
    let relative = gix::path::from_bstr(rela_path)
        .map_err(|_| Error::Failed(format!("{rela_path} is not a path on this system")))?;
    let path = workdir.join(&relative);
    let context = || format!("cannot store {}", path.display());
    let metadata = match std::fs::symlink_metadata(&path) {
        Ok(metadata) => metadata,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(Error::io(context())(err)),
    };
    if metadata.is_symlink() {
        let target = std::fs::read_link(&path).map_err(Error::io(context()))?;
        let target = gix::path::into_bstr(target).map_err(|_| {
            Error::Failed(format!(
                "the link {} has a target git cannot store",
                path.display()
            ))
        })?;
        let id = repo.write_blob(target.as_ref())?;
        return Ok(Some((id, EntryKind::Link, metadata)));
    }
    if !metadata.is_file() {
        // A nested repository's commit, or nothing: gix decides as `git add` would.
        return Ok(pipeline.worktree_file_to_object(rela_path, index)?);
    }
    let kind = match gix::fs::is_executable(&metadata) {
        true => EntryKind::BlobExecutable,
        false => EntryKind::Blob,
    };
    let file = std::fs::File::open(&path).map_err(Error::io(context()))?;
    let id = match pipeline.convert_to_git(file, &relative, index)? {
        // The file as opened, unread: one that changes size meanwhile is an error, not a blob
        // that disagrees with its header, and the snapshot's retry opens it again.
        ToGitOutcome::Unchanged(file) => write_opened_file_blob(repo, file, &path)?,
        ToGitOutcome::Buffer(converted) => repo.write_blob(converted)?,
        ToGitOutcome::Process(mut converted) => {
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut converted, &mut bytes).map_err(Error::io(context()))?;
            repo.write_blob(&bytes)?
        }
    };
    Ok(Some((id, kind, metadata)))
}
