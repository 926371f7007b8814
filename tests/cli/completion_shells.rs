//! Run ids and checkpoints complete in zsh and fish too, through the same
//! `git-fabro __complete`. fish's own `complete -C` runs the real completion; zsh's completion
//! functions only run inside its line editor, so the zsh test calls the generated `_git-fabro`
//! with `words` and `CURRENT` set as zsh sets them and `compadd` recording what it is given.
//! Each test checks the script's text when its shell is not installed, and says so.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::common::{TestRepo, read_file};

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("completions")
        .join(name)
}

fn installed(shell: &str) -> bool {
    std::process::Command::new(shell)
        .arg("-c")
        .arg("exit 0")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// `shell -c code`, in the repository, with git-fabro on PATH.
fn run_shell(repo: &TestRepo, shell: &str, args: &[&str], code: &str) -> String {
    let binary = PathBuf::from(repo.fabro().get_program());
    let mut path = OsString::from(binary.parent().expect("binary dir"));
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_default());
    let out = repo
        .command(shell)
        .args(args)
        .arg("-c")
        .arg(code)
        .env("PATH", path)
        .output()
        .expect("the shell runs");
    assert!(
        out.status.success(),
        "{shell} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn completion_fish_completes_run_ids_and_checkpoints() {
    let text = read_file(script("git-fabro.fish"));
    assert!(
        text.contains("git-fabro __complete"),
        "the fish script asks the binary"
    );
    if !installed("fish") {
        eprintln!("SKIPPED running fish: it is not installed; checked the script's text only");
        return;
    }
    let (repo, run) = TestRepo::with_run();
    repo.checkpoint(&run.id, "plan");
    let source = format!("source '{}';", script("git-fabro.fish").display());
    let out = run_shell(
        &repo,
        "fish",
        &["--no-config"],
        &format!("{source} complete -C'git-fabro log '"),
    );
    assert_eq!(out, format!("{}\trunning\n", run.id));
    let out = run_shell(
        &repo,
        "fish",
        &["--no-config"],
        &format!("{source} complete -C'git-fabro show {} @'", run.id),
    );
    assert_eq!(out, "@1\tsucceeded: plan@1\n");
    // Flags still come from clap's part of the script.
    let out = run_shell(
        &repo,
        "fish",
        &["--no-config"],
        &format!("{source} complete -C'git-fabro checkpoint --no'"),
    );
    assert!(out.starts_with("--node\t"), "{out}");
}

#[test]
fn completion_zsh_completes_run_ids_and_falls_back_to_clap() {
    let text = read_file(script("_git-fabro"));
    assert!(
        text.contains("git-fabro __complete"),
        "the zsh script asks the binary"
    );
    assert!(
        text.contains("_git-fabro_static() {"),
        "clap's function stays, renamed"
    );
    if !installed("zsh") {
        eprintln!("SKIPPED running zsh: it is not installed; checked the script's text only");
        return;
    }
    let (repo, run) = TestRepo::with_run();
    repo.checkpoint(&run.id, "plan");
    // `compdef` is compinit's; `compadd` and `_arguments` only work inside completion: record
    // what they are given (`compadd -a NAME` takes the array NAME).
    let driver = format!(
        r#"compdef() {{ : }}
compadd() {{ print -r -- "compadd:${{(@P)${{@[-1]}}}}" }}
_arguments() {{ print -r -- "static" }}
source '{}'
words=("$@"); CURRENT=$#
_git-fabro"#,
        script("_git-fabro").display()
    );
    let offered = |words: &[&str]| {
        let mut args = vec!["-f", "-c", &driver, "zsh"];
        args.extend_from_slice(words);
        let mut cmd = repo.command("zsh");
        let binary = PathBuf::from(repo.fabro().get_program());
        let mut path = OsString::from(binary.parent().expect("binary dir"));
        path.push(":");
        path.push(std::env::var_os("PATH").unwrap_or_default());
        let out = cmd.args(&args).env("PATH", path).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let out = offered(&["git-fabro", "log", ""]);
    assert!(out.contains("compadd:") && out.contains(&run.id), "{out}");
    let out = offered(&["git-fabro", "show", &run.id, "pl"]);
    assert!(out.contains("plan@1") && out.contains("plan"), "{out}");
    // As `_git` calls it for `git fabro`: words start at `fabro`.
    let out = offered(&["fabro", "diff", ""]);
    assert!(out.contains(&run.id), "{out}");
    let out = offered(&["git-fabro", "checkpoint", "--no"]);
    assert_eq!(out.trim(), "static", "{out}");
}
