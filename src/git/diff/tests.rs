//! The patches and counts of this module, compared byte for byte with what the git CLI prints
//! for the same trees of real repositories.

use std::process::Command;

use gix::bstr::ByteSlice;

use crate::git::{ObjectId, Repo};

/// A scratch repository whose trees are written by the `git` CLI, the reference we match.
struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let fixture = Fixture {
            dir: tempfile::tempdir().expect("tempdir"),
        };
        fixture.git(&["init", "-q"]);
        fixture
    }

    fn git(&self, args: &[&str]) -> Vec<u8> {
        let out = Command::new("git")
            .current_dir(self.dir.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("HOME", self.dir.path())
            .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
            .args(args)
            .output()
            .expect("git runs");
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            out.stderr.as_bstr()
        );
        out.stdout
    }

    fn write(&self, path: &str, data: impl AsRef<[u8]>) {
        let path = self.dir.path().join(path);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, data).expect("write");
    }

    fn remove(&self, path: &str) {
        let path = self.dir.path().join(path);
        if path.is_dir() {
            std::fs::remove_dir_all(path).expect("rmdir");
        } else {
            std::fs::remove_file(path).expect("rm");
        }
    }

    /// Stages the whole worktree and returns its tree.
    fn tree(&self) -> ObjectId {
        self.git(&["add", "-A"]);
        parse_id(&self.git(&["write-tree"]))
    }

    /// Asserts that patch and numstat of `old..new` are git's, byte for byte.
    fn check(&self, old: ObjectId, new: ObjectId) {
        let (old_hex, new_hex) = (old.to_string(), new.to_string());
        let repo = Repo::open(self.dir.path()).expect("open");
        let ours = repo.diff_trees(old, new).expect("diff_trees");
        let theirs = self.git(&[
            "diff",
            "--no-color",
            "--no-renames",
            "--no-ext-diff",
            &old_hex,
            &new_hex,
        ]);
        assert!(!theirs.is_empty(), "the case under test changed nothing");
        assert_eq!(ours.as_bstr(), theirs.as_bstr());

        let stats = repo.diff_stat(old, new).expect("diff_stat");
        let count = |n: Option<usize>| n.map_or("-".to_string(), |n| n.to_string());
        let ours: String = stats
            .iter()
            .map(|s| format!("{}\t{}\t{}\0", count(s.added), count(s.removed), s.path))
            .collect();
        let theirs = self.git(&[
            "diff",
            "--numstat",
            "-z",
            "--no-renames",
            &old_hex,
            &new_hex,
        ]);
        assert_eq!(ours.as_bytes().as_bstr(), theirs.as_bstr());
    }
}

fn parse_id(out: &[u8]) -> ObjectId {
    ObjectId::from_hex(out.trim()).expect("hex id")
}

fn numbered(lines: std::ops::Range<usize>) -> String {
    lines.map(|i| format!("    line {i}\n")).collect()
}

#[test]
fn modified_text_file_with_function_context() {
    let fx = Fixture::new();
    let body = "use std::io;\n\nfn main() {\n    let a = 1;\n    let b = 2;\n    let c = 3;\n    let d = 4;\n    println!(\"{a}\");\n}\n";
    fx.write("src/main.rs", body);
    let old = fx.tree();
    fx.write("src/main.rs", body.replace("let d = 4;", "let d = 5;"));
    let new = fx.tree();
    fx.check(old, new);
    assert!(
        fx.git(&["diff", &old.to_string(), &new.to_string()])
            .contains_str("@@ -4,6 +4,6 @@ fn main() {")
    );
}

#[test]
fn added_and_deleted_files() {
    let fx = Fixture::new();
    fx.write("gone.txt", "bye\nnow\n");
    fx.write("empty-gone", "");
    fx.write("kept", "same\n");
    let old = fx.tree();
    fx.remove("gone.txt");
    fx.remove("empty-gone");
    fx.write("new.txt", "hello\nworld\n");
    fx.write("empty-new", "");
    fx.write("emptied", "");
    let new = fx.tree();
    fx.check(old, new);
    fx.check(new, old);
}

#[test]
fn mode_changes() {
    let fx = Fixture::new();
    fx.write("script.sh", "echo hi\n");
    fx.write("tool.sh", "echo old\n");
    let old = fx.tree();
    fx.write("tool.sh", "echo new\n");
    fx.git(&["add", "--chmod=+x", "script.sh", "tool.sh"]);
    let new = parse_id(&fx.git(&["write-tree"]));
    fx.check(old, new);
}

#[test]
fn binary_files() {
    let fx = Fixture::new();
    fx.write("image.bin", b"\x89PNG\0\x01\x02".as_slice());
    fx.write("late-nul.dat", format!("{}\0", "x".repeat(9000)));
    fx.write("was-text", "text\n");
    let old = fx.tree();
    fx.write("image.bin", b"\x89PNG\0\x01\x03".as_slice());
    fx.write("late-nul.dat", format!("{}\0y", "x".repeat(9000)));
    fx.write("was-text", b"now\0binary".as_slice());
    fx.write("added.bin", b"\0\0".as_slice());
    let new = fx.tree();
    fx.check(old, new);
    fx.check(new, old);
}

#[test]
fn missing_trailing_newlines() {
    let fx = Fixture::new();
    fx.write("gains", "a\nb");
    fx.write("loses", "a\nb\n");
    fx.write("neither", "a\nb");
    fx.write("new-no-eol", "x");
    fx.write("crlf", "Header\r\none\r\ntwo\r\nthree\r\nfour\r\nfive\r\n");
    let old = fx.tree();
    fx.write("crlf", "Header\r\none\r\ntwo\r\nthree\r\nfour\r\n5\r\n");
    fx.write("gains", "a\nb\n");
    fx.write("loses", "a\nb");
    fx.write("neither", "a\nc");
    fx.remove("new-no-eol");
    let new = fx.tree();
    fx.check(old, new);
    fx.check(new, old);
}

#[test]
fn several_hunks_in_one_file() {
    let fx = Fixture::new();
    let mut text = String::from("struct Header;\n");
    text += &numbered(0..30);
    text += "impl Header {\n";
    text += &numbered(30..60);
    text += &format!("fn {}() {{\n", "very_long_function_name_".repeat(5));
    text += &numbered(60..90);
    fx.write("f.rs", &text);
    let old = fx.tree();
    let changed = text
        .replace("line 2\n", "line two\n")
        .replace("    line 12\n", "")
        .replace("line 16\n", "line 16\nextra\n")
        .replace("line 40\n", "line forty\n")
        .replace("line 75\n", "line 75 changed\n")
        .replace("line 89\n", "last");
    fx.write("f.rs", changed);
    let new = fx.tree();
    fx.check(old, new);
}

#[test]
fn nested_directories_in_git_order() {
    let fx = Fixture::new();
    fx.write("a/b/c.txt", "c\n");
    fx.write("a/z.txt", "z\n");
    fx.write("a-b", "dash\n");
    fx.write("a.txt", "dot\n");
    fx.write("d", "file that becomes a directory\n");
    fx.write("e/f/g", "directory that becomes a file\n");
    let old = fx.tree();
    fx.write("a/b/c.txt", "c2\n");
    fx.write("a/z.txt", "z2\n");
    fx.write("a-b", "dash2\n");
    fx.write("a.txt", "dot2\n");
    fx.write("a/b/new/deep.txt", "deep\n");
    fx.remove("d");
    fx.write("d/inside", "now a directory\n");
    fx.remove("e");
    fx.write("e", "now a file\n");
    let new = fx.tree();
    fx.check(old, new);
    fx.check(new, old);
}

#[test]
fn empty_and_full_files() {
    let fx = Fixture::new();
    fx.write("grows", "");
    fx.write("shrinks", "one\ntwo\n");
    let old = fx.tree();
    fx.write("grows", "one\ntwo\n");
    fx.write("shrinks", "");
    let new = fx.tree();
    fx.check(old, new);
}

#[test]
fn unusual_paths_are_quoted_like_git() {
    let fx = Fixture::new();
    fx.write("with space.txt", "a\n");
    fx.write("t\u{e4}st", "a\n");
    fx.write("quote\"back\\slash", "a\n");
    fx.write("tab\there", "a\n");
    fx.write("ctrl\u{1}\u{7f}", "a\n");
    let old = fx.tree();
    for path in [
        "with space.txt",
        "t\u{e4}st",
        "quote\"back\\slash",
        "tab\there",
        "ctrl\u{1}\u{7f}",
    ] {
        fx.write(path, "b\n");
    }
    fx.write("new file", "n\n");
    let new = fx.tree();
    fx.check(old, new);
}

#[cfg(unix)]
#[test]
fn symlinks_and_type_changes() {
    let fx = Fixture::new();
    let link = |target: &str, path: &str| {
        std::os::unix::fs::symlink(target, fx.dir.path().join(path)).expect("symlink");
    };
    link("target", "link");
    link("target", "becomes-file");
    fx.write("becomes-link", "plain\n");
    let old = fx.tree();
    fx.remove("link");
    link("elsewhere", "link");
    fx.remove("becomes-file");
    fx.write("becomes-file", "plain\n");
    fx.remove("becomes-link");
    link("plain", "becomes-link");
    let new = fx.tree();
    fx.check(old, new);
}

#[test]
fn submodule_commits() {
    let fx = Fixture::new();
    let empty = fx.git(&["mktree"]).trim().to_str().expect("hex").to_owned();
    let commit = |msg: &str| {
        fx.git(&["commit-tree", &empty, "-m", msg])
            .trim()
            .to_str()
            .expect("hex")
            .to_owned()
    };
    let (first, second) = (commit("one"), commit("two"));
    let mktree = |listing: String| {
        let mut child = Command::new("git")
            .current_dir(fx.dir.path())
            .arg("mktree")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("git mktree");
        use std::io::Write;
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(listing.as_bytes())
            .expect("feed mktree");
        parse_id(&child.wait_with_output().expect("mktree output").stdout)
    };
    let old = mktree(format!(
        "160000 commit {first}\tsub\n160000 commit {first}\tgone\n"
    ));
    let new = mktree(format!(
        "160000 commit {second}\tsub\n160000 commit {second}\tadded\n"
    ));
    fx.check(old, new);
}

#[test]
fn empty_tree_identical_trees_and_commits() {
    let fx = Fixture::new();
    fx.write("f", "x\n");
    let old = fx.tree();
    fx.write("f", "y\n");
    let new = fx.tree();
    let repo = Repo::open(fx.dir.path()).expect("open");
    fx.check(repo.empty_tree(), new);
    assert!(repo.diff_trees(old, old).expect("diff").is_empty());
    assert!(repo.diff_stat(old, old).expect("stat").is_empty());
    let commit = |tree: ObjectId| parse_id(&fx.git(&["commit-tree", &tree.to_string(), "-m", "c"]));
    let by_commit = repo
        .diff_trees(commit(old), commit(new))
        .expect("diff commits");
    assert_eq!(by_commit, repo.diff_trees(old, new).expect("diff trees"));
}
