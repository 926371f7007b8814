//! The two readers of a timeline's commits against each other (`GIT_FABRO_OBJECT_READER`):
//! gix's object store alone, and the run's commit cache in front of it.
//!
//! One repository per process holds a chain of commits, the older half packed by `git repack`
//! (deltas on each other, as `git gc` stores checkpoints) and the newer half loose. Each input
//! adds loose commits of its own on top of one of them, with messages it chooses, and damages
//! the cache file a first walk wrote, byte by byte where it says. Whatever the file then holds,
//! a walk through it gives exactly what gix gives, and so does the next walk, after the cache
//! saved what the walk learned.
#![no_main]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use git_fabro::git::{CommitCache, Identity, ObjectId, Repo};
use libfuzzer_sys::fuzz_target;

/// Commits of the chain every input builds on; the first half is packed.
const CHAIN: usize = 48;

struct Fixture {
    path: PathBuf,
    chain: Vec<ObjectId>,
}

fn who() -> Identity {
    Identity {
        name: "Fuzz".into(),
        email: "fuzz@example.com".into(),
    }
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let path = std::env::temp_dir().join(format!("git-fabro-fuzz-readers-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("a temporary directory");
        git(&path, &["init", "-q", "--bare"]);
        let repo = Repo::open(&path).expect("the new repository");
        let mut chain = Vec::new();
        let mut parents = Vec::new();
        for n in 0..CHAIN {
            let message = format!("checkpoint {n}\n\nFabro-Run: fuzz\nFabro-Completed: {n}\n");
            let id = repo
                .write_commit(repo.empty_tree(), &parents, &message, &who())
                .expect("a commit");
            parents = vec![id];
            chain.push(id);
        }
        let packed = chain[CHAIN / 2 - 1].to_string();
        git(&path, &["update-ref", "refs/heads/packed", &packed]);
        git(&path, &["repack", "-adq"]);
        Fixture { path, chain }
    })
}

/// The commits of the walk from `tip` through gix alone, as the caller sees them.
fn through_gix(repo: &Repo, tip: ObjectId, last: Option<ObjectId>) -> Vec<String> {
    let walk = repo.first_parents(tip).ending_after(last);
    walk.map(|commit| format!("{commit:?}")).collect()
}

fuzz_target!(|data: &[u8]| {
    let Some((&shape, rest)) = data.split_first() else {
        return;
    };
    let fixture = fixture();
    let repo = Repo::open(&fixture.path).expect("the fixture");
    let (messages, edits) = match rest.iter().position(|b| *b == 0) {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (rest, &[][..]),
    };

    // Up to seven loose commits of the input's own on a commit of the chain.
    let mut tip = fixture.chain[usize::from(shape) % CHAIN];
    let added = usize::from(shape >> 5);
    for message in messages.split(|b| *b == 1).take(added) {
        let message = String::from_utf8_lossy(message);
        tip = repo
            .write_commit(repo.empty_tree(), &[tip], &message, &who())
            .expect("a loose commit");
    }
    let last = edits
        .first()
        .and_then(|pick| fixture.chain.get(usize::from(*pick)))
        .copied();
    let expected = through_gix(&repo, tip, last);

    // The cache a first walk writes, damaged where the input says.
    let file = fixture.path.join("commits");
    let _ = std::fs::remove_file(&file);
    let cache = CommitCache::open(file.clone());
    let mut first = repo.first_parents(tip).ending_after(last).cached_in(&cache);
    let seen: Vec<String> = first.by_ref().map(|commit| format!("{commit:?}")).collect();
    assert_eq!(seen, expected, "a walk through an empty cache");
    let learned = first.learned();
    cache.save(learned);
    let mut bytes = std::fs::read(&file).unwrap_or_default();
    for edit in edits.get(1..).unwrap_or_default().chunks_exact(3) {
        if bytes.is_empty() {
            bytes.push(edit[2]);
            continue;
        }
        let at = usize::from(u16::from_le_bytes([edit[0], edit[1]])) % bytes.len();
        bytes[at] = edit[2];
    }
    std::fs::write(&file, &bytes).expect("the damaged cache");

    for round in ["damaged", "saved again"] {
        let cache = CommitCache::open(file.clone());
        let mut walk = repo.first_parents(tip).ending_after(last).cached_in(&cache);
        let seen: Vec<String> = walk.by_ref().map(|commit| format!("{commit:?}")).collect();
        assert_eq!(seen, expected, "a walk through the {round} cache");
        let learned = walk.learned();
        cache.save(learned);
    }
});
