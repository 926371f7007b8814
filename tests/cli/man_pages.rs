//! What the man pages say: synopses with the value names `--help` shows, the examples `--help`
//! prints, and on the top page (the one `git fabro --help` opens) the commands in the groups of
//! `git-fabro --help`.

use std::path::Path;

use crate::common::{TestRepo, run_ok};
use crate::generated::{have_man, isolated};

/// The checked-in page of the command at `words` (`["hooks", "install"]`).
fn page(words: &[&str]) -> String {
    let name = std::iter::once("git-fabro")
        .chain(words.iter().copied())
        .collect::<Vec<_>>()
        .join("-");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("man/{name}.1"));
    std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

/// roff text as a reader sees it: no font changes, no escapes.
fn plain(roff: &str) -> String {
    roff.replace("\\fB", "")
        .replace("\\fI", "")
        .replace("\\fR", "")
        .replace("\\-", "-")
        .replace("\\*(Aq", "'")
}

/// The lines after `.SH NAME` up to the next section heading.
fn section(page: &str, name: &str) -> Vec<String> {
    page.lines()
        .skip_while(|line| *line != format!(".SH {name}"))
        .skip(1)
        .take_while(|line| !line.starts_with(".SH "))
        .map(plain)
        .collect()
}

/// Every visible command, by its words after `git fabro`.
fn commands(cmd: &clap::Command, words: Vec<String>, all: &mut Vec<Vec<String>>) {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        if sub.get_name() != "help" {
            let mut sub_words = words.clone();
            sub_words.push(sub.get_name().to_owned());
            commands(sub, sub_words.clone(), all);
            all.push(sub_words);
        }
    }
}

fn every_command() -> Vec<Vec<String>> {
    let mut all = vec![Vec::new()];
    commands(&git_fabro::cli::command(), Vec::new(), &mut all);
    all
}

#[test]
fn synopses_keep_the_value_names_of_the_usage() {
    let repo = TestRepo::new();
    for words in every_command() {
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        let synopsis = section(&page(&words), "SYNOPSIS").join(" ");
        // `Usage: git fabro checkpoint [OPTIONS] --node <NODE>`: every `--flag <VALUE>` and
        // positional the usage names is in the synopsis as written.
        let help = run_ok(repo.fabro_in(&repo.root).args(&words).arg("--help"));
        let usage = help
            .lines()
            .find_map(|line| line.strip_prefix("Usage: "))
            .expect("a usage line");
        for part in usage.split(" [OPTIONS]").flat_map(|s| s.split(" [-- ")) {
            let part = part.trim().trim_end_matches(']');
            assert!(
                synopsis.contains(part),
                "{words:?}: `{part}` of the usage is not in the synopsis `{synopsis}`"
            );
        }
        for flag in [
            "--node <NODE>",
            "--run <RUN>",
            "--status <STATUS>",
            "-C <DIR>",
        ] {
            if help.contains(&format!("  {flag}")) || help.contains(&format!(" {flag}  ")) {
                assert!(
                    synopsis.contains(flag),
                    "{words:?}: no `{flag}` in `{synopsis}`"
                );
            }
        }
    }
}

#[test]
fn every_page_has_the_examples_help_prints() {
    let repo = TestRepo::new();
    for words in every_command() {
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        let help = run_ok(repo.fabro_in(&repo.root).args(&words).arg("--help"));
        let in_help: Vec<&str> = help
            .lines()
            .skip_while(|line| *line != "Examples:")
            .filter_map(|line| line.strip_prefix("  "))
            .filter(|line| line.starts_with("git fabro "))
            .collect();
        let in_page = section(&page(&words), "EXAMPLES");
        let in_page: Vec<&str> = in_page
            .iter()
            .map(String::as_str)
            .filter(|line| line.starts_with("git fabro "))
            .collect();
        assert!(
            in_help.len() >= 2,
            "{words:?}: --help has no examples:\n{help}"
        );
        assert_eq!(
            in_help, in_page,
            "{words:?}: --help and the man page differ"
        );
    }
}

#[test]
fn the_top_page_has_the_groups_of_help_and_examples() {
    let repo = TestRepo::new();
    let help = run_ok(repo.fabro_in(&repo.root).arg("-h"));
    // `Record a run:` and the other groups, each followed by its indented commands.
    let groups: Vec<&str> = help
        .lines()
        .filter(|line| line.ends_with(':') && !line.starts_with(' ') && *line != "Options:")
        .map(|line| line.trim_end_matches(':'))
        .collect();
    assert!(groups.len() >= 5, "{help}");
    if !have_man() {
        return;
    }
    let manpath = repo.root.join("share/man");
    std::fs::create_dir_all(manpath.join("man1")).expect("man dir");
    std::fs::write(manpath.join("man1/git-fabro.1"), page(&[])).expect("page");
    let binary = std::path::PathBuf::from(repo.fabro().get_program());
    let mut path = std::ffi::OsString::from(binary.parent().expect("binary dir"));
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_default());
    // `git fabro --help` is git's: it opens the man page git-fabro.
    let out = isolated("git", &repo.root)
        .env("PATH", &path)
        .env("MANPATH", &manpath)
        .args(["fabro", "--help"])
        .current_dir(&repo.path)
        .output()
        .expect("git runs");
    let shown = String::from_utf8_lossy(&out.stdout);
    let mut rest = shown.as_ref();
    for heading in ["COMMANDS"].iter().chain(&groups).chain(&["EXAMPLES"]) {
        let at = rest
            .find(&format!("\n   {heading}\n"))
            .or_else(|| rest.find(&format!("\n{heading}\n")))
            .unwrap_or_else(|| panic!("no `{heading}` (in this order) in:\n{shown}"));
        rest = &rest[at + heading.len()..];
    }
    assert!(shown.contains("git-fabro-checkpoint(1)"), "{shown}");
    assert!(shown.contains("git fabro run examples/"), "{shown}");
}
