//! A model-based test of whole sessions: random sequences of operations across two clones of a
//! bare remote (start, edits, checkpoint, snapshot, fork, rewind, resume, restore, finish, land,
//! archive, gc, push, fetch, workflows with a parallel fan-out), some of them killed at a
//! failure point or by SIGKILL, each followed by a check of both the touched clone and the
//! remote against an independent model of what every run's timeline and files must be.
//!
//! Features pass their own tests; work is lost where two of them meet (a kill and the next
//! command, a fork and land). This test plays such meetings at random. Each case comes from a
//! seed: a failure prints the steps and the command that replays them,
//! `FABRO_MODEL_SEED=<seed> cargo test --test cli model`. `FABRO_MODEL_CASES` (default 12)
//! and `FABRO_MODEL_STEPS` (default 30) scale it up; bench/model_soak.sh runs a long soak.
//! `FABRO_MODEL_KILL_ONE_IN` (default 5; 0 for none) sets how often a command is killed, at a
//! failure point, which replays exactly; `FABRO_MODEL_SIGKILL=1` (the soak sets it) also kills
//! commands, push, fetch and land among them, by SIGKILL of the process group after a random
//! delay, which a replay may not land at the same moment.

mod apply;
mod check;
mod edit;
pub mod ops;
mod remote;
mod state;
mod world;

use std::collections::BTreeMap;

use ops::{Rng, Step};
use state::Model;
use world::World;

fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn random_sessions_keep_every_promise() {
    if let Ok(seed) = std::env::var("FABRO_MODEL_SEED") {
        let seed = seed.parse().expect("FABRO_MODEL_SEED is a number");
        if let Err(report) = play(seed, setting("FABRO_MODEL_STEPS", 30)) {
            panic!("{report}");
        }
        return;
    }
    let first = setting("FABRO_MODEL_FIRST_SEED", 1);
    let (cases, steps) = (
        setting("FABRO_MODEL_CASES", 12),
        setting("FABRO_MODEL_STEPS", 30),
    );
    // With FABRO_MODEL_KEEP_GOING every case is played and every failure reported (a soak).
    let keep_going = std::env::var_os("FABRO_MODEL_KEEP_GOING").is_some();
    let (mut kills, mut failed) = (0, Vec::new());
    for seed in first..first + cases {
        match play(seed, steps) {
            Ok(killed) => kills += killed,
            Err(report) if keep_going => {
                eprintln!("{report}\n");
                failed.push(seed);
            }
            Err(report) => panic!("{report}"),
        }
    }
    eprintln!(
        "model: {cases} cases of {steps} steps, {kills} kills, {} failed {failed:?}",
        failed.len()
    );
    assert!(failed.is_empty(), "seeds {failed:?} failed");
}

/// Plays one case; returns how many commands were killed, or the report of the first failure.
pub fn play(seed: u64, steps: u64) -> Result<usize, String> {
    let mut world = World::new();
    let mut model = Model::default();
    for c in 0..2 {
        let sha = world.rev(c, "refs/heads/main").expect("main");
        let dir = world.clones[c].clone();
        model.clones[c].main = world.tree(&dir, &sha);
        model.clones[c].checkout = model.clones[c].main.clone();
        model.clones[c].main_sha = sha;
    }
    let mut rng = Rng::new(seed);
    let kill_one_in = setting("FABRO_MODEL_KILL_ONE_IN", 5) as usize;
    let sigkill = setting("FABRO_MODEL_SIGKILL", 0) == 1;
    let mut played: Vec<Step> = Vec::new();
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    let mut forced = None;
    let mut kills = 0;
    for _ in 0..steps {
        let step = forced
            .take()
            .unwrap_or_else(|| ops::next_step(&mut rng, &model, kill_one_in, sigkill));
        kills += usize::from(step.kill.is_some());
        played.push(step.clone());
        if std::env::var_os("FABRO_MODEL_TRACE").is_some() {
            eprintln!("seed {seed}: {}", step.describe(&|id: &str| id.to_owned()));
        }
        // A command killed midway is run again at once when a rerun is what finishes its job;
        // the check waits for the rerun.
        let result = apply::apply(&mut world, &mut model, &step).and_then(|next| match next {
            Some(rerun) => Ok(Some(rerun)),
            None => check::check(&mut world, &model, step.clone).map(|()| None),
        });
        for c in &model.clones {
            for id in c.runs.keys() {
                let next = format!("r{}", names.len() + 1);
                names.entry(id.clone()).or_insert(next);
            }
        }
        match result {
            Ok(next) => forced = next,
            Err(message) => return Err(report(seed, &played, &names, &message)),
        }
    }
    Ok(kills)
}

fn report(seed: u64, played: &[Step], names: &BTreeMap<String, String>, message: &str) -> String {
    let name = |id: &str| {
        names.get(id).map_or_else(
            || id.to_owned(),
            |n| format!("{n}({})", &id[..10.min(id.len())]),
        )
    };
    let lines: Vec<String> = played
        .iter()
        .enumerate()
        .map(|(n, step)| format!("  {:>3}. {}", n + 1, step.describe(&name)))
        .collect();
    let mut replay = format!("FABRO_MODEL_SEED={seed}");
    for name in [
        "FABRO_MODEL_STEPS",
        "FABRO_MODEL_KILL_ONE_IN",
        "FABRO_MODEL_SIGKILL",
    ] {
        if let Ok(value) = std::env::var(name) {
            replay.push_str(&format!(" {name}={value}"));
        }
    }
    format!(
        "model test, seed {seed}: step {} broke a promise\n{}\n\n{message}\n\nreplay: \
         {replay} cargo test --test cli model",
        played.len(),
        lines.join("\n")
    )
}
