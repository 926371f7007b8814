//! Each command's examples, written once: `--help` prints them after the options and the man
//! page renders them as its EXAMPLES section. A unit test parses every line against the clap
//! definition, so an example that names a flag or a command that does not exist fails the build's
//! tests instead of misleading a reader.

use clap::Command;

/// A command line as a user types it, and what it does.
pub struct Example {
    pub line: &'static str,
    pub what: &'static str,
}

const fn ex(line: &'static str, what: &'static str) -> Example {
    Example { line, what }
}

mod table;

use table::EXAMPLES;

/// The examples of the command at `path` (its words after `git fabro`, `""` for the root).
pub fn of(path: &str) -> &'static [Example] {
    EXAMPLES
        .iter()
        .find(|(p, _)| *p == path)
        .map_or(&[], |(_, examples)| examples)
}

/// `cmd` and its commands with their examples after their long help (`--help`, not `-h`).
pub fn attach(mut cmd: Command) -> Command {
    attach_at(&mut cmd, "");
    cmd
}

/// In place: every command is built on each run, so the tree is not moved through by value.
fn attach_at(cmd: &mut Command, path: &str) {
    for sub in cmd.get_subcommands_mut() {
        let sub_path = if path.is_empty() {
            sub.get_name().to_owned()
        } else {
            format!("{path} {}", sub.get_name())
        };
        attach_at(sub, &sub_path);
    }
    let examples = of(path);
    if !examples.is_empty() {
        *cmd = std::mem::take(cmd).after_long_help(help_text(examples));
    }
}

/// `Examples:` and each line with what it does under it, as git's man pages show them.
fn help_text(examples: &[Example]) -> String {
    let mut text = String::from("Examples:\n");
    for example in examples {
        text.push_str(&format!("  {}\n      {}\n\n", example.line, example.what));
    }
    text.truncate(text.trim_end().len());
    text
}

#[cfg(test)]
mod tests;
