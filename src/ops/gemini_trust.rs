//! Gemini CLI runs a project's hooks only in a folder the user trusts: in any other, `gemini -p`
//! exits 55, and `--skip-trust` runs without the project's settings, hooks included. Every run's
//! worktree is a new folder, so `hooks install --gemini` answers Gemini's trust question for
//! the work tree it installs in, the way Gemini records the answer itself: the folder's real
//! path with `TRUST_FOLDER` in its trusted folders file (`~/.gemini/trustedFolders.json`). The
//! file as it was is kept in the work tree's git dir, and uninstall takes the entry out again,
//! giving the file back byte for byte when nothing else in it changed meanwhile. A trusted
//! folders file that is a symbolic link (dotfiles kept in a repository of their own) stays
//! one: the file it leads to is written, as Gemini writes it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::ordered_json::Json;
use crate::error::{Error, Result};

const TRUSTED: &str = "TRUST_FOLDER";
const SAVED: &str = "gemini-trust.json";
/// Gemini creates the file readable by its owner only; a file git-fabro creates is the same.
const NEW_FILE_MODE: u32 = 0o600;

/// What install changed, kept in the work tree's git dir.
#[derive(Debug, Serialize, Deserialize)]
struct Saved {
    /// The trusted folders file.
    file: PathBuf,
    /// The entry install added.
    folder: String,
    /// The file's text before; null when there was none.
    text: Option<String>,
}

fn saved_path(git_dir: &Path) -> PathBuf {
    git_dir.join("fabro").join("agent-settings").join(SAVED)
}

/// Trusts `workdir` in `trust_file`, unless the file already has an entry for that folder (the
/// user's answer, trust or not, stands).
pub fn trust(trust_file: &Path, workdir: &Path, git_dir: &Path) -> Result<()> {
    let saved = saved_path(git_dir);
    if saved.exists() {
        return Ok(());
    }
    let folder = std::fs::canonicalize(workdir)
        .map_err(Error::io(format!("cannot read {}", workdir.display())))?
        .to_string_lossy()
        .into_owned();
    let text = read(trust_file)?;
    let Json::Object(mut entries) = parse(text.as_deref(), trust_file)? else {
        return Err(not_an_object(trust_file));
    };
    if entries.iter().any(|(key, _)| *key == folder) {
        return Ok(());
    }
    entries.push((folder.clone(), Json::string(TRUSTED)));
    let record = Saved {
        file: trust_file.to_owned(),
        folder,
        text,
    };
    if let Some(dir) = saved.parent() {
        std::fs::create_dir_all(dir)
            .map_err(Error::io(format!("cannot create {}", dir.display())))?;
    }
    let record = serde_json::to_string(&record).unwrap_or_default();
    super::hooks::replace_file(&saved, &record, 0o644)?;
    write(trust_file, &Json::Object(entries).to_pretty()).inspect_err(|_| {
        let _ = std::fs::remove_file(&saved);
    })
}

/// Takes out the entry `trust` added for this work tree, if any.
pub fn untrust(git_dir: &Path) -> Result<()> {
    let saved_at = saved_path(git_dir);
    let Some(saved) = std::fs::read_to_string(&saved_at)
        .ok()
        .and_then(|text| serde_json::from_str::<Saved>(&text).ok())
    else {
        return Ok(());
    };
    let file = &saved.file;
    if let Some(text) = read(file)?
        && let Json::Object(mut entries) = parse(Some(&text), file)?
    {
        let count = entries.len();
        entries.retain(|(key, _)| *key != saved.folder);
        if entries.len() != count {
            let rest = Json::Object(entries);
            let before = parse(saved.text.as_deref(), file).ok();
            match &saved.text {
                None if rest == Json::Object(Vec::new()) => std::fs::remove_file(followed(file))
                    .map_err(Error::io(format!("cannot remove {}", file.display())))?,
                Some(old) if before.as_ref() == Some(&rest) => write(file, old)?,
                _ => write(file, &rest.to_pretty())?,
            }
        }
    }
    std::fs::remove_file(&saved_at)
        .map_err(Error::io(format!("cannot remove {}", saved_at.display())))
}

fn read(path: &Path) -> Result<Option<String>> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(Error::io(format!("cannot read {}", path.display()))(err)),
    }
}

fn parse(text: Option<&str>, path: &Path) -> Result<Json> {
    match text {
        Some(text) if !text.trim().is_empty() => Json::parse(text).map_err(|err| {
            Error::Failed(format!(
                "{} is not valid JSON ({err}); fix it, then install again",
                path.display()
            ))
        }),
        _ => Ok(Json::Object(Vec::new())),
    }
}

fn not_an_object(path: &Path) -> Error {
    Error::Failed(format!(
        "{} holds something other than an object; trust the folder in Gemini CLI yourself",
        path.display()
    ))
}

fn write(link: &Path, text: &str) -> Result<()> {
    let path = &followed(link);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(Error::io(format!("cannot create {}", dir.display())))?;
    }
    let mode = super::hooks::existing_mode(path).unwrap_or(NEW_FILE_MODE);
    super::hooks::replace_file(path, text, mode)
}

/// The most links followed from the trusted folders file, as the kernel's own limit.
const MAX_LINKS: usize = 40;

/// The file `path` leads to through symbolic links (which need not exist yet), so that
/// replacing it never turns the user's link into a copy.
fn followed(path: &Path) -> PathBuf {
    let mut at = path.to_owned();
    for _ in 0..MAX_LINKS {
        let Ok(target) = std::fs::read_link(&at) else {
            break;
        };
        at = match at.parent() {
            Some(dir) if target.is_relative() => dir.join(target),
            _ => target,
        };
    }
    at
}
