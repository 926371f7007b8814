//! Re-linking checkpoints to rewritten commits. A rebase keeps trailers, but a squash or an
//! `amend -m` drops them; git's post-rewrite hook then tells which commit replaced which. When
//! a replacement has exactly the tree a checkpoint recorded (`git_tree_sha`), the link is
//! stored on the run's metadata branch under `links/<old sha>`, and timelines read such a
//! commit as that checkpoint.

use std::collections::BTreeMap;

use crate::config::Config;
use crate::error::Result;
use crate::format::message::{self, Trailers};
use crate::format::record::{LINKS_DIR, Link};
use crate::format::run_id::RunId;
use crate::git::{ObjectId, Repo};
use crate::ops::fork::parse_sha;
use crate::ops::lifecycle::commit_meta_tree;
use crate::run::{RunState, read_record};

/// Records links for the `(old, new)` pairs git reported, and returns them. Pairs whose old
/// commit is no checkpoint, or whose new tree differs from the recorded one, are skipped.
pub fn relink(repo: &Repo, pairs: &[(ObjectId, ObjectId)], config: &Config) -> Result<Vec<Link>> {
    let mut by_run: BTreeMap<RunId, Vec<Link>> = BTreeMap::new();
    for &(old, new) in pairs {
        let commit = repo.commit_info(old)?;
        let trailers = Trailers::parse(&commit.message);
        let (Some(run), Some(meta)) = (trailers.run.as_deref(), trailers.checkpoint.as_deref())
        else {
            continue;
        };
        let (Ok(id), Some((node_id, status))) =
            (RunId::parse(run), message::parse_subject(&commit.message))
        else {
            continue;
        };
        let Ok(meta_commit) = parse_sha(meta) else {
            continue;
        };
        if !repo.object_exists(meta_commit) {
            continue;
        }
        let record = read_record(repo, repo.commit_tree(meta_commit)?, meta)?;
        let recorded_tree = record.checkpoint.and_then(|c| c.git_tree_sha);
        if recorded_tree != Some(repo.commit_tree(new)?.to_string()) {
            continue;
        }
        by_run.entry(id).or_default().push(Link {
            old_commit: old.to_string(),
            new_commit: new.to_string(),
            run_id: run.to_owned(),
            node_id,
            status,
            completed: trailers.completed.unwrap_or(0),
            meta_commit: meta.to_owned(),
        });
    }
    let mut recorded = Vec::new();
    for (id, links) in by_run {
        let Ok(state) = RunState::load(repo, &id) else {
            continue;
        };
        let mut tree = repo.edit_tree(state.meta_tree)?;
        for link in &links {
            tree.put_file(
                &format!("{LINKS_DIR}/{}", link.old_commit),
                &crate::format::record::pretty(link),
            )?;
        }
        let tree = tree.write()?;
        let subject = format!("relink {} rewritten checkpoint(s)", links.len());
        commit_meta_tree(repo, &state, tree, &subject, config)?;
        recorded.extend(links);
    }
    Ok(recorded)
}
