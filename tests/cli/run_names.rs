//! One way to name a run: a positional RUN, `--run RUN`, or the current run, for every command
//! that works on one run; short ids that can be typed back; hints that name real flags.

use std::path::Path;

use crate::common::{TestRepo, read_file, run_err, run_ok};

#[test]
fn run_names_positional_and_flag_agree_or_fail_with_usage() {
    let repo = TestRepo::new();
    let a = repo.start();
    let b = repo.start();
    repo.checkpoint(&a.id, "plan");
    repo.checkpoint(&b.id, "plan");
    for cmd in [
        vec!["log", &a.id[..10], "--run", &a.id],
        vec!["show", &a.id, "@1", "--run", &a.id],
        vec!["diff", &a.id, "--run", &a.id[..12], "--stat"],
        vec!["status", &a.id, "--run", &a.id],
    ] {
        run_ok(repo.fabro().args(&cmd));
    }
    for cmd in [
        vec!["log", &a.id, "--run", &b.id],
        vec!["show", &a.id, "@1", "--run", &b.id],
        vec!["diff", &a.id, "--run", &b.id],
        vec!["fork", &a.id, "--run", &b.id],
        vec!["resume", &a.id, "--run", &b.id],
        vec!["finish", &a.id, "--run", &b.id],
        vec!["archive", &a.id, "--run", &b.id],
        vec!["path", &a.id, "--run", &b.id],
        vec!["land", &a.id, "--run", &b.id],
        vec!["status", &a.id, "--run", &b.id],
    ] {
        let (code, stderr) = run_err(repo.fabro().args(&cmd));
        assert_eq!(code, 2, "{cmd:?}: {stderr}");
        assert!(
            stderr.contains("different runs") || stderr.contains("do not"),
            "{cmd:?}: {stderr}"
        );
    }
    // Nothing moved.
    assert_eq!(repo.log_json(&a.id).len(), 1);
    assert_eq!(repo.log_json(&b.id).len(), 1);
}

#[test]
fn run_names_every_command_infers_the_run_of_its_worktree() {
    let (repo, run) = TestRepo::with_run();
    let wt = &run.worktree;
    let here = |args: &[&str]| run_ok(repo.fabro_in(wt).args(args));
    std::fs::write(wt.join("a.txt"), "a\n").unwrap();
    here(&["checkpoint", "--node", "plan"]);
    std::fs::write(wt.join("a.txt"), "b\n").unwrap();
    here(&["snapshot", "--reason", "before"]);
    here(&["checkpoint", "--node", "code"]);
    assert!(here(&["log"]).contains("code@1"));
    assert!(here(&["show", "@1"]).contains("plan@1"));
    assert!(here(&["diff", "--stat"]).contains("a.txt"));
    assert!(here(&["diff", "@1", "@2"]).contains("+b"));
    let status: serde_json::Value = serde_json::from_str(&here(&["status", "--json"])).unwrap();
    assert_eq!(status["run_id"], run.id.as_str());
    assert_eq!(
        here(&["path"]).trim(),
        std::fs::canonicalize(wt).unwrap().to_str().unwrap()
    );
    let fork = here(&["fork", "@1"]).trim().to_owned();
    let forked = repo.log_json(&fork);
    assert_eq!(forked.len(), 1, "the fork starts at @1");
    // resume of the current run: it has a live worktree, so it prints its state.
    let resumed: serde_json::Value = serde_json::from_str(&here(&["resume"])).unwrap();
    assert_eq!(resumed["run_id"], run.id.as_str());
    here(&["restore", "@1", "--dry-run"]);
    here(&["finish", "--keep-worktree"]);
    here(&["archive"]);
    here(&["unarchive"]);
    let rewound = here(&["rewind", "@1"]).trim().to_owned();
    assert_ne!(rewound, run.id);
    // The environment names the run too, from anywhere.
    let out = run_ok(
        repo.fabro()
            .env("FABRO_RUN_ID", &fork)
            .args(["status", "--json"]),
    );
    assert!(out.contains(&fork), "{out}");
}

#[test]
fn run_names_short_ids_are_unique_prefixes_that_commands_accept() {
    let (repo, run) = TestRepo::with_run();
    repo.checkpoint(&run.id, "plan");
    // A second run whose id shares the first eleven characters, as runs started in the same
    // millisecond do: its refs are copies under that id.
    // Its twelfth character differs from the run's (a ULID's twelfth is random: a fixed `Z`
    // would match it one time in 32 and lengthen both short ids).
    let differ = if &run.id[11..12] == "Z" { "Y" } else { "Z" };
    let twin = format!("{}{}", &run.id[..11], differ.repeat(15));
    for kind in ["run", "meta"] {
        let tip = repo.git(&["rev-parse", &format!("refs/heads/fabro/{kind}/{}", run.id)]);
        repo.git(&[
            "update-ref",
            &format!("refs/heads/fabro/{kind}/{twin}"),
            tip.trim(),
        ]);
    }
    let ps = repo.ok(&["ps"]);
    let short = &run.id[..12];
    let twin_short = &twin[..12];
    assert!(ps.contains(&format!("{short}  ")), "{ps}");
    assert!(ps.contains(&format!("{twin_short}  ")), "{ps}");
    // A command about one run, which abbreviates against the runs near it only, shows what ps
    // shows, with the refs loose or packed.
    for packed in [false, true] {
        if packed {
            repo.git(&["pack-refs", "--all"]);
        }
        for (id, shown) in [(&run.id, short), (&twin, twin_short)] {
            let status = repo.ok(&["status", id]);
            assert!(status.contains(&format!("{shown} ({id})")), "{status}");
        }
    }
    // What ps shows resolves back, in any case.
    let log = repo.ok(&["log", &short.to_ascii_lowercase(), "--json"]);
    assert!(log.contains("plan"));
    // An 8-character prefix is ambiguous now, and says so.
    let (code, stderr) = run_err(repo.fabro().args(["log", &run.id[..8]]));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("ambiguous"), "{stderr}");
    // A run alone keeps its eight characters.
    let other = TestRepo::new();
    let lone = other.start();
    assert!(other.ok(&["ps"]).contains(&format!("{}  ", &lone.id[..8])));
    let status = other.ok(&["status", &lone.id]);
    assert!(
        status.contains(&format!("{} ({})", &lone.id[..8], lone.id)),
        "{status}"
    );
}

/// Every `git fabro COMMAND ...` a message of src/ suggests names a command that exists and
/// only flags that command accepts, as its `--help` lists them.
#[test]
fn run_names_hints_name_only_flags_the_command_accepts() {
    let repo = TestRepo::new();
    let mut suggested = Vec::new();
    collect_suggestions(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut suggested,
    );
    assert!(suggested.len() > 10, "found only {suggested:?}");
    let mut wrong = Vec::new();
    let mut checked = 0;
    for (file, text) in &suggested {
        let mut words = text.split_whitespace().skip(2);
        let Some(command) = words.next() else {
            continue;
        };
        // Placeholders (`git fabro <name> ...`) and clap's own `help` are not suggestions.
        if command == "help" || !command.chars().all(|c| c.is_ascii_lowercase() || c == '-') {
            continue;
        }
        checked += 1;
        let help = repo.output(&[command, "--help"]);
        if !help.status.success() {
            wrong.push(format!("{file}: `{text}`: no command {command}"));
            continue;
        }
        let help = String::from_utf8_lossy(&help.stdout);
        for flag in words.filter(|w| w.starts_with("--")) {
            let flag = flag.split('=').next().unwrap_or(flag);
            let flag = flag.trim_end_matches(|c: char| !c.is_ascii_alphanumeric());
            if !help.contains(&format!("{flag} "))
                && !help.contains(&format!("{flag}\n"))
                && !help.contains(&format!("{flag}="))
                && !help.contains(&format!("{flag},"))
            {
                wrong.push(format!("{file}: `{text}`: {command} has no {flag}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(checked > 10, "checked only {checked} of {suggested:?}");
}

fn collect_suggestions(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_suggestions(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = read_file(&path);
            for piece in text.split('`').skip(1).step_by(2) {
                if piece.starts_with("git fabro ") && !piece.contains('\n') {
                    out.push((path.display().to_string(), piece.to_owned()));
                }
            }
        }
    }
}
