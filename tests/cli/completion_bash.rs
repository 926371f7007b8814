//! `git fabro <TAB>` in a real bash. git's own completion (git-completion.bash) finds the
//! `fabro` command and calls `_git_fabro` from completions/git-fabro.bash, which hands the line
//! to the function clap generated for `git-fabro <TAB>`. Each test calls the function that
//! `complete -p` names for the line's first word, with the COMP_* variables bash would set.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::TestRepo;

/// Where systems install git's bash completion: Debian and Ubuntu (the `git` package), Fedora,
/// Arch, older layouts, Homebrew.
const KNOWN_PLACES: [&str; 7] = [
    "/usr/share/bash-completion/completions/git",
    "/usr/share/git-core/contrib/completion/git-completion.bash",
    "/usr/share/git/completion/git-completion.bash",
    "/etc/bash_completion.d/git",
    "/etc/bash_completion.d/git-completion.bash",
    "/usr/local/etc/bash_completion.d/git-completion.bash",
    "/opt/homebrew/etc/bash_completion.d/git-completion.bash",
];

/// Calls the completion function of the first word, prints what it offers as `reply:WORD`
/// and what it asks of `compopt` (bash's own refuses outside a real completion) as `compopt:`.
const DRIVER: &str = r#"
if [[ -n $1 ]]; then source "$1" || exit 1; fi
source "$2" || exit 1
shift 2
compopt() { echo "compopt:$*"; }
spec=$(complete -p "$1") || exit 1
func=${spec##* -F }
func=${func%% *}
COMP_WORDS=("$@")
COMP_CWORD=$(($# - 1))
COMP_LINE="$*"
COMP_POINT=${#COMP_LINE}
COMP_TYPE=9
COMP_KEY=9
"$func" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
for reply in "${COMPREPLY[@]}"; do echo "reply:$reply"; done
"#;

/// git's completion script; None (the test is skipped) only with
/// FABRO_SKIP_BASH_COMPLETION_TEST=1.
fn git_completion() -> Option<PathBuf> {
    let mut places: Vec<PathBuf> = KNOWN_PLACES.iter().map(PathBuf::from).collect();
    // A git built from source: <prefix>/libexec/git-core, the script under <prefix>/share.
    if let Ok(out) = Command::new("git").arg("--exec-path").output() {
        let exec_path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if let Some(prefix) = exec_path.parent().and_then(Path::parent) {
            for rel in [
                "share/bash-completion/completions/git",
                "share/git-core/contrib/completion/git-completion.bash",
                "share/git/completion/git-completion.bash",
            ] {
                places.push(prefix.join(rel));
            }
        }
    }
    if let Some(found) = places.iter().find(|p| p.is_file()) {
        return Some(found.clone());
    }
    if std::env::var_os("FABRO_SKIP_BASH_COMPLETION_TEST").is_some_and(|v| v == "1") {
        eprintln!(
            "SKIPPED: git's bash completion is not installed (FABRO_SKIP_BASH_COMPLETION_TEST=1)"
        );
        return None;
    }
    panic!(
        "git's bash completion (git-completion.bash) is not installed; looked in:\n  {}\n\
         Debian and Ubuntu ship it in the `git` package as \
         /usr/share/bash-completion/completions/git. \
         Set FABRO_SKIP_BASH_COMPLETION_TEST=1 to skip this test.",
        places
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join("\n  ")
    );
}

struct Offered {
    replies: Vec<String>,
    compopt: Vec<String>,
}

/// What bash offers for `words`, the last being the word under the cursor, in a bash that
/// loaded `git_completion` (unless None) and then completions/git-fabro.bash.
fn complete(git_completion: Option<&Path>, words: &[&str]) -> Offered {
    complete_in(&TestRepo::new(), git_completion, words)
}

/// [`complete`] in `repo`, whose runs the completion offers.
fn complete_in(repo: &TestRepo, git_completion: Option<&Path>, words: &[&str]) -> Offered {
    // git lists `fabro` among its commands when git-fabro is on PATH, as it is once installed.
    let binary = PathBuf::from(repo.fabro().get_program());
    let mut path = OsString::from(binary.parent().expect("binary dir"));
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_default());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions/git-fabro.bash");
    let out = Command::new("bash")
        .args(["--norc", "--noprofile", "-c", DRIVER, "bash"])
        .arg(git_completion.map_or_else(OsString::new, |p| p.as_os_str().to_owned()))
        .arg(&script)
        .args(words)
        .env_clear()
        .env("PATH", path)
        .env("HOME", &repo.root)
        .env("LC_ALL", "C")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .current_dir(&repo.path)
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "bash failed for {words:?} ({}):\n{stdout}\n--- stderr ---\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let lines = |prefix: &str| -> Vec<String> {
        stdout
            .lines()
            .filter_map(|l| l.strip_prefix(prefix))
            .map(ToOwned::to_owned)
            .collect()
    };
    Offered {
        replies: lines("reply:"),
        compopt: lines("compopt:"),
    }
}

#[test]
fn completion_bash_git_fabro_completes_commands() {
    let Some(git) = git_completion() else { return };
    let offered = complete(Some(&git), &["git", "fabro", "ch"]);
    assert_eq!(offered.replies, ["checkpoint"]);
    // git completes with -o nospace; the shim turns it off so a command gets its space.
    assert_eq!(offered.compopt, ["+o nospace"]);
}

#[test]
fn completion_bash_git_fabro_completes_flags_and_values() {
    let Some(git) = git_completion() else { return };
    let offered = complete(Some(&git), &["git", "fabro", "checkpoint", "--nod"]);
    assert_eq!(offered.replies, ["--node"]);
    let offered = complete(Some(&git), &["git", "fabro", "completions", "b"]);
    assert_eq!(offered.replies, ["bash"]);
}

#[test]
fn completion_bash_git_fabro_after_git_options() {
    let Some(git) = git_completion() else { return };
    let offered = complete(Some(&git), &["git", "-C", ".", "fabro", "star"]);
    assert_eq!(offered.replies, ["start"]);
    let offered = complete(Some(&git), &["git", "-C", ".", "fabro", "log", "--js"]);
    assert_eq!(offered.replies, ["--json"]);
}

#[test]
fn completion_bash_git_lists_fabro_as_a_command() {
    let Some(git) = git_completion() else { return };
    let offered = complete(Some(&git), &["git", "fabr"]);
    // git's own words carry their trailing space.
    assert_eq!(offered.replies, ["fabro "]);
}

#[test]
fn completion_bash_git_fabro_binary_completes_without_git() {
    let offered = complete(None, &["git-fabro", "star"]);
    assert_eq!(offered.replies, ["start"]);
    // A hyphenated binary's command flags (clap-rs/clap#6421).
    let offered = complete(None, &["git-fabro", "checkpoint", "--nod"]);
    assert_eq!(offered.replies, ["--node"]);
}

#[test]
fn completion_bash_git_fabro_completes_run_ids_and_checkpoints() {
    let Some(git) = git_completion() else { return };
    let (repo, run) = TestRepo::with_run();
    repo.checkpoint(&run.id, "plan");
    repo.checkpoint(&run.id, "code");
    let offered = complete_in(&repo, Some(&git), &["git", "fabro", "log", ""]);
    assert_eq!(offered.replies, [run.id.as_str()]);
    let lower = run.id[..6].to_ascii_lowercase();
    let offered = complete_in(&repo, Some(&git), &["git", "fabro", "land", &lower]);
    assert_eq!(offered.replies, [run.id.as_str()]);
    let offered = complete_in(
        &repo,
        Some(&git),
        &["git", "fabro", "checkpoint", "--run", ""],
    );
    assert_eq!(offered.replies, [run.id.as_str()]);
    // The checkpoints of the run the line names.
    let offered = complete_in(&repo, Some(&git), &["git", "fabro", "show", &run.id, "@"]);
    assert_eq!(offered.replies, ["@2", "@1"]);
    let offered = complete_in(
        &repo,
        Some(&git),
        &["git", "fabro", "diff", "--run", &run.id, "pl"],
    );
    assert_eq!(offered.replies, ["plan@1", "plan"]);
    // Elsewhere, clap's completion as before.
    let offered = complete_in(&repo, Some(&git), &["git", "fabro", "log", "--js"]);
    assert_eq!(offered.replies, ["--json"]);
    let offered = complete_in(&repo, None, &["git-fabro", "fork", &run.id, "co"]);
    assert_eq!(offered.replies, ["code@1", "code"]);
}

#[test]
fn completion_offers_no_hidden_command() {
    for words in [&["git-fabro", ""][..], &["git-fabro", "help", ""]] {
        let offered = complete(None, words);
        assert!(
            offered.replies.iter().any(|r| r == "graph"),
            "{:?}",
            offered.replies
        );
        for hidden in ["__complete", "generate-docs"] {
            assert!(
                !offered.replies.iter().any(|r| r == hidden),
                "{:?}",
                offered.replies
            );
        }
    }
    // Nor do the other shells' scripts, which only the shells themselves could run.
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let script = crate::common::run_ok(TestRepo::new().fabro().args(["completions", shell]));
        assert!(!script.contains("generate-docs"), "{shell}");
        assert!(!script.contains("'__complete"), "{shell}");
        assert!(!script.contains("\"__complete\""), "{shell}");
    }
}
