//! The independent model: what each clone's runs and main branch must hold, kept up to date by
//! the operations the test issued and never read back from git-fabro's own answers. Files are
//! whole-file maps, so a land's expected result is a per-path three-way merge.

use std::collections::BTreeMap;

/// What stands at a path: a regular file's content or a symlink's target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    File(String),
    Link(String),
}

/// Every file of a tree or directory, by its path relative to the root.
pub type Files = BTreeMap<String, Entry>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Running,
    Finished,
    Archived,
}

/// One run as a clone must hold it.
#[derive(Clone, Debug)]
pub struct Run {
    /// The files of the run's original base (a fork's is its origin's).
    pub base: Files,
    /// The trees of the acknowledged checkpoints, oldest first (inherited ones included).
    pub checkpoints: Vec<Files>,
    /// The files of the run branch's tip (a checkpoint or a snapshot).
    pub tip: Files,
    /// The run's worktree on this clone and its files; `None` when it has none here.
    pub worktree: Option<Worktree>,
    pub status: Status,
    /// For a rewound run: the checkpoint ordinal it was rewound to and the replacement.
    pub rewound: Option<(usize, String)>,
    /// A killed command may have left its worktree half-written: the next resume takes what
    /// it finds there.
    pub uncertain: bool,
}

#[derive(Clone, Debug)]
pub struct Worktree {
    pub path: std::path::PathBuf,
    pub files: Files,
}

impl Run {
    pub fn new(base: Files, worktree: Option<Worktree>) -> Run {
        Run {
            tip: base.clone(),
            base,
            checkpoints: Vec::new(),
            worktree,
            status: Status::Running,
            rewound: None,
            uncertain: false,
        }
    }

    /// A fork at checkpoint `ordinal` (1-based): the inherited timeline, the origin's base.
    pub fn fork(&self, ordinal: usize) -> Run {
        let checkpoints = self.checkpoints[..ordinal].to_vec();
        Run {
            base: self.base.clone(),
            tip: checkpoints[ordinal - 1].clone(),
            checkpoints,
            worktree: None,
            status: Status::Running,
            rewound: None,
            uncertain: false,
        }
    }

    /// Whether the worktree holds anything the tip lacks (what keeps it from removal).
    pub fn holds_unrecorded_work(&self) -> bool {
        self.worktree.as_ref().is_some_and(|w| w.files != self.tip)
    }

    /// Can take edits and checkpoints here.
    pub fn workable(&self) -> bool {
        self.status == Status::Running && self.worktree.is_some()
    }
}

/// One clone: its runs and the commit and files its `main` must have.
#[derive(Clone, Debug, Default)]
pub struct Clone {
    pub runs: BTreeMap<String, Run>,
    pub main: Files,
    /// The sha `main` must point at (checked with `git rev-parse`).
    pub main_sha: String,
}

/// Both clones and what the shared remote holds.
#[derive(Clone, Debug, Default)]
pub struct Model {
    pub clones: [Clone; 2],
    pub remote: BTreeMap<String, Run>,
}

/// The result of landing a run whose base is `base` and final files `run` onto `main`, path by
/// path, or the paths that conflict. Contents are one line each, so any change of the same
/// path on both sides conflicts, as git's merge would find.
pub fn land(base: &Files, main: &Files, run: &Files) -> Result<Files, Vec<String>> {
    let mut merged = Files::new();
    let mut conflicts = Vec::new();
    let paths: std::collections::BTreeSet<&String> =
        base.keys().chain(main.keys()).chain(run.keys()).collect();
    for path in paths {
        let (b, m, r) = (base.get(path), main.get(path), run.get(path));
        let pick = if r == b || m == r {
            m
        } else if m == b {
            r
        } else {
            conflicts.push(path.clone());
            continue;
        };
        if let Some(entry) = pick {
            merged.insert(path.clone(), entry.clone());
        }
    }
    // A file where the other side put a directory (or the reverse) conflicts too.
    for path in merged.keys() {
        if merged.keys().any(|p| p.starts_with(&format!("{path}/"))) {
            conflicts.push(path.clone());
        }
    }
    if conflicts.is_empty() {
        Ok(merged)
    } else {
        Err(conflicts)
    }
}
