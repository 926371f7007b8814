use serde_json::Value;

use crate::common::{TestRepo, assert_success, path_with_fabro, read_file, run_ok, write_file};

fn git_with_fabro(repo: &TestRepo, dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    let mut cmd = std::process::Command::new("git");
    cmd.args(args)
        .current_dir(dir)
        .env("PATH", path_with_fabro());
    cmd.env("HOME", &repo.root)
        .env("FABRO_HOME", &repo.home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null");
    cmd.output().unwrap()
}

#[test]
fn install_twice_then_uninstall_leaves_the_user_hook_byte_identical() {
    let repo = TestRepo::new();
    let hook = repo.path.join(".git/hooks/pre-push");
    let mine = "#!/bin/bash\n# my own checks\nread -r line || true\necho \"user hook saw: $line\" >&2\nexit 0\n";
    write_file(&hook, mine);
    repo.ok(&["hooks", "install"]);
    repo.ok(&["hooks", "install"]);
    let installed = read_file(&hook);
    assert_eq!(installed.matches("# BEGIN git-fabro").count(), 1);
    assert!(
        installed.starts_with("#!/bin/bash\n# BEGIN git-fabro"),
        "{installed}"
    );
    let status: Vec<Value> =
        serde_json::from_str(&repo.ok(&["hooks", "status", "--json"])).unwrap();
    assert_eq!(status[0]["hook"], "pre-push");
    assert_eq!(status[0]["installed"], true);
    assert_eq!(status[0]["chained"], true);
    assert!(
        repo.path.join(".git/hooks/post-rewrite").is_file(),
        "created when missing"
    );
    repo.ok(&["hooks", "uninstall"]);
    assert_eq!(read_file(&hook), mine);
    assert!(
        !repo.path.join(".git/hooks/post-rewrite").exists(),
        "the file git-fabro created is gone"
    );
}

#[test]
fn hooks_land_in_core_hooks_path_like_husky() {
    let repo = TestRepo::new();
    repo.git(&["config", "core.hooksPath", ".husky"]);
    write_file(&repo.path.join(".husky/pre-push"), "npm test\n");
    repo.ok(&["hooks", "install", "--pre-push"]);
    let text = read_file(repo.path.join(".husky/pre-push"));
    assert!(
        text.contains("# BEGIN git-fabro") && text.ends_with("npm test\n"),
        "{text}"
    );
    assert!(!repo.path.join(".git/hooks/pre-push").exists());
    assert!(!repo.path.join(".husky/post-rewrite").exists());
    repo.ok(&["hooks", "uninstall"]);
    assert_eq!(read_file(repo.path.join(".husky/pre-push")), "npm test\n");
}

#[test]
fn pushing_a_run_branch_pushes_its_metadata_and_the_users_hook_still_runs() {
    let repo = TestRepo::new();
    let bare = repo.add_bare_remote("origin", "remote.git");
    let marker = repo.root.join("user-hook-ran");
    write_file(
        &repo.path.join(".git/hooks/pre-push"),
        &format!("#!/bin/sh\ncat > {}\n", marker.display()),
    );
    // A hook git runs is executable; install keeps the mode it finds.
    std::fs::set_permissions(
        repo.path.join(".git/hooks/pre-push"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    repo.ok(&["hooks", "install"]);
    let run = repo.start();
    repo.checkpoint(&run.id, "a");
    let out = git_with_fabro(
        &repo,
        &repo.path,
        &[
            "push",
            "-q",
            "origin",
            &format!("fabro/run/{}", run.id),
            "main",
        ],
    );
    assert_success(&out);
    let remote = repo.git_in(&bare, &["for-each-ref", "--format=%(refname)"]);
    assert!(
        remote.contains(&format!("refs/heads/fabro/meta/{}", run.id)),
        "{remote}"
    );
    // The user's hook got the same standard input git gave the hook.
    let seen = read_file(&marker);
    assert!(
        seen.contains(&format!("refs/heads/fabro/run/{}", run.id))
            && seen.contains("refs/heads/main"),
        "{seen}"
    );
}

#[test]
fn a_git_fabro_failure_never_blocks_the_push() {
    let repo = TestRepo::new();
    let bare = repo.add_bare_remote("origin", "remote.git");
    repo.ok(&["hooks", "install", "--pre-push"]);
    let run = repo.start();
    // The remote already has a different metadata branch for this run: git-fabro's push fails.
    repo.git(&[
        "push",
        "-q",
        "--no-verify",
        "origin",
        &format!("main:refs/heads/fabro/meta/{}", run.id),
    ]);
    let out = git_with_fabro(
        &repo,
        &repo.path,
        &["push", "-q", "origin", &format!("fabro/run/{}", run.id)],
    );
    assert_success(&out);
    assert!(String::from_utf8_lossy(&out.stderr).contains("git-fabro pre-push hook"));
    assert!(
        repo.git_in(&bare, &["for-each-ref"])
            .contains(&format!("refs/heads/fabro/run/{}", run.id))
    );
}

#[test]
fn an_amend_that_drops_the_trailers_is_re_linked_by_tree() {
    let repo = TestRepo::new();
    repo.ok(&["hooks", "install", "--post-rewrite"]);
    let run = repo.start();
    write_file(&run.worktree.join("a.txt"), "a\n");
    repo.checkpoint(&run.id, "one");
    write_file(&run.worktree.join("b.txt"), "b\n");
    repo.checkpoint(&run.id, "two");
    let out = git_with_fabro(
        &repo,
        &run.worktree,
        &[
            "-c",
            "user.name=U",
            "-c",
            "user.email=u@e",
            "commit",
            "-q",
            "--amend",
            "-m",
            "my own words",
        ],
    );
    assert_success(&out);
    let new = repo
        .git_in(&run.worktree, &["rev-parse", "HEAD"])
        .trim()
        .to_owned();
    let log = repo.log_json(&run.id);
    assert_eq!(log.len(), 2, "{log:?}");
    assert_eq!(log[1]["node_id"], "two");
    assert_eq!(log[1]["run_commit"], new.as_str());
    let meta = format!("fabro/meta/{}", run.id);
    assert!(repo.files_in(&meta).contains("links/"));
    run_ok(repo.fabro().args(["show", &run.id, "two"]));
}

fn mode_of(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

/// A user hook long enough that a write cut short loses its end.
fn long_user_hook() -> String {
    let mut text = "#!/bin/sh\n".to_owned();
    for i in 0..200 {
        text.push_str(&format!(
            "echo 'check number {i} of the user hook' >/dev/null\n"
        ));
    }
    text.push_str("exit 0\n");
    text
}

#[test]
fn a_write_cut_short_leaves_the_users_hook_whole() {
    let repo = TestRepo::new();
    let hook = repo.path.join(".git/hooks/pre-push");
    let mine = long_user_hook();
    write_file(&hook, &mine);
    // A file size limit below the hook's size fails the write as a full disk would.
    let bin = assert_cmd::cargo::cargo_bin("git-fabro");
    let out = repo
        .command("sh")
        .args(["-c", "ulimit -f 4 && exec \"$0\" hooks install --pre-push"])
        .arg(&bin)
        .output()
        .unwrap();
    assert!(!out.status.success(), "the write cannot succeed");
    assert_eq!(read_file(&hook), mine, "the user's hook is untouched");
    repo.ok(&["hooks", "install", "--pre-push"]);
    let out = repo
        .command("sh")
        .args(["-c", "ulimit -f 4 && exec \"$0\" hooks uninstall"])
        .arg(&bin)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let text = read_file(&hook);
    assert!(
        text.ends_with(&mine["#!/bin/sh\n".len()..]) && text.contains("# BEGIN git-fabro"),
        "still the installed hook, whole"
    );
}

#[test]
fn install_keeps_the_hooks_mode_and_a_disabled_hook_stays_disabled() {
    use std::os::unix::fs::PermissionsExt;
    let repo = TestRepo::new();
    let hook = repo.path.join(".git/hooks/pre-push");
    write_file(&hook, "#!/bin/sh\nexit 0\n");
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o640)).unwrap();
    let out = repo.output(&["hooks", "install"]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not executable"), "{err}");
    assert_eq!(mode_of(&hook), 0o640, "still disabled");
    assert!(read_file(&hook).contains("# BEGIN git-fabro"));
    repo.ok(&["hooks", "uninstall"]);
    assert_eq!(mode_of(&hook), 0o640);
    assert_eq!(read_file(&hook), "#!/bin/sh\nexit 0\n");

    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o750)).unwrap();
    repo.ok(&["hooks", "install"]);
    assert_eq!(mode_of(&hook), 0o750);
    assert_eq!(
        mode_of(&repo.path.join(".git/hooks/post-rewrite")),
        0o755,
        "a hook git-fabro creates runs"
    );
}

#[test]
fn a_symlinked_hook_is_not_written_through() {
    let repo = TestRepo::new();
    let shared = repo.write_beside("shared-hooks/pre-push", "#!/bin/sh\nexit 0\n");
    let hook = repo.path.join(".git/hooks/pre-push");
    std::os::unix::fs::symlink(&shared, &hook).unwrap();
    let (code, err) = crate::common::run_err(repo.fabro().args(["hooks", "install", "--pre-push"]));
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("symbolic link"), "{err}");
    assert_eq!(read_file(&shared), "#!/bin/sh\nexit 0\n");
    assert!(
        std::fs::symlink_metadata(&hook)
            .unwrap()
            .file_type()
            .is_symlink()
    );

    // A dangling link is not followed to create its target either.
    let dangling = repo.path.join(".git/hooks/post-rewrite");
    std::os::unix::fs::symlink(repo.root.join("nowhere/post-rewrite"), &dangling).unwrap();
    let (code, _) =
        crate::common::run_err(repo.fabro().args(["hooks", "install", "--post-rewrite"]));
    assert_eq!(code, 1);
    assert!(!repo.root.join("nowhere").exists());
}

/// The PATH column of `hooks status` for `hook`.
fn status_path(repo: &TestRepo, dir: &std::path::Path, hook: &str) -> String {
    let table = run_ok(repo.fabro_in(dir).args(["hooks", "status"]));
    let row = table
        .lines()
        .find(|l| l.starts_with(&format!("{hook} ")))
        .unwrap_or_else(|| panic!("no {hook} row: {table}"));
    row.split_whitespace().last().unwrap().to_owned()
}

#[test]
fn status_in_a_linked_worktree_shows_the_paths_git_uses_as_a_user_types_them() {
    let repo = TestRepo::new();
    let wt = repo.start().worktree;
    let shared = repo.path.join(".git/hooks/pre-push");
    assert_eq!(
        status_path(&repo, &wt, "pre-push"),
        shared.display().to_string()
    );
    assert_eq!(
        status_path(&repo, &wt, "claude"),
        ".claude/settings.local.json"
    );
    assert_eq!(
        status_path(&repo, &repo.path, "pre-push"),
        ".git/hooks/pre-push"
    );
    let status: Vec<Value> = serde_json::from_str(&run_ok(
        repo.fabro_in(&wt).args(["hooks", "status", "--json"]),
    ))
    .unwrap();
    assert_eq!(status[0]["path"], shared.display().to_string());

    // A relative core.hooksPath is relative to the work tree git runs the hook in.
    repo.git(&["config", "core.hooksPath", ".husky"]);
    let git_says = repo.git_in(&wt, &["rev-parse", "--git-path", "hooks/pre-push"]);
    assert_eq!(git_says.trim(), ".husky/pre-push");
    assert_eq!(status_path(&repo, &wt, "pre-push"), ".husky/pre-push");
    run_ok(repo.fabro_in(&wt).args(["hooks", "install", "--pre-push"]));
    assert!(wt.join(".husky/pre-push").is_file());
    assert!(!repo.path.join(".husky").exists());
}
