//! One man page, put together from clap_mangen's sections and three of our own: a synopsis that
//! keeps the value names (`--node <NODE>`, as `--help` and the OPTIONS section write them, where
//! clap_mangen's synopsis drops them), a COMMANDS list (on the top page, in the groups
//! `git fabro --help` shows), and an EXAMPLES section from the examples `--help` prints.

use clap::{Arg, ArgAction, Command};
use clap_mangen::Man;
use clap_mangen::roff::{Inline, Roff, bold, italic, roman};

use super::examples;
use super::help::GROUPS;

/// The page of `cmd`, the command at `path` (its words after `git fabro`, `""` for the root).
pub fn page(cmd: &Command, path: &str) -> Vec<u8> {
    let man = Man::new(cmd.clone())
        // roff drops an empty argument, which would shift the source into the date's place;
        // `""` is roff's empty argument. No date keeps the pages reproducible.
        .date(r#""""#)
        .source(format!("git-fabro {}", env!("CARGO_PKG_VERSION")))
        .manual("git-fabro manual");
    let mut page = Page::default();
    page.add(|w| man.render_title(w));
    page.add(|w| man.render_name_section(w));
    page.add(|w| synopsis(cmd).to_writer(w));
    page.add(|w| man.render_description_section(w));
    if cmd.get_arguments().any(|arg| !arg.is_hide_set()) {
        page.add(|w| man.render_options_section(w));
    }
    page.add(|w| commands_section(cmd, path.is_empty()).to_writer(w));
    page.add(|w| examples_section(path).to_writer(w));
    if cmd.get_version().is_some() {
        page.add(|w| man.render_version_section(w));
    }
    page.bytes
}

/// The page's bytes. Every section clap_mangen or roff renders starts with roff's definition of
/// the apostrophe string; the page keeps the first one only.
#[derive(Default)]
struct Page {
    bytes: Vec<u8>,
}

impl Page {
    fn add(&mut self, render: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>) {
        let mut section = Vec::new();
        render(&mut section).expect("rendering into memory does not fail");
        let preamble = Roff::new().render();
        match section.strip_prefix(preamble.as_bytes()) {
            Some(rest) if !self.bytes.is_empty() => self.bytes.extend_from_slice(rest),
            _ => self.bytes.extend_from_slice(&section),
        }
    }
}

/// `git fabro checkpoint [-C <DIR>] [--run <RUN>] ... --node <NODE>`: optional options first,
/// then required ones, then the positionals and `<COMMAND>`, as clap's usage orders them.
fn synopsis(cmd: &Command) -> Roff {
    let mut line = vec![bold(cmd.get_bin_name().unwrap_or_else(|| cmd.get_name()))];
    let mut options: Vec<&Arg> = cmd
        .get_arguments()
        .filter(|arg| !arg.is_hide_set() && !arg.is_positional())
        .collect();
    options.sort_by_key(|arg| sort_key(arg));
    let (required, optional): (Vec<&Arg>, Vec<&Arg>) =
        options.into_iter().partition(|arg| arg.is_required_set());
    for arg in optional.into_iter().chain(required) {
        line.push(roman(" "));
        line.extend(option(arg));
    }
    for arg in cmd.get_positionals().filter(|arg| !arg.is_hide_set()) {
        line.push(roman(" "));
        line.extend(positional(arg));
    }
    if cmd.get_subcommands().any(|sub| !sub.is_hide_set()) {
        line.extend([roman(" <"), italic("COMMAND"), roman(">")]);
    }
    let mut roff = Roff::new();
    roff.control("SH", ["SYNOPSIS"]).text(line);
    roff
}

/// The order of the OPTIONS section (clap_mangen's): display order, then the flag's letters.
fn sort_key(arg: &Arg) -> (usize, String) {
    let name = match (arg.get_short(), arg.get_long()) {
        (Some(short), _) => format!(
            "{}{}",
            short.to_ascii_lowercase(),
            u8::from(short.is_uppercase())
        ),
        (None, Some(long)) => long.to_owned(),
        (None, None) => arg.get_id().to_string(),
    };
    (arg.get_display_order(), name)
}

/// `[-q|--quiet]`, `--node <NODE>`, `[--wait[=<DURATION>]]`, `[--label <K=V>]...`.
fn option(arg: &Arg) -> Vec<Inline> {
    let mut out = Vec::new();
    let required = arg.is_required_set();
    if !required {
        out.push(roman("["));
    }
    match (arg.get_short(), arg.get_long()) {
        (Some(short), Some(long)) if !takes_values(arg) => {
            out.extend([
                bold(format!("-{short}")),
                roman("|"),
                bold(format!("--{long}")),
            ]);
        }
        (_, Some(long)) => out.push(bold(format!("--{long}"))),
        (Some(short), None) => out.push(bold(format!("-{short}"))),
        (None, None) => {}
    }
    out.extend(value(arg));
    if !required {
        out.push(roman("]"));
    }
    if repeats(arg) {
        out.push(roman("..."));
    }
    out
}

/// ` <NODE>`, or `[=<WHEN>]` for a value that may be left out.
fn value(arg: &Arg) -> Vec<Inline> {
    let Some(range) = arg.get_num_args().filter(|r| r.takes_values()) else {
        return Vec::new();
    };
    let names = value_names(arg);
    let (before, after) = match (range.min_values() > 0, arg.is_require_equals_set()) {
        (true, false) => (" ", ""),
        (true, true) => ("=", ""),
        (false, false) => (" [", "]"),
        (false, true) => ("[=", "]"),
    };
    vec![roman(before), italic(format!("<{names}>")), roman(after)]
}

/// `[RUN]`, `<WORKFLOW>`, `[PATHS]...`, and `[-- <PATH>...]` for the words after `--`.
fn positional(arg: &Arg) -> Vec<Inline> {
    let (open, close) = if arg.is_required_set() {
        ("<", ">")
    } else {
        ("[", "]")
    };
    let many = if repeats(arg) { "..." } else { "" };
    let names = value_names(arg);
    if arg.is_last_set() {
        return vec![
            roman(format!("{open}-- <")),
            italic(names),
            roman(format!(">{many}{close}")),
        ];
    }
    vec![roman(open), italic(names), roman(format!("{close}{many}"))]
}

fn value_names(arg: &Arg) -> String {
    match arg.get_value_names() {
        Some(names) if !names.is_empty() => names
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" "),
        _ => arg.get_id().as_str().to_uppercase(),
    }
}

fn takes_values(arg: &Arg) -> bool {
    arg.get_num_args().is_some_and(|r| r.takes_values())
}

/// Whether the argument may be given more than once, or take more values than it names.
fn repeats(arg: &Arg) -> bool {
    let named = arg.get_value_names().map_or(1, <[_]>::len);
    matches!(arg.get_action(), ArgAction::Append | ArgAction::Count)
        || arg.get_num_args().is_some_and(|r| r.max_values() > named)
}

/// COMMANDS: the commands' pages with their one-line help; on the root's page, in the groups
/// of `git fabro --help`, each with its example.
fn commands_section(cmd: &Command, grouped: bool) -> Roff {
    let mut roff = Roff::new();
    let visible: Vec<&Command> = cmd.get_subcommands().filter(|s| !s.is_hide_set()).collect();
    if visible.is_empty() {
        return roff;
    }
    roff.control("SH", ["COMMANDS"]);
    if !grouped {
        for sub in visible {
            command_entry(&mut roff, sub);
        }
        return roff;
    }
    for (title, names, example) in GROUPS {
        roff.control("SS", [*title]);
        for sub in names.iter().filter_map(|name| cmd.find_subcommand(name)) {
            command_entry(&mut roff, sub);
        }
        roff.control("PP", [])
            .text([roman("e.g. "), bold(*example)]);
    }
    roff
}

/// `git-fabro-start(1)` and, under it, what the command does.
fn command_entry(roff: &mut Roff, sub: &Command) {
    let page = sub.get_display_name().unwrap_or_else(|| sub.get_name());
    let about = sub.get_about().map(ToString::to_string).unwrap_or_default();
    roff.control("TP", [])
        .text([bold(page), roman("(1)")])
        .text([roman(about)]);
}

/// EXAMPLES: each command line in bold, what it does under it.
fn examples_section(path: &str) -> Roff {
    let mut roff = Roff::new();
    let examples = examples::of(path);
    if examples.is_empty() {
        return roff;
    }
    roff.control("SH", ["EXAMPLES"]);
    for example in examples {
        roff.control("TP", [])
            .text([bold(example.line)])
            .text([roman(example.what)]);
    }
    roff
}
