//! Names in a tree that must never reach a work tree. A tree from another clone can hold any
//! bytes as an entry name: `..`, an absolute name, a `/` inside a name, `.git` in any case or
//! under an NTFS or HFS+ alias, or two entries with the same name (a symlink and a directory,
//! the pattern of CVE-2024-32002). Git's checkout refuses all of these; so does every command
//! here that writes, shows or restores a path read from a tree.

use std::collections::HashSet;

use gix::bstr::{BStr, BString, ByteSlice};
use gix::diff::tree::{Recorder, Visit, visit};
use gix::objs::tree::EntryKind;
use gix::validate::path::component;

use super::{ObjectId, Repo};
use crate::git::error::{Error, Result};

/// The first unsafe entry found in a tree: its full path (lossily decoded) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct UnsafeEntry {
    pub path: String,
    pub reason: String,
}

impl UnsafeEntry {
    fn new(path: &[u8], reason: impl Into<String>) -> UnsafeEntry {
        UnsafeEntry {
            path: path.to_str_lossy().into_owned(),
            reason: reason.into(),
        }
    }

    /// The error that refuses the tree `tree` because of this entry.
    pub(crate) fn into_error(self, tree: ObjectId) -> Error {
        Error::UnsafePath {
            place: format!("tree {}", tree.to_hex_with_len(7)),
            path: self.path,
            reason: self.reason,
        }
    }
}

/// Why git's checkout would refuse `name` as an entry name, if it would. NTFS and HFS+
/// aliases of `.git` are refused on every platform, as `core.protectNTFS` does by default: a
/// clone of the run on another machine must be as safe as this one.
pub(super) fn refusal(name: &BStr, kind: Option<EntryKind>) -> Option<String> {
    let options = component::Options {
        protect_windows: cfg!(windows),
        protect_hfs: true,
        protect_ntfs: true,
    };
    let mode = (kind == Some(EntryKind::Link)).then_some(component::Mode::Symlink);
    gix::validate::path::component(name, mode, options)
        .err()
        .map(|err| err.to_string())
}

/// A tree-diff delegate that records changes as gix's `Recorder` does and notes the first
/// changed entry whose name git would refuse. Names are checked one by one as the diff
/// enters them, because a `/` inside a name is invisible once names are joined into a path.
#[derive(Default)]
pub(super) struct CheckedRecorder {
    pub recorder: Recorder,
    pub refused: Option<UnsafeEntry>,
}

impl CheckedRecorder {
    fn check(&mut self, component: &BStr, kind: Option<EntryKind>) {
        if self.refused.is_none()
            && let Some(reason) = refusal(component, kind)
        {
            self.refused = Some(UnsafeEntry::new(self.recorder.path(), reason));
        }
    }
}

impl Visit for CheckedRecorder {
    fn pop_front_tracked_path_and_set_current(&mut self) {
        self.recorder.pop_front_tracked_path_and_set_current();
    }

    fn push_back_tracked_path_component(&mut self, component: &BStr) {
        self.recorder.push_back_tracked_path_component(component);
        self.check(component, None);
    }

    fn push_path_component(&mut self, component: &BStr) {
        self.recorder.push_path_component(component);
        self.check(component, None);
    }

    fn pop_path_component(&mut self) {
        self.recorder.pop_path_component();
    }

    fn visit(&mut self, change: visit::Change) -> visit::Action {
        // Only a symlink's name is checked against `.gitmodules` aliases, so the kind matters.
        let kind = match &change {
            visit::Change::Addition { entry_mode, .. }
            | visit::Change::Modification { entry_mode, .. } => Some(entry_mode.kind()),
            visit::Change::Deletion { .. } => None,
        };
        let path = self.recorder.path().to_owned();
        let name = path.rsplit_str("/").next().unwrap_or_default();
        self.check(name.as_bstr(), kind);
        self.recorder.visit(change)
    }
}

/// The first path of one side of a diff that is also a directory on that side, or that
/// occurs twice: only duplicate entries in one tree can produce either.
pub(super) fn clash<'a>(files: impl Iterator<Item = &'a BString>) -> Option<UnsafeEntry> {
    let mut seen = HashSet::new();
    let files: Vec<&BString> = files.collect();
    for file in &files {
        if !seen.insert(file.as_slice()) {
            return Some(UnsafeEntry::new(file, "the tree holds this name twice"));
        }
    }
    files.iter().find_map(|file| {
        file.char_indices()
            .filter(|(_, _, c)| *c == '/')
            .map(|(at, _, _)| &file[..at])
            .find(|dir| seen.contains(dir))
            .map(|dir| UnsafeEntry::new(dir, "the tree holds this name as a file and a directory"))
    })
}

impl Repo {
    /// The first entry of tree `tree`, at any depth, that git's checkout would refuse: an
    /// unsafe name, a name held twice, or a tree that does not parse. Subtrees already in
    /// `checked` are skipped (a run's checkpoints share most of theirs); a tree found safe
    /// is added with all its subtrees.
    pub(crate) fn find_unsafe_entry(
        &self,
        tree: ObjectId,
        checked: &mut HashSet<ObjectId>,
    ) -> Result<Option<UnsafeEntry>> {
        let mut safe = HashSet::new();
        let mut pending = vec![(BString::default(), tree)];
        while let Some((dir, id)) = pending.pop() {
            if checked.contains(&id) || safe.contains(&id) {
                continue;
            }
            let object = self.repo.find_object(id)?;
            if object.kind != gix::object::Kind::Tree {
                return Ok(Some(UnsafeEntry::new(
                    &dir,
                    "a tree entry names a non-tree",
                )));
            }
            let mut names = HashSet::new();
            for entry in gix::objs::TreeRefIter::from_bytes(&object.data, self.repo.object_hash()) {
                let Ok(entry) = entry else {
                    return Ok(Some(UnsafeEntry::new(&dir, "the tree does not parse")));
                };
                let path = join(dir.as_bstr(), entry.filename);
                let kind = entry.mode.kind();
                if let Some(reason) = refusal(entry.filename, Some(kind)) {
                    return Ok(Some(UnsafeEntry::new(&path, reason)));
                }
                if !names.insert(entry.filename) {
                    return Ok(Some(UnsafeEntry::new(
                        &path,
                        "the tree holds this name twice",
                    )));
                }
                if kind == EntryKind::Tree {
                    pending.push((path, entry.oid.to_owned()));
                }
            }
            safe.insert(id);
        }
        checked.extend(safe);
        Ok(None)
    }
}

fn join(dir: &BStr, name: &BStr) -> BString {
    if dir.is_empty() {
        return name.to_owned();
    }
    let mut path = dir.to_owned();
    path.push(b'/');
    path.extend_from_slice(name);
    path
}
