//! `man/` and `completions/` are generated from the clap definition and checked in. These tests
//! keep them identical to what the generator produces now (`FABRO_BLESS=1` rewrites them), and
//! check that man renders the pages and that `git help fabro` and `git fabro --help` find them.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use clap_complete::Generator;
use git_fabro::cli::generate::{SHELLS, completion_files, man_pages};

use crate::common::{TestRepo, run_ok};

const STALE: &str = "man/ or completions/ are stale: run `cargo run -- generate-docs .`";
const DIRS: [&str; 2] = ["man", "completions"];

fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// What the generator produces, keyed by path relative to the directory it is written to.
fn generated() -> BTreeMap<PathBuf, Vec<u8>> {
    let man = man_pages()
        .into_iter()
        .map(|(p, b)| (Path::new("man").join(p), b));
    let completions = completion_files()
        .into_iter()
        .map(|(p, b)| (Path::new("completions").join(p), b));
    man.chain(completions).collect()
}

/// Every file in `dir`'s man/ and completions/, keyed the same way.
fn files_in(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    for sub in DIRS {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        for entry in entries.flatten() {
            let rel = Path::new(sub).join(entry.file_name());
            files.insert(rel, std::fs::read(entry.path()).unwrap_or_default());
        }
    }
    files
}

/// One line per file that is missing, different or not generated.
fn differences(
    expected: &BTreeMap<PathBuf, Vec<u8>>,
    actual: &BTreeMap<PathBuf, Vec<u8>>,
) -> Vec<String> {
    let mut lines = Vec::new();
    for (path, bytes) in expected {
        match actual.get(path) {
            None => lines.push(format!("  missing        {}", path.display())),
            Some(found) if found != bytes => {
                lines.push(format!("  out of date    {}", path.display()));
            }
            Some(_) => {}
        }
    }
    for path in actual.keys().filter(|p| !expected.contains_key(*p)) {
        lines.push(format!("  not generated  {}", path.display()));
    }
    lines
}

#[test]
fn generated_files_are_fresh() {
    let problems = differences(&generated(), &files_in(repo_root()));
    if problems.is_empty() {
        return;
    }
    if std::env::var_os("FABRO_BLESS").is_some_and(|v| v == "1") {
        let repo = TestRepo::new();
        run_ok(repo.fabro().arg("generate-docs").arg(repo_root()));
        let left = differences(&generated(), &files_in(repo_root()));
        assert!(left.is_empty(), "generate-docs left:\n{}", left.join("\n"));
        return;
    }
    panic!("{STALE}\n{}", problems.join("\n"));
}

#[test]
fn completions_prints_the_checked_in_scripts() {
    let repo = TestRepo::new();
    for shell in SHELLS {
        // The temp dir above the repository is no repository: completions needs none.
        let printed = run_ok(
            repo.fabro_in(&repo.root)
                .args(["completions", &shell.to_string()]),
        );
        let file = Path::new("completions").join(shell.file_name("git-fabro"));
        let checked_in = std::fs::read(repo_root().join(&file)).unwrap_or_default();
        assert!(
            printed.as_bytes() == checked_in,
            "`git fabro completions {shell}` differs from {}; {STALE}",
            file.display()
        );
    }
}

#[test]
fn generate_docs_writes_exactly_the_generated_files() {
    let repo = TestRepo::new();
    let out = repo.root.join("out");
    crate::common::write_file(&out.join("man/git-fabro-removed.1"), "old page\n");
    crate::common::write_file(&out.join("completions/git-fabro.bash"), "old script\n");
    run_ok(repo.fabro_in(&repo.root).arg("generate-docs").arg(&out));
    let left = differences(&generated(), &files_in(&out));
    assert!(left.is_empty(), "generate-docs left:\n{}", left.join("\n"));
}

#[test]
fn man_pages_name_themselves_and_skip_hidden_commands() {
    let pages = man_pages();
    let names: Vec<String> = pages.iter().map(|(p, _)| p.display().to_string()).collect();
    let mut expected = Vec::new();
    visible_pages(&git_fabro::cli::command(), "git-fabro", &mut expected);
    assert_eq!(names, expected);
    for (path, page) in &pages {
        let page = String::from_utf8_lossy(page);
        let stem = path.file_stem().unwrap().to_string_lossy();
        let title = format!(
            "\n.TH {stem} 1 \"\" \"git-fabro {}\"",
            env!("CARGO_PKG_VERSION")
        );
        assert!(page.contains(&title), "{stem}: no `{title}` in\n{page}");
        assert!(
            page.contains(&format!("\n{} \\- ", stem.replace('-', "\\-"))),
            "{stem}: its NAME section does not name it:\n{page}"
        );
    }
    let root = String::from_utf8_lossy(&pages[0].1);
    assert!(
        root.contains("\\fBgit\\-fabro\\-checkpoint\\fR(1)"),
        "{root}"
    );
    assert!(root.contains("\\fBgit fabro\\fR"), "synopsis: {root}");
    assert!(
        !root.contains("generate\\-docs"),
        "a hidden command is listed:\n{root}"
    );
    assert!(!names.iter().any(|n| n.contains("help")), "{names:?}");
}

/// `<prefix>.1` and a page for each visible command under it, as `git-fabro-hooks-install.1`.
fn visible_pages(cmd: &clap::Command, prefix: &str, pages: &mut Vec<String>) {
    pages.push(format!("{prefix}.1"));
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        if sub.get_name() != "help" {
            visible_pages(sub, &format!("{prefix}-{}", sub.get_name()), pages);
        }
    }
}

/// Whether man can run here. CI installs man-db and groff; elsewhere a missing man fails the
/// test with how to install it, unless FABRO_SKIP_MAN_TESTS=1 skips it out loud.
pub fn have_man() -> bool {
    let found = Command::new("man")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if found {
        return true;
    }
    if std::env::var_os("FABRO_SKIP_MAN_TESTS").is_some_and(|v| v == "1") {
        eprintln!("SKIPPED: man is not installed (FABRO_SKIP_MAN_TESTS=1)");
        return false;
    }
    panic!(
        "man is not installed (Debian: apt-get install man-db groff-base); \
         set FABRO_SKIP_MAN_TESTS=1 to skip the man page tests"
    );
}

/// A command with the environment man and git need and nothing of the user's.
pub fn isolated(program: &str, home: &Path) -> Command {
    let mut cmd = Command::new(program);
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("LC_ALL", "C")
        .env("MANWIDTH", "80")
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null");
    cmd
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn man_pages_render_without_warnings() {
    if !have_man() {
        return;
    }
    let repo = TestRepo::new();
    for (path, _) in man_pages() {
        let page = repo_root().join("man").join(&path);
        // Same as `man --warnings -l man/git-fabro.1 > /dev/null`: groff's warnings on stderr.
        let out = isolated("man", &repo.root)
            .arg("--warnings")
            .arg("-l")
            .arg(&page)
            .output()
            .expect("man runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && stderr.is_empty(),
            "man -l {} ({}):\n{stderr}",
            page.display(),
            out.status
        );
        assert!(stdout(&out).contains("NAME"), "{}", stdout(&out));
    }
}

#[test]
fn git_help_finds_the_man_pages() {
    if !have_man() {
        return;
    }
    let repo = TestRepo::new();
    let manpath = repo.root.join("share/man");
    for (path, page) in man_pages() {
        crate::common::write_file(
            &manpath.join("man1").join(&path),
            &String::from_utf8(page).expect("UTF-8 page"),
        );
    }
    // `git fabro --help` is git's: it runs `git help fabro`, which finds git-fabro on PATH.
    let binary = PathBuf::from(repo.fabro().get_program());
    let mut path = OsString::from(binary.parent().expect("binary dir"));
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_default());
    let run = |program: &str, args: &[&str]| {
        isolated(program, &repo.root)
            .env("PATH", &path)
            .env("MANPATH", &manpath)
            .args(args)
            .current_dir(&repo.path)
            .output()
            .expect("runs")
    };
    // What `git-fabro --help` says opens a command's page: `git help fabro-run` would not
    // (git runs `man gitfabro-run` for a word that is no command of its).
    let out = run("git-fabro", &["--help"]);
    let advertised = stdout(&out)
        .lines()
        .find(|line| line.starts_with("See "))
        .unwrap_or_default()
        .to_owned();
    assert_eq!(
        advertised,
        "See `git fabro help COMMAND` (or `man git-fabro-COMMAND`) for each command."
    );
    let out = run("git", &["fabro", "help", "run"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout(&out), stdout(&run("git-fabro", &["run", "--help"])));
    for (program, args, title) in [
        ("man", &["git-fabro-run"][..], "git-fabro-run(1)"),
        ("git", &["help", "fabro"][..], "git-fabro(1)"),
        ("git", &["fabro", "--help"][..], "git-fabro(1)"),
        (
            "man",
            &["git-fabro-checkpoint"][..],
            "git-fabro-checkpoint(1)",
        ),
    ] {
        let out = run(program, args);
        assert!(
            out.status.success() && stdout(&out).starts_with(title),
            "{program} {args:?} ({}):\n{}\n--- stderr ---\n{}",
            out.status,
            stdout(&out),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
