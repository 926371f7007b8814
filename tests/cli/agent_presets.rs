//! The agent presets: `--agent claude` (and `codex`, `gemini`, `aider`, `copilot`, `qwen`,
//! `opencode`, in `--agent`, git config or run.toml) runs the command line made for that CLI, any other agent command runs
//! as written, and `git fabro agents` says which presets this machine has. The CLIs are fakes
//! on PATH that record the arguments they were started with.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::workflow::between;
use crate::common::{TestRepo, assert_success, read_file, run_err, run_ok, write_file};
use crate::engine_run::workflow;

/// A directory of fake agent CLIs: each records its arguments, one a line, in `NAME.argv`
/// beside it, reads its prompt and answers; `--version` prints `VERSION`.
fn fake_agents(repo: &TestRepo, names: &[(&str, &str)]) -> PathBuf {
    let bin = repo.root.join("bin");
    for (name, version) in names {
        let argv = bin.join(format!("{name}.argv"));
        let script = format!(
            "#!/bin/sh\n[ \"$1\" = --version ] && {{ echo '{version}'; exit 0; }}\n\
             printf '%s\\n' \"$@\" > '{}'\ncat > /dev/null\necho answered\n",
            argv.display()
        );
        let path = bin.join(name);
        write_file(&path, &script);
        make_executable(&path);
    }
    bin
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn path_with(bin: &Path) -> String {
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

fn argv(bin: &Path, name: &str) -> Vec<String> {
    std::fs::read_to_string(bin.join(format!("{name}.argv")))
        .unwrap_or_else(|err| panic!("{name} was not run: {err}"))
        .lines()
        .map(str::to_owned)
        .collect()
}

fn one_agent() -> String {
    between(
        "one",
        r#"graph [model_stylesheet="* { model: model-x; }"]
  work [shape=box, prompt="Do the work"]
  start -> work -> exit"#,
    )
}

/// Runs `one_agent` with the fake agents first on PATH, and asserts it succeeded.
fn run_with(repo: &TestRepo, bin: &Path, extra: &[&str]) {
    let path = workflow(repo, "one", &one_agent());
    let out = repo
        .fabro()
        .arg("run")
        .arg(&path)
        .args(extra)
        .env("PATH", path_with(bin))
        .output()
        .unwrap();
    assert_success(&out);
}

#[test]
fn a_preset_name_runs_its_command_line_and_any_other_command_runs_as_written() {
    let repo = TestRepo::new();
    let bin = fake_agents(&repo, &[("claude", "1"), ("codex", "1")]);

    run_with(&repo, &bin, &["--agent", "claude"]);
    let expected = [
        "-p",
        "--permission-mode",
        "acceptEdits",
        "--model",
        "model-x",
    ];
    assert_eq!(argv(&bin, "claude"), expected);

    repo.git(&["config", "fabro.agentCommand", "codex"]);
    run_with(&repo, &bin, &[]);
    let expected = [
        "exec",
        "--sandbox",
        "workspace-write",
        "--model",
        "model-x",
        "-",
    ];
    assert_eq!(argv(&bin, "codex"), expected);

    run_with(&repo, &bin, &["--agent", "claude --print"]);
    assert_eq!(argv(&bin, "claude"), ["--print"]);
}

#[test]
fn copilot_qwen_and_opencode_answer_the_prompt_on_stdin_with_least_privilege() {
    let repo = TestRepo::new();
    let names = [
        ("copilot", "1.0.102"),
        ("qwen", "0.24.4"),
        ("opencode", "1.18.33"),
    ];
    let bin = fake_agents(&repo, &names);
    run_with(&repo, &bin, &["--agent", "copilot"]);
    let expected = [
        "-s",
        "--allow-tool=write",
        "--no-auto-update",
        "--model",
        "model-x",
    ];
    assert_eq!(argv(&bin, "copilot"), expected);
    run_with(&repo, &bin, &["--agent", "qwen"]);
    let expected = ["--approval-mode", "auto-edit", "--model", "model-x"];
    assert_eq!(argv(&bin, "qwen"), expected);
    run_with(&repo, &bin, &["--agent", "opencode"]);
    assert_eq!(argv(&bin, "opencode"), ["run", "--model", "model-x"]);
}

#[test]
fn the_new_presets_get_their_logins_and_no_github_token() {
    let repo = TestRepo::new();
    let bin = repo.root.join("bin");
    let seen = bin.join("copilot.env");
    let names = [
        "COPILOT_PROVIDER_API_KEY",
        "COPILOT_GITHUB_TOKEN",
        "DASHSCOPE_API_KEY",
        "OPENAI_MODEL",
        "OPENCODE_CONFIG",
        "GITHUB_TOKEN",
        "GH_TOKEN",
        "QWEN_SERVER_TOKEN",
    ];
    let script = format!(
        "#!/bin/sh\ncat >/dev/null\nenv | grep -E '^({})=' | sort >'{}'\necho answered\n",
        names.join("|"),
        seen.display()
    );
    write_file(&bin.join("copilot"), &script);
    make_executable(&bin.join("copilot"));
    let path = workflow(&repo, "one", &one_agent());
    let mut run = repo.fabro();
    run.args(["run", "--agent", "copilot"]).arg(&path);
    for name in names {
        run.env(name, "v");
    }
    let out = run.env("PATH", path_with(&bin)).output().unwrap();
    assert_success(&out);
    let passed: Vec<String> = read_file(&seen)
        .lines()
        .map(|line| line.trim_end_matches("=v").to_owned())
        .collect();
    assert_eq!(
        passed,
        [
            "COPILOT_GITHUB_TOKEN",
            "COPILOT_PROVIDER_API_KEY",
            "DASHSCOPE_API_KEY",
            "OPENAI_MODEL",
            "OPENCODE_CONFIG",
        ]
    );
}

#[test]
fn agents_lists_each_preset_whether_installed_its_version_and_command() {
    let repo = TestRepo::new();
    let bin = fake_agents(&repo, &[("claude", "9.9.9 (Claude Code)"), ("aider", "")]);
    // A gemini that cannot be run is not installed.
    write_file(&bin.join("gemini"), "#!/bin/sh\necho 1.0\n");
    let search_path = bin.display().to_string();

    let table = run_ok(repo.fabro().arg("agents").env("PATH", &search_path));
    let rows: Vec<&str> = table.lines().collect();
    assert!(rows[0].starts_with("AGENT"), "{table}");
    let row = |name: &str| {
        rows.iter()
            .find(|row| row.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no {name} in:\n{table}"))
            .to_string()
    };
    assert!(row("claude").contains("9.9.9 (Claude Code)"), "{table}");
    assert!(row("claude").contains("claude -p --permission-mode acceptEdits"));
    assert!(row("codex").contains("not installed"), "{table}");
    assert!(row("gemini").contains("not installed"), "{table}");
    assert!(row("aider").contains("installed (no version)"), "{table}");

    let json = run_ok(
        repo.fabro()
            .args(["agents", "--json"])
            .env("PATH", &search_path),
    );
    let listed: Vec<Value> = serde_json::from_str(&json).unwrap();
    let names: Vec<&str> = listed.iter().filter_map(|a| a["name"].as_str()).collect();
    assert_eq!(
        names,
        [
            "claude", "codex", "gemini", "aider", "copilot", "qwen", "opencode"
        ]
    );
    assert_eq!(listed[0]["installed"], true);
    assert_eq!(listed[0]["version"], "9.9.9 (Claude Code)");
    assert_eq!(
        listed[0]["path"],
        bin.join("claude").display().to_string().as_str()
    );
    assert!(
        listed[0]["command"]
            .as_str()
            .unwrap()
            .starts_with("claude -p")
    );
    assert_eq!(listed[1]["installed"], false);
    assert_eq!(listed[1]["version"], Value::Null);
}

#[test]
fn a_preset_whose_program_is_not_on_path_is_refused_before_anything_is_written() {
    let repo = TestRepo::new();
    let bin = fake_agents(&repo, &[("claude", "1")]);
    let path = workflow(&repo, "one", &one_agent());
    let refs_before = repo.git(&["for-each-ref"]);
    let (code, err) = run_err(
        repo.fabro()
            .arg("run")
            .arg(&path)
            .args(["--agent", "gemini"])
            .env("PATH", format!("{}:/usr/bin:/bin", bin.display())),
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("`gemini`, which is not on PATH"), "{err}");
    assert!(err.contains("git fabro agents"), "{err}");
    assert_eq!(repo.git(&["for-each-ref"]), refs_before);
}
