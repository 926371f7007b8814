//! `git fabro --help` as a map: the commands in six groups, in the order a run meets them,
//! each group with one example. The text is built from the clap definition, so a command's
//! one-line help is written once; the man page `git-fabro.1` shows the same groups (see
//! `man.rs`), and a unit test checks that every command is in a group.

use clap::Command;

/// The groups, their commands, and one example each.
pub(super) const GROUPS: &[(&str, &[&str], &str)] = &[
    (
        "Record a run",
        &["start", "checkpoint", "snapshot", "finish", "run", "agents"],
        "git fabro checkpoint --node plan --next code",
    ),
    (
        "Inspect runs",
        &[
            "log", "ps", "status", "show", "diff", "graph", "path", "validate",
        ],
        "git fabro diff RUN @1 @2 --stat",
    ),
    (
        "Travel in time",
        &["undo", "fork", "rewind", "resume", "restore"],
        "git fabro rewind RUN plan@1",
    ),
    (
        "Share the result",
        &["land", "push", "fetch"],
        "git fabro land RUN",
    ),
    (
        "Run on many machines",
        &["submit", "worker"],
        "git fabro worker --remote runs",
    ),
    (
        "Keep an agent framework's checkpoints",
        &["store"],
        "git fabro store --track-files",
    ),
    (
        "Maintain",
        &["archive", "unarchive", "gc", "fsck", "hooks", "completions"],
        "git fabro hooks install --claude",
    ),
];

/// The root command with its commands listed by group in `-h` and `--help`. It does not
/// point at `git help fabro-COMMAND`: git looks a word it knows no command for up as a guide,
/// `man gitfabro-COMMAND`, so that form finds no page.
pub fn with_groups(root: Command) -> Command {
    let groups = grouped(&root);
    let template = format!(
        "{{about-with-newline}}\n{{usage-heading}} {{usage}}\n\n{groups}Options:\n{{options}}\n\n\
         See `git fabro help COMMAND` (or `man git-fabro-COMMAND`) for each command.\
         {{after-help}}"
    );
    root.help_template(template)
}

/// `Record a run:` and the commands with their one-line help, then the example.
fn grouped(root: &Command) -> String {
    let width = GROUPS
        .iter()
        .flat_map(|(_, names, _)| names.iter().map(|n| n.len()))
        .max()
        .unwrap_or(0);
    let mut text = String::new();
    for (title, names, example) in GROUPS {
        text.push_str(&format!("{title}:\n"));
        for name in *names {
            let about = root
                .find_subcommand(name)
                .and_then(|c| c.get_about())
                .map(ToString::to_string)
                .unwrap_or_default();
            text.push_str(&format!("  {name:<width$}  "));
            text.push_str(&wrap(&about, width + 4));
        }
        text.push_str(&format!("  e.g. {example}\n\n"));
    }
    text
}

/// Help lines are kept within this many columns, as clap keeps its own (`max_term_width`).
const COLUMNS: usize = 100;

/// `text` in lines of at most `COLUMNS`, the ones after the first indented by `indent`.
fn wrap(text: &str, indent: usize) -> String {
    let mut out = String::new();
    let mut used = indent;
    for word in text.split_whitespace() {
        if used > indent && used + 1 + word.len() > COLUMNS {
            out.push('\n');
            out.push_str(&" ".repeat(indent));
            used = indent;
        } else if used > indent {
            out.push(' ');
            used += 1;
        }
        out.push_str(word);
        used += word.len();
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_visible_command_is_in_exactly_one_group() {
        let root = super::super::command();
        for sub in root.get_subcommands().filter(|c| !c.is_hide_set()) {
            let name = sub.get_name();
            let count = GROUPS.iter().filter(|(_, n, _)| n.contains(&name)).count();
            assert_eq!(count, 1, "{name} is in {count} groups");
        }
        for (_, names, _) in GROUPS {
            for name in *names {
                assert!(root.find_subcommand(name).is_some(), "{name} is no command");
            }
        }
    }
}
