//! Copying a folder of build output without sharing anything with the original. Files are
//! copy-on-write clones (`FICLONE`) where the filesystem makes them: instant, and a write to
//! either copy leaves the other as it was. Elsewhere they are copied in full
//! (`copy_file_range`, which `std::io::copy` uses between files), or not at all. Hard links
//! are never used: a compiler rewrites its outputs in place, so a hard link would let one run's
//! build change another's, or the user's. Symbolic links are made again as links, never
//! followed, to the run's own copy of what they led to (see [`Links`]); anything else (a
//! socket, a FIFO) is left out, and so is a Python environment (a folder with `pyvenv.cfg` or
//! `conda-meta/`): its scripts' `#!` lines, its `.pth` files and its settings name the
//! checkout's folder by absolute path, so a copy would run and install into the checkout's.

use std::fs::{self, File, OpenOptions};
use std::io::{self, ErrorKind};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::links::Links;

/// What marks a folder as a Python environment: `venv`'s and virtualenv's settings file, and
/// conda's metadata folder.
const ENVIRONMENT_MARKS: &[&str] = &["pyvenv.cfg", "conda-meta"];

/// What copying a file may do when the filesystem cannot clone it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Fallback {
    /// Copy its bytes.
    Copy,
    /// Give up the whole folder: [`copy_tree`] fails with `ErrorKind::Unsupported`.
    Nothing,
}

/// What a copy did, for the run's note.
#[derive(Clone, Copy, Default)]
pub struct Copied {
    pub files: u64,
    pub bytes: u64,
    /// Whether every file was a clone.
    pub all_cloned: bool,
    /// Links left out: they led out of the checkout.
    pub links_left_out: u64,
    /// Python environments left out.
    pub environments_left_out: u64,
}

/// Whether the folder `dir` is a Python environment, which holds absolute paths by design.
pub fn is_environment(dir: &Path) -> bool {
    ENVIRONMENT_MARKS
        .iter()
        .any(|mark| fs::symlink_metadata(dir.join(mark)).is_ok())
}

/// Copies the folder `from` of the checkout to `to`, which must not exist, remaking its links
/// as `links` says.
pub fn copy_tree(from: &Path, to: &Path, fallback: Fallback, links: &Links) -> io::Result<Copied> {
    let mut copied = Copied {
        all_cloned: true,
        ..Copied::default()
    };
    let mut pending: Vec<(PathBuf, PathBuf)> = vec![(from.to_owned(), to.to_owned())];
    while let Some((from, to)) = pending.pop() {
        let entries = fs::read_dir(&from)?.collect::<io::Result<Vec<_>>>()?;
        // Known from the listing itself: no look-up per folder.
        if entries
            .iter()
            .any(|e| ENVIRONMENT_MARKS.iter().any(|m| e.file_name() == **m))
        {
            copied.environments_left_out += 1;
            continue;
        }
        fs::create_dir(&to)?;
        for entry in entries {
            let (source, target) = (entry.path(), to.join(entry.file_name()));
            let kind = entry.file_type()?;
            if kind.is_dir() {
                pending.push((source, target));
            } else if kind.is_symlink() {
                match links.target(&source, &fs::read_link(&source)?) {
                    Some(points_to) => std::os::unix::fs::symlink(points_to, &target)?,
                    None => copied.links_left_out += 1,
                }
            } else if kind.is_file() {
                let (bytes, cloned) = copy_file(&source, &target, fallback)?;
                copied.files += 1;
                copied.bytes += bytes;
                copied.all_cloned &= cloned;
            }
        }
    }
    Ok(copied)
}

/// Copies one regular file (never through a link), keeping its permission bits; says how
/// many bytes and whether it was a clone.
fn copy_file(from: &Path, to: &Path, fallback: Fallback) -> io::Result<(u64, bool)> {
    let nofollow = rustix::fs::OFlags::NOFOLLOW.bits() as i32;
    let mut source = OpenOptions::new()
        .read(true)
        .custom_flags(nofollow)
        .open(from)?;
    let metadata = source.metadata()?;
    let mut target = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(metadata.permissions().mode())
        .open(to)?;
    if clone(&source, &target).is_ok() {
        return Ok((metadata.len(), true));
    }
    if fallback == Fallback::Nothing {
        return Err(io::Error::new(
            ErrorKind::Unsupported,
            "the filesystem makes no copy-on-write clones",
        ));
    }
    let bytes = io::copy(&mut source, &mut target)?;
    Ok((bytes, false))
}

#[cfg(target_os = "linux")]
fn clone(source: &File, target: &File) -> io::Result<()> {
    rustix::fs::ioctl_ficlone(target, source).map_err(io::Error::from)
}

#[cfg(not(target_os = "linux"))]
fn clone(_source: &File, _target: &File) -> io::Result<()> {
    Err(io::Error::from(ErrorKind::Unsupported))
}
