//! Where a run stands, so that a refusal names a step that works for the run as it is, never
//! one that refuses it in turn (`resume` for a run that succeeded, `finish` for one archived).

/// What a refused command needed of the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    /// A run that goes on: checkpoints, snapshots, a worktree, `resume`, `finish`.
    Open,
    /// A run that ended: `land`, `rewind`.
    Ended,
}

/// How far a run is, as far as what works for it next; the run layer tells it from the
/// record's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Not ended: submitted, queued, starting, running, blocked or paused.
    Going,
    Succeeded,
    Failed,
    Dead,
    Archived,
    /// Fabro is removing it.
    Removing,
}

/// The facts of a run that decide which next step works for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Situation {
    pub phase: Phase,
    /// The record's status word: "running", "paused", ...
    pub status: &'static str,
    pub landed: bool,
    /// Whether it has a checkpoint (its own or one a fork inherited), which `fork` starts at.
    pub checkpointed: bool,
    /// The run a rewind replaced an archived run with.
    pub superseded_by: Option<String>,
}

impl Situation {
    /// The status as the end of "run X ...": "succeeded", "is running".
    pub fn said(&self) -> String {
        match self.phase {
            Phase::Succeeded | Phase::Failed => self.status.into(),
            Phase::Dead => "died".into(),
            _ => format!("is {}", self.status),
        }
    }

    /// Whether `resume` goes on with the run (and makes its worktree).
    pub fn resumable(&self) -> bool {
        !matches!(
            self.phase,
            Phase::Succeeded | Phase::Archived | Phase::Removing
        )
    }

    /// The commands that work for run `run` as it stands, for a command that `needs` it so.
    pub fn next_step(&self, run: &str, needs: Needs) -> String {
        match (self.phase, needs) {
            (Phase::Archived, _) => match &self.superseded_by {
                Some(next) => format!(
                    "a rewind replaced it with run {next}, which goes on in its place: `git fabro status {next}` says where that stands"
                ),
                None => format!("`git fabro unarchive {run}` gives it back the status it had"),
            },
            (Phase::Succeeded, _) => format!("it is finished: {}", self.finished(run)),
            (Phase::Failed | Phase::Dead, Needs::Open) => {
                format!("`git fabro resume {run}` reopens it in a worktree")
            }
            (Phase::Dead, Needs::Ended) => format!(
                "it stopped without finishing: `git fabro resume {run}` reopens it, then `git fabro finish {run}` ends it"
            ),
            (_, Needs::Ended) if self.resumable() => format!("`git fabro finish {run}` ends it"),
            _ if self.resumable() => format!("`git fabro resume {run}` goes on with it"),
            _ => format!("`git fabro status {run}` says where it stands"),
        }
    }

    /// What a run that succeeded still offers: nothing makes it go on again.
    fn finished(&self, run: &str) -> String {
        let land = match self.landed {
            true => String::new(),
            false => format!("`git fabro land {run}` lands its result, "),
        };
        match self.checkpointed {
            true => format!(
                "{land}`git fabro fork {run}` continues from its last checkpoint as a new run, `git fabro log {run}` lists its checkpoints"
            ),
            false => format!(
                "{land}`git fabro diff {run}` shows what it changed; it took no checkpoint to fork from"
            ),
        }
    }

    /// Why run `run` has no worktree here, and what gives it one (or what works without).
    pub fn without_worktree(&self, run: &str) -> String {
        match self.phase {
            Phase::Going => format!("`git fabro resume {run}` makes one"),
            Phase::Succeeded => format!("it succeeded and keeps none: {}", self.finished(run)),
            Phase::Archived => format!("it is archived: {}", self.next_step(run, Needs::Open)),
            _ => format!(
                "it {} and keeps none: {}",
                self.said(),
                self.next_step(run, Needs::Open)
            ),
        }
    }
}
