//! Every refusal that names a next step names one that works for the run as it stands: each
//! test sets up the run, is refused, then runs every `git fabro ...` command the hint names,
//! none of which may be refused in turn.

use crate::common::{TestRepo, run_err, run_ok, write_file};

/// Runs `args`, which must be refused with exit `code` and exactly `stderr`, then each command
/// its hint names, in order; returns their stdouts.
fn refused_then_followed(repo: &TestRepo, args: &[&str], code: i32, stderr: &str) -> Vec<String> {
    let (got_code, got) = run_err(repo.fabro().args(args));
    assert_eq!((got_code, got.as_str()), (code, stderr), "{args:?}");
    followed(repo, stderr)
}

/// Runs each command the hint in `stderr` names, in order; none may fail.
fn followed(repo: &TestRepo, stderr: &str) -> Vec<String> {
    named_commands(stderr)
        .iter()
        .map(|step| {
            let words: Vec<&str> = step.split(' ').collect();
            let out = repo.fabro().args(&words).output().expect("git-fabro runs");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "`git fabro {step}` failed: {err}");
            assert!(!err.contains("error:"), "`git fabro {step}`: {err}");
            String::from_utf8_lossy(&out.stdout).into_owned()
        })
        .collect()
}

/// The commands in backquotes on the `hint:` line, without `git fabro`.
pub(crate) fn named_commands(stderr: &str) -> Vec<String> {
    let hint = stderr
        .lines()
        .find_map(|l| l.strip_prefix("hint: "))
        .expect("a hint");
    let steps: Vec<String> = hint
        .split('`')
        .skip(1)
        .step_by(2)
        .filter_map(|quoted| quoted.strip_prefix("git fabro "))
        .map(ToOwned::to_owned)
        .collect();
    assert!(!steps.is_empty(), "the hint names no command: {hint}");
    steps
}

/// A run with one checkpoint, finished as `status`.
fn ended_run(repo: &TestRepo, status: &str) -> String {
    let run = repo.start();
    write_file(&run.worktree.join("plan.txt"), "plan\n");
    repo.checkpoint(&run.id, "plan");
    repo.ok(&["finish", "--run", &run.id, "--status", status]);
    run.id
}

fn finished_hint(id: &str, land: bool) -> String {
    let land = match land {
        true => format!("`git fabro land {id}` lands its result, "),
        false => String::new(),
    };
    format!(
        "{land}`git fabro fork {id}` continues from its last checkpoint as a new run, `git fabro log {id}` lists its checkpoints"
    )
}

#[test]
fn a_succeeded_run_is_sent_to_land_fork_and_log_never_resume() {
    let repo = TestRepo::new();
    let id = ended_run(&repo, "succeeded");
    let mut landed = false;
    for (args, refusal) in [
        (
            vec!["checkpoint", "--run", &id, "--node", "code"],
            "only a running run takes checkpoints",
        ),
        (
            vec!["snapshot", "--run", &id],
            "only a running run takes snapshots",
        ),
        (vec!["resume", &id], "it cannot be resumed"),
        (
            vec!["finish", &id, "--status", "failed"],
            "it cannot finish as failed",
        ),
    ] {
        let finished = finished_hint(&id, !landed);
        let stderr =
            format!("error: run {id} succeeded; {refusal}\nhint: it is finished: {finished}\n");
        let outs = refused_then_followed(&repo, &args, 1, &stderr);
        // What `fork` says to do with the new run works too.
        let forked = outs[usize::from(!landed)].trim();
        repo.ok(&["resume", forked]);
        repo.ok(&["checkpoint", "--run", forked, "--node", "code"]);
        // Landed, it is no longer sent to `land`.
        landed = true;
    }
    let stderr = format!(
        "error: run {id} has no worktree on this machine\nhint: it succeeded and keeps none: {}\n",
        finished_hint(&id, false)
    );
    refused_then_followed(&repo, &["path", &id], 1, &stderr);
}

#[test]
fn a_failed_run_is_sent_to_resume_which_reopens_it() {
    let repo = TestRepo::new();
    let id = ended_run(&repo, "failed");
    let stderr = format!(
        "error: run {id} failed; only a running run takes checkpoints\n\
         hint: `git fabro resume {id}` reopens it in a worktree\n"
    );
    let args = ["checkpoint", "--run", &id, "--node", "code"];
    refused_then_followed(&repo, &args, 1, &stderr);
    repo.ok(&args);
}

#[test]
fn a_running_run_without_its_worktree_is_sent_to_resume() {
    let repo = TestRepo::new();
    let run = repo.start();
    repo.git(&[
        "worktree",
        "remove",
        "--force",
        run.worktree.to_str().unwrap(),
    ]);
    let stderr = format!(
        "error: run {} has no worktree on this machine\nhint: `git fabro resume {}` makes one\n",
        run.id, run.id
    );
    refused_then_followed(&repo, &["path", &run.id], 1, &stderr);
    let path = repo.ok(&["path", &run.id]);
    assert_eq!(path.trim(), run.worktree.to_str().unwrap());
}

#[test]
fn an_archived_run_is_sent_to_unarchive() {
    let repo = TestRepo::new();
    let id = ended_run(&repo, "failed");
    repo.ok(&["archive", &id]);
    let hint = format!("hint: `git fabro unarchive {id}` gives it back the status it had\n");
    let stderr = format!("error: run {id} is archived; it cannot be resumed\n{hint}");
    refused_then_followed(&repo, &["resume", &id], 1, &stderr);
    repo.ok(&["resume", &id]);
    repo.ok(&["finish", &id]);
    repo.ok(&["archive", &id]);
    let stderr = format!(
        "error: run {id} is archived; land takes a run that succeeded or failed, or one as it is with --force\n{hint}"
    );
    refused_then_followed(&repo, &["land", &id], 2, &stderr);
    repo.ok(&["land", &id]);
}

#[test]
fn a_rewound_run_is_sent_to_its_replacement() {
    let repo = TestRepo::new();
    let id = crate::fork::finished_run(&repo);
    let new = repo.ok(&["rewind", &id, "@1"]).trim().to_owned();
    let hint = format!(
        "hint: a rewind replaced it with run {new}, which goes on in its place: `git fabro status {new}` says where that stands\n"
    );
    let stderr = format!(
        "error: run {id} is archived; it was already rewound (to @1) and replaced by {new}; fork it to start elsewhere\n{hint}"
    );
    refused_then_followed(&repo, &["rewind", &id, "@2"], 1, &stderr);
    let stderr = format!("error: run {id} is archived; it cannot be resumed\n{hint}");
    let status = refused_then_followed(&repo, &["resume", &id], 1, &stderr);
    assert!(
        status[0].contains(&format!("`git fabro resume {new}` makes one")),
        "{}",
        status[0]
    );
    repo.ok(&["resume", &new]);
}

#[test]
fn an_unfinished_run_is_sent_to_finish_before_land_and_rewind() {
    let repo = TestRepo::new();
    let run = repo.start();
    write_file(&run.worktree.join("plan.txt"), "plan\n");
    repo.checkpoint(&run.id, "plan");
    let id = &run.id;
    let hint = format!("hint: `git fabro finish {id}` ends it\n");
    let stderr = format!(
        "error: run {id} is running; land takes a run that succeeded or failed, or one as it is with --force\n{hint}"
    );
    refused_then_followed(&repo, &["land", id], 2, &stderr);
    repo.ok(&["land", id]);

    let run = repo.start();
    write_file(&run.worktree.join("code.txt"), "code\n");
    repo.checkpoint(&run.id, "code");
    let id = &run.id;
    let stderr = format!(
        "error: run {id} is running; rewind a succeeded, failed or dead run, or pass --force\n\
         hint: `git fabro finish {id}` ends it\n"
    );
    refused_then_followed(&repo, &["rewind", id, "@1"], 1, &stderr);
    repo.ok(&["rewind", id, "@1"]);
}

#[test]
fn refusals_about_what_a_run_holds_name_commands_that_list_it() {
    let repo = TestRepo::new();
    let run = repo.start();
    let id = &run.id;
    let stderr = nothing_to_undo(id);
    refused_then_followed(&repo, &["undo", id], 1, &stderr);
    let stderr = format!(
        "error: run {id} has no checkpoints yet, so nothing matches the latest checkpoint\n\
         hint: list the run's checkpoints with `git fabro log {id}`\n"
    );
    refused_then_followed(&repo, &["show", id], 2, &stderr);
    let stderr = "error: no run matches \"nosuchrun\"\nhint: list runs with `git fabro ps --all`\n";
    refused_then_followed(&repo, &["show", "nosuchrun"], 2, stderr);
    run_ok(repo.fabro().args(["ps", "--all"]));
}

#[test]
fn a_directory_in_the_way_of_a_worktree_is_named_and_resume_goes_on_once_it_is_moved() {
    let repo = TestRepo::new();
    let run = repo.start();
    let worktree = run.worktree.to_str().unwrap();
    repo.git(&["worktree", "remove", "--force", worktree]);
    write_file(&run.worktree.join("mine.txt"), "mine\n");
    let id = &run.id;
    let stderr = format!(
        "error: {worktree} is in the way of run {id}'s worktree: it is not empty and no worktree is registered there\n\
         hint: move it aside (it may hold work), then `git fabro resume {id}` again\n"
    );
    let (code, got) = run_err(repo.fabro().args(["resume", id]));
    assert_eq!((code, got.as_str()), (1, stderr.as_str()));
    std::fs::rename(&run.worktree, repo.root.join("aside")).unwrap();
    followed(&repo, &stderr);
    assert_eq!(repo.ok(&["path", id]).trim(), worktree);
}

#[test]
fn a_finished_run_without_checkpoints_is_not_sent_to_fork() {
    let repo = TestRepo::new();
    let run = repo.start();
    let id = &run.id;
    repo.ok(&["finish", "--run", id]);
    let stderr = format!(
        "error: run {id} succeeded; it cannot be resumed\n\
         hint: it is finished: `git fabro land {id}` lands its result, `git fabro diff {id}` shows what it changed; it took no checkpoint to fork from\n"
    );
    refused_then_followed(&repo, &["resume", id], 1, &stderr);
}

#[test]
fn a_workflow_other_than_the_runs_is_refused_and_force_resumes_under_it() {
    let repo = TestRepo::new();
    repo.write_beside("flow.fabro", "digraph flow { a -> b }\n");
    repo.write_beside("other.fabro", "digraph flow { a -> c }\n");
    let id = repo.ok(&["start", "--workflow", "../flow.fabro"]);
    let id = id.trim();
    repo.ok(&["finish", "--run", id, "--status", "failed"]);
    let sha = |name: &str| {
        let text = std::fs::read(repo.root.join(name)).unwrap();
        sha256_hex(&text)
    };
    let (ours, recorded) = (sha("other.fabro"), sha("flow.fabro"));
    let stderr = format!(
        "error: ../other.fabro (sha256 {}) is not the workflow run {id} was started with (sha256 {recorded})\n\
         hint: `git fabro resume {id} --workflow ../other.fabro --force` resumes it under that workflow anyway\n",
        &ours[..12]
    );
    let args = ["resume", id, "--workflow", "../other.fabro"];
    refused_then_followed(&repo, &args, 1, &stderr);
    repo.checkpoint(id, "again");
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    format!("{:x}", sha2::Sha256::digest(bytes))
}

#[test]
fn a_run_without_a_workflow_is_sent_from_graph_to_log() {
    let repo = TestRepo::new();
    let run = repo.start();
    let id = &run.id;
    let stderr = format!(
        "error: run {id} records no workflow to draw (an agent run started with `git fabro start`)\n\
         hint: `git fabro log {id}` lists its checkpoints\n"
    );
    refused_then_followed(&repo, &["graph", id], 1, &stderr);
}

#[test]
fn undo_takes_the_run_as_run_flag_too() {
    let repo = TestRepo::new();
    let run = repo.start();
    let id = &run.id;
    let stderr = nothing_to_undo(id);
    refused_then_followed(&repo, &["undo", "--run", id], 1, &stderr);
    write_file(&run.worktree.join("plan.txt"), "plan\n");
    repo.checkpoint(id, "plan");
    repo.ok(&["undo", "--run", id]);
    assert!(!run.worktree.join("plan.txt").exists());
}

/// A finished run that adds `lines.txt`, to land on the main checkout.
fn run_adding_lines(repo: &TestRepo) -> String {
    let run = repo.start();
    write_file(&run.worktree.join("lines.txt"), "theirs\n");
    repo.checkpoint(&run.id, "code");
    repo.ok(&["finish", "--run", &run.id]);
    run.id
}

#[test]
fn changes_in_the_way_of_a_landing_are_named_and_land_goes_on_once_they_are_stashed() {
    let repo = TestRepo::new();
    let id = run_adding_lines(&repo);
    let checkout = repo.path.display();
    repo.write("mine.txt", "mine\n");
    repo.git(&["add", "mine.txt"]);
    let hint = format!(
        "hint: commit them, or set them aside with `git stash`, then `git fabro land {id}` again\n"
    );
    let stderr =
        format!("error: {checkout} has staged changes (mine.txt); nothing was changed\n{hint}");
    let (code, got) = run_err(repo.fabro().args(["land", &id]));
    assert_eq!((code, got.as_str()), (1, stderr.as_str()));
    repo.git(&["stash", "-q"]);
    repo.write("lines.txt", "mine\n");
    let stderr = format!(
        "error: {checkout} has changes of yours in the way: lines.txt (untracked); nothing was changed\n{hint}"
    );
    let (code, got) = run_err(repo.fabro().args(["land", &id]));
    assert_eq!((code, got.as_str()), (1, stderr.as_str()));
    repo.git(&["stash", "-q", "--include-untracked"]);
    followed(&repo, &stderr);
    assert_eq!(repo.git(&["show", "HEAD:lines.txt"]), "theirs\n");
}

/// Run `deploy.fabro` killed once its side effect's intent is committed, before the effect
/// ran or was recorded; the refusal of `resume`, whose hint settles it.
fn cut_short_deploy(repo: &TestRepo) -> (String, String) {
    let path = crate::engine_interrupt::deploy_workflow(repo);
    crate::common::failpoints::die_at(
        repo.fabro()
            .arg("run")
            .arg(&path)
            .stdin(std::process::Stdio::null()),
        "engine:intent-written:deploy@1",
    );
    let id = crate::engine_run::the_only_run(repo);
    let intent = repo.git(&["show", &format!("fabro/meta/{id}:intents/deploy@1.json")]);
    let intent: serde_json::Value = serde_json::from_str(&intent).unwrap();
    let stderr = format!(
        "error: run {id} stopped while the side-effect node deploy@1 ran (started {}, never recorded): it may have done its work or not\n\
         hint: check, then `git fabro resume {id} --rerun deploy` runs it again or `git fabro resume {id} --assume-done deploy` records it as succeeded and goes on\n",
        intent["started_at"].as_str().unwrap()
    );
    (id, stderr)
}

#[test]
fn a_side_effect_cut_short_is_settled_by_either_command_its_hint_names() {
    for (step, deploys) in [(0, "deploy@1\n"), (1, "")] {
        let repo = TestRepo::new();
        let (id, stderr) = cut_short_deploy(&repo);
        let (code, got) = run_err(
            repo.fabro()
                .args(["resume", &id])
                .stdin(std::process::Stdio::null()),
        );
        assert_eq!((code, got.as_str()), (1, stderr.as_str()));
        let command = &named_commands(&stderr)[step];
        let words: Vec<&str> = command.split(' ').collect();
        run_ok(repo.fabro().args(&words).stdin(std::process::Stdio::null()));
        let logged = crate::engine_interrupt::deploys(&repo).replace(&format!("{id}:"), "");
        assert_eq!(logged, deploys, "{command}");
        let record = crate::engine_run::run_json(&repo, &id);
        assert_eq!(record["status"]["kind"], "succeeded", "{command}");
    }
}

/// Run `id`, pushed from the test repository, moved on in the other clone and pushed again.
fn moved_on_elsewhere(repo: &TestRepo, other: &std::path::Path, id: &str) {
    repo.ok(&["push", "origin", id]);
    let home = repo.root.join("other-home");
    run_ok(repo.fabro_in(other).args(["fetch"]));
    let resumed = run_ok(
        repo.fabro_in(other)
            .env("FABRO_HOME", &home)
            .args(["resume", id]),
    );
    let resumed: serde_json::Value = serde_json::from_str(&resumed).unwrap();
    let worktree = std::path::PathBuf::from(resumed["worktree"].as_str().unwrap());
    write_file(&worktree.join("b.txt"), "there\n");
    let checkpoint = ["checkpoint", "--node", "code"];
    run_ok(
        repo.fabro_in(&worktree)
            .env("FABRO_HOME", &home)
            .args(checkpoint),
    );
    run_ok(repo.fabro_in(other).args(["push", "origin", id]));
}

#[test]
fn a_run_checked_out_here_that_moved_on_elsewhere_is_fetched_once_its_worktree_is_gone() {
    let repo = TestRepo::new();
    let (_bare, other) = crate::sync::remote_and_clone(&repo);
    let run = repo.start();
    let id = &run.id;
    write_file(&run.worktree.join("a.txt"), "here\n");
    repo.checkpoint(id, "plan");
    moved_on_elsewhere(&repo, &other, id);
    let worktree = run.worktree.display();
    let stderr = format!(
        "error: run {id} moved on at origin but is checked out here in {worktree}; nothing was fetched\n\
         hint: remove that worktree with `git worktree remove {worktree}` (it refuses while files there hold changes no checkpoint took), then `git fabro fetch origin {id}`\n"
    );
    let (code, got) = run_err(repo.fabro().args(["fetch", "origin", id]));
    assert_eq!((code, got.as_str()), (1, stderr.as_str()));
    repo.git(&["worktree", "remove", &worktree.to_string()]);
    followed(&repo, &stderr);
    assert_eq!(repo.log_json(id).len(), 2);
}

#[test]
fn a_run_in_place_here_that_moved_on_elsewhere_is_left_as_it_is() {
    let repo = TestRepo::new();
    let (_bare, other) = crate::sync::remote_and_clone(&repo);
    let id = repo.ok(&["start", "--in-place"]).trim().to_owned();
    repo.write("a.txt", "here\n");
    repo.checkpoint(&id, "plan");
    moved_on_elsewhere(&repo, &other, &id);
    let stderr = format!(
        "error: run {id} moved on at origin but runs here in place in {}; nothing was fetched\n\
         hint: a fetch cannot move its branch under the files it works in: go on with it in the clone where it moved on; `git fabro status {id}` says where it stands here\n",
        repo.path.display()
    );
    let status = refused_then_followed(&repo, &["fetch", "origin", &id], 1, &stderr);
    assert!(status[0].contains("running"), "{}", status[0]);
    assert_eq!(repo.log_json(&id).len(), 1);
}

/// `undo`'s refusal for a run whose files are as it started.
fn nothing_to_undo(id: &str) -> String {
    format!(
        "error: nothing to undo in run {id}: the files are as it started\n\
         hint: `git fabro restore --run {id} --list` lists the recovery points each undo kept: restoring one redoes it\n"
    )
}
