//! Steps that move runs between clones (push, fetch) and the engine's own runs. Which branches
//! may move is decided from plain git: a branch moves only forward, and fetch never moves one
//! a worktree here is on.

use serde_json::Value;

use super::apply::{Next, new_ids};
use super::ops::{Op, Step};
use super::state::{Entry, Files, Model, Run, Status};
use super::world::{Outcome, World};

fn branches(id: &str) -> [String; 2] {
    [
        format!("refs/heads/fabro/run/{id}"),
        format!("refs/heads/fabro/meta/{id}"),
    ]
}

fn refs_in(world: &World, dir: &std::path::Path, id: &str) -> [Option<String>; 2] {
    branches(id).map(|name| {
        let (ok, out) = world.git(dir, &["rev-parse", "-q", "--verify", &name]);
        ok.then(|| out.trim().to_owned())
    })
}

/// Both branches moved forward from `old` to `new` (or appeared), as checked in `dir`.
fn moved_forward(
    world: &World,
    dir: &std::path::Path,
    old: &[Option<String>; 2],
    new: &[Option<String>; 2],
) -> bool {
    old.iter().zip(new).all(|(o, n)| match (o, n) {
        (Some(o), Some(n)) => world.git(dir, &["merge-base", "--is-ancestor", o, n]).0,
        (None, Some(_)) => true,
        _ => false,
    })
}

pub fn apply(world: &mut World, model: &mut Model, step: &Step) -> Result<Next, String> {
    let c = step.clone;
    let kill = step.kill.as_ref();
    match &step.op {
        Op::Push { run } => {
            let remote = world.remote.clone();
            let old = refs_in(world, &remote, run);
            let outcome = world.fabro(c, &["push".into(), "origin".into(), run.clone()], kill);
            let new = refs_in(world, &remote, run);
            let local = refs_in(world, &world.clones[c], run);
            if new == local && new != old {
                if !moved_forward(world, &remote, &old, &new) {
                    return Err(format!("push moved {run} on the remote backwards"));
                }
                let mut copy = model.clones[c].runs[run].clone();
                copy.worktree = None;
                copy.in_place = false;
                model.remote.insert(run.clone(), copy);
            } else if new != old {
                return Err(format!("push left the remote's {run} half moved: {new:?}"));
            } else if let Outcome::Exited { code: 0, .. } = outcome
                && new != local
            {
                return Err(format!("push exited 0 but the remote lacks {run}"));
            }
            Ok(None)
        }
        Op::Fetch => {
            let dir = world.clones[c].clone();
            let ids: Vec<String> = model.remote.keys().cloned().collect();
            let old: Vec<_> = ids.iter().map(|id| refs_in(world, &dir, id)).collect();
            let outcome = world.fabro(c, &["fetch".into(), "origin".into()], kill);
            let remote = world.remote.clone();
            for (id, old) in ids.iter().zip(old) {
                let new = refs_in(world, &dir, id);
                if new == old {
                    continue;
                }
                if new != refs_in(world, &remote, id) || !moved_forward(world, &dir, &old, &new) {
                    return Err(format!(
                        "fetch moved {id} to {new:?}, not forward to the remote's"
                    ));
                }
                let here = model.clones[c].runs.get(id);
                if let Some(tree) = here.and_then(|r| r.worktree.as_ref()) {
                    return Err(format!(
                        "fetch moved {id}, whose worktree {} is here",
                        tree.path.display()
                    ));
                }
                if here.is_some_and(|r| r.in_place && r.status == Status::Running) {
                    return Err(format!("fetch moved {id}, which runs in place here"));
                }
                let mut copy = model.remote[id].clone();
                copy.worktree = None;
                copy.unforkable = copy.unforkable.max(copy.inherited);
                model.clones[c].runs.insert(id.clone(), copy);
            }
            // A killed fetch may have moved some runs (taken in above): it is run again.
            if let Outcome::Killed = outcome {
                return Ok(Some(Step {
                    kill: None,
                    ..step.clone()
                }));
            }
            Ok(None)
        }
        Op::Workflow { fan } => workflow(world, model, c, *fan, step),
        _ => unreachable!("not a remote step"),
    }
}

fn with(files: &Files, path: &str, text: &str) -> Files {
    let mut files = files.clone();
    files.insert(path.to_owned(), Entry::File(text.to_owned()));
    files
}

/// The checkpoint trees of the two workflows (the start node records no run commit).
fn expected_checkpoints(base: &Files, fan: bool) -> Vec<Files> {
    if fan {
        let joined = with(base, "wf", "fan\n");
        let after = with(&joined, "wa", "after\n");
        vec![joined.clone(), joined, after]
    } else {
        let one = with(base, "w1", "p1\n");
        let two = with(&one, "w2", "p2\n");
        vec![one, two]
    }
}

fn workflow(
    world: &mut World,
    model: &mut Model,
    c: usize,
    fan: bool,
    step: &Step,
) -> Result<Next, String> {
    let before = world.run_ids(&world.clones[c]);
    let file = world
        .repo
        .root
        .join(if fan { "fan.fabro" } else { "pipe.fabro" });
    let words = vec!["run".to_owned(), file.to_string_lossy().into_owned()];
    let outcome = world.fabro(c, &words, step.kill.as_ref());
    let base = model.clones[c].main.clone();
    let expected = expected_checkpoints(&base, fan);
    let ids = new_ids(world, c, &before);
    let killed = match outcome {
        Outcome::Killed => true,
        Outcome::Exited { code: 0, .. } => false,
        Outcome::Exited { code, stderr, .. } => {
            return Err(format!("run failed (exit {code}):\n{stderr}"));
        }
    };
    for id in ids {
        let mut run = Run::new(base.clone(), None);
        if killed {
            // Whatever the engine checkpointed before the kill is a prefix of the whole run.
            let dir = world.clones[c].clone();
            let count = world.checkpoint_commits(c, &id)?.len().min(expected.len());
            run.checkpoints = expected[..count].to_vec();
            run.tip = world.tree(&dir, &format!("refs/heads/fabro/run/{id}"));
            run.uncertain = true;
            let (_, record) = world.git(
                &dir,
                &["show", &format!("refs/heads/fabro/meta/{id}:run.json")],
            );
            let status: Value = serde_json::from_str(&record).unwrap_or_default();
            if status["status"] == "succeeded" {
                run.status = Status::Finished;
            }
        } else {
            run.checkpoints = expected.clone();
            run.tip = expected.last().cloned().unwrap_or_default();
            run.status = Status::Finished;
        }
        model.clones[c].runs.insert(id, run);
    }
    Ok(None)
}
