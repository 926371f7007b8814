//! The rows `ps` showed last time, kept in `.git/fabro/summaries` and keyed by the two tips
//! each row was read from. A row depends on nothing but its run's metadata tip (status, goal,
//! labels, start time from `run.json`) and run tip (the completed count in its trailers), so a
//! row whose tips have not moved is the row git would give again, and a listing of a thousand
//! runs reads a thousand ref files and one small file instead of four objects per run.
//!
//! The file is never a source of truth: a row whose tips moved is read from git again, a line
//! that does not parse is ignored, a file of another version or a damaged one counts as empty,
//! and failing to write it changes nothing but the next listing's speed. It is replaced whole
//! (a temporary file renamed over it), so readers never see half of one.

use std::collections::HashMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::git::ObjectId;
use crate::run::inspect::RunSummary;

/// The first line: a file written by another version of git-fabro may hold rows of another
/// shape, so it is read as empty.
const HEADER: &str = concat!("git-fabro summaries 2 ", env!("CARGO_PKG_VERSION"));

pub struct SummaryCache {
    path: PathBuf,
    /// `<meta tip> <run tip>` to the row as JSON, as read from the file.
    stored: HashMap<String, String>,
    /// The rows of this listing, written back when any of them was not stored.
    kept: Vec<(String, String)>,
    missed: bool,
}

impl SummaryCache {
    /// The cache of the repository whose common git dir is `common_dir`.
    pub fn open(common_dir: &Path) -> SummaryCache {
        let path = common_dir.join("fabro").join("summaries");
        let text = fs::read_to_string(&path).unwrap_or_default();
        let mut lines = text.lines();
        let stored = if lines.next() == Some(HEADER) {
            lines
                .filter_map(|line| {
                    let (meta, rest) = line.split_once(' ')?;
                    let (run, row) = rest.split_once(' ')?;
                    Some((format!("{meta} {run}"), row.to_owned()))
                })
                .collect()
        } else {
            HashMap::new()
        };
        SummaryCache {
            path,
            stored,
            kept: Vec::new(),
            missed: false,
        }
    }

    /// The row read from `meta` and `run`: the stored one, else what `read` gives (stored for
    /// next time when it is a row).
    pub fn row<E>(
        &mut self,
        meta: ObjectId,
        run: ObjectId,
        read: impl FnOnce() -> Result<RunSummary, E>,
    ) -> Result<RunSummary, E> {
        let key = format!("{meta} {run}");
        if let Some(row) = self.stored.get(&key)
            && let Ok(summary) = serde_json::from_str::<RunSummary>(row)
        {
            self.kept.push((key, row.clone()));
            return Ok(summary);
        }
        let summary = read()?;
        if let Ok(row) = serde_json::to_string(&summary) {
            self.kept.push((key, row));
        }
        self.missed = true;
        Ok(summary)
    }

    /// Writes the rows of this listing back when they differ from the file's, dropping those
    /// of runs that are gone. Best effort: the cache only saves time.
    pub fn save(self) {
        if !self.missed && self.kept.len() == self.stored.len() {
            return;
        }
        let mut text = format!("{HEADER}\n");
        for (key, row) in &self.kept {
            text.push_str(&format!("{key} {row}\n"));
        }
        let temp = self
            .path
            .with_file_name(format!("summaries.{}.tmp", std::process::id()));
        let write = || -> std::io::Result<()> {
            fs::create_dir_all(self.path.parent().unwrap_or(Path::new(".")))?;
            fs::File::create(&temp)?.write_all(text.as_bytes())?;
            fs::rename(&temp, &self.path)
        };
        if write().is_err() {
            let _ = fs::remove_file(&temp);
        }
    }
}
