//! What a run is rendered with, forged by a collaborator: one metadata commit that changes
//! only the goal, the inputs or the workflow directory `run.json` records for a run blocked
//! at a gate. The workflow is untouched and approved, but `resume` renders it with those
//! values, so after `fetch` it runs nothing until the user approves them (exit 5, with the
//! change shown); `--trust` then runs it with them.

use std::path::Path;

use serde_json::Value;

use crate::common::workflow::{command, gated};
use crate::common::{TestRepo, read_file, write_file};
use crate::trust::{fabro, path, remote_and_clone};

/// Blocks at a gate; the node after it writes the input `t` and the goal to `out.txt`.
fn gate() -> String {
    let script = "printf '%s|%s' '{{ inputs.t }}' '{{ goal }}' > out.txt";
    gated("Gate", &command("work", script))
}

/// In `other`, commits `edit` of run `id`'s run.json onto its metadata branch and pushes it
/// with plain git.
fn push_edited_record(repo: &TestRepo, other: &Path, id: &str, edit: &dyn Fn(&mut Value)) {
    let meta = format!("fabro/meta/{id}");
    repo.git_in(
        other,
        &["fetch", "-q", "origin", &format!("+{meta}:{meta}")],
    );
    repo.git_in(other, &["checkout", "-q", &meta]);
    let record_path = other.join("run.json");
    let mut record: Value = serde_json::from_str(&read_file(&record_path)).unwrap();
    edit(&mut record);
    write_file(
        &record_path,
        &serde_json::to_string_pretty(&record).unwrap(),
    );
    repo.git_in(other, &["commit", "-q", "-am", "update run"]);
    repo.git_in(other, &["push", "-q", "origin", &meta]);
    repo.git_in(other, &["checkout", "-q", "--detach"]);
}

#[test]
fn values_a_collaborator_changed_are_not_rendered_without_trust() {
    let repo = TestRepo::new();
    let other = remote_and_clone(&repo);
    let workflow = repo.write_beside("gate.fabro", &gate());
    let elsewhere = repo.root.join("elsewhere");
    // What the diff shows of each edit, and what the run then writes with `--trust`.
    type Edit = Box<dyn Fn(&mut Value)>;
    let edits: [(&str, &str, Edit); 3] = [
        (
            "\"t\": \"forged\"",
            "forged|my goal",
            Box::new(|r| r["spec"]["inputs"]["t"] = "forged".into()),
        ),
        (
            "\"goal\": \"forged\"",
            "mine|forged",
            Box::new(|r| r["spec"]["goal"] = "forged".into()),
        ),
        (
            "elsewhere",
            "mine|my goal",
            Box::new(move |r| r["spec"]["workflow_dir"] = path(&elsewhere).into()),
        ),
    ];
    for (shown, written, edit) in &edits {
        let home = &repo.home;
        let (code, stdout, stderr) = fabro(
            &repo,
            &repo.path,
            home,
            &[
                "run",
                path(&workflow),
                "--input",
                "t=mine",
                "--goal",
                "my goal",
            ],
        );
        assert_eq!(code, 4, "{stderr}");
        let id = stdout.lines().next().unwrap().trim().to_owned();
        repo.ok(&["push", "origin", &id]);
        push_edited_record(&repo, &other, &id, edit.as_ref());
        repo.ok(&["fetch", "origin", &id]);

        let answer = ["resume", id.as_str(), "--answer", "approve=Y"];
        let (code, _, stderr) = fabro(&repo, &repo.path, home, &answer);
        assert_eq!(code, 5, "{shown}: {stderr}");
        assert!(
            stderr.contains("renders its workflow with are not ones this machine recorded")
                && stderr.contains("Mallory <mallory@example.com>")
                && stderr
                    .lines()
                    .any(|l| l.starts_with('+') && l.contains(shown))
                && stderr.contains(&format!("git fabro resume {id} --trust")),
            "{shown}: {stderr}"
        );
        // The workflow itself was approved here: only the values are shown.
        assert!(!stderr.contains("The workflow of run"), "{stderr}");
        let run_branch = format!("fabro/run/{id}");
        let files = repo.git(&["ls-tree", "--name-only", &run_branch]);
        assert!(
            !files.lines().any(|f| f == "out.txt"),
            "{shown}: the run went on"
        );

        let trusted = [&answer[..], &["--trust"]].concat();
        let (code, _, stderr) = fabro(&repo, &repo.path, home, &trusted);
        assert_eq!(code, 0, "{shown}: {stderr}");
        let out = repo.git(&["show", &format!("{run_branch}:out.txt")]);
        assert_eq!(out, *written);
    }
}
