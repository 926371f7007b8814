//! Checkpoint targets as users type them, resolved against a small timeline.
#![no_main]

use git_fabro::run::target::Target;
use git_fabro::run::timeline::Entry;
use libfuzzer_sys::fuzz_target;

fn entry(ordinal: usize, node: &str, visit: u64, sha: char) -> Entry {
    Entry {
        ordinal,
        run_id: "01ARZ3NDEKTSV4RRFFQ69G5FAV".into(),
        node_id: node.into(),
        visit,
        status: "succeeded".into(),
        completed: ordinal,
        run_commit: sha.to_string().repeat(40),
        meta_commit: "f".repeat(40),
        timestamp: String::new(),
        snapshot: None,
    }
}

fuzz_target!(|text: &str| {
    let timeline = [
        entry(1, "plan", 1, 'a'),
        entry(2, "code", 1, 'b'),
        entry(3, "plan", 2, 'c'),
    ];
    if let Ok(target) = Target::parse(Some(text)) {
        if let Ok(found) = target.resolve(&timeline, "R") {
            assert!(timeline.contains(found));
        }
    }
});
