//! `completions` prints a shell's completion script for users; the hidden `generate-docs`
//! writes every script and man page for the repository's `completions/` and `man/`. Neither
//! needs a repository: both only render the clap definition (`generate.rs`).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Result;
use clap_complete::Shell;

use super::{generate, output};
use crate::error::Error;

/// Print the completion script for a shell
///
/// The script completes the commands, flags and values of `git-fabro`; bash's also completes
/// `git fabro` through git's own completion. Where each shell finds it:
///
/// bash: ~/.local/share/bash-completion/completions/git-fabro, which bash-completion loads when
/// needed (for `git fabro` too); without bash-completion, source the file from ~/.bashrc after
/// git's completion.
///
/// zsh: a file `_git-fabro` in a directory of $fpath, before compinit runs.
///
/// fish: ~/.config/fish/completions/git-fabro.fish.
///
/// elvish: `eval (git fabro completions elvish | slurp)` in rc.elv.
///
/// powershell: `git fabro completions powershell | Out-String | Invoke-Expression` in $PROFILE.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell to print the script for
    #[arg(value_enum)]
    shell: Shell,
}

/// Write man/ and completions/ under DIR, generated from the command line's definition
///
/// `cargo run -- generate-docs .` regenerates the repository's checked-in copies. Both
/// directories hold generated files only: any other file in them is removed.
#[derive(Debug, clap::Args)]
pub struct GenerateDocsArgs {
    /// The directory that gets man/ and completions/
    #[arg(value_name = "DIR")]
    dir: PathBuf,
}

pub fn completions(args: CompletionsArgs) -> Result<()> {
    std::io::stdout()
        .lock()
        .write_all(&generate::completion(args.shell))?;
    Ok(())
}

pub fn generate_docs(args: GenerateDocsArgs) -> Result<()> {
    replace_dir(&args.dir.join("man"), &generate::man_pages())?;
    replace_dir(&args.dir.join("completions"), &generate::completion_files())?;
    Ok(())
}

/// Makes `dir` hold exactly `files`, writing only those whose bytes changed.
fn replace_dir(dir: &Path, files: &[(PathBuf, Vec<u8>)]) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(Error::io(format!("cannot create {}", dir.display())))?;
    let listing =
        std::fs::read_dir(dir).map_err(Error::io(format!("cannot read {}", dir.display())))?;
    for entry in listing {
        let path = entry
            .map_err(Error::io(format!("cannot read {}", dir.display())))?
            .path();
        if path.is_file()
            && !files
                .iter()
                .any(|(name, _)| path.file_name() == Some(name.as_os_str()))
        {
            std::fs::remove_file(&path)
                .map_err(Error::io(format!("cannot remove {}", path.display())))?;
            output::note(format!("removed {}", path.display()));
        }
    }
    for (name, bytes) in files {
        let path = dir.join(name);
        if std::fs::read(&path).ok().as_ref() != Some(bytes) {
            std::fs::write(&path, bytes)
                .map_err(Error::io(format!("cannot write {}", path.display())))?;
            output::note(format!("wrote {}", path.display()));
        }
    }
    Ok(())
}
