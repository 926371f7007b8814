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

use super::unsafe_paths::{CheckedRecorder, clash};
use super::{ObjectId, Repo};
use crate::git::error::{Error, Result};

/// Added and removed lines of one path, as a line of `git diff --numstat`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub(crate) struct FileStat {
    /// The path, unquoted (unlike `--numstat`, which C-quotes unusual names).
    pub path: String,
    /// `None` for binary files, which git counts as `-`.
    pub added: Option<usize>,
    pub removed: Option<usize>,
    /// The path as `git diff --stat` shows it: C-quoted when unusual, as `core.quotePath` says.
    #[serde(skip)]
    pub quoted_path: String,
    /// A binary file's size in bytes before and after, which `--stat` prints in place of line
    /// counts; both 0 when only the mode changed, where git prints a bare `Bin`.
    #[serde(skip)]
    pub binary_sizes: Option<(usize, usize)>,
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
    pub(crate) fn diff_trees(&self, old: ObjectId, new: ObjectId) -> Result<Vec<u8>> {
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
    pub(crate) fn diff_stat(&self, old: ObjectId, new: ObjectId) -> Result<Vec<FileStat>> {
        let mut stats = Vec::new();
        // Unlike the patch headers, the stat honours the setting: it is what people read.
        let quote_fully = self
            .repo
            .config_snapshot()
            .boolean("core.quotePath")
            .unwrap_or(true);
        for (path, before, after) in self.changed_files(old, new)? {
            // Unlike the patch, numstat keeps a type change as one entry, counting old content
            // against new.
            let (a, b) = (self.content(before)?, self.content(after)?);
            let binary = is_binary(&a) || is_binary(&b);
            let binary_sizes = match (binary, a == b) {
                (false, _) => None,
                (true, true) => Some((0, 0)),
                (true, false) => Some((a.len(), b.len())),
            };
            let (added, removed) = if binary {
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
                quoted_path: String::from_utf8_lossy(&quote_path(&path, quote_fully)).into_owned(),
                binary_sizes,
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
        let mut checked = CheckedRecorder::default();
        gix::diff::tree(
            gix::objs::TreeRefIter::from_bytes(&old.data, hash),
            gix::objs::TreeRefIter::from_bytes(&new.data, hash),
            gix::diff::tree::State::default(),
            &self.repo.objects,
            &mut checked,
        )
        .map_err(|err| match err {
            gix::diff::tree::Error::Failure(err) => Error::from(err),
            gix::diff::tree::Error::Cancelled => {
                Error::Failed("the tree diff was cancelled".into())
            }
        })?;
        // Which of the two trees holds an unsafe name is not known here; neither may be used.
        if let Some(entry) = checked.refused {
            return Err(entry.into_error(new.id));
        }
        let mut files = Vec::new();
        for change in checked.recorder.records {
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
        for (side, tree) in [(0, old.id), (1, new.id)] {
            let paths = files.iter().filter(|(_, before, after)| {
                if side == 0 {
                    before.is_some()
                } else {
                    after.is_some()
                }
            });
            if let Some(entry) = clash(paths.map(|(path, _, _)| path)) {
                return Err(entry.into_error(tree));
            }
        }
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
        let hunks = unified_hunks(&a, &b, &path.as_bstr().to_string())?;
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

/// A unified diff of two texts under `---`/`+++` lines naming them, with 3 lines of context
/// (empty when they are equal): how a workflow changed, for a person to read.
pub(crate) fn text_patch(
    old_label: &str,
    new_label: &str,
    old: &[u8],
    new: &[u8],
) -> Result<Vec<u8>> {
    let hunks = unified_hunks(old, new, new_label)?;
    let mut out = Vec::new();
    if !hunks.is_empty() {
        push_line(&mut out, &[b"--- ", old_label.as_bytes()]);
        push_line(&mut out, &[b"+++ ", new_label.as_bytes()]);
        out.extend_from_slice(&hunks);
    }
    Ok(out)
}

/// The hunks of a unified diff from `old` to `new`, with git's 3 lines of context; `what`
/// names the file in the error.
fn unified_hunks(old: &[u8], new: &[u8], what: &str) -> Result<Vec<u8>> {
    let input = InternedInput::new(old, new);
    let diff = line_diff(&input);
    let hunks = Hunks {
        out: Vec::new(),
        old_lines: old.lines_with_terminator().collect(),
    };
    UnifiedDiff::new(&diff, &input, hunks, ContextSize::symmetrical(3))
        .consume()
        .map_err(|err| Error::Failed(format!("cannot render the diff of {what}: {err}")))
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
    quote_prefixed(prefix, path, true)
}

/// `path` as git's `quote_c_style` writes it; with `fully` false (`core.quotePath=false`)
/// bytes above ASCII pass through, but control characters, `"` and `\` are still quoted.
fn quote_path(path: &[u8], fully: bool) -> Vec<u8> {
    quote_prefixed("", path, fully)
}

fn quote_prefixed(prefix: &str, path: &[u8], fully: bool) -> Vec<u8> {
    let needs_quote =
        |c: u8| c < 0x20 || c == 0x7f || (fully && c >= 0x80) || c == b'"' || c == b'\\';
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

mod names;
#[cfg(test)]
mod tests;
