//! Shadow repositories: for a directory outside any git repository, git-fabro keeps the runs
//! in a repository of its own under `<fabro home>/checkpoints/<first 16 hex of sha256(path)>`,
//! whose work tree is that directory. Nothing is ever created inside the user's directory.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::Repo;
use crate::git::error::{Error, Result};

/// The file in a shadow repository's git dir that names the directory it shadows.
pub(crate) const MARKER: &str = "fabro-workdir";

/// Where the shadow repository of `dir` (an absolute, canonical path) lives.
pub(crate) fn path_for(home: &Path, dir: &Path) -> PathBuf {
    let digest = Sha256::digest(dir.as_os_str().as_encoded_bytes());
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    home.join("checkpoints").join(hex)
}

/// The shadow repository for `dir` or the nearest of its parents that has one.
pub(crate) fn find(home: &Path, dir: &Path) -> Option<Repo> {
    let dir = std::fs::canonicalize(dir).ok()?;
    dir.ancestors().find_map(|candidate| {
        let path = path_for(home, candidate);
        let named = std::fs::read_to_string(path.join(MARKER)).ok()?;
        (Path::new(named.trim_end_matches('\n')) == candidate).then(|| Repo::open(&path).ok())?
    })
}

/// Creates the shadow repository of `dir`, or opens the one that exists.
pub(crate) fn create(home: &Path, dir: &Path) -> Result<Repo> {
    let dir = std::fs::canonicalize(dir)
        .map_err(Error::io(format!("cannot resolve {}", dir.display())))?;
    let path = path_for(home, &dir);
    if path.join(MARKER).is_file() {
        return Repo::open(&path);
    }
    let user_home = std::env::var_os("HOME").and_then(|h| std::fs::canonicalize(h).ok());
    if dir.parent().is_none() || user_home.as_deref() == Some(dir.as_path()) {
        return Err(Error::Usage(format!(
            "{} is not a git repository, and git-fabro does not snapshot a whole home directory or /; run it inside a project directory",
            dir.display()
        )));
    }
    // Built aside and renamed into place, so a crash never leaves a half-made repository.
    let parent = path
        .parent()
        .ok_or_else(|| Error::Failed("the fabro home has no parent".into()))?;
    std::fs::create_dir_all(parent)
        .map_err(Error::io(format!("cannot create {}", parent.display())))?;
    let building = parent.join(format!(".building-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&building);
    gix::init_bare(&building)?;
    let config = format!(
        "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n\tworktree = {}\n",
        quote(&dir.to_string_lossy())
    );
    let write = || -> std::io::Result<()> {
        std::fs::write(building.join("config"), config)?;
        std::fs::write(building.join(MARKER), format!("{}\n", dir.display()))?;
        std::fs::rename(&building, &path)
    };
    if let Err(err) = write() {
        let _ = std::fs::remove_dir_all(&building);
        if !path.join(MARKER).is_file() {
            return Err(Error::io(format!(
                "cannot create the shadow repository {}",
                path.display()
            ))(err));
        }
    }
    Repo::open(&path)
}

/// A git config value in quotes, with `\` and `"` escaped.
fn quote(value: &str) -> String {
    format!("\"{}\"", value.replace('\\', "\\\\").replace('"', "\\\""))
}
