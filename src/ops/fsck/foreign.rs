//! Refs in git-fabro's namespace that git-fabro never writes: `refs/heads/fabro/run/` and
//! `refs/heads/fabro/meta/` hold only `<run id>` and `run/parallel/<run id>/...`. Anything else
//! there (a branch pushed by hand, `fabro/run/NOTAULID`) is no run, so every listing skips it,
//! and `fsck` would otherwise say "ok" over it. It is named, and left alone: it is someone's.

use crate::error::Result;
use crate::format::run_id::RunId;
use crate::git::Repo;
use crate::run::{META_BRANCH_PREFIX, RUN_BRANCH_PREFIX};

use super::Report;

/// Reports every ref under the run and metadata prefixes that names no run as git-fabro does.
pub(super) fn check_foreign_refs(repo: &Repo, report: &mut Report) -> Result<()> {
    for (prefix, parallel) in [(RUN_BRANCH_PREFIX, true), (META_BRANCH_PREFIX, false)] {
        for (name, _) in repo.refs_under(prefix)? {
            if is_ours(&name, parallel) {
                continue;
            }
            let message = format!(
                "{prefix}{name} is in git-fabro's namespace but names no run, so no command \
                 sees it; git-fabro leaves it alone (`git update-ref -d {prefix}{name}` \
                 removes it)"
            );
            report.problem(None, "foreign-ref", message);
        }
    }
    Ok(())
}

/// `<run id>`, or with `parallel`, `parallel/<run id>/<more>`.
fn is_ours(name: &str, parallel: bool) -> bool {
    if RunId::parse(name).is_ok() {
        return true;
    }
    let branch = name
        .strip_prefix("parallel/")
        .and_then(|rest| rest.split_once('/'));
    parallel && branch.is_some_and(|(id, rest)| RunId::parse(id).is_ok() && !rest.is_empty())
}

#[cfg(test)]
mod tests {
    use super::is_ours;

    #[test]
    fn run_ids_and_parallel_branches_are_ours_and_nothing_else() {
        let id = "01M8SX29RJ8H7VKEXYFVJ61W6S";
        assert!(is_ours(id, false));
        assert!(is_ours(&format!("parallel/{id}/fork/pass1/a"), true));
        assert!(!is_ours(&format!("parallel/{id}/fork/pass1/a"), false));
        for foreign in [
            "NOTAULID",
            "parallel/NOTAULID/x",
            &format!("parallel/{id}/"),
            "a/b",
        ] {
            assert!(!is_ours(foreign, true), "{foreign}");
        }
    }
}
