//! Where a symbolic link of a seeded build folder points in the run's worktree. A link made
//! again as it was would share what it points to with the checkout: `target/link ->
//! /home/me/project/a.txt` would let a node's write through it rewrite the user's tracked
//! file. So a link leads to the run's own copy of what it led to in the checkout: a relative
//! link that stays inside the checkout already does (it moved with its folder), an absolute
//! one into the checkout is rewritten to the same place in the worktree, and a link that
//! leads out of the checkout (absolute, or relative past its root) is left out.

use std::path::{Path, PathBuf};

use crate::input::lexically_normal;

/// The checkout a folder is seeded from and the worktree it is seeded into.
pub struct Links {
    checkout: PathBuf,
    /// The checkout with its links resolved, another spelling an absolute link may use.
    checkout_real: Option<PathBuf>,
    worktree: PathBuf,
}

impl Links {
    pub fn new(checkout: &Path, worktree: &Path) -> Links {
        Links {
            checkout: lexically_normal(checkout),
            checkout_real: std::fs::canonicalize(checkout).ok(),
            worktree: worktree.to_owned(),
        }
    }

    /// What the link at `link` in the checkout, pointing at `target`, points at in the
    /// worktree; `None` when it leads out of the checkout.
    pub fn target(&self, link: &Path, target: &Path) -> Option<PathBuf> {
        if target.is_relative() {
            let resolved = lexically_normal(&link.parent()?.join(target));
            return self.inside(&resolved).map(|_| target.to_owned());
        }
        let target = lexically_normal(target);
        Some(self.worktree.join(self.inside(&target)?))
    }

    /// `path` relative to the checkout, when it lies inside it.
    fn inside<'a>(&self, path: &'a Path) -> Option<&'a Path> {
        path.strip_prefix(&self.checkout)
            .ok()
            .or_else(|| path.strip_prefix(self.checkout_real.as_ref()?).ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_lead_to_the_runs_copy_or_are_left_out() {
        let links = Links::new(Path::new("/c/proj"), Path::new("/runs/r/worktree"));
        let at = Path::new("/c/proj/target/debug/link");
        let to = |target: &str| links.target(at, Path::new(target));
        assert_eq!(to("../a.txt"), Some(PathBuf::from("../a.txt")));
        assert_eq!(to("../../a.txt"), Some(PathBuf::from("../../a.txt")));
        assert_eq!(to("../../../a.txt"), None, "past the checkout's root");
        assert_eq!(
            to("/c/proj/a.txt"),
            Some(PathBuf::from("/runs/r/worktree/a.txt"))
        );
        assert_eq!(
            to("/c/proj/target/../src/./lib.rs"),
            Some(PathBuf::from("/runs/r/worktree/src/lib.rs"))
        );
        assert_eq!(
            to("/c/project/a.txt"),
            None,
            "a neighbour sharing the prefix"
        );
        assert_eq!(to("/usr/lib/libz.so"), None);
        assert_eq!(to("/c/proj/../elsewhere"), None);
    }
}
