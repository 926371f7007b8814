//! What reaches a node from the environment of whoever started `git fabro run`: a git pointed
//! at the user's repository (`GIT_DIR`, `git --git-dir=...`, `git -c`), as inside a git hook,
//! and secrets (`AWS_SECRET_ACCESS_KEY`, `SSH_AUTH_SOCK`, `GIT_ASKPASS`, a password in
//! `DATABASE_URL`). Nodes get an allowlist; agent nodes also their logins; anything else
//! only when the user names it in `[env] pass` or `fabro.envPass`, and a repository redirect
//! never.

use std::path::Path;
use std::process::{Command, Output};

use crate::common::workflow::{chain, command, commands, gated};
use crate::common::{TestRepo, assert_success, path_with_fabro, run_err};
use crate::engine_run::{meta_file, workflow};

/// A node that commits in the directory it runs in, as a build step or an agent might.
fn committer() -> String {
    commands(
        "committer",
        &[(
            "work",
            "echo node > node.txt && git add node.txt && git commit -q -m 'node commit' && git log -1 --format=%s",
        )],
    )
}

const SECRETS: &[(&str, &str)] = &[
    ("AWS_SECRET_ACCESS_KEY", "aws-secret"),
    ("SSH_AUTH_SOCK", "/tmp/agent.sock"),
    ("GIT_ASKPASS", "/usr/bin/askpass-secret"),
    ("DATABASE_URL", "postgres://u:db-password@host/db"),
    ("GITHUB_TOKEN", "gh-secret"),
    ("ANTHROPIC_API_KEY", "sk-anthropic"),
    ("PRIVATE_THING", "private-value"),
];

/// `git fabro run WORKFLOW`, for the environment a test gives it.
fn run(repo: &TestRepo, workflow: &Path) -> Command {
    let mut cmd = repo.fabro();
    cmd.arg("run").arg(workflow);
    cmd
}

/// Runs `cmd`, asserts it succeeded and returns the run id it printed first.
fn succeeded(cmd: &mut Command) -> String {
    let out = cmd.output().expect("git-fabro runs");
    assert_success(&out);
    first_line(&out)
}

fn first_line(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or("")
        .to_owned()
}

/// main's tip and the user's index and files stay as they were, and the node's commit is on
/// the run's branch.
fn assert_commit_landed_in_the_run(repo: &TestRepo, main_before: &str, id: &str) {
    assert_eq!(repo.git(&["rev-parse", "main"]), main_before);
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    assert!(!repo.path.join("node.txt").exists());
    let subjects = repo.git(&["log", "--format=%s", &format!("fabro/run/{id}")]);
    assert!(
        subjects.lines().any(|s| s == "node commit"),
        "the node's commit is not in the run:\n{subjects}"
    );
}

#[test]
fn an_exported_git_dir_does_not_point_nodes_at_the_users_repository() {
    let repo = TestRepo::new();
    let main_before = repo.git(&["rev-parse", "main"]);
    let path = workflow(&repo, "committer", &committer());
    let git_dir = repo.path.join(".git");
    let id = succeeded(
        run(&repo, &path)
            .env("GIT_DIR", &git_dir)
            .env("GIT_WORK_TREE", &repo.path)
            .env("GIT_INDEX_FILE", git_dir.join("index"))
            .env("GIT_OBJECT_DIRECTORY", git_dir.join("objects"))
            .env("GIT_COMMON_DIR", &git_dir),
    );
    assert_commit_landed_in_the_run(&repo, &main_before, &id);
}

#[test]
fn git_dash_dash_git_dir_and_dash_c_do_not_reach_nodes() {
    let repo = TestRepo::new();
    let main_before = repo.git(&["rev-parse", "main"]);
    let path = workflow(&repo, "committer", &committer());
    let git_dir = repo.path.join(".git");
    let id = succeeded(
        repo.command("git")
            .arg(format!("--git-dir={}", git_dir.display()))
            .arg(format!("--work-tree={}", repo.path.display()))
            .args(["-c", "user.name=Injected", "fabro", "run"])
            .arg(&path)
            .env("PATH", path_with_fabro()),
    );
    assert_commit_landed_in_the_run(&repo, &main_before, &id);
    let authors = repo.git(&["log", "--format=%an: %s", &format!("fabro/run/{id}")]);
    assert!(
        authors.lines().any(|l| l == "Test User: node commit"),
        "git -c reached the node:\n{authors}"
    );
}

#[test]
fn secrets_reach_no_script_and_agents_only_their_logins() {
    let repo = TestRepo::new();
    let agent = repo.write_beside("agent.sh", "#!/bin/sh\nenv\n");
    let path = workflow(
        &repo,
        "envs",
        &chain(
            "envs",
            &[
                &command("show", "env; env > env.txt"),
                r#"ask [shape=box, prompt="show"]"#,
            ],
        ),
    );
    let id = succeeded(
        run(&repo, &path)
            .args(["--agent", &format!("sh {}", agent.display())])
            .envs(SECRETS.iter().copied()),
    );
    let script = meta_file(&repo, &id, "stages/002-show@1/stdout.log");
    let committed = repo.git(&["show", &format!("fabro/run/{id}:env.txt")]);
    let agent_env = meta_file(&repo, &id, "stages/003-ask@1/response.md");
    for (name, value) in SECRETS {
        assert!(!script.contains(value), "{name} reached the script");
        assert!(!committed.contains(value), "{name} was committed");
        if *name != "ANTHROPIC_API_KEY" {
            assert!(!agent_env.contains(value), "{name} reached the agent");
        }
    }
    assert!(script.lines().any(|l| l == "LC_ALL=C"), "{script}");
    // The login reached the agent; what the agent printed of it is stored redacted.
    assert!(
        agent_env
            .lines()
            .any(|l| l == "ANTHROPIC_API_KEY=REDACTED:environment-secret"),
        "{agent_env}"
    );
}

#[test]
fn variables_named_in_env_pass_reach_nodes() {
    let repo = TestRepo::new();
    repo.write_settings("[env]\npass = [\"MACHINE_*\"]\n");
    repo.git(&["config", "fabro.envPass", "NPM_TOKEN"]);
    let run_toml = repo.write_beside("run.toml", "[env]\npass = [\"DATABASE_URL\"]\n");
    let path = workflow(&repo, "pass", &commands("pass", &[("show", "env")]));
    let id = succeeded(
        run(&repo, &path)
            .arg("--config")
            .arg(&run_toml)
            .env("DATABASE_URL", "postgres://local")
            .env("MACHINE_CACHE", "/cache")
            .env("NPM_TOKEN", "npm-1")
            .env("AWS_SECRET_ACCESS_KEY", "aws-secret"),
    );
    let env = meta_file(&repo, &id, "stages/002-show@1/stdout.log");
    for line in [
        "DATABASE_URL=postgres://local",
        "MACHINE_CACHE=/cache",
        "NPM_TOKEN=npm-1",
    ] {
        assert!(env.lines().any(|l| l == line), "{line} in:\n{env}");
    }
    assert!(!env.contains("aws-secret"), "{env}");
}

#[test]
fn a_repository_redirect_named_in_env_pass_is_refused_before_anything_is_written() {
    let repo = TestRepo::new();
    let run_toml = repo.write_beside("run.toml", "[env]\npass = [\"GIT_DIR\"]\n");
    let path = workflow(&repo, "committer", &committer());
    let refs_before = repo.git(&["for-each-ref"]);
    let (code, stderr) = run_err(run(&repo, &path).arg("--config").arg(&run_toml));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("GIT_DIR"), "{stderr}");
    assert_eq!(repo.git(&["for-each-ref"]), refs_before);
    let runs = std::fs::read_dir(repo.home.join("runs")).map_or(0, Iterator::count);
    assert_eq!(runs, 0, "a run directory was written");
}

#[test]
fn a_run_toml_from_another_clone_passes_nothing() {
    let repo = TestRepo::new();
    let run_toml = repo.write_beside("run.toml", "[env]\npass = [\"PASSED_SECRET\"]\n");
    let path = workflow(
        &repo,
        "gate",
        &gated(
            "gate",
            &command("show", r#"printf %s "${PASSED_SECRET:-none}""#),
        ),
    );
    let out = run(&repo, &path)
        .arg("--config")
        .arg(&run_toml)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let id = first_line(&out);
    let bare = repo.root.join("remote.git");
    let other = repo.root.join("other");
    let (bare_path, other_path) = (bare.to_str().unwrap(), other.to_str().unwrap());
    repo.git(&[
        "clone",
        "-q",
        "--bare",
        repo.path.to_str().unwrap(),
        bare_path,
    ]);
    repo.git(&["remote", "add", "origin", bare_path]);
    repo.ok(&["push", "origin", &id]);
    repo.git_in(&repo.root, &["clone", "-q", bare_path, other_path]);
    repo.git_in(&other, &["config", "user.name", "Other"]);
    repo.git_in(&other, &["config", "user.email", "other@example.com"]);
    crate::common::run_ok(repo.fabro_in(&other).args(["fetch"]));

    let out = repo
        .fabro_in(&other)
        .args(["resume", &id, "--answer", "approve=Y"])
        .env("PASSED_SECRET", "from-the-environment")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_success(&out);
    let shown = repo.git_in(
        &other,
        &[
            "show",
            &format!("fabro/meta/{id}:stages/003-show@1/stdout.log"),
        ],
    );
    assert_eq!(shown, "none");
}

#[test]
fn an_exported_git_dir_does_not_point_an_agent_at_the_users_repository() {
    let repo = TestRepo::new();
    let main_before = repo.git(&["rev-parse", "main"]);
    let agent = repo.write_beside(
        "agent.sh",
        "#!/bin/sh\necho node > node.txt && git add node.txt && git commit -q -m 'node commit'\n",
    );
    let path = workflow(
        &repo,
        "agent",
        &chain("agent", &[r#"work [shape=box, prompt="commit"]"#]),
    );
    let id = succeeded(
        run(&repo, &path)
            .args(["--agent", &format!("sh {}", agent.display())])
            .env("GIT_DIR", repo.path.join(".git"))
            .env("GIT_WORK_TREE", &repo.path),
    );
    assert_commit_landed_in_the_run(&repo, &main_before, &id);
}

#[test]
fn an_exported_git_dir_does_not_point_a_resumed_command_at_the_users_repository() {
    let repo = TestRepo::new();
    let main_before = repo.git(&["rev-parse", "main"]);
    let run = repo.start();
    let script = "echo resumed > r.txt && git add r.txt && git commit -q -m resumed";
    let out = repo
        .fabro()
        .args(["resume", &run.id, "--", "sh", "-c", script])
        .env("GIT_DIR", repo.path.join(".git"))
        .env("GIT_INDEX_FILE", repo.path.join(".git/index"))
        .output()
        .unwrap();
    assert_success(&out);
    assert_eq!(repo.git(&["rev-parse", "main"]), main_before);
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    let subjects = repo.git(&["log", "--format=%s", &format!("fabro/run/{}", run.id)]);
    assert!(subjects.lines().any(|s| s == "resumed"), "{subjects}");
}

#[test]
fn agent_logins_reach_agent_nodes_and_no_command_node() {
    let repo = TestRepo::new();
    let agent = repo.write_beside("agent.sh", "#!/bin/sh\nenv\n");
    let path = workflow(
        &repo,
        "logins",
        &chain(
            "logins",
            &[&command("show", "env"), r#"ask [shape=box, prompt="show"]"#],
        ),
    );
    let logins = [
        ("ANTHROPIC_AUTH_TOKEN", "gateway-token"),
        ("ANTHROPIC_CUSTOM_HEADERS", "x-gateway: on"),
        ("CODEX_API_KEY", "codex-key"),
        ("OPENAI_BASE_URL", "https://openai.example"),
        ("GOOGLE_GENAI_USE_GCA", "true"),
        ("OPENROUTER_API_KEY", "openrouter-key"),
        ("HTTPS_PROXY", "http://proxy.example:3128"),
    ];
    let id = succeeded(
        run(&repo, &path)
            .args(["--agent", &format!("sh {}", agent.display())])
            .envs(logins)
            .env("CODEX_GITHUB_PERSONAL_ACCESS_TOKEN", "github-secret"),
    );
    let script = meta_file(&repo, &id, "stages/002-show@1/stdout.log");
    let agent_env = meta_file(&repo, &id, "stages/003-ask@1/response.md");
    for (name, value) in logins {
        assert!(!script.contains(value), "{name} reached the command node");
        // What the agent printed is stored with the values of secret-named variables redacted.
        let secret = ["TOKEN", "API_KEY"].iter().any(|word| name.contains(word));
        let shown = if secret {
            "REDACTED:environment-secret"
        } else {
            value
        };
        let line = format!("{name}={shown}");
        assert!(
            agent_env.lines().any(|l| l == line),
            "{line} in:\n{agent_env}"
        );
    }
    assert!(!agent_env.contains("github-secret"), "{agent_env}");
}
