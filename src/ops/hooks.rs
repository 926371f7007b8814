//! git hooks that keep runs moving with the user's own git workflow. Each hook git-fabro
//! installs is a marked block inside the hook file git really runs (honouring
//! `core.hooksPath`, as husky sets it), so an existing hook keeps working around it and
//! install and uninstall are idempotent. The block fails open: a git-fabro problem never
//! blocks a push or a rebase.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Result};
use crate::git::Repo;

pub const BEGIN: &str = "# BEGIN git-fabro";
pub const END: &str = "# END git-fabro";
/// Marks a hook file that git-fabro created, so uninstall removes the whole file.
const CREATED: &str = " (this file was created by git-fabro)";
const SHEBANG: &str = "#!/bin/sh\n";

/// The hooks git-fabro knows how to install.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Hook {
    /// Pushes the metadata of runs whose run branches are being pushed.
    PrePush,
    /// Re-links checkpoints to commits that a rebase or amend rewrote.
    PostRewrite,
}

impl Hook {
    pub const ALL: [Hook; 2] = [Hook::PrePush, Hook::PostRewrite];

    pub fn file_name(self) -> &'static str {
        match self {
            Hook::PrePush => "pre-push",
            Hook::PostRewrite => "post-rewrite",
        }
    }

    /// The block: it keeps the hook's standard input for whatever follows it in the file.
    fn block(self, created: bool) -> String {
        let name = self.file_name();
        format!(
            "{BEGIN}{marker}\n\
             # Managed by `git fabro hooks`; edit outside this block. Never blocks git.\n\
             if command -v git-fabro >/dev/null 2>&1 && fabro_in=$(mktemp 2>/dev/null); then\n\
             \tcat >\"$fabro_in\"\n\
             \tgit-fabro hooks run {name} \"$@\" <\"$fabro_in\" || true\n\
             \texec <\"$fabro_in\"\n\
             \trm -f \"$fabro_in\"\n\
             fi\n\
             {END}\n",
            marker = if created { CREATED } else { "" },
        )
    }
}

/// Where git runs hooks from: `core.hooksPath`, or `hooks` in the git dir every worktree
/// shares. A relative `core.hooksPath` is relative to where git runs hooks (githooks(5)): the
/// root of the work tree git runs in, a linked worktree's own, or the git dir of a bare
/// repository. The path is given without `..`: a linked worktree reaches the shared git dir
/// through `.git/worktrees/<name>/../..`, which is no path anyone would type.
pub fn hooks_dir(repo: &Repo) -> PathBuf {
    let dir = match repo.config_path("core.hooksPath") {
        Some(path) if path.is_absolute() => path,
        Some(path) => repo
            .workdir()
            .map_or_else(|| repo.git_dir(), Path::to_owned)
            .join(path),
        None => repo.common_dir().join("hooks"),
    };
    without_dot_dots(&dir)
}

/// `path` with each `a/..` and `.` dropped, without asking the file system.
fn without_dot_dots(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut clean = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir
                if matches!(clean.components().next_back(), Some(Component::Normal(_))) =>
            {
                clean.pop();
            }
            other => clean.push(other),
        }
    }
    clean
}

#[derive(Clone, Debug, Serialize)]
pub struct HookStatus {
    pub hook: Hook,
    pub path: PathBuf,
    pub installed: bool,
    /// The file holds more than git-fabro's block: the user's own hook, which keeps running.
    pub chained: bool,
}

pub fn status(repo: &Repo) -> Vec<HookStatus> {
    let dir = hooks_dir(repo);
    Hook::ALL
        .iter()
        .map(|&hook| {
            let path = dir.join(hook.file_name());
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let (installed, rest) = match split_block(&text) {
                Some((before, _, after)) => (true, format!("{before}{after}")),
                None => (false, text.clone()),
            };
            let chained = !rest.trim().is_empty() && rest != SHEBANG;
            HookStatus {
                hook,
                path,
                installed,
                chained,
            }
        })
        .collect()
}

/// A hook file install or uninstall wrote.
#[derive(Clone, Debug)]
pub struct Written {
    pub path: PathBuf,
    /// Whether git runs it: a hook the user made non-executable stays so, and stays disabled.
    pub enabled: bool,
}

/// Installs (or updates) the block in each hook file, creating files that do not exist.
pub fn install(repo: &Repo, hooks: &[Hook]) -> Result<Vec<Written>> {
    let dir = hooks_dir(repo);
    std::fs::create_dir_all(&dir).map_err(Error::io(format!("cannot create {}", dir.display())))?;
    let mut written = Vec::new();
    for &hook in hooks {
        let path = dir.join(hook.file_name());
        refuse_symlink(&path, hook)?;
        let (new, mode) = match std::fs::read_to_string(&path) {
            Ok(text) => (with_block(&text, hook, &path)?, file_mode(&path)?),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                (format!("{SHEBANG}{}", hook.block(true)), NEW_HOOK_MODE)
            }
            Err(err) => return Err(Error::io(format!("cannot read {}", path.display()))(err)),
        };
        replace_file(&path, &new, mode)?;
        written.push(Written {
            path,
            enabled: mode & 0o111 != 0,
        });
    }
    Ok(written)
}

/// Removes the block from each hook file, and the file itself when git-fabro created it.
pub fn uninstall(repo: &Repo, hooks: &[Hook]) -> Result<Vec<PathBuf>> {
    let dir = hooks_dir(repo);
    let mut changed = Vec::new();
    for &hook in hooks {
        let path = dir.join(hook.file_name());
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Some((before, block, after)) = split_block(&text) else {
            continue;
        };
        refuse_symlink(&path, hook)?;
        let rest = format!("{before}{after}");
        if block.starts_with(&format!("{BEGIN}{CREATED}")) && rest == SHEBANG {
            std::fs::remove_file(&path)
                .map_err(Error::io(format!("cannot remove {}", path.display())))?;
        } else {
            replace_file(&path, &rest, file_mode(&path)?)?;
        }
        changed.push(path);
    }
    Ok(changed)
}

/// The hook text with the current block in place: replacing an existing block, else right
/// after the shebang line so that it runs before anything that might `exit`.
fn with_block(text: &str, hook: Hook, path: &Path) -> Result<String> {
    if let Some((before, block, after)) = split_block(text) {
        let created = block.starts_with(&format!("{BEGIN}{CREATED}"));
        return Ok(format!("{before}{}{after}", hook.block(created)));
    }
    let (first, rest) = match text.split_once('\n') {
        Some((first, rest)) => (first, rest),
        None => (text, ""),
    };
    if !first.starts_with("#!") {
        return Ok(format!("{}{text}", hook.block(false)));
    }
    let shell = ["sh", "bash", "dash", "zsh", "ksh"]
        .iter()
        .any(|s| first.ends_with(&format!("/{s}")) || first.ends_with(&format!(" {s}")));
    if !shell {
        return Err(Error::Failed(format!(
            "{} is not a shell script ({first}); add `git-fabro hooks run {} \"$@\"` to it yourself",
            path.display(),
            hook.file_name()
        )));
    }
    let newline = if text.contains('\n') { "" } else { "\n" };
    Ok(format!("{first}\n{newline}{}{rest}", hook.block(false)))
}

/// Splits a hook's text into what precedes git-fabro's block, the block, and what follows.
fn split_block(text: &str) -> Option<(&str, &str, &str)> {
    let start = text
        .find(BEGIN)
        .filter(|&i| i == 0 || text[..i].ends_with('\n'))?;
    let end_marker = text[start..].find(&format!("\n{END}"))? + start + 1 + END.len();
    let end = if text[end_marker..].starts_with('\n') {
        end_marker + 1
    } else {
        end_marker
    };
    Some((&text[..start], &text[start..end], &text[end..]))
}

/// Replaces a hook git may run at any moment the way an editor saves a file: the new text goes
/// to a temporary file beside it, with the hook's mode, and is renamed over it. A full disk or a
/// kill leaves the old hook or the new one, whole, never a truncated one.
pub(crate) fn replace_file(path: &Path, text: &str, mode: u32) -> Result<()> {
    use std::io::Write;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = path.with_file_name(format!(".{name}.fabro-{}", std::process::id()));
    let write = || -> std::io::Result<()> {
        let mut file = std::fs::File::create(&temp)?;
        file.write_all(text.as_bytes())?;
        set_mode(&file, mode)?;
        file.sync_all()?;
        std::fs::rename(&temp, path)
    };
    write().map_err(|err| {
        let _ = std::fs::remove_file(&temp);
        Error::io(format!("cannot write {}", path.display()))(err)
    })
}

/// The permission bits of an existing file, to keep them when it is replaced.
pub(crate) fn existing_mode(path: &Path) -> Option<u32> {
    path.exists().then(|| file_mode(path).ok()).flatten()
}

/// A hook that is a symbolic link points at a file git-fabro did not choose (a shared hook, a
/// script the repository tracks): it is not edited behind the user's back.
fn refuse_symlink(path: &Path, hook: Hook) -> Result<()> {
    let Ok(link) = std::fs::read_link(path) else {
        return Ok(());
    };
    Err(Error::Failed(format!(
        "{} is a symbolic link to {}; git-fabro does not edit the file it points to: add \
         `git-fabro hooks run {} \"$@\"` to that hook yourself, or replace the link with a file",
        path.display(),
        link.display(),
        hook.file_name()
    )))
}

/// What a hook git-fabro creates gets: executable by everyone, like git's sample hooks.
const NEW_HOOK_MODE: u32 = 0o755;

#[cfg(unix)]
fn file_mode(path: &Path) -> Result<u32> {
    use std::os::unix::fs::PermissionsExt;
    Ok(std::fs::metadata(path)
        .map_err(Error::io(format!("cannot read {}", path.display())))?
        .permissions()
        .mode()
        & 0o7777)
}

#[cfg(unix)]
fn set_mode(file: &std::fs::File, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn file_mode(_path: &Path) -> Result<u32> {
    Ok(NEW_HOOK_MODE)
}

#[cfg(not(unix))]
fn set_mode(_file: &std::fs::File, _mode: u32) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_twice_then_uninstall_restores_the_user_hook() {
        let user = "#!/bin/sh\necho user hook\nexit 0\n";
        let once = with_block(user, Hook::PrePush, Path::new("pre-push")).unwrap();
        let twice = with_block(&once, Hook::PrePush, Path::new("pre-push")).unwrap();
        assert_eq!(once, twice);
        assert!(once.starts_with("#!/bin/sh\n# BEGIN git-fabro\n"));
        let (before, _, after) = split_block(&twice).unwrap();
        assert_eq!(format!("{before}{after}"), user);
    }

    #[test]
    fn non_shell_hooks_are_refused_and_files_without_shebang_get_the_block_first() {
        assert!(
            with_block(
                "#!/usr/bin/env python3\nprint()\n",
                Hook::PrePush,
                Path::new("x")
            )
            .is_err()
        );
        assert!(with_block("#!/usr/bin/env bash\n", Hook::PrePush, Path::new("x")).is_ok());
        let husky = "npx lint-staged\n";
        let text = with_block(husky, Hook::PrePush, Path::new("x")).unwrap();
        assert!(text.starts_with(BEGIN) && text.ends_with(husky));
    }
}
