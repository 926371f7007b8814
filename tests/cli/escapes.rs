//! Strings read from a repository (node ids, paths, goals, messages) reach a person's
//! terminal with their control characters shown, never sent: another clone chose them, and
//! an escape sequence could rewrite the screen, the window title or the clipboard.

use std::process::Output;

use crate::common::{TestRepo, write_file};
use crate::hostile_trees::{Entry, blob, entries_of, tree};

const ESC_PATH: &str = "a\x1b[31mred.txt";

/// Every byte both streams of `out` carry, as text.
fn printed(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn assert_escaped(args: &[&str], out: &Output, expected: &str) {
    let text = printed(out);
    assert!(
        !text.contains('\x1b'),
        "{args:?} printed a raw ESC: {text:?}"
    );
    assert!(
        !text.contains('\x07'),
        "{args:?} printed a raw BEL: {text:?}"
    );
    assert!(
        text.contains(expected),
        "{args:?} shows {expected}: {text:?}"
    );
}

/// A run whose goal, checkpointed path and node id (rewritten with plumbing, as another
/// clone could) hold escape sequences; `extra` entries join the checkpoint's tree.
fn run_with_escapes(repo: &TestRepo, extra: Vec<Entry>) -> String {
    let out = repo.output(&["start", "--json", "--goal", "goal \x1b]0;title\x07"]);
    assert!(out.status.success());
    let started: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = started["run_id"].as_str().unwrap().to_owned();
    let worktree = std::path::PathBuf::from(started["worktree"].as_str().unwrap());
    write_file(&worktree.join(ESC_PATH), "red\n");
    repo.checkpoint(&id, "plain");

    let branch = format!("refs/heads/fabro/run/{id}");
    let raw = repo.git(&["cat-file", "commit", &branch]);
    let message = raw.split_once("\n\n").unwrap().1;
    let evil = message.replace("plain (", "evil\x1b[2J (");
    let mut entries = entries_of(repo, &repo.path, &branch);
    entries.extend(extra);
    let tree = tree(repo, &repo.path, entries);
    let parent = repo.git(&["rev-parse", &format!("{branch}~1")]);
    let out = repo
        .command("git")
        .args(["commit-tree", &tree, "-p", parent.trim(), "-m", &evil])
        .output()
        .unwrap();
    assert!(out.status.success());
    let commit = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    repo.git(&["update-ref", &branch, &commit]);
    // A file made since, so that restore lists a removal of a path with an escape in it.
    write_file(&worktree.join(format!("new{ESC_PATH}")), "later\n");
    id
}

#[test]
fn control_characters_from_the_repository_are_escaped_in_human_output() {
    let repo = TestRepo::new();
    let id = run_with_escapes(&repo, Vec::new());
    let cases: &[(&[&str], &str)] = &[
        (&["log", &id], "evil\\x1b[2J@1"),
        (&["show", &id, "@1"], "evil\\x1b[2J@1"),
        (&["ps", "--all"], "\\x1b]0;title\\x07"),
        // The stat quotes names as `git diff --stat` does (core.quotePath): ESC as \033.
        (&["diff", &id, "--stat"], "\"a\\033[31mred.txt\""),
        (
            &["restore", "--run", &id, "@1", "--dry-run"],
            "newa\\x1b[31mred.txt",
        ),
        (&["restore", "--run", &id, "@1"], "evil\\x1b[2J@1"),
    ];
    for (args, expected) in cases {
        let out = repo.fabro().args(*args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", printed(&out));
        assert_escaped(args, &out, expected);
    }
}

#[test]
fn fsck_and_restore_show_an_unsafe_path_with_its_control_characters_escaped() {
    let repo = TestRepo::new();
    let file = blob(&repo, &repo.path, b"x\n");
    let unsafe_name = b"dir/\x1b[2Jx".to_vec();
    let id = run_with_escapes(&repo, vec![("100644", unsafe_name, file)]);
    let out = repo.output(&["fsck", &id]);
    assert_eq!(out.status.code(), Some(1));
    assert_escaped(&["fsck"], &out, "evil\\x1b[2J@1");
    assert_escaped(&["fsck"], &out, "dir/\\x1b[2Jx");
    let out = repo.output(&["restore", "--run", &id, "@1"]);
    assert_eq!(out.status.code(), Some(1));
    assert_escaped(&["restore"], &out, "dir/\\x1b[2Jx");
}
