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
    /// Runs in place in the clone's own checkout (`start --in-place`): its files are the
    /// checkout's.
    pub in_place: bool,
    /// How many of its first checkpoints a fork inherited.
    pub inherited: usize,
    /// Checkpoints up to this ordinal are not forked here. Known gap: a fork pushed to another
    /// clone does not carry the metadata commits its inherited checkpoints name, so forking it
    /// there at one of them fails ("object could not be found"); the model leaves them alone.
    pub unforkable: usize,
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
            in_place: false,
            inherited: 0,
            unforkable: 0,
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
            in_place: false,
            inherited: ordinal,
            unforkable: self.unforkable.min(ordinal),
        }
    }

    /// Whether the worktree holds anything the tip lacks (what keeps it from removal).
    pub fn holds_unrecorded_work(&self) -> bool {
        self.worktree.as_ref().is_some_and(|w| w.files != self.tip)
    }

    /// Can take edits and checkpoints here.
    pub fn workable(&self) -> bool {
        self.status == Status::Running && (self.worktree.is_some() || self.in_place)
    }
}

/// One clone: its runs and the commit and files its `main` must have.
#[derive(Clone, Debug, Default)]
pub struct Clone {
    pub runs: BTreeMap<String, Run>,
    pub main: Files,
    /// What the clone's own checkout holds: `main`'s files and the edits of runs in place.
    pub checkout: Files,
    /// The sha `main` must point at (checked with `git rev-parse`).
    pub main_sha: String,
}

impl Clone {
    /// The files a run works on here: its worktree's, or the checkout's for a run in place.
    pub fn files(&self, id: &str) -> Option<&Files> {
        let run = self.runs.get(id)?;
        if run.in_place {
            return Some(&self.checkout);
        }
        run.worktree.as_ref().map(|w| &w.files)
    }

    pub fn files_mut(&mut self, id: &str) -> Option<&mut Files> {
        let run = self.runs.get_mut(id)?;
        if run.in_place {
            return Some(&mut self.checkout);
        }
        run.worktree.as_mut().map(|w| &mut w.files)
    }

    /// Whether a run in place here is still running (one at a time keeps edits unambiguous).
    pub fn runs_in_place(&self) -> bool {
        self.runs
            .values()
            .any(|r| r.in_place && r.status == Status::Running)
    }
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

/// The checkout after a land moved `main` from `old` to `new`: the landed paths change, the
/// user's other changes stay; a change of the user's where the landing writes refuses it.
pub fn land_checkout(old: &Files, new: &Files, checkout: &Files) -> Result<Files, Vec<String>> {
    let differ = |a: &Files, b: &Files| -> Vec<String> {
        let paths: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
        paths
            .into_iter()
            .filter(|p| a.get(*p) != b.get(*p))
            .cloned()
            .collect()
    };
    let landing = differ(old, new);
    let dirty = differ(old, checkout);
    let overlaps = |a: &str, b: &str| {
        a == b || a.starts_with(&format!("{b}/")) || b.starts_with(&format!("{a}/"))
    };
    let in_the_way: Vec<String> = landing
        .iter()
        .filter(|p| dirty.iter().any(|d| overlaps(p, d)))
        .cloned()
        .collect();
    if !in_the_way.is_empty() {
        return Err(in_the_way);
    }
    let mut result = checkout.clone();
    for path in landing {
        match new.get(&path) {
            Some(entry) => result.insert(path, entry.clone()),
            None => result.remove(&path),
        };
    }
    Ok(result)
}
