//! Build folders (`target/`, `node_modules/`, `.venv/`) as a hostile place. Seeding a new
//! run's worktree with the checkout's shares nothing writable with the checkout or with what
//! lies outside the run: links inside a seeded folder lead to the run's own files or are left
//! out, a Python environment (which names the checkout by absolute path in its scripts and
//! `.pth` files) is not seeded, and a folder reached through a symbolic link of the run's tree
//! is never written into. Each run writes through what it was given, and plain git then finds
//! the checkout as it was. And a build folder that holds a repository is not disposable:
//! `finish` keeps the worktree and names it.

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{TestRepo, read_file, tree_digest, write_file};

fn repo_ignoring(patterns: &str) -> TestRepo {
    let repo = TestRepo::ignoring(patterns);
    repo.git(&["config", "fabro.seedBuild", "copy"]);
    repo
}

/// Starts a run with `args`; returns its worktree and what `start` said.
fn start(repo: &TestRepo, args: &[&str]) -> (PathBuf, String) {
    let out = repo
        .fabro()
        .args(["start", "--json"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let worktree = PathBuf::from(v["worktree"].as_str().unwrap());
    (worktree, String::from_utf8_lossy(&out.stderr).into_owned())
}

fn is_link(path: &Path) -> bool {
    path.symlink_metadata()
        .is_ok_and(|m| m.file_type().is_symlink())
}

#[test]
fn a_seeded_folders_links_lead_to_the_runs_files_never_the_checkouts() {
    let repo = repo_ignoring("/target\n");
    let outside = repo.write_beside("outside.txt", "outside\n");
    write_file(&repo.path.join("target/file.txt"), "built\n");
    let target = repo.path.join("target");
    symlink(repo.path.join("README.md"), target.join("abs")).unwrap();
    symlink("../README.md", target.join("rel")).unwrap();
    symlink(repo.path.join("target/file.txt"), target.join("abs_inner")).unwrap();
    symlink("file.txt", target.join("inner")).unwrap();
    symlink(&outside, target.join("out")).unwrap();
    symlink("../../outside.txt", target.join("up")).unwrap();
    let before = tree_digest(&target);
    let (wt, stderr) = start(&repo, &[]);
    assert!(stderr.contains("left out 2 symbolic links"), "{stderr}");
    let seeded = wt.join("target");
    assert_eq!(
        std::fs::read_link(seeded.join("abs")).unwrap(),
        wt.join("README.md")
    );
    assert_eq!(
        std::fs::read_link(seeded.join("abs_inner")).unwrap(),
        wt.join("target/file.txt")
    );
    assert!(!is_link(&seeded.join("out")) && !is_link(&seeded.join("up")));
    // A build in the run writes through every link it was given.
    for link in ["abs", "rel", "abs_inner", "inner"] {
        std::fs::write(seeded.join(link), format!("run wrote {link}\n")).unwrap();
    }
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    assert_eq!(
        repo.git(&["diff", "HEAD"]),
        "",
        "the tracked files are as committed"
    );
    assert_eq!(
        tree_digest(&target),
        before,
        "the checkout's build folder too"
    );
    assert_eq!(read_file(&outside), "outside\n");
    let run_readme = read_file(wt.join("README.md"));
    assert_eq!(
        run_readme, "run wrote rel\n",
        "the run's own README took the writes"
    );
}

#[test]
fn a_python_environment_is_not_seeded() {
    let repo = repo_ignoring(".venv/\nbuild/\n");
    let venv = repo.path.join(".venv");
    write_file(
        &venv.join("pyvenv.cfg"),
        &format!(
            "home = /usr/bin\ncommand = python3 -m venv {}\n",
            venv.display()
        ),
    );
    write_file(
        &venv.join("bin/pip"),
        &format!("#!{}/bin/python\nimport pip\n", venv.display()),
    );
    write_file(
        &venv.join("lib/python3/site-packages/__editable__.app.pth"),
        &format!("{}/src\n", repo.path.display()),
    );
    // An environment nested in another build folder is left out of its copy.
    let nested = repo.path.join("build/env");
    write_file(&nested.join("pyvenv.cfg"), "home = /usr/bin\n");
    write_file(&repo.path.join("build/lib/app.py"), "x = 1\n");
    let (wt, stderr) = start(&repo, &[]);
    assert!(stderr.contains("2 Python environments"), "{stderr}");
    assert!(!wt.join(".venv").exists(), "the environment is not seeded");
    assert!(!wt.join("build/env").exists());
    assert!(
        wt.join("build/lib/app.py").is_file(),
        "the rest of build/ is"
    );
    assert_eq!(repo.git_in(&wt, &["status", "--porcelain"]), "");
}

#[test]
fn seeding_never_goes_through_a_linked_folder_of_the_runs_tree() {
    let repo = repo_ignoring("target/\n");
    let outside = repo.root.join("outside");
    std::fs::create_dir_all(outside.join("a")).unwrap();
    let before_outside = tree_digest(&outside);
    // A branch tracks `crates` as a link out of the work tree; the checkout has a real one.
    repo.git(&["checkout", "-q", "-b", "linked"]);
    symlink(&outside, repo.path.join("crates")).unwrap();
    repo.git(&["add", "crates"]);
    repo.git(&["commit", "-q", "-m", "crates elsewhere"]);
    repo.git(&["checkout", "-q", "main"]);
    write_file(&repo.path.join("crates/a/src/lib.rs"), "pub fn a() {}\n");
    write_file(
        &repo.path.join("crates/a/target/debug/liba.rlib"),
        "built\n",
    );
    let (wt, _) = start(&repo, &["--base", "linked"]);
    assert!(is_link(&wt.join("crates")), "the run's tree is checked out");
    assert_eq!(
        tree_digest(&outside),
        before_outside,
        "nothing written outside"
    );
    assert!(!outside.join("a/target").exists());
}

#[test]
fn finish_keeps_a_worktree_whose_build_folder_holds_a_repository() {
    let repo = repo_ignoring("node_modules/\n");
    let run = repo.start();
    let lib = run.worktree.join("node_modules/lib");
    write_file(&lib.join("index.js"), "module.exports = 1\n");
    repo.git_in(&lib, &["init", "-q", "-b", "main"]);
    repo.git_in(&lib, &["add", "-A"]);
    let who = ["-c", "user.name=Lib", "-c", "user.email=lib@example.com"];
    repo.git_in(
        &lib,
        &[&who[..], &["commit", "-q", "-m", "the library's own work"]].concat(),
    );
    write_file(&lib.join("wip.js"), "not committed anywhere\n");
    write_file(&run.worktree.join("node_modules/left-pad/index.js"), "x\n");
    let out = repo.output(&["finish", "--run", &run.id, "--json"]);
    assert!(out.status.success(), "{out:?}");
    let done: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(done["worktree_removed"], false, "{done}");
    assert_eq!(
        done["unrecorded_files"][0]["path"], "node_modules/lib/",
        "{done}"
    );
    assert_eq!(
        done["unrecorded_files"][0]["why"], "nested-repository",
        "{done}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("kept the worktree")
            && stderr.contains("node_modules/lib/ (nested repository)"),
        "{stderr}"
    );
    assert!(stderr.contains("git worktree remove --force"), "{stderr}");
    // The repository is whole: its commit and its uncommitted file.
    assert_eq!(
        repo.git_in(&lib, &["log", "--format=%s"]),
        "the library's own work\n"
    );
    assert!(lib.join("wip.js").is_file());
    // Without it, the build folder is disposable again.
    std::fs::remove_dir_all(&lib).unwrap();
    let out = repo.output(&["finish", "--run", &run.id, "--json"]);
    let done: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(done["worktree_removed"], true, "{done}");
}
