//! Random store sessions against a model of what a checkpointer expects back: puts, pending
//! writes, reads, copies, deletes, prunes and deleted runs, with the store restarted and
//! killed between them. After every step the whole store is listed and compared with the
//! model, and each thread's timeline with the root checkpoints its run recorded; at the end
//! `git fsck --strict` is clean. A failure prints its seed; `FABRO_STORE_MODEL_SEED=<seed>`
//! replays it.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::{Store, put, run_of, typed};
use crate::common::{TestRepo, assert_success};
use crate::model::ops::Rng;

#[derive(Clone, Debug, Default, PartialEq)]
struct Checkpoint {
    parent: Option<String>,
    value: String,
    run_id: String,
    /// (task, idx) → (channel, value)
    writes: BTreeMap<(String, i64), (String, String)>,
}

#[derive(Clone, Debug, Default)]
struct Thread {
    namespaces: BTreeMap<String, BTreeMap<String, Checkpoint>>,
    /// Root checkpoints the thread's run recorded, inherited ones included.
    timeline: usize,
}

#[derive(Default)]
struct Model {
    threads: BTreeMap<String, Thread>,
    next_id: usize,
}

const NAMESPACES: [&str; 2] = ["", "sub:1"];
const RUNS: [&str; 3] = ["r1", "r2", "r3"];

impl Model {
    fn checkpoints(&self) -> Vec<(String, String, String)> {
        let mut all = Vec::new();
        for (thread, t) in &self.threads {
            for (ns, ids) in &t.namespaces {
                all.extend(
                    ids.keys()
                        .map(|id| (thread.clone(), ns.clone(), id.clone())),
                );
            }
        }
        all
    }
}

/// One step, applied to the store and the model alike; returns what it did, for the report.
fn step(rng: &mut Rng, store: &mut Store, repo: &TestRepo, model: &mut Model) -> String {
    let threads: Vec<String> = model.threads.keys().cloned().collect();
    let existing = model.checkpoints();
    match rng.below(10) {
        0..=3 => {
            let thread = format!("t{}", rng.below(3));
            let ns = NAMESPACES[rng.below(2)].to_owned();
            model.next_id += 1;
            let id = format!("c{:04}", model.next_id);
            let entry = model.threads.entry(thread.clone()).or_default();
            let ids = entry.namespaces.entry(ns.clone()).or_default();
            let parent = ids.keys().next_back().cloned().filter(|_| !rng.chance(4));
            let run_id = RUNS[rng.below(3)].to_owned();
            let mut request = put(
                &thread,
                &ns,
                &id,
                parent.as_deref(),
                model.next_id as i64,
                &id,
            );
            request["metadata"]["run_id"] = json!(run_id);
            store.ok(request);
            ids.insert(
                id.clone(),
                Checkpoint {
                    parent,
                    value: id.clone(),
                    run_id,
                    ..Checkpoint::default()
                },
            );
            entry.timeline += usize::from(ns.is_empty());
            format!("put {thread} {ns:?} {id}")
        }
        4 if !existing.is_empty() => {
            // Mostly the last few, so that writes meet the ones stored before them.
            let (thread, ns, id) =
                existing[existing.len() - 1 - rng.below(existing.len().min(3))].clone();
            let (task, idx) = (format!("task{}", rng.below(2)), [0, -1][rng.below(2)]);
            model.next_id += 1;
            let value = format!("w{}", model.next_id);
            store.ok(json!({"op": "put_writes", "thread": thread, "ns": ns, "checkpoint_id": id,
                "task_id": task, "writes": [{"idx": idx, "channel": "ch", "value": typed("json", &value)}]}));
            let writes = &mut model
                .threads
                .get_mut(&thread)
                .unwrap()
                .namespaces
                .get_mut(&ns)
                .unwrap()
                .get_mut(&id)
                .unwrap()
                .writes;
            if idx < 0 || !writes.contains_key(&(task.clone(), idx)) {
                writes.insert((task.clone(), idx), ("ch".into(), value));
            }
            format!("put_writes {thread} {id} {task}.{idx}")
        }
        5 if !threads.is_empty() => {
            let source = threads[rng.below(threads.len())].clone();
            let target = format!("copy{}", model.next_id);
            model.next_id += 1;
            store.ok(json!({"op": "copy_thread", "source": source, "target": target}));
            let copy = model.threads[&source].clone();
            model.threads.insert(target.clone(), copy);
            format!("copy {source} to {target}")
        }
        6 if !threads.is_empty() => {
            let thread = threads[rng.below(threads.len())].clone();
            store.ok(json!({"op": "delete_thread", "thread": thread}));
            model.threads.remove(&thread);
            format!("delete {thread}")
        }
        7 if !threads.is_empty() => {
            let thread = threads[rng.below(threads.len())].clone();
            store.ok(json!({"op": "prune", "threads": [thread], "strategy": "keep_latest"}));
            for ids in model
                .threads
                .get_mut(&thread)
                .unwrap()
                .namespaces
                .values_mut()
            {
                let newest = ids.keys().next_back().cloned();
                ids.retain(|id, _| Some(id) == newest.as_ref());
            }
            format!("prune {thread}")
        }
        8 => {
            let run = RUNS[rng.below(3)];
            store.ok(json!({"op": "delete_for_runs", "run_ids": [run]}));
            for thread in model.threads.values_mut() {
                for ids in thread.namespaces.values_mut() {
                    ids.retain(|_, c| c.run_id != run);
                }
            }
            format!("delete_for_runs {run}")
        }
        _ => {
            let fresh = Store::open(repo, &[]);
            let old = std::mem::replace(store, fresh);
            match rng.chance(2) {
                true => {
                    old.kill();
                    "store killed and started again".into()
                }
                false => {
                    old.close();
                    "store closed and started again".into()
                }
            }
        }
    }
}

/// The store as the model has it: every checkpoint listed, whole, and each timeline.
fn check(store: &mut Store, repo: &TestRepo, model: &Model) -> Result<(), String> {
    let listed = store.list(json!({}));
    let mut seen: BTreeMap<(String, String, String), Value> = BTreeMap::new();
    for c in listed {
        let key = (
            c["thread"].as_str().unwrap().to_owned(),
            c["ns"].as_str().unwrap().to_owned(),
            c["checkpoint_id"].as_str().unwrap().to_owned(),
        );
        seen.insert(key, c);
    }
    let want = model.checkpoints();
    let got: Vec<_> = seen.keys().cloned().collect();
    if got != want {
        return Err(format!("listed {got:?}\nmodel  {want:?}"));
    }
    for ((thread, ns, id), c) in &seen {
        let m = &model.threads[thread].namespaces[ns][id];
        let writes: BTreeMap<(String, i64), (String, String)> = c["writes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| {
                let value = String::from_utf8(base64_decode(&w["value"]["data"])).unwrap();
                (
                    (
                        w["task_id"].as_str().unwrap().to_owned(),
                        w["idx"].as_i64().unwrap(),
                    ),
                    (w["channel"].as_str().unwrap().to_owned(), value),
                )
            })
            .collect();
        let value = String::from_utf8(base64_decode(&c["blobs"][0]["value"]["data"])).unwrap();
        if c["parent_id"].as_str() != m.parent.as_deref() || value != m.value || writes != m.writes
        {
            return Err(format!(
                "{thread} {ns:?} {id}: store has {c}\nmodel has {m:?}"
            ));
        }
    }
    for (thread, t) in &model.threads {
        if t.namespaces.is_empty() && t.timeline == 0 {
            continue;
        }
        let timeline = repo.log_json(&run_of(repo, thread)).len();
        if timeline != t.timeline {
            return Err(format!(
                "thread {thread}: timeline of {timeline}, model {}",
                t.timeline
            ));
        }
    }
    Ok(())
}

fn base64_decode(data: &Value) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode(data.as_str().unwrap())
        .unwrap()
}

fn play(seed: u64, steps: usize) -> Result<(), String> {
    let repo = TestRepo::new();
    let mut rng = Rng::new(seed);
    let mut store = Store::open(&repo, &[]);
    let mut model = Model::default();
    let mut played = Vec::new();
    for _ in 0..steps {
        played.push(step(&mut rng, &mut store, &repo, &mut model));
        check(&mut store, &repo, &model).map_err(|err| {
            format!("seed {seed}, after:\n  {}\n{err}\nreplay: FABRO_STORE_MODEL_SEED={seed} cargo test --test cli store::model", played.join("\n  "))
        })?;
    }
    store.close();
    assert_success(&repo.git_output(&repo.path, &["fsck", "--strict"]));
    Ok(())
}

#[test]
fn random_store_sessions_give_back_what_the_model_holds() {
    let seeds: Vec<u64> = match std::env::var("FABRO_STORE_MODEL_SEED") {
        Ok(seed) => vec![seed.parse().expect("a number")],
        Err(_) => (1..=6).collect(),
    };
    for seed in seeds {
        if let Err(report) = play(seed, 25) {
            panic!("{report}");
        }
    }
}
