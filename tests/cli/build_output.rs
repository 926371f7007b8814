//! Build output neither pins a run's worktree nor has to be rebuilt in a new one: `finish` and
//! `gc` remove a worktree whose only unrecorded content is ignored build folders (and name
//! anything else they keep), and a new run's worktree is seeded with the ignored build folders
//! of the checkout it started from, as copies that share nothing with it.

use std::path::Path;

use serde_json::Value;

use crate::common::workflow::between;
use crate::common::{TestRepo, array, read_file, tree_digest, write_file};

/// A repository whose `.gitignore` ignores the usual build folders and a `.env`.
fn fill_build_folders(root: &Path) {
    write_file(&root.join("target/debug/deps/libapp.rlib"), "compiled\n");
    write_file(&root.join("target/debug/.fingerprint/app/lib"), "1234\n");
    write_file(
        &root.join("node_modules/left-pad/index.js"),
        "module.exports = 1\n",
    );
}

fn finish_stderr(repo: &TestRepo, id: &str) -> String {
    let out = repo.output(&["finish", "--run", id]);
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn registered(repo: &TestRepo, worktree: &Path) -> bool {
    repo.git(&["worktree", "list", "--porcelain"])
        .contains(worktree.to_str().unwrap())
}

#[test]
fn finish_removes_a_worktree_whose_only_unrecorded_files_are_build_output() {
    let repo = TestRepo::ignoring("target/\nnode_modules/\n");
    let run = repo.start();
    fill_build_folders(&run.worktree);
    // A workspace member's own target, at any depth.
    write_file(&run.worktree.join("src/target/debug/app"), "binary\n");
    let stderr = finish_stderr(&repo, &run.id);
    assert!(!stderr.contains("kept the worktree"), "{stderr}");
    assert!(!run.worktree.exists());
    assert!(!registered(&repo, &run.worktree));
}

#[test]
fn gc_collects_a_finished_run_whose_worktree_holds_only_build_output() {
    let repo = TestRepo::ignoring("target/\n");
    let run = repo.start();
    repo.checkpoint(&run.id, "build");
    repo.ok(&["finish", &run.id, "--keep-worktree"]);
    write_file(&run.worktree.join("crates/a/target/debug/liba.rlib"), "a\n");
    write_file(&run.worktree.join("target/release/app"), "app\n");
    let out: Value =
        serde_json::from_str(&repo.ok(&["gc", "--finished-older-than", "0", "--json"])).unwrap();
    let collected: Vec<&str> = array(&out["runs"])
        .iter()
        .map(|r| r["run_id"].as_str().unwrap())
        .collect();
    assert_eq!(collected, [run.id.as_str()], "{out}");
    assert!(!run.worktree.exists());
    assert!(!registered(&repo, &run.worktree));
    assert!(repo.git(&["branch", "--list", "fabro/*"]).trim().is_empty());
}

#[test]
fn anything_else_unrecorded_keeps_the_worktree_and_is_named_without_the_build_output() {
    let repo = TestRepo::ignoring("/target\nnode_modules/\n.env\nbuild.log\n");
    let run = repo.start();
    fill_build_folders(&run.worktree);
    write_file(&run.worktree.join(".env"), "TOKEN=secret\n");
    write_file(
        &run.worktree.join("build.log"),
        "ignored, but no build folder\n",
    );
    write_file(&run.worktree.join("notes.txt"), "untracked\n");
    let stderr = finish_stderr(&repo, &run.id);
    assert!(stderr.contains("kept the worktree"), "{stderr}");
    assert!(
        stderr.contains("3 paths there are not in the run's final commit"),
        "{stderr}"
    );
    for named in [
        ".env (ignored)",
        "build.log (ignored)",
        "notes.txt (untracked)",
    ] {
        assert!(stderr.contains(named), "{named}: {stderr}");
    }
    assert!(
        !stderr.contains("target") && !stderr.contains("node_modules"),
        "{stderr}"
    );
    assert_eq!(read_file(run.worktree.join(".env")), "TOKEN=secret\n");
    assert!(run.worktree.join("target/debug/deps/libapp.rlib").exists());
}

#[test]
fn a_build_folder_git_does_not_ignore_keeps_the_worktree() {
    let repo = TestRepo::ignoring("node_modules/\n");
    let run = repo.start();
    write_file(&run.worktree.join("build/app"), "not ignored\n");
    let stderr = finish_stderr(&repo, &run.id);
    assert!(stderr.contains("kept the worktree"), "{stderr}");
    // A checkpoint would take it: git-fabro does not call it build output.
    assert!(
        stderr.contains(": 1 path there is not in the run's final commit: build/app (untracked);"),
        "{stderr}"
    );
    assert!(run.worktree.join("build/app").exists());
}

#[test]
fn a_folder_never_staged_keeps_no_worktree_though_git_does_not_ignore_it() {
    let repo = TestRepo::ignoring("node_modules/\n");
    let run = repo.start();
    write_file(&run.worktree.join("target/app"), "not ignored\n");
    write_file(&run.worktree.join("lib/__pycache__/m.pyc"), "byte code\n");
    let stderr = finish_stderr(&repo, &run.id);
    assert!(!stderr.contains("kept the worktree"), "{stderr}");
    assert!(!run.worktree.exists());
}

#[test]
fn settings_extend_and_replace_the_build_folders() {
    let repo = TestRepo::ignoring("/out\n/target\n/build\n");
    repo.git(&["config", "fabro.buildDir", "out"]);
    let extended = repo.start();
    write_file(&extended.worktree.join("out/bundle.js"), "bundled\n");
    write_file(&extended.worktree.join("target/app"), "app\n");
    finish_stderr(&repo, &extended.id);
    assert!(!extended.worktree.exists());

    // An empty entry drops the folders before it: here the defaults and git config's `out`.
    repo.write_settings("[worktrees]\nbuild_dirs = [\"\", \"out\"]\n");
    let replaced = repo.start();
    write_file(&replaced.worktree.join("out/bundle.js"), "bundled\n");
    write_file(&replaced.worktree.join("build/app"), "app\n");
    let stderr = finish_stderr(&repo, &replaced.id);
    assert!(stderr.contains("1 path there is not"), "{stderr}");
    assert!(stderr.contains("build/ (ignored)"), "{stderr}");
    assert!(!stderr.contains("out/"), "{stderr}");
    assert!(replaced.worktree.join("build/app").exists());
}

#[test]
fn removing_a_symlinked_build_folder_leaves_what_it_points_to() {
    let repo = TestRepo::ignoring("/target\n");
    let outside = repo.root.join("shared-target");
    write_file(&outside.join("debug/app"), "shared build\n");
    let before = tree_digest(&outside);
    let run = repo.start();
    std::os::unix::fs::symlink(&outside, run.worktree.join("target")).unwrap();
    let stderr = finish_stderr(&repo, &run.id);
    assert!(!stderr.contains("kept the worktree"), "{stderr}");
    assert!(!run.worktree.exists());
    assert_eq!(tree_digest(&outside), before);
}

#[test]
fn a_new_run_starts_with_copies_of_the_ignored_build_folders() {
    let repo = TestRepo::ignoring("/target\n.env\n");
    fill_build_folders(&repo.path); // node_modules/ is not ignored here: never seeded
    std::os::unix::fs::symlink("deps/libapp.rlib", repo.path.join("target/debug/latest")).unwrap();
    write_file(&repo.path.join(".env"), "TOKEN=secret\n");
    repo.git(&["config", "fabro.seedBuild", "copy"]);
    let out = repo.output(&["start", "--json"]);
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("seeded the build folders target"),
        "{stderr}"
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let worktree = Path::new(v["worktree"].as_str().unwrap()).to_owned();

    assert_eq!(
        tree_digest(&worktree.join("target")),
        tree_digest(&repo.path.join("target"))
    );
    let link = worktree.join("target/debug/latest");
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
    assert!(!worktree.join("node_modules").exists());
    assert!(!worktree.join(".env").exists());
    // Git sees the worktree clean: the seeded folder is ignored there too.
    assert_eq!(repo.git_in(&worktree, &["status", "--porcelain"]), "");

    // A build in the run rewrites its copy; the checkout's file stays as it was.
    write_file(&worktree.join("target/debug/deps/libapp.rlib"), "rebuilt\n");
    assert_eq!(
        read_file(repo.path.join("target/debug/deps/libapp.rlib")),
        "compiled\n"
    );

    // A mode git-fabro does not know is refused before anything is made.
    repo.git(&["config", "fabro.seedBuild", "sometimes"]);
    let (code, stderr) = crate::common::run_err(repo.fabro().args(["start"]));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("use auto, copy or never"), "{stderr}");

    // Seeding off: the next run starts cold.
    repo.git(&["config", "fabro.seedBuild", "never"]);
    let cold = repo.start();
    assert!(!cold.worktree.join("target").exists());
}

#[test]
fn seeding_by_default_clones_or_says_why_it_did_not() {
    let repo = TestRepo::ignoring("/target\n");
    fill_build_folders(&repo.path);
    let out = repo.output(&["start", "--json"]);
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let worktree = Path::new(v["worktree"].as_str().unwrap()).to_owned();
    // Without clones (ext4, tmpfs), `auto` copies nothing and says so; with them, it clones.
    if stderr.contains("makes no copy-on-write clones") {
        assert!(!worktree.join("target").exists());
    } else {
        assert!(stderr.contains("MiB cloned)"), "{stderr}");
        assert!(worktree.join("target/debug/deps/libapp.rlib").exists());
    }
}

fn warm() -> String {
    between(
        "warm",
        r#"check [shape=parallelogram, script="cat target/seed.txt > run_saw.txt"]
  fork [shape=component]
  a [shape=parallelogram, script="cat target/seed.txt > branch_saw.txt"]
  merge [shape=tripleoctagon]
  start -> check -> fork
  fork -> a
  a -> merge
  merge -> exit"#,
    )
}

#[test]
fn a_workflow_run_and_its_parallel_branches_start_warm() {
    let repo = TestRepo::ignoring("/target\n");
    write_file(&repo.path.join("target/seed.txt"), "warm\n");
    repo.git(&["config", "fabro.seedBuild", "copy"]);
    let ran = crate::engine_run::run(
        &repo,
        &crate::engine_run::workflow(&repo, "warm", &warm()),
        &["--json"],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let branch = format!("fabro/run/{}", ran.id);
    for saw in ["run_saw.txt", "branch_saw.txt"] {
        assert_eq!(repo.git(&["show", &format!("{branch}:{saw}")]), "warm\n");
    }
    // The seeded folder is never committed, nor does it keep the finished run's worktree.
    let tree = repo.files_in(&branch);
    assert!(!tree.contains("target/"), "{tree}");
}

#[test]
fn a_fork_resumed_into_a_new_worktree_starts_warm() {
    let repo = TestRepo::ignoring("/target\n");
    let run = repo.start();
    repo.checkpoint(&run.id, "plan");
    repo.ok(&["finish", "--run", &run.id]);
    write_file(&repo.path.join("target/debug/app"), "built\n");
    repo.git(&["config", "fabro.seedBuild", "copy"]);
    let fork = repo.ok(&["fork", &run.id, "plan"]);
    let state: Value = serde_json::from_str(&repo.ok(&["resume", fork.trim()])).unwrap();
    let worktree = Path::new(state["worktree"].as_str().unwrap());
    assert_eq!(read_file(worktree.join("target/debug/app")), "built\n");
    assert_eq!(repo.git_in(worktree, &["status", "--porcelain"]), "");
}

/// A Python project that ignores nothing: its tests leave `__pycache__/` and `.pytest_cache/`,
/// which git-fabro never stages, so no checkpoint could have held them and losing them loses
/// nothing. A repository inside one (`.venv/src/lib`, cloned by `pip install -e git+URL`)
/// still keeps the worktree: no build makes its commits again.
#[test]
fn what_git_fabro_never_stages_keeps_no_worktree_unless_a_repository_lies_inside() {
    let script = "mkdir -p pkg/__pycache__ .pytest_cache/v && echo code > pkg/__pycache__/x.pyc \
                  && echo '{}' > .pytest_cache/v/lastfailed && echo 'x = 1' > pkg/app.py";
    let workflow = |extra: &str| {
        format!(
            "digraph py {{ start [shape=Mdiamond]\n exit [shape=Msquare]\n \
             test [shape=parallelogram, script=\"{script}{extra}\"]\n start -> test -> exit }}"
        )
    };
    let repo = TestRepo::new();
    let path = crate::engine_run::workflow(&repo, "py", &workflow(""));
    let ran = crate::engine_run::run(&repo, &path, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(!ran.stderr.contains("kept the worktree"), "{}", ran.stderr);
    assert_eq!(
        repo.git(&["worktree", "list", "--porcelain"])
            .matches("worktree ")
            .count(),
        1
    );
    let files = repo.git(&[
        "ls-tree",
        "-r",
        "--name-only",
        &format!("fabro/run/{}", ran.id),
    ]);
    assert_eq!(files, "README.md\npkg/app.py\nsrc/lib.rs\n");

    let repo = TestRepo::new();
    let nested = " && git init -q .venv/src/lib";
    let path = crate::engine_run::workflow(&repo, "py", &workflow(nested));
    let ran = crate::engine_run::run(&repo, &path, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let kept = ran
        .stderr
        .lines()
        .find(|l| l.contains("kept the worktree"))
        .unwrap_or_default();
    assert!(
        kept.contains(
            ": 1 path there is not in the run's final commit: .venv/src/lib/ (nested repository);"
        ),
        "{}",
        ran.stderr
    );
    assert_eq!(
        repo.git(&["worktree", "list", "--porcelain"])
            .matches("worktree ")
            .count(),
        2
    );
}
