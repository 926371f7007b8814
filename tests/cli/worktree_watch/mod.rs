//! The engine watches a run's files and, after the first checkpoint, looks only where
//! something changed. Whatever nodes do to the files, a watched run must record exactly what
//! the same run records when every checkpoint scans everything (`fabro.watchWorktree=false`).

use std::path::{Path, PathBuf};

use crate::common::{TestRepo, run_err};
use crate::engine_run::{run, workflow};

/// What node `n` does to the run's files; each step is one the watch must not miss.
const STEPS: &[&str] = &[
    // a new file and one over the size limit, then a rewrite of the same size within the
    // same second
    "echo new > added.txt && head -c 200000 /dev/zero > big.bin",
    "printf 'pub fn g() {}\\n' > src/lib.rs",
    "chmod +x src/lib.rs",
    "rm README.md",
    // a directory tree made before its watch exists, then renamed, moved out and back in
    "mkdir -p a/b/c && echo deep > a/b/c/f.txt && echo top > a/top.txt",
    "mv a z",
    "mv z \"$OUT/z\"",
    "mv \"$OUT/z\" back && echo more > back/b/c/g.txt",
    "ln -s src/lib.rs link && mkdir empty",
    "rm added.txt && mkdir added.txt && echo inner > added.txt/inner.txt",
    // ignore rules: in the files, and outside them
    "echo log > ignored.log",
    "printf 'build/\\n' > .gitignore",
    "echo extra.txt >> \"$(git rev-parse --git-common-dir)/info/exclude\" && echo e > extra.txt",
    ": > \"$(git rev-parse --git-common-dir)/info/exclude\"",
    // the index changed behind the engine's back
    "git rm -q --cached src/lib.rs",
    "echo s > staged.txt && git add staged.txt && echo s2 > staged.txt",
    "touch back/top.txt",
    // names a pathspec would read as patterns, and bytes that are not UTF-8
    "echo g > 'a*b[1].txt' && echo h > \"$(printf 'odd\\377name')\"",
    "mkdir -p node_modules/x && echo m > node_modules/x/i.js && echo d > build.txt",
    // more paths than are worth naming, then more events than the kernel queues
    "for i in $(seq 4200); do echo $i > back/f$i; done",
    "for i in $(seq 12000); do echo $i >> o1; echo $i >> o2; done",
    "rm -rf back empty o1",
    "echo last > src/lib.rs",
];

fn steps_workflow(repo: &TestRepo, out: &Path) -> PathBuf {
    let mut script = String::from("set -e\ncase \"$1\" in\n");
    for (i, step) in STEPS.iter().enumerate() {
        script.push_str(&format!("{i}) {step} ;;\n"));
    }
    script.push_str("esac\n");
    let ops = repo.write_beside("steps.sh", &script);
    let commands = (0..STEPS.len())
        .map(|i| format!("OUT={} sh {} {i}", out.display(), ops.display()))
        .collect::<Vec<_>>();
    chain(repo, "steps", &commands)
}

/// A workflow that runs `commands` one after the other, a command node each.
fn chain(repo: &TestRepo, name: &str, commands: &[String]) -> PathBuf {
    let nodes: String = commands
        .iter()
        .enumerate()
        .map(|(i, command)| format!("  n{i:02} [shape=parallelogram, script=\"{command}\"]\n"))
        .collect();
    let names: Vec<String> = (0..commands.len()).map(|i| format!("n{i:02}")).collect();
    workflow(
        repo,
        name,
        &format!(
            "digraph {name} {{\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n{nodes}  start -> {} -> exit\n}}\n",
            names.join(" -> ")
        ),
    )
}

/// Runs `flow` with the watch off, then on, from the same clean checkout (a run in place
/// leaves its files behind); returns the two runs' ids.
fn run_scanned_then_watched(repo: &TestRepo, flow: &Path, args: &[&str]) -> (String, String) {
    repo.git(&["config", "fabro.watchWorktree", "false"]);
    let scanned = run(repo, flow, args);
    assert_eq!(scanned.code, 0, "{}", scanned.stderr);
    repo.git(&["config", "--unset", "fabro.watchWorktree"]);
    repo.git(&["reset", "-q", "--hard"]);
    repo.git(&["clean", "-q", "-ffdx"]);
    let watched = run(repo, flow, args);
    assert_eq!(watched.code, 0, "{}", watched.stderr);
    (scanned.id, watched.id)
}

/// The tree of each run commit of `id`, oldest first.
fn trees(repo: &TestRepo, id: &str) -> Vec<String> {
    repo.git(&[
        "log",
        "--reverse",
        "--first-parent",
        "--format=%T",
        &format!("fabro/run/{id}"),
        "^main",
    ])
    .lines()
    .map(str::to_owned)
    .collect()
}

/// The files each command stage's `status.json` says its checkpoint left out, in order.
fn left_out(repo: &TestRepo, id: &str) -> Vec<Vec<String>> {
    let meta = format!("fabro/meta/{id}");
    repo.git(&["ls-tree", "-r", "--name-only", &meta, "stages/"])
        .lines()
        .filter(|path| path.ends_with("/status.json") && !path.contains("-start@"))
        .map(|path| {
            let text = repo.git(&["show", &format!("{meta}:{path}")]);
            let status: serde_json::Value =
                serde_json::from_str(&text).expect("status.json is JSON");
            status["skipped_files"]
                .as_array()
                .map(|files| {
                    files
                        .iter()
                        .map(|f| f.as_str().unwrap_or_default().to_owned())
                        .collect()
                })
                .unwrap_or_default()
        })
        .collect()
}

fn paths_at(repo: &TestRepo, tree: &str) -> Vec<String> {
    repo.files_in(tree).lines().map(str::to_owned).collect()
}

/// Runs the steps with the watch off, then on, and compares what the two runs recorded.
fn compare_watched_with_scanned(args: &[&str]) {
    let repo = TestRepo::ignoring("ignored.log\nbuild/\n");
    let out = repo.root.join("outside");
    std::fs::create_dir(&out).expect("outside dir");
    let flow = steps_workflow(&repo, &out);
    repo.git(&["config", "fabro.maxFileSize", "100k"]);

    let (scanned, watched) = run_scanned_then_watched(&repo, &flow, args);

    // Each checkpoint reports the file it leaves out, watched or not.
    let (scanned_left_out, watched_left_out) =
        (left_out(&repo, &scanned), left_out(&repo, &watched));
    assert_eq!(scanned_left_out.len(), STEPS.len());
    assert!(
        scanned_left_out.iter().all(|files| files == &["big.bin"]),
        "{scanned_left_out:?}"
    );
    assert_eq!(watched_left_out, scanned_left_out);

    let (scanned, watched) = (trees(&repo, &scanned), trees(&repo, &watched));
    assert_eq!(scanned.len(), STEPS.len());
    for (i, (scan, watch)) in scanned.iter().zip(&watched).enumerate() {
        assert_eq!(
            scan, watch,
            "after step {i} ({}), the watched run recorded another tree",
            STEPS[i]
        );
    }
    // The steps did what they say, so the comparison above compared something.
    let at = |i: usize| paths_at(&repo, &watched[i]);
    assert!(at(7).contains(&"back/b/c/g.txt".to_owned()));
    assert!(!at(10).contains(&"ignored.log".to_owned()));
    assert!(at(11).contains(&"ignored.log".to_owned()));
    assert!(!at(12).contains(&"extra.txt".to_owned()));
    assert!(at(13).contains(&"extra.txt".to_owned()));
    assert!(at(14).contains(&"src/lib.rs".to_owned()));
    assert!(at(18).iter().all(|p| !p.starts_with("node_modules/")));
    assert!(at(19).contains(&"back/f4200".to_owned()));
    assert!(at(20).contains(&"o2".to_owned()));
    assert!(!at(21).iter().any(|p| p.starts_with("back/")));
    assert_eq!(
        repo.git(&["show", &format!("{}:src/lib.rs", watched[22])]),
        "last\n"
    );
}

#[test]
fn a_watched_run_records_what_a_run_that_scans_everything_records() {
    compare_watched_with_scanned(&[]);
}

#[test]
fn a_watched_run_in_place_records_what_a_run_that_scans_everything_records() {
    compare_watched_with_scanned(&["--in-place"]);
}

/// Nodes that each take up to eight random steps (`random_steps.py`): `FABRO_WATCH_CASES` seeds
/// (default 4) from `FABRO_WATCH_FIRST_SEED` (default 1), so that a soak can play thousands.
#[test]
fn random_steps_are_recorded_alike_watched_or_not() {
    let number = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (cases, first) = (
        number("FABRO_WATCH_CASES", 4),
        number("FABRO_WATCH_FIRST_SEED", 1),
    );
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/worktree_watch/random_steps.py");
    for seed in first..first + cases {
        let repo = TestRepo::new();
        repo.write_settings("[checkpoint]\nexclude_globs = [\"!dist/\", \"c/\"]\n");
        let commands: Vec<String> = (0..12)
            .map(|node| format!("python3 {} {seed} {node}", script.display()))
            .collect();
        let flow = chain(&repo, "random", &commands);
        let (scanned, watched) = run_scanned_then_watched(&repo, &flow, &[]);
        assert_eq!(
            trees(&repo, &scanned),
            trees(&repo, &watched),
            "seed {seed}: the watched run recorded other trees; replay with \
             FABRO_WATCH_FIRST_SEED={seed} FABRO_WATCH_CASES=1"
        );
    }
}

/// What the snapshot takes decides what the watch watches: a directory FORMAT.md leaves out
/// by default (`dist`) that `exclude_globs` takes back in is watched like any other, and one
/// the globs add (`generated/`) is neither taken nor watched.
#[test]
fn the_directories_a_snapshot_takes_are_the_ones_watched() {
    let repo = TestRepo::new();
    repo.write_settings("[checkpoint]\nexclude_globs = [\"!dist/\", \"generated/\"]\n");
    let steps = [
        "mkdir -p dist/js generated && echo 1 > dist/app.js && echo 1 > generated/g.txt",
        "echo 2 > dist/app.js && echo 2 > dist/js/deep.js && echo 2 > generated/g.txt",
        "mkdir -p lib/dist && echo 3 > lib/dist/x.js && rm dist/js/deep.js",
        "echo 4 > lib/dist/x.js && echo 4 > generated/h.txt",
    ]
    .map(str::to_owned);
    let flow = chain(&repo, "dist", &steps);
    let (scanned, watched) = run_scanned_then_watched(&repo, &flow, &[]);
    let (scanned, watched) = (trees(&repo, &scanned), trees(&repo, &watched));
    assert_eq!(watched, scanned);
    let at = |i: usize| paths_at(&repo, &watched[i]);
    assert_eq!(
        repo.git(&["show", &format!("{}:dist/app.js", watched[1])]),
        "2\n"
    );
    assert!(at(1).contains(&"dist/js/deep.js".to_owned()));
    assert!(!at(2).contains(&"dist/js/deep.js".to_owned()));
    assert_eq!(
        repo.git(&["show", &format!("{}:lib/dist/x.js", watched[3])]),
        "4\n"
    );
    assert!(at(3).iter().all(|p| !p.starts_with("generated/")));
}

/// An agent's settings file is left out while it holds git-fabro's hooks, and so is the file
/// it links to. When it stops holding them, the file it linked to is taken again although
/// nothing wrote to that file: the watched run must not wait for an event that never comes.
#[test]
fn a_settings_file_that_lets_go_of_its_hooks_gives_back_what_it_kept_out() {
    let repo = TestRepo::new();
    let steps = [
        "mkdir -p .gemini conf && echo '{\\\"hooks\\\": \\\"git fabro hooks run agent-stop gemini\\\"}' > conf/g.json && ln -s ../conf/g.json .gemini/settings.json",
        "echo '{}' > conf/plain.json && ln -sfn ../conf/plain.json .gemini/settings.json",
        "echo done > done.txt",
    ]
    .map(str::to_owned);
    let flow = chain(&repo, "settings", &steps);
    let (scanned, watched) = run_scanned_then_watched(&repo, &flow, &[]);
    let (scanned, watched) = (trees(&repo, &scanned), trees(&repo, &watched));
    assert_eq!(watched, scanned);
    assert!(!paths_at(&repo, &watched[0]).contains(&"conf/g.json".to_owned()));
    assert!(paths_at(&repo, &watched[1]).contains(&"conf/g.json".to_owned()));
}

#[test]
fn a_watch_setting_that_is_not_a_boolean_is_refused() {
    let repo = TestRepo::new();
    repo.git(&["config", "fabro.watchWorktree", "sometimes"]);
    let flow = workflow(
        &repo,
        "one",
        "digraph one {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  start -> exit\n}\n",
    );
    let (code, stderr) = run_err(repo.fabro().arg("run").arg(&flow));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("fabro.watchWorktree"), "{stderr}");
}

#[test]
fn settings_can_turn_the_watch_off() {
    let repo = TestRepo::new();
    repo.write_settings("[checkpoint]\nwatch_worktree = false\n");
    let flow = workflow(
        &repo,
        "edit",
        "digraph edit {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  a [shape=parallelogram, script=\"echo a > a.txt\"]\n  b [shape=parallelogram, script=\"echo b > a.txt\"]\n  start -> a -> b -> exit\n}\n",
    );
    let ran = run(&repo, &flow, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let tip = format!("fabro/run/{}", ran.id);
    assert_eq!(repo.git(&["show", &format!("{tip}:a.txt")]), "b\n");
}
