//! Playing one step: the command is run for real, and the model moves as the command's promise
//! says it must. A command that was killed may have taken effect or not: the model accepts
//! either, as plain git shows it, and some commands are run again at once, as the README says a
//! rerun finishes their job.

use serde_json::Value;

use super::edit::{edit, restore_path};
use super::ops::{Kill, Op, Step};
use super::state::{self, Files, Model, Run, Status, Worktree};
use super::world::{Outcome, World, read_dir};

/// What a step leaves to do: nothing, or the same command again (after a kill).
pub type Next = Option<Step>;

fn args(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}

/// The stdout of a command that exited 0, `None` for a killed one, an error for a failure.
fn acknowledged(outcome: Outcome) -> Result<Option<String>, String> {
    match outcome {
        Outcome::Killed => Ok(None),
        Outcome::Exited {
            code: 0, stdout, ..
        } => Ok(Some(stdout)),
        Outcome::Exited { code, stderr, .. } => Err(format!("failed (exit {code}):\n{stderr}")),
    }
}

fn json(stdout: &str) -> Result<Value, String> {
    serde_json::from_str(stdout).map_err(|e| format!("not JSON ({e}): {stdout}"))
}

/// The step again, with no kill.
fn again(step: &Step) -> Next {
    Some(Step {
        kill: None,
        ..step.clone()
    })
}

pub fn apply(world: &mut World, model: &mut Model, step: &Step) -> Result<Next, String> {
    let c = step.clone;
    let kill = step.kill.as_ref();
    match &step.op {
        Op::Start { in_place } => {
            let before = world.run_ids(&world.clones[c]);
            let mut words = vec!["start", "--json"];
            if *in_place {
                words.push("--in-place");
            }
            let done = acknowledged(world.fabro(c, &args(&words), kill))?;
            // A run in place starts from the checkout as it is, the others from `main`.
            let here = &mut model.clones[c];
            let base = if *in_place {
                here.checkout.clone()
            } else {
                here.main.clone()
            };
            let ids = match &done {
                Some(out) => vec![json(out)?["run_id"].as_str().unwrap_or_default().to_owned()],
                None => new_ids(world, c, &before),
            };
            for id in ids {
                let mut run = Run::new(base.clone(), None);
                run.in_place = *in_place;
                if let (Some(out), false) = (&done, in_place) {
                    let path = json(out)?["worktree"].as_str().unwrap_or_default().into();
                    run.worktree = Some(Worktree {
                        path,
                        files: base.clone(),
                    });
                }
                // A killed start leaves no run or one that `resume` checks out afresh. One
                // killed in place may not be registered there yet: it is finished at once.
                here.runs.insert(id.clone(), run);
                if done.is_none() && *in_place {
                    let finish = Op::Finish { run: id };
                    return Ok(Some(Step {
                        clone: c,
                        op: finish,
                        kill: None,
                    }));
                }
            }
            Ok(None)
        }
        Op::Write { run, .. } | Op::Delete { run, .. } | Op::Link { run, .. } => {
            edit_run(world, model, c, run, &step.op);
            Ok(None)
        }
        Op::LinkToDir { run, .. } => {
            edit_run(world, model, c, run, &step.op);
            Ok(None)
        }
        Op::Checkpoint { run, node } => {
            let words = ["checkpoint", "--run", run, "--node", node];
            let done = acknowledged(world.fabro(c, &args(&words), kill))?;
            let count = world.checkpoint_commits(c, run)?.len();
            let files = model.clones[c].files(run).expect("workable").clone();
            let r = model.clones[c].runs.get_mut(run).expect("modelled run");
            let known = r.checkpoints.len();
            if done.is_some() || count == known + 1 {
                r.checkpoints.push(files.clone());
                r.tip = files;
            }
            Ok(None)
        }
        Op::Snapshot { run } => {
            let done = acknowledged(world.fabro(c, &args(&["snapshot", "--run", run]), kill))?;
            let dir = world.clones[c].clone();
            let tip = world.tree(&dir, &format!("refs/heads/fabro/run/{run}"));
            let files = model.clones[c].files(run).expect("workable").clone();
            let r = model.clones[c].runs.get_mut(run).expect("modelled run");
            if done.is_some() || tip == files {
                r.tip = files;
            }
            Ok(None)
        }
        Op::Fork { run, at } => {
            let before = world.run_ids(&world.clones[c]);
            let target = format!("@{at}");
            let done = acknowledged(world.fabro(c, &args(&["fork", run, &target]), kill))?;
            let ids = match done {
                Some(out) => vec![out.trim().to_owned()],
                None => new_ids(world, c, &before),
            };
            let fork = model.clones[c].runs[run].fork(*at);
            for id in ids {
                model.clones[c].runs.insert(id, fork.clone());
            }
            Ok(None)
        }
        Op::Rewind { run, at } => {
            let target = format!("@{at}");
            let words = ["rewind", run, &target, "--force"];
            let Some(out) = acknowledged(world.fabro(c, &args(&words), kill))? else {
                return Ok(again(step));
            };
            let id = out.trim().to_owned();
            let source = model.clones[c].runs.get_mut(run).expect("modelled run");
            if let Some((earlier, replacement)) = &source.rewound {
                if (*earlier, replacement) != (*at, &id) {
                    return Err(format!("rewound again to {id}, not to the recorded one"));
                }
                return Ok(None);
            }
            source.status = Status::Archived;
            source.rewound = Some((*at, id.clone()));
            let fork = source.fork(*at);
            model.clones[c].runs.entry(id).or_insert(fork);
            Ok(None)
        }
        Op::Resume { run } => {
            let words = ["resume", run, "--prepare-only", "--json"];
            let Some(out) = acknowledged(world.fabro(c, &args(&words), kill))? else {
                return Ok(again(step));
            };
            let path: std::path::PathBuf = json(&out)?["worktree"].as_str().unwrap_or("").into();
            let r = model.clones[c].runs.get_mut(run).expect("modelled run");
            // After a kill the worktree holds what the killed command left: the model takes it.
            let files = if r.uncertain {
                read_dir(&path)
            } else {
                r.tip.clone()
            };
            r.uncertain = false;
            r.worktree = Some(Worktree { path, files });
            Ok(None)
        }
        Op::Restore { run, at, path } => {
            let target = format!("@{at}");
            let mut words = vec!["restore", "--run", run, &target];
            if let Some(p) = path {
                words.extend(["--", p]);
            }
            let done = acknowledged(world.fabro(c, &args(&words), kill))?;
            let checkpoint = model.clones[c].runs[run].checkpoints[at - 1].clone();
            let root = root_of(world, model, c, run);
            let files = model.clones[c].files_mut(run).expect("workable");
            match (done, path) {
                (None, _) => *files = read_dir(&root),
                (Some(_), None) => *files = checkpoint,
                (Some(_), Some(p)) => restore_path(files, &checkpoint, p),
            }
            Ok(None)
        }
        Op::Undo { run } => undo(world, model, c, run, kill),
        Op::Finish { run } => {
            if acknowledged(world.fabro(c, &args(&["finish", run]), kill))?.is_none() {
                return Ok(again(step));
            }
            let r = model.clones[c].runs.get_mut(run).expect("modelled run");
            r.status = Status::Finished;
            if !r.holds_unrecorded_work()
                && let Some(tree) = r.worktree.take()
                && tree.path.exists()
            {
                return Err(format!("finish left {} in place", tree.path.display()));
            }
            Ok(None)
        }
        Op::Land { run } => land(world, model, c, run, step),
        Op::Archive { run } => {
            if acknowledged(world.fabro(c, &args(&["archive", run]), kill))?.is_none() {
                return Ok(again(step));
            }
            model.clones[c]
                .runs
                .get_mut(run)
                .expect("modelled run")
                .status = Status::Archived;
            Ok(None)
        }
        Op::Gc => {
            let words = ["gc", "--older-than", "0"];
            if acknowledged(world.fabro(c, &args(&words), kill))?.is_none() {
                return Ok(again(step));
            }
            model.clones[c]
                .runs
                .retain(|_, r| r.status != Status::Archived || r.holds_unrecorded_work());
            Ok(None)
        }
        Op::Push { .. } | Op::Fetch | Op::Workflow { .. } => {
            super::remote::apply(world, model, step)
        }
    }
}

/// The directory a run's files are in: its worktree, or the clone's checkout.
/// `undo`: the files go to the step before the newest step (the start, for a run of its own,
/// and each checkpoint) that holds them, stepping over steps that hold them too; files no step
/// holds go to the newest step. At the start there is nothing to undo (exit 1).
fn undo(
    world: &World,
    model: &mut Model,
    c: usize,
    run: &str,
    kill: Option<&Kill>,
) -> Result<Next, String> {
    let found = &model.clones[c].runs[run];
    let own_start = (found.inherited == 0).then_some(&found.base);
    let steps: Vec<Files> = own_start
        .into_iter()
        .chain(&found.checkpoints)
        .cloned()
        .collect();
    let files = model.clones[c].files(run).expect("workable").clone();
    let expected = match steps.iter().rposition(|step| *step == files) {
        None => steps.last().cloned(),
        Some(at) => steps[..at]
            .iter()
            .rev()
            .find(|step| **step != files)
            .cloned(),
    };
    let root = root_of(world, model, c, run);
    let outcome = world.fabro(c, &args(&["undo", run]), kill);
    let files = model.clones[c].files_mut(run).expect("workable");
    match (outcome, expected) {
        (Outcome::Killed, _) => *files = read_dir(&root),
        (Outcome::Exited { code: 0, .. }, Some(expected)) => *files = expected,
        (
            Outcome::Exited {
                code: 1, stderr, ..
            },
            None,
        ) if stderr.contains("nothing to undo") => {}
        (Outcome::Exited { code, stderr, .. }, expected) => {
            return Err(format!(
                "undo exited {code}, where the model {}:\n{stderr}",
                if expected.is_some() {
                    "expects a step to go back to"
                } else {
                    "expects nothing to undo"
                }
            ));
        }
    }
    Ok(None)
}

fn root_of(world: &World, model: &Model, c: usize, run: &str) -> std::path::PathBuf {
    match &model.clones[c].runs[run].worktree {
        Some(tree) => tree.path.clone(),
        None => world.clones[c].clone(),
    }
}

fn edit_run(world: &World, model: &mut Model, c: usize, run: &str, op: &Op) {
    let root = root_of(world, model, c, run);
    let files = model.clones[c].files_mut(run);
    edit(&root, files.expect("edits go to a run with files here"), op);
}

/// The runs that appeared in a clone since `before` was listed.
pub fn new_ids(world: &World, c: usize, before: &[String]) -> Vec<String> {
    let now = world.run_ids(&world.clones[c]);
    now.into_iter().filter(|id| !before.contains(id)).collect()
}

/// Land puts exactly the run's changes since its original base on `main`, or refuses a
/// conflict and changes nothing; a run in place lands without touching the checkout's files.
fn land(
    world: &mut World,
    model: &mut Model,
    c: usize,
    run: &str,
    step: &Step,
) -> Result<Next, String> {
    let here = &model.clones[c];
    let r = &here.runs[run];
    let expected = state::land(&r.base, &here.main, &r.tip).and_then(|merged| {
        // A run in place made its changes in the checkout itself: landing there moves only
        // the index, and every file stays as it is.
        let checkout = if r.in_place {
            here.checkout.clone()
        } else {
            state::land_checkout(&here.main, &merged, &here.checkout)?
        };
        Ok((merged, checkout))
    });
    let outcome = world.fabro(c, &args(&["land", run]), step.kill.as_ref());
    // A land killed between bringing the checkout to the result and moving the branch leaves
    // the checkout ahead of it, as a killed `git merge` does: running it again finishes it.
    // Its killed `git read-tree` may leave git's `.git/index.lock`, which land names: the user
    // removes it, as after any git killed there.
    let Outcome::Exited { code, stderr, .. } = outcome else {
        let _ = std::fs::remove_file(world.clones[c].join(".git/index.lock"));
        return Ok(again(step));
    };
    let sha = world.rev(c, "refs/heads/main").unwrap_or_default();
    let moved = sha != model.clones[c].main_sha;
    match (code, expected) {
        (1, Err(_)) if !moved => Ok(None),
        (0, Ok((merged, checkout))) => {
            let dir = world.clones[c].clone();
            let landed = world.tree(&dir, &sha);
            if landed != merged {
                return Err(format!(
                    "land put {} on main, the run's changes since its base make {}",
                    show(&landed),
                    show(&merged)
                ));
            }
            model.clones[c].main = landed;
            model.clones[c].main_sha = sha;
            model.clones[c].checkout = checkout;
            Ok(None)
        }
        (code, Ok((merged, _))) => Err(format!(
            "land failed (exit {code}) where it should make {}:\n{stderr}",
            show(&merged)
        )),
        (_, Err(conflicts)) => Err(format!(
            "land should refuse (a conflict, or changes of the user's in the way) on \
             {conflicts:?} and change nothing"
        )),
    }
}

/// A short listing of files for messages.
pub fn show(files: &state::Files) -> String {
    let items: Vec<String> = files
        .iter()
        .map(|(p, e)| match e {
            state::Entry::File(t) => format!("{p}={}", t.trim_end()),
            state::Entry::Link(t) => format!("{p}->{t}"),
        })
        .collect();
    format!("{{{}}}", items.join(", "))
}
