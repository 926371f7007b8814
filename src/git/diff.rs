//! Patches and line counts between two trees, as `git diff --no-renames OLD NEW` prints them.
//! Callers show agents and users what a checkpoint changed, so the text must be the one git
//! would print: tools downstream (`git apply`, reviewers' eyes) expect exactly that format.
//!
//! gix finds the changed entries and imara-diff (Myers, with git's indent heuristic) finds the
//! changed lines; everything git adds around them—headers, quoting, hunk ranges, the function
//! name after `@@`, binary detection—is reproduced here, because gix has no patch writer.

use std::io;

use gix::bstr::{BString, ByteSlice};
use gix::diff::blob::unified_diff::{ConsumeHunk, ContextSize, DiffLineKind, HunkHeader};
use gix::diff::blob::{Algorithm, Diff, InternedInput, UnifiedDiff};
use gix::diff::tree::recorder::Change;
use gix::objs::tree::EntryKind;

use super::{ObjectId, Repo};
use crate::error::{Error, Result};

/// Added and removed lines of one path, as a line of `git diff --numstat`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct FileStat {
    /// The path, unquoted (unlike `--numstat`, which C-quotes unusual names).
    pub path: String,
    /// `None` for binary files, which git counts as `-`.
    pub added: Option<usize>,
    pub removed: Option<usize>,
}

/// One side of a changed path: what git calls a filespec. `None` stands for "absent".
pub(super) type Side = Option<(ObjectId, EntryKind)>;

/// Git reads only this much of a blob to decide whether it is binary (`FIRST_FEW_BYTES`).
const BINARY_SNIFF_LEN: usize = 8000;
/// Blobs above `core.bigFileThreshold`'s default are treated as binary without a look.
const BIG_FILE_THRESHOLD: usize = 512 << 20;

impl Repo {
    /// A patch from tree `old` to tree `new` in the format of `git diff --no-color --no-renames old new`
    /// (with `a/` and `b/` prefixes, 3 lines of context).
    pub fn diff_trees(&self, old: ObjectId, new: ObjectId) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        for (path, before, after) in self.changed_files(old, new)? {
            match (before, after) {
                // Like git, a path that turns from file to symlink (or submodule) is shown as a
                // deletion followed by a creation: a content diff across types means nothing.
                (Some(a), Some(b)) if file_type(a.1) != file_type(b.1) => {
                    self.write_patch(&mut out, &path, Some(a), None)?;
                    self.write_patch(&mut out, &path, None, Some(b))?;
                }
                _ => self.write_patch(&mut out, &path, before, after)?,
            }
        }
        Ok(out)
    }

    /// Per-file added/removed line counts between two trees, like `git diff --numstat` (binary files count as None).
    pub fn diff_stat(&self, old: ObjectId, new: ObjectId) -> Result<Vec<FileStat>> {
        let mut stats = Vec::new();
        for (path, before, after) in self.changed_files(old, new)? {
            // Unlike the patch, numstat keeps a type change as one entry, counting old content
            // against new.
            let (a, b) = (self.content(before)?, self.content(after)?);
            let (added, removed) = if is_binary(&a) || is_binary(&b) {
                (None, None)
            } else {
                let input = InternedInput::new(a.as_slice(), b.as_slice());
                let diff = line_diff(&input);
                (
                    Some(diff.count_additions() as usize),
                    Some(diff.count_removals() as usize),
                )
            };
            stats.push(FileStat {
                path: path.to_str_lossy().into_owned(),
                added,
                removed,
            });
        }
        Ok(stats)
    }

    /// The non-tree entries that differ between `old` and `new`, in the order git prints them.
    pub(super) fn changed_files(
        &self,
        old: ObjectId,
        new: ObjectId,
    ) -> Result<Vec<(BString, Side, Side)>> {
        // Peeling lets a commit stand for its tree, as it does on git's command line.
        let old = self.repo.find_object(old)?.peel_to_tree()?;
        let new = self.repo.find_object(new)?.peel_to_tree()?;
        let hash = self.repo.object_hash();
        let mut recorder = gix::diff::tree::Recorder::default();
        gix::diff::tree(
            gix::objs::TreeRefIter::from_bytes(&old.data, hash),
            gix::objs::TreeRefIter::from_bytes(&new.data, hash),
            gix::diff::tree::State::default(),
            &self.repo.objects,
            &mut recorder,
        )
        .map_err(|err| match err {
            gix::diff::tree::Error::Failure(err) => Error::Git(err),
            gix::diff::tree::Error::Cancelled => {
                Error::Failed("the tree diff was cancelled".into())
            }
        })?;
        let mut files = Vec::new();
        for change in recorder.records {
            // Trees themselves never appear in a patch, only the files below them. A file that
            // becomes a directory arrives as a deletion plus additions, as git shows it.
            let (path, before, after) = match change {
                Change::Addition {
                    entry_mode: m,
                    oid,
                    path,
                    ..
                } => (path, None, Some((oid, m.kind()))),
                Change::Deletion {
                    entry_mode: m,
                    oid,
                    path,
                    ..
                } => (path, Some((oid, m.kind())), None),
                Change::Modification {
                    previous_entry_mode,
                    previous_oid,
                    entry_mode,
                    oid,
                    path,
                } => {
                    let (a, b) = (
                        (previous_oid, previous_entry_mode.kind()),
                        (oid, entry_mode.kind()),
                    );
                    // Non-canonical modes (100664) read as 100644, so such a "change" is none.
                    if a == b {
                        continue;
                    }
                    (path, Some(a), Some(b))
                }
            };
            if [before, after]
                .iter()
                .flatten()
                .any(|(_, kind)| *kind == EntryKind::Tree)
            {
                continue;
            }
            files.push((path, before, after));
        }
        // gix walks breadth-first; git prints in tree order, which for full paths is plain byte
        // order. The sort is stable, so a deletion of `a` stays ahead of an addition of `a`.
        files.sort_by(|x, y| x.0.cmp(&y.0));
        Ok(files)
    }

    fn write_patch(&self, out: &mut Vec<u8>, path: &[u8], before: Side, after: Side) -> Result<()> {
        let (a_label, b_label) = (quote_label("a/", path), quote_label("b/", path));
        push_line(out, &[b"diff --git ", &a_label, b" ", &b_label]);
        let modes = match (before, after) {
            (None, Some((_, kind))) => format!("new file mode {}", mode(kind)),
            (Some((_, kind)), None) => format!("deleted file mode {}", mode(kind)),
            (Some((_, a)), Some((_, b))) if a != b => {
                format!("old mode {}\nnew mode {}", mode(a), mode(b))
            }
            _ => String::new(),
        };
        if !modes.is_empty() {
            push_line(out, &[modes.as_bytes()]);
        }
        let null = ObjectId::null(self.repo.object_hash());
        let (a_id, b_id) = (before.map_or(null, |s| s.0), after.map_or(null, |s| s.0));
        if a_id == b_id {
            // A mode change alone: git prints neither an index line nor content.
            return Ok(());
        }
        let mut index = format!(
            "index {}..{}",
            a_id.to_hex_with_len(7),
            b_id.to_hex_with_len(7)
        );
        if let (Some((_, a)), Some((_, b))) = (before, after)
            && a == b
        {
            index.push_str(&format!(" {}", mode(a)));
        }
        push_line(out, &[index.as_bytes()]);

        let or_null = |side: Side, label| side.map_or(b"/dev/null".to_vec(), |_| label);
        let (minus, plus) = (or_null(before, a_label), or_null(after, b_label));
        let (a, b) = (self.content(before)?, self.content(after)?);
        if is_binary(&a) || is_binary(&b) {
            push_line(
                out,
                &[b"Binary files ", &minus, b" and ", &plus, b" differ"],
            );
            return Ok(());
        }
        let input = InternedInput::new(a.as_slice(), b.as_slice());
        let diff = line_diff(&input);
        let hunks = Hunks {
            out: Vec::new(),
            old_lines: a.lines_with_terminator().collect(),
        };
        let hunks = UnifiedDiff::new(&diff, &input, hunks, ContextSize::symmetrical(3))
            .consume()
            .map_err(|err| {
                Error::Failed(format!(
                    "cannot render the diff of {}: {err}",
                    path.as_bstr()
                ))
            })?;
        // No hunks (an empty file created or deleted) means no `---`/`+++` either, as in git.
        if !hunks.is_empty() {
            // git ends a label containing a space with a tab, so that tools can find its end.
            let tab = |label: &[u8]| &b"\t"[..usize::from(label.contains(&b' '))];
            push_line(out, &[b"--- ", &minus, tab(&minus)]);
            push_line(out, &[b"+++ ", &plus, tab(&plus)]);
            out.extend_from_slice(&hunks);
        }
        Ok(())
    }

    /// The bytes git diffs for one side: a blob, a submodule's commit as git spells it, or
    /// nothing for an absent side.
    fn content(&self, side: Side) -> Result<Vec<u8>> {
        Ok(match side {
            None => Vec::new(),
            Some((id, EntryKind::Commit)) => format!("Subproject commit {id}\n").into_bytes(),
            Some((id, _)) => self.repo.find_blob(id)?.take_data(),
        })
    }
}

/// Git's default Myers diff followed by its default indent heuristic for sliding hunks.
fn line_diff(input: &InternedInput<&[u8]>) -> Diff {
    let mut diff = Diff::compute(Algorithm::Myers, input);
    diff.postprocess_lines(input);
    diff
}

/// Writes hunks as git does, given the old file's lines to find each hunk's function name.
struct Hunks<'a> {
    out: Vec<u8>,
    old_lines: Vec<&'a [u8]>,
}

impl ConsumeHunk for Hunks<'_> {
    type Out = Vec<u8>;

    fn consume_hunk(
        &mut self,
        header: HunkHeader,
        lines: &[(DiffLineKind, &[u8])],
    ) -> io::Result<()> {
        let mut head = format!(
            "@@ -{} +{} @@",
            range(header.before_hunk_start, header.before_hunk_len),
            range(header.after_hunk_start, header.after_hunk_len)
        )
        .into_bytes();
        // The nearest line above the hunk (context included) that starts like an identifier,
        // searched in the old file; git keeps 80 bytes of it in a 128-byte header buffer.
        let above = (header.before_hunk_start as usize)
            .saturating_sub(1)
            .min(self.old_lines.len());
        let is_func = |line: &&&[u8]| {
            line.first()
                .is_some_and(|c| c.is_ascii_alphabetic() || b"_$".contains(c))
        };
        if let Some(line) = self.old_lines[..above].iter().rev().find(is_func) {
            let mut func = &line[..line.len().min(80)];
            while let [rest @ .., b' ' | b'\t' | b'\n' | b'\r'] = func {
                func = rest;
            }
            let room = 127usize.saturating_sub(head.len() + 1);
            head.push(b' ');
            head.extend_from_slice(&func[..func.len().min(room)]);
        }
        push_line(&mut self.out, &[&head]);
        for (kind, line) in lines {
            push_line(
                &mut self.out,
                &[
                    &[kind.to_prefix() as u8],
                    line.strip_suffix(b"\n").unwrap_or(line),
                ],
            );
            if !line.ends_with(b"\n") {
                self.out
                    .extend_from_slice(b"\\ No newline at end of file\n");
            }
        }
        Ok(())
    }

    fn finish(self) -> Vec<u8> {
        self.out
    }
}

/// A hunk range as xdiff prints it: `,1` is left out, and an empty range names the line
/// before it.
fn range(start: u32, len: u32) -> String {
    match len {
        0 => format!("{},0", start.saturating_sub(1)),
        1 => start.to_string(),
        _ => format!("{start},{len}"),
    }
}

fn push_line(out: &mut Vec<u8>, parts: &[&[u8]]) {
    parts.iter().for_each(|part| out.extend_from_slice(part));
    out.push(b'\n');
}

/// Git's notion of a binary blob, absent a `diff` attribute: a NUL near its start.
fn is_binary(data: &[u8]) -> bool {
    data.len() > BIG_FILE_THRESHOLD || data[..data.len().min(BINARY_SNIFF_LEN)].contains(&0)
}

/// What git compares (`S_IFMT`) to decide that a change crosses types and must be split.
fn file_type(kind: EntryKind) -> EntryKind {
    match kind {
        EntryKind::BlobExecutable => EntryKind::Blob,
        other => other,
    }
}

fn mode(kind: EntryKind) -> String {
    format!("{:06o}", kind as u16)
}

/// `prefix` + `path`, C-quoted as a whole when the path needs it, the way git quotes names
/// with `core.quotePath` at its default: control characters, `"`, `\` and non-ASCII bytes.
fn quote_label(prefix: &str, path: &[u8]) -> Vec<u8> {
    let needs_quote = |c: u8| !(0x20..0x7f).contains(&c) || c == b'"' || c == b'\\';
    let mut label = prefix.as_bytes().to_vec();
    if !path.iter().any(|&c| needs_quote(c)) {
        label.extend_from_slice(path);
        return label;
    }
    label.insert(0, b'"');
    for &c in path {
        match c {
            // \a \b \t \n \v \f \r are bytes 7 to 13.
            7..=13 => label.extend_from_slice(&[b'\\', b"abtnvfr"[usize::from(c - 7)]]),
            b'"' | b'\\' => label.extend_from_slice(&[b'\\', c]),
            c if needs_quote(c) => label.extend_from_slice(format!("\\{c:03o}").as_bytes()),
            c => label.push(c),
        }
    }
    label.push(b'"');
    label
}

#[cfg(test)]
mod tests {
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
        let commit =
            |tree: ObjectId| parse_id(&fx.git(&["commit-tree", &tree.to_string(), "-m", "c"]));
        let by_commit = repo
            .diff_trees(commit(old), commit(new))
            .expect("diff commits");
        assert_eq!(by_commit, repo.diff_trees(old, new).expect("diff trees"));
    }
}
