//! `hooks install --claude` (and `--codex`, `--gemini`) in a work tree whose commits put
//! symbolic links where the agents' settings go: a `.claude` directory linked out of the work
//! tree, a settings file linked to a file elsewhere, to nothing, or into `.git`. Each is
//! refused (exit 1) before anything is written, and nothing outside the work tree changes. A
//! link the user keeps inside the work tree stays a link: the file it leads to gets the hooks,
//! no checkpoint captures them, and uninstall gives that file back byte for byte.

use std::os::unix::fs::symlink;
use std::path::Path;

use crate::common::{TestRepo, read_file, run_err, run_ok, tree_digest, write_file};

const USER_SETTINGS: &str = "{\n  \"permissions\": { \"allow\": [\"Bash(ls)\"] }\n}\n";
const OURS: &str = "git fabro hooks run agent-";

/// Commits `links` (path in the repository, where it points) as symbolic links.
fn commit_links(repo: &TestRepo, links: &[(&str, &str)]) {
    for (path, target) in links {
        let at = repo.path.join(path);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        symlink(target, &at).unwrap();
    }
    repo.commit_all("links");
}

/// Installs `flag`'s hooks in `dir`, expects the refusal, and returns its message.
fn refused(repo: &TestRepo, dir: &Path, flag: &str) -> String {
    let (code, stderr) = run_err(repo.fabro_in(dir).args(["hooks", "install", flag]));
    assert_eq!(code, 1, "{flag}: {stderr}");
    assert!(stderr.contains("symbolic link"), "{flag}: {stderr}");
    stderr
}

#[test]
fn agent_directories_linked_out_of_the_work_tree_are_refused() {
    let repo = TestRepo::new();
    let outside = repo.root.join("outside");
    std::fs::create_dir(&outside).unwrap();
    write_file(&outside.join("settings.json"), USER_SETTINGS);
    commit_links(
        &repo,
        &[
            (".claude", "../outside"),
            (".codex", "../outside"),
            (".gemini", outside.to_str().unwrap()),
        ],
    );
    let before = tree_digest(&outside);
    for flag in ["--claude", "--codex", "--gemini"] {
        let stderr = refused(&repo, &repo.path, flag);
        assert!(stderr.contains("outside the work tree"), "{stderr}");
    }
    // Nothing to take out: uninstall reads through the link, writes nothing, and succeeds.
    run_ok(
        repo.fabro()
            .args(["hooks", "uninstall", "--claude", "--codex", "--gemini"]),
    );
    assert_eq!(tree_digest(&outside), before, "nothing written outside");
    let saved = repo.path.join(".git/fabro/agent-settings");
    assert!(!saved.exists(), "nothing written at all");
    let status = repo.git(&["status", "--porcelain"]);
    assert_eq!(status, "", "the work tree is as committed");
}

#[test]
fn settings_files_linked_outside_to_nothing_or_into_git_are_refused() {
    let repo = TestRepo::new();
    let victim = repo.write_beside("victim.json", USER_SETTINGS);
    commit_links(
        &repo,
        &[
            (".claude/settings.local.json", victim.to_str().unwrap()),
            (".codex/hooks.json", "../missing.json"),
            (".gemini", ".git"),
        ],
    );
    let git_dir = tree_digest(&repo.path.join(".git"));
    let stderr = refused(&repo, &repo.path, "--claude");
    assert!(stderr.contains("outside the work tree"), "{stderr}");
    let stderr = refused(&repo, &repo.path, "--codex");
    assert!(stderr.contains("does not exist"), "{stderr}");
    let stderr = refused(&repo, &repo.path, "--gemini");
    assert!(stderr.contains(".git"), "{stderr}");
    assert_eq!(read_file(&victim), USER_SETTINGS);
    assert!(!repo.path.join("missing.json").exists());
    assert_eq!(tree_digest(&repo.path.join(".git")), git_dir);
}

#[test]
fn links_inside_the_work_tree_stay_links_and_uninstall_restores_their_targets() {
    let repo = TestRepo::new();
    repo.write("shared/claude.json", USER_SETTINGS);
    std::fs::create_dir_all(repo.path.join("config/gemini")).unwrap();
    repo.write("config/gemini/README", "Gemini's settings live here\n");
    commit_links(
        &repo,
        &[
            (".claude/settings.local.json", "../shared/claude.json"),
            (".gemini", "config/gemini"),
        ],
    );
    let run = repo.start();
    let wt = &run.worktree;
    run_ok(
        repo.fabro_in(wt)
            .args(["hooks", "install", "--claude", "--gemini"]),
    );

    let link = wt.join(".claude/settings.local.json");
    assert_eq!(
        std::fs::read_link(&link).unwrap(),
        Path::new("../shared/claude.json")
    );
    let shared = read_file(wt.join("shared/claude.json"));
    assert!(
        shared.contains(OURS) && shared.contains("Bash(ls)"),
        "{shared}"
    );
    assert_eq!(
        std::fs::read_link(wt.join(".gemini")).unwrap(),
        Path::new("config/gemini")
    );
    let gemini = read_file(wt.join("config/gemini/settings.json"));
    assert!(gemini.contains(OURS), "{gemini}");

    // The hooks are this machine's: no checkpoint holds them, wherever the link leads.
    run_ok(repo.fabro_in(wt).args(["checkpoint", "--node", "work"]));
    let branch = format!("fabro/run/{}", run.id);
    let found = repo.git_output(&repo.path, &["grep", "-l", OURS, &branch]);
    assert!(
        found.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&found.stdout)
    );

    run_ok(
        repo.fabro_in(wt)
            .args(["hooks", "uninstall", "--claude", "--gemini"]),
    );
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(read_file(wt.join("shared/claude.json")), USER_SETTINGS);
    assert!(!wt.join("config/gemini/settings.json").exists());
    assert!(wt.join("config/gemini/README").exists());
    let status = repo.git_in(wt, &["status", "--porcelain"]);
    assert_eq!(status, "", "the work tree is as committed");
}

#[test]
fn uninstall_refuses_a_link_that_now_leads_out_of_the_work_tree() {
    let repo = TestRepo::new();
    repo.write("shared/claude.json", USER_SETTINGS);
    commit_links(
        &repo,
        &[(".claude/settings.local.json", "../shared/claude.json")],
    );
    run_ok(repo.fabro().args(["hooks", "install", "--claude"]));
    // Since install, the link was pointed at a file elsewhere that holds the entries too.
    let outside = repo.root.join("outside.json");
    std::fs::copy(repo.path.join("shared/claude.json"), &outside).unwrap();
    let link = repo.path.join(".claude/settings.local.json");
    std::fs::remove_file(&link).unwrap();
    symlink(&outside, &link).unwrap();
    let before = read_file(&outside);
    let (code, stderr) = run_err(repo.fabro().args(["hooks", "uninstall", "--claude"]));
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("outside the work tree"), "{stderr}");
    assert_eq!(read_file(&outside), before);
}

#[test]
fn a_linked_gemini_trusted_folders_file_stays_a_link() {
    let (repo, run) = TestRepo::with_run();
    // Dotfiles kept elsewhere: the isolated HOME's trusted folders file is a relative link,
    // and a second one leads to a file not made yet.
    let dotfiles = repo.root.join("dotfiles");
    let mine = "{\n  \"/home/me/project\": \"TRUST_FOLDER\"\n}";
    write_file(&dotfiles.join("trustedFolders.json"), mine);
    std::fs::create_dir_all(repo.root.join(".gemini")).unwrap();
    let link = repo.root.join(".gemini/trustedFolders.json");
    symlink("../dotfiles/trustedFolders.json", &link).unwrap();
    std::fs::create_dir_all(repo.root.join("gemini-alt")).unwrap();
    let dangling = repo.root.join("gemini-alt/trustedFolders.json");
    symlink(dotfiles.join("new.json"), &dangling).unwrap();
    for (file, env) in [(&link, None), (&dangling, Some(&dangling))] {
        let install = |verb: &str| {
            let mut cmd = repo.fabro_in(&run.worktree);
            cmd.args(["hooks", verb, "--gemini"]);
            if let Some(path) = env {
                cmd.env("GEMINI_CLI_TRUSTED_FOLDERS_PATH", path);
            }
            run_ok(&mut cmd);
        };
        let target = std::fs::read_link(file).unwrap();
        install("install");
        assert_eq!(std::fs::read_link(file).unwrap(), target, "still a link");
        let trusted = read_file(file);
        let real = std::fs::canonicalize(&run.worktree).unwrap();
        assert!(trusted.contains(real.to_str().unwrap()), "{trusted}");
        install("uninstall");
        assert_eq!(std::fs::read_link(file).unwrap(), target, "still a link");
    }
    let back = read_file(dotfiles.join("trustedFolders.json"));
    assert_eq!(
        back, mine,
        "uninstall gives the linked file back byte for byte"
    );
    assert!(
        !dotfiles.join("new.json").exists(),
        "the file install made is gone"
    );
}
