//! Build output in run worktrees: which ignored folders hold only what a build regenerates
//! (so that `finish` and `gc` may remove a worktree that holds nothing else), and whether a
//! new run's worktree starts with copies of them from the checkout it started from.
//!
//! The default list is the output folders of the common toolchains, each a folder that its
//! tool rebuilds from the sources alone: `target` (Cargo, Maven), `node_modules` (npm, pnpm,
//! Yarn), `dist` and `build` (most bundlers, Gradle, setuptools), `__pycache__` (Python) and
//! `.venv` (a virtual environment that `uv sync` or `pip install` remakes). Caches that a
//! tool merely speeds itself up with (`.gradle`, `.next`, `.tox`, `.pytest_cache`) are not
//! seeded: they are rarely large in a worktree, and a list kept short is one a user can check
//! at a glance. The folders git-fabro never stages (`git::DEFAULT_EXCLUDED_DIRS`, which holds
//! all of these but `build`) keep no worktree whatever this list says. Each settings layer adds to the list; an empty entry drops everything before
//! it, as an empty value resets a multi-valued key in git config (`credential.helper`).

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::git::Repo;

pub const BUILD_DIR_KEY: &str = "fabro.buildDir";
pub const SEED_BUILD_KEY: &str = "fabro.seedBuild";
pub const DEFAULT_BUILD_DIRS: [&str; 6] = [
    "target",
    "node_modules",
    "dist",
    "build",
    "__pycache__",
    ".venv",
];

/// `[worktrees]` in `settings.toml` and `run.toml`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorktreeSettings {
    /// Folder names added to the build folders (`""` drops the ones before it).
    pub build_dirs: Option<Vec<String>>,
    /// How a new run's worktree gets the source checkout's build folders.
    pub seed_build: Option<SeedBuild>,
}

/// How a new worktree's build folders are seeded from the checkout a run started from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SeedBuild {
    /// Copy-on-write clones where the filesystem makes them, nothing where it does not.
    #[default]
    Auto,
    /// Clones where the filesystem makes them, full copies where it does not.
    Copy,
    /// Never: every run builds from scratch.
    Never,
}

impl SeedBuild {
    fn parse(text: &str) -> Result<SeedBuild> {
        match text.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(SeedBuild::Auto),
            "copy" => Ok(SeedBuild::Copy),
            "never" | "false" | "off" => Ok(SeedBuild::Never),
            _ => Err(Error::Usage(format!(
                "{SEED_BUILD_KEY} = {text:?} is not a seeding mode; use auto, copy or never"
            ))),
        }
    }
}

/// The build folder names: the defaults, then git config's, then each layer's (lowest
/// precedence first, so that a later empty entry can drop what came before).
pub fn build_dirs(repo: &Repo, layers: &[Option<&WorktreeSettings>]) -> Result<Vec<String>> {
    let mut names: Vec<String> = DEFAULT_BUILD_DIRS.iter().map(|n| n.to_string()).collect();
    let from_layers = layers
        .iter()
        .rev()
        .flatten()
        .filter_map(|s| s.build_dirs.clone())
        .flatten();
    for name in repo
        .config_strings(BUILD_DIR_KEY)
        .into_iter()
        .chain(from_layers)
    {
        let name = name.trim().trim_end_matches('/').to_owned();
        if name.is_empty() {
            names.clear();
        } else if name.contains('/') || name == "." || name == ".." {
            return Err(Error::Usage(format!(
                "build folder {name:?} is not a folder name; give names such as `target` \
                 (they match at any depth) in `[worktrees] build_dirs` or `git config {BUILD_DIR_KEY}`"
            )));
        } else if !names.contains(&name) {
            names.push(name);
        }
    }
    Ok(names)
}

/// The seeding mode: the first layer that sets it, else git config, else `auto`.
pub fn seed_build(repo: &Repo, layers: &[Option<&WorktreeSettings>]) -> Result<SeedBuild> {
    match layers.iter().flatten().find_map(|s| s.seed_build) {
        Some(mode) => Ok(mode),
        None => repo
            .config_string(SEED_BUILD_KEY)
            .map_or(Ok(SeedBuild::default()), |text| SeedBuild::parse(&text)),
    }
}
