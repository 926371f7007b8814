//! The operations a session is made of, how a seed picks them from what the model allows, and
//! how a failing sequence prints for a person to read.

use super::state::{Entry, Model, Status};

/// A small xorshift generator: a seed replays the same choices.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }

    pub fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        (!items.is_empty()).then(|| &items[self.below(items.len())])
    }
}

#[derive(Clone, Debug)]
pub enum Op {
    Start {
        in_place: bool,
    },
    Write {
        run: String,
        path: String,
        text: String,
    },
    Delete {
        run: String,
        path: String,
    },
    Link {
        run: String,
        path: String,
    },
    LinkToDir {
        run: String,
        path: String,
    },
    Checkpoint {
        run: String,
        node: String,
    },
    Snapshot {
        run: String,
    },
    Fork {
        run: String,
        at: usize,
    },
    Rewind {
        run: String,
        at: usize,
    },
    Resume {
        run: String,
    },
    Restore {
        run: String,
        at: usize,
        path: Option<String>,
    },
    Undo {
        run: String,
    },
    Finish {
        run: String,
    },
    Land {
        run: String,
    },
    Archive {
        run: String,
    },
    Gc,
    Push {
        run: String,
    },
    Fetch,
    Workflow {
        fan: bool,
    },
}

/// How a command is cut short: dying at a named failure point (replays exactly), or SIGKILL
/// after a delay in microseconds.
#[derive(Clone, Debug)]
pub enum Kill {
    At(String),
    After(u64),
}

#[derive(Clone, Debug)]
pub struct Step {
    pub clone: usize,
    pub op: Op,
    pub kill: Option<Kill>,
}

const FILES: &[&str] = &["f0", "f1", "f2", "d/g0", "d/g1"];
const LINKS: &[&str] = &["l0", "l1"];

impl Op {
    /// The failure points this command passes, in order (`refs:locked` is inside the ref
    /// transaction: its locks are taken and not yet committed).
    fn failpoints(&self) -> &'static [&'static str] {
        match self {
            Op::Start { .. } => &[
                "start:objects-written",
                "refs:locked",
                "start:refs-moved",
                "start:run-dir-written",
                "start:worktree-written",
            ],
            Op::Checkpoint { .. } => &[
                "checkpoint:objects-written",
                "refs:locked",
                "checkpoint:refs-moved",
                "checkpoint:index-written",
                "checkpoint:run-dir-written",
            ],
            Op::Fork { .. } => &["fork:objects-written", "refs:locked", "fork:refs-moved"],
            Op::Rewind { .. } => &[
                "rewind:objects-written",
                "refs:locked",
                "rewind:source-archived",
                "rewind:refs-moved",
            ],
            Op::Resume { .. } => &["resume:run-dir-written", "resume:worktree-written"],
            Op::Restore { .. } | Op::Undo { .. } => &[
                "restore:objects-written",
                "restore:refs-moved",
                "restore:worktree-written",
            ],
            Op::Finish { .. } => &[
                "finish:run-dir-written",
                "finish:objects-written",
                "refs:locked",
                "finish:refs-moved",
            ],
            Op::Gc => &["gc:run-dir-written", "refs:locked", "gc:refs-moved"],
            Op::Snapshot { .. } | Op::Archive { .. } => &["refs:locked"],
            Op::Workflow { fan: false } => &["engine:checkpointed:s1@1", "refs:locked"],
            Op::Workflow { fan: true } => &[
                "engine:parallel-branches-ran:fan@1",
                "engine:parallel-joined:fan@1",
                "engine:checkpointed:fan@1",
            ],
            _ => &[],
        }
    }

    fn killable(&self) -> bool {
        !matches!(
            self,
            Op::Write { .. } | Op::Delete { .. } | Op::Link { .. } | Op::LinkToDir { .. }
        )
    }
}

/// Picks the next step from what the model allows on a clone; about one command in
/// `kill_one_in` is killed (none with 0): at one of its failure points, or, with `sigkill`,
/// also by SIGKILL after a random delay (which a replay may not land at the same moment).
pub fn next_step(rng: &mut Rng, model: &Model, kill_one_in: usize, sigkill: bool) -> Step {
    loop {
        let clone = rng.below(2);
        if let Some(op) = pick_op(rng, model, clone) {
            let killed = op.killable() && kill_one_in > 0 && rng.chance(kill_one_in);
            let point = rng
                .pick(op.failpoints())
                .filter(|_| !sigkill || !rng.chance(4));
            let kill = match point {
                _ if !killed => None,
                Some(point) => Some(Kill::At((*point).to_owned())),
                None if sigkill => Some(Kill::After(rng.below(40_000) as u64)),
                None => None,
            };
            return Step { clone, op, kill };
        }
    }
}

fn pick_op(rng: &mut Rng, model: &Model, clone: usize) -> Option<Op> {
    let here = &model.clones[clone];
    let runs = |keep: &dyn Fn(&super::state::Run) -> bool| -> Vec<String> {
        here.runs
            .iter()
            .filter(|(_, run)| keep(run))
            .map(|(id, _)| id.clone())
            .collect()
    };
    let workable = runs(&|r| r.workable());
    let with_checkpoints = runs(&|r| r.status != Status::Archived && !r.checkpoints.is_empty());
    let op = match rng.below(33) {
        0 | 1 => Op::Start {
            in_place: !here.runs_in_place() && rng.chance(3),
        },
        2..=6 | 28 => {
            let run = rng.pick(&workable)?.clone();
            let path = (*rng.pick(FILES)?).to_owned();
            Op::Write {
                run,
                path,
                text: format!("v{}\n", rng.below(1000)),
            }
        }
        7 => {
            let run = rng.pick(&workable)?.clone();
            let paths: Vec<&String> = here.files(&run)?.keys().collect();
            Op::Delete {
                run,
                path: (*rng.pick(&paths)?).clone(),
            }
        }
        8 => {
            let run = rng.pick(&workable)?.clone();
            Op::Link {
                run,
                path: (*rng.pick(LINKS)?).to_owned(),
            }
        }
        9 => {
            let run = rng.pick(&workable)?.clone();
            let links: Vec<&String> = here
                .files(&run)?
                .iter()
                .filter(|(_, e)| matches!(e, Entry::Link(_)))
                .map(|(p, _)| p)
                .collect();
            Op::LinkToDir {
                run,
                path: (*rng.pick(&links)?).clone(),
            }
        }
        10..=14 | 29 => Op::Checkpoint {
            run: rng.pick(&workable)?.clone(),
            node: format!("n{}", rng.below(3)),
        },
        15 => Op::Snapshot {
            run: rng.pick(&workable)?.clone(),
        },
        16 | 17 => {
            let run = rng.pick(&with_checkpoints)?.clone();
            let found = &here.runs[&run];
            let forkable = found.checkpoints.len().saturating_sub(found.unforkable);
            if forkable == 0 {
                return None;
            }
            let at = found.unforkable + 1 + rng.below(forkable);
            // A run in place is never archived here: what gc does to a directory that is the
            // user's own is not modelled.
            if rng.chance(2) || here.runs[&run].in_place {
                Op::Fork { run, at }
            } else {
                Op::Rewind { run, at }
            }
        }
        18 | 19 => {
            let idle =
                runs(&|r| r.status == Status::Running && r.worktree.is_none() && !r.in_place);
            Op::Resume {
                run: rng.pick(&idle)?.clone(),
            }
        }
        20 => {
            let run = rng.pick(&workable)?.clone();
            let found = &here.runs[&run];
            let at = 1 + rng.below(found.checkpoints.len().max(1));
            let target = found.checkpoints.get(at - 1)?;
            let worktree = here.files(&run)?;
            let paths: Vec<&String> = target.keys().chain(worktree.keys()).collect();
            let path = if rng.chance(2) {
                Some(top_level(rng.pick(&paths)?))
            } else {
                None
            };
            Op::Restore { run, at, path }
        }
        21 | 22 => Op::Finish {
            run: rng.pick(&runs(&|r| r.status == Status::Running))?.clone(),
        },
        23 | 24 => Op::Land {
            run: rng.pick(&runs(&|r| r.status == Status::Finished))?.clone(),
        },
        25 => {
            let run = rng
                .pick(&runs(&|r| r.status != Status::Archived && !r.in_place))?
                .clone();
            if rng.chance(2) {
                Op::Archive { run }
            } else {
                Op::Gc
            }
        }
        26 => Op::Push {
            run: rng.pick(&runs(&|r| r.status != Status::Archived))?.clone(),
        },
        27 => Op::Fetch,
        31 | 32 => Op::Undo {
            run: rng.pick(&workable)?.clone(),
        },
        _ => Op::Workflow { fan: rng.chance(3) },
    };
    Some(op)
}

/// A restore of one path names its first component (`d`, `l0`), as a user names a directory.
fn top_level(path: &str) -> String {
    path.split('/').next().unwrap_or(path).to_owned()
}

impl Step {
    /// The step as a line of the printed sequence; runs are named by `name`.
    pub fn describe(&self, name: &dyn Fn(&str) -> String) -> String {
        let who = ["A", "B"][self.clone];
        let op = match &self.op {
            Op::Start { in_place: false } => "start".to_owned(),
            Op::Start { in_place: true } => "start --in-place".to_owned(),
            Op::Write { run, path, text } => format!("edit {}: write {path} = {text:?}", name(run)),
            Op::Delete { run, path } => format!("edit {}: delete {path}", name(run)),
            Op::Link { run, path } => format!("edit {}: symlink {path} -> f0", name(run)),
            Op::LinkToDir { run, path } => {
                format!("edit {}: replace symlink {path} by a directory", name(run))
            }
            Op::Checkpoint { run, node } => format!("checkpoint --run {} --node {node}", name(run)),
            Op::Snapshot { run } => format!("snapshot --run {}", name(run)),
            Op::Fork { run, at } => format!("fork {} @{at}", name(run)),
            Op::Rewind { run, at } => format!("rewind {} @{at} --force", name(run)),
            Op::Resume { run } => format!("resume {} --prepare-only", name(run)),
            Op::Restore {
                run,
                at,
                path: None,
            } => format!("restore --run {} @{at}", name(run)),
            Op::Restore {
                run,
                at,
                path: Some(p),
            } => {
                format!("restore --run {} @{at} -- {p}", name(run))
            }
            Op::Undo { run } => format!("undo {}", name(run)),
            Op::Finish { run } => format!("finish {}", name(run)),
            Op::Land { run } => format!("land {}", name(run)),
            Op::Archive { run } => format!("archive {}", name(run)),
            Op::Gc => "gc --older-than 0".to_owned(),
            Op::Push { run } => format!("push origin {}", name(run)),
            Op::Fetch => "fetch origin".to_owned(),
            Op::Workflow { fan } => {
                format!("run {}", if *fan { "fan.fabro" } else { "pipe.fabro" })
            }
        };
        match &self.kill {
            None => format!("{who}: {op}"),
            Some(Kill::At(point)) => format!("{who}: {op}   [dies at {point}]"),
            Some(Kill::After(us)) => format!("{who}: {op}   [SIGKILL after {us}us]"),
        }
    }
}
