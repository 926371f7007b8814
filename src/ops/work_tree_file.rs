//! Where a file git-fabro edits in the user's work tree (an agent's settings file) really is.
//! The work tree may come from anyone's commit: a `.claude` directory committed as a symbolic
//! link to `~/.ssh`, or a settings file linked to `/etc/...`, would otherwise have git-fabro
//! write wherever the link points. A link that stays inside the work tree is the user's way of
//! sharing a file and is kept: the file it leads to is written, and the link stays a link. A
//! link that leads out of the work tree, into its `.git`, or to nothing is refused before
//! anything is written.

use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Result};

/// The file to write for `rel` (such as `.claude/settings.local.json`) in `workdir`: `rel`
/// itself, or, where `rel` or a directory on its way is a symbolic link, the file in the work
/// tree the links lead to. It may not exist yet; when it does, it is a regular file.
pub fn resolve(workdir: &Path, rel: &str) -> Result<PathBuf> {
    let shown = workdir.join(rel);
    let root = std::fs::canonicalize(workdir)
        .map_err(Error::io(format!("cannot read {}", workdir.display())))?;
    let (mut at, mut linked) = (root.clone(), false);
    for part in Path::new(rel).components() {
        let next = at.join(part);
        let is_link = std::fs::symlink_metadata(&next).is_ok_and(|m| m.file_type().is_symlink());
        at = if is_link {
            linked = true;
            inside(&root, &next, &shown)?
        } else {
            next
        };
    }
    if std::fs::metadata(&at).is_ok_and(|m| !m.is_file()) {
        return Err(Error::Failed(format!(
            "{} is not a regular file; move it away, then install again",
            shown.display()
        )));
    }
    Ok(if linked { at } else { shown })
}

/// Where the link `link` leads, when that is inside the work tree `root` and outside its
/// `.git`.
fn inside(root: &Path, link: &Path, shown: &Path) -> Result<PathBuf> {
    let pointed = std::fs::read_link(link).unwrap_or_default();
    let refuse = |place: &str| {
        Error::Failed(format!(
            "{} goes through the symbolic link {} to {}, {place}; git-fabro never writes \
             through such a link: replace the link with a file or directory of the work tree, \
             or add the hooks to the file yourself",
            shown.display(),
            link.display(),
            pointed.display()
        ))
    };
    let target = std::fs::canonicalize(link).map_err(|_| refuse("which does not exist"))?;
    let Ok(within) = target.strip_prefix(root) else {
        return Err(refuse("outside the work tree"));
    };
    let in_git = within.components().next().is_some_and(
        |first| matches!(first, Component::Normal(name) if name.eq_ignore_ascii_case(".git")),
    );
    if in_git {
        return Err(refuse("inside the repository's .git"));
    }
    Ok(target)
}
