//! After every step: the clone against the model, with plain git and the file system only.
//! Every acknowledged checkpoint is on its run branch with its tree, each worktree holds what
//! the model says, `main`, the index and the checkout are untouched but by `land`, the run
//! set is the model's, and `git fsck --strict` passes.

use super::apply::show;
use super::state::Model;
use super::world::{World, read_dir};

pub fn check(world: &mut World, model: &Model, c: usize) -> Result<(), String> {
    let dir = world.clones[c].clone();
    let fsck = ["fsck", "--strict", "--no-dangling", "--no-progress"];
    let out = world.repo.git_output(&dir, &fsck);
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        // A `git worktree add` killed with its git-fabro leaves git's own half-written
        // registration, which git fsck cannot read; `git fabro fsck --repair` is documented to
        // clear it. Anything else is a failure.
        let registration = err.contains(".git/worktrees/");
        let repaired = registration && {
            let mut repair = world.repo.fabro_in(&dir);
            repair.args(["fsck", "--repair"]).output().is_ok()
                && world.repo.git_output(&dir, &fsck).status.success()
        };
        if !repaired {
            return Err(format!("git fsck --strict fails: {err}"));
        }
    }
    check_main(world, model, c)?;

    let here = &model.clones[c];
    let mut ids = world.run_ids(&dir);
    ids.sort();
    let modelled: Vec<&String> = here.runs.keys().collect();
    if ids.iter().collect::<Vec<_>>() != modelled {
        return Err(format!(
            "the clone holds runs {ids:?}, the model {modelled:?}"
        ));
    }
    for (id, run) in &here.runs {
        let commits = world.checkpoint_commits(c, id)?;
        if commits.len() != run.checkpoints.len() {
            return Err(format!(
                "run {id} has {} checkpoints on its branch, {} were acknowledged",
                commits.len(),
                run.checkpoints.len()
            ));
        }
        for (n, (sha, files)) in commits.iter().zip(&run.checkpoints).enumerate() {
            let tree = world.tree(&dir, sha);
            if &tree != files {
                return Err(format!(
                    "run {id} checkpoint @{} ({sha}) holds {}, the model {}",
                    n + 1,
                    show(&tree),
                    show(files)
                ));
            }
        }
        if let Some(tree) = &run.worktree {
            let found = read_dir(&tree.path);
            if found != tree.files {
                return Err(format!(
                    "run {id}'s worktree holds {}, the model {}",
                    show(&found),
                    show(&tree.files)
                ));
            }
        }
    }
    let remote = world.run_ids(&world.remote);
    let pushed: Vec<&String> = model.remote.keys().collect();
    if remote.iter().collect::<Vec<_>>() != pushed {
        return Err(format!(
            "the remote holds runs {remote:?}, the model {pushed:?}"
        ));
    }
    Ok(())
}

/// Nothing of the user's changed: `main` is where the last land put it with the tree the model
/// expects, HEAD is on it, the index holds its tree, and the checkout its files plus what runs
/// in place changed there.
fn check_main(world: &mut World, model: &Model, c: usize) -> Result<(), String> {
    let dir = world.clones[c].clone();
    let here = &model.clones[c];
    let (_, head) = world.git(&dir, &["symbolic-ref", "HEAD"]);
    if head.trim() != "refs/heads/main" {
        return Err(format!("HEAD moved to {head}"));
    }
    let sha = world.rev(c, "refs/heads/main").unwrap_or_default();
    if sha != here.main_sha {
        return Err(format!("main moved to {sha} outside a land"));
    }
    let tree = world.tree(&dir, &sha);
    if tree != here.main {
        return Err(format!(
            "main holds {}, the model {}",
            show(&tree),
            show(&here.main)
        ));
    }
    let (same, _) = world.git(&dir, &["diff-index", "--cached", "--quiet", "HEAD"]);
    if !same {
        let (_, staged) = world.git(&dir, &["diff-index", "--cached", "--name-status", "HEAD"]);
        return Err(format!("the index no longer matches main:\n{staged}"));
    }
    let files = read_dir(&dir);
    if files != here.checkout {
        return Err(format!(
            "the checkout holds {}, the model {}",
            show(&files),
            show(&here.checkout)
        ));
    }
    Ok(())
}
