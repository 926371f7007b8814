//! git-fabro called from the user's own git hooks. git exports `GIT_INDEX_FILE` to
//! `pre-commit`, `prepare-commit-msg`, `commit-msg` and `post-commit` (the index of the commit
//! being made, relative to the checkout) and, in a linked worktree, `GIT_DIR`: a git-fabro
//! that followed them would write a run worktree's index over the one `git commit` is about to
//! commit. Each hook here checkpoints, snapshots and shows a run, and plain git then checks that
//! the user's commit holds exactly what they staged and that their index matches it.

use std::path::{Path, PathBuf};

use crate::common::{Started, TestRepo, assert_success, path_with_fabro, write_file};

const HOOKS: &[&str] = &[
    "pre-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
];

/// Installs `hook` in `hooks_dir`: it changes a file of the run, checkpoints it from the
/// checkout (`--run`), then from the run's worktree snapshots and shows it, and leaves `done`
/// behind only when every command succeeded.
fn install_hook(hooks_dir: &Path, hook: &str, run: &Started, done: &Path) {
    let script = format!(
        "#!/bin/sh\nset -e\n\
         echo {hook} >> '{wt}/hook.txt'\n\
         git fabro checkpoint --run {id} --node hook >/dev/null\n\
         git fabro status {id} >/dev/null\n\
         cd '{wt}'\n\
         echo again >> hook.txt\n\
         git fabro snapshot >/dev/null\n\
         git fabro checkpoint --node in-worktree >/dev/null\n\
         git fabro status >/dev/null\n\
         touch '{done}'\n",
        wt = run.worktree.display(),
        id = run.id,
        done = done.display(),
    );
    let path = hooks_dir.join(hook);
    write_file(&path, &script);
    std::process::Command::new("chmod")
        .arg("+x")
        .arg(&path)
        .status()
        .unwrap();
}

/// Commits `staged.txt` in `checkout` with `args` and checks with plain git that the commit
/// holds the files of main plus `staged.txt`, and that nothing is staged afterwards.
fn commit_and_check(repo: &TestRepo, checkout: &Path, hook: &str, args: &[&str]) {
    write_file(&checkout.join("staged.txt"), &format!("{hook}\n"));
    repo.git_in(checkout, &["add", "staged.txt"]);
    let out = repo
        .command("git")
        .current_dir(checkout)
        .args(["commit", "-q", "-m", hook])
        .args(args)
        .env("PATH", path_with_fabro())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{hook}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let files = repo.git_in(checkout, &["ls-tree", "-r", "--name-only", "HEAD"]);
    assert_eq!(
        files, "README.md\nsrc/lib.rs\nstaged.txt\n",
        "{hook}: the commit"
    );
    let changed = repo.git_in(checkout, &["show", "--name-only", "--format=", "HEAD"]);
    assert_eq!(changed, "staged.txt\n", "{hook}: what the commit changed");
    let status = repo.git_in(checkout, &["status", "--porcelain"]);
    assert_eq!(status, "", "{hook}: the index after the commit");
}

/// The run recorded what the hook wrote, in two checkpoints and a snapshot.
fn check_run(repo: &TestRepo, run: &Started, hook: &str) {
    let file = repo.git(&["show", &format!("fabro/run/{}:hook.txt", run.id)]);
    assert_eq!(file, format!("{hook}\nagain\n"), "{hook}: the run's file");
}

fn hook_case(hook: &str, linked: bool, args: &[&str]) {
    let (repo, run) = TestRepo::with_run();
    let done = repo.root.join("hook-done");
    let checkout: PathBuf = if linked {
        let at = repo.root.join("linked");
        let at_str = at.to_str().unwrap();
        repo.git(&["worktree", "add", "-q", "-b", "topic", at_str]);
        at
    } else {
        repo.path.clone()
    };
    install_hook(&repo.path.join(".git/hooks"), hook, &run, &done);
    commit_and_check(&repo, &checkout, hook, args);
    assert!(
        done.exists(),
        "{hook}: a git-fabro command in the hook failed"
    );
    check_run(&repo, &run, hook);
}

#[test]
fn git_fabro_in_each_commit_hook_leaves_the_users_commit_and_index_alone() {
    for hook in HOOKS {
        hook_case(hook, false, &[]);
        // `git commit PATH` commits through a temporary index that GIT_INDEX_FILE names.
        hook_case(hook, false, &["--", "staged.txt"]);
        // A linked worktree's hooks get GIT_DIR as well.
        hook_case(hook, true, &[]);
    }
}

#[test]
fn an_exported_index_work_tree_or_namespace_does_not_redirect_a_checkpoint() {
    let (repo, run) = TestRepo::with_run();
    let before = repo.user_state();
    write_file(&run.worktree.join("run.txt"), "run\n");
    let git_dir = repo.path.join(".git");
    let out = repo
        .fabro_in(&run.worktree)
        .args(["checkpoint", "--node", "one"])
        .env("GIT_INDEX_FILE", git_dir.join("index"))
        .env("GIT_WORK_TREE", &repo.path)
        .env("GIT_NAMESPACE", "elsewhere")
        .output()
        .unwrap();
    assert_success(&out);
    assert_eq!(repo.user_state(), before);
    let tree = repo.git(&["ls-tree", "--name-only", &format!("fabro/run/{}", run.id)]);
    assert!(tree.lines().any(|l| l == "run.txt"), "{tree}");
    let refs = repo.git(&["for-each-ref", "--format=%(refname)", "refs/namespaces"]);
    assert_eq!(refs, "");
    let status = repo.git_in(&run.worktree, &["status", "--porcelain"]);
    assert_eq!(status, "", "the run's own index was written");
}
