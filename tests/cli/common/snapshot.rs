//! Whole-output snapshots of what a command prints for people (`insta`, files under
//! `tests/cli/snapshots/`). What differs between two runs of a test is replaced by a name:
//! run ids (a time and 80 random bits), commit ids (git-fabro signs its commits with the time
//! now), times, durations and the temporary folders.

use super::TestRepo;

/// The filters for `repo`'s output, bound while a guard lives:
/// `let _filters = snapshot::filters(&repo).bind_to_scope(); insta::assert_snapshot!(out);`
pub fn filters(repo: &TestRepo) -> insta::Settings {
    filters_naming(repo, &[])
}

/// [`filters`], with each of `names`' texts replaced by its name first: to tell apart two
/// runs that would both be `[RUN]`.
pub fn filters_naming(repo: &TestRepo, names: &[(&str, &str)]) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    for (text, name) in names {
        settings.add_filter(&regex::escape(text), *name);
    }
    // Longest first: the repository and fabro home are inside the temporary folder.
    for (path, name) in [
        (&repo.path, "[REPO]"),
        (&repo.home, "[FABRO_HOME]"),
        (&repo.root, "[ROOT]"),
    ] {
        settings.add_filter(&regex::escape(path.to_str().expect("UTF-8 path")), name);
    }
    for (pattern, name) in RANDOM {
        settings.add_filter(pattern, *name);
    }
    settings
}

/// In order: the date before a run id in a run directory's name goes before the commit ids,
/// which eight digits would match.
const RANDOM: &[(&str, &str)] = &[
    (r"\b\d{8}-([0-9A-HJKMNP-TV-Z]{26})\b", "[DATE]-$1"),
    (r"\b[0-9A-HJKMNP-TV-Z]{26}\b", "[RUN]"),
    // The short forms people see: the first eight characters (the start of the time), more
    // where runs share them.
    (r"\b0[0-9A-HJKMNP-TV-Z]{7,25}\b", "[RUN-SHORT]"),
    (r"\b[0-9a-f]{40}\b", "[COMMIT]"),
    (r"\b[0-9a-f]{7}\b", "[SHORT]"),
    (
        r"\b\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d+)?( ?[+-]\d{2}:?\d{2}|Z)?",
        "[TIME]",
    ),
    (r"\b\d{2}:\d{2}:\d{2}\b", "[CLOCK]"),
    (r"\b\d+(\.\d+)?(ms|s)\b", "[DURATION]"),
    (r"\bpid \d+\b", "pid [PID]"),
    (r"(?m)^(process +)\d+\b", "${1}[PID]"),
];

/// `git fabro ARGS` as typed, what it printed on stderr and its exit code, for a snapshot of
/// how commands are refused: one such entry a command, several in one snapshot.
pub fn refused(repo: &TestRepo, args: &[&str]) -> String {
    refused_in(repo, &repo.path, args)
}

pub fn refused_in(repo: &TestRepo, dir: &std::path::Path, args: &[&str]) -> String {
    let (code, stderr) = super::run_err(repo.fabro_in(dir).args(args));
    let typed: Vec<String> = args.iter().map(|arg| shell_word(arg)).collect();
    format!("$ git fabro {}\n{stderr}[exit {code}]\n", typed.join(" "))
}

/// `arg` as a shell would need it typed: bare when it is plain, else quoted with its escapes.
fn shell_word(arg: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "@._/=:,-+".contains(c);
    if !arg.is_empty() && arg.chars().all(plain) {
        arg.to_owned()
    } else {
        format!("{arg:?}")
    }
}
