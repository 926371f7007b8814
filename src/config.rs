//! Configuration: `settings.toml` in the fabro home, `run.toml` per run, and `fabro.*` keys in
//! git config. One precedence everywhere: flags > run.toml > settings.toml > git config >
//! defaults (one exception: the agent command, where git config comes before settings.toml;
//! see [`Config::agent_command`]). TOML files are parsed strictly, so a typo is an error with
//! the file and line rather than a setting that silently does nothing. A run's `run.toml` counts in full only
//! from its run directory on this machine; the copy on the metadata branch, which travels
//! between clones, only names the run's author (see [`Settings::recorded`]).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::format::redact::{Redactor, UserRule};
use crate::git::{Identity, Repo};
use crate::input;

pub(crate) mod hooks;
pub(crate) mod pool;
mod size;
pub(crate) mod worktrees;

use size::bad_size;
pub(crate) use size::{Size, parse_size};

use hooks::HookDefinition;
use worktrees::{SeedBuild, WorktreeSettings};

pub(crate) const SETTINGS_FILE: &str = "settings.toml";
pub(crate) const RUN_FILE: &str = "run.toml";
pub(crate) const AUTHOR_NAME_KEY: &str = "fabro.author.name";
pub(crate) const AUTHOR_EMAIL_KEY: &str = "fabro.author.email";
pub(crate) const DEFAULT_AUTHOR_NAME: &str = "Fabro";
pub(crate) const DEFAULT_AUTHOR_EMAIL: &str = "noreply@fabro.sh";
pub(crate) const RUNS_DIR_KEY: &str = "fabro.runsDir";
pub(crate) const REMOTE_KEY: &str = "fabro.remote";
pub(crate) const EXCLUDE_GLOB_KEY: &str = "fabro.excludeGlob";
pub(crate) const DEFAULT_REMOTE: &str = "origin";
pub(crate) const MAX_FILE_SIZE_KEY: &str = "fabro.maxFileSize";
pub(crate) const DEFAULT_MAX_FILE_SIZE: u64 = 50 << 20;
pub(crate) const AGENT_COMMAND_KEY: &str = "fabro.agentCommand";
pub(crate) const ENV_PASS_KEY: &str = "fabro.envPass";
pub(crate) const WATCH_WORKTREE_KEY: &str = "fabro.watchWorktree";

/// The fabro home: `$FABRO_HOME`, else `~/.fabro`.
pub(crate) fn fabro_home() -> PathBuf {
    if let Some(home) = std::env::var_os("FABRO_HOME").filter(|h| !h.is_empty()) {
        return PathBuf::from(home);
    }
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."));
    home.join(".fabro")
}

/// The shape shared by `settings.toml` and `run.toml`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    #[serde(default)]
    pub(crate) checkpoint: CheckpointSettings,
    #[serde(default)]
    pub(crate) git: GitSettings,
    #[serde(default)]
    pub(crate) runs: RunsSettings,
    #[serde(default)]
    pub(crate) remote: RemoteSettings,
    #[serde(default)]
    pub(crate) gc: GcSettings,
    #[serde(default)]
    pub(crate) agent: AgentSettings,
    #[serde(default)]
    pub(crate) env: EnvSettings,
    /// Build output in run worktrees (see [`worktrees`]).
    #[serde(default)]
    pub worktrees: WorktreeSettings,
    /// Run hooks (see [`hooks`]).
    #[serde(default)]
    pub hooks: Vec<HookDefinition>,
    #[serde(default)]
    pub(crate) redact: RedactSettings,
    /// The pool's, read from settings.toml alone (see [`pool`]).
    #[serde(default)]
    pub(crate) lease: pool::LeaseSettings,
    #[serde(default)]
    pub(crate) worker: pool::WorkerSettings,
    #[serde(default)]
    pub(crate) executor: pool::ExecutorSettings,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RedactSettings {
    /// Rules of the user's own beside the built-in ones, `NAME=EXPRESSION` (a regular
    /// expression); what matches is stored as `REDACTED:NAME`.
    pub patterns: Option<Vec<String>>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct EnvSettings {
    /// Variables nodes get beyond the allowlist (`NAME`, or `PREFIX*`).
    pub pass: Option<Vec<String>>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AgentSettings {
    /// The command agent and prompt nodes run (`/bin/bash -c COMMAND`, prompt on stdin).
    pub command: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct GcSettings {
    /// `gc` also removes finished runs (succeeded, failed, dead) that finished at least this
    /// long ago (`30d`, `2w`, ...), as `gc --finished-older-than` does; unset, it keeps them.
    pub finished_older_than: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RunsSettings {
    /// Where run directories are created (default `<fabro home>/runs`).
    pub dir: Option<PathBuf>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RemoteSettings {
    /// The remote `push` and `fetch` use when none is named (default `origin`).
    pub name: Option<String>,
    /// The shared remote that holds the pool's runs, which `submit`, `worker` and `ps
    /// --remote` use when none is named (default: the remote above).
    pub pool: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CheckpointSettings {
    /// Gitignore-style patterns never staged into run commits.
    pub exclude_globs: Option<Vec<String>>,
    /// Files larger than this are left out of snapshots (default 50 MiB): a number of bytes
    /// or a size with a unit, as `fabro.maxFileSize` takes it.
    pub max_file_size: Option<Size>,
    /// Whether the engine watches a run's files for changes instead of scanning them all at
    /// each checkpoint (default true; see docs/decisions.md).
    pub watch_worktree: Option<bool>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct GitSettings {
    pub author: Option<AuthorSettings>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AuthorSettings {
    pub name: Option<String>,
    pub email: Option<String>,
}

impl Settings {
    /// Parses TOML text; `origin` names the file in error messages.
    pub fn parse(text: &str, origin: &Path) -> Result<Settings> {
        let settings: Settings = toml::from_str(text).map_err(|err| {
            Error::Usage(format!(
                "{}: {}",
                origin.display(),
                err.to_string().trim_end()
            ))
        })?;
        hooks::check(&settings.hooks)
            .map_err(|problem| Error::Usage(format!("{}: {problem}", origin.display())))?;
        Ok(settings)
    }

    /// What a `run.toml` recorded on a metadata branch may still decide here. That copy may
    /// come from another clone, so nothing that decides where files are written (`[runs] dir`),
    /// what checkpoints keep (`[checkpoint]`), what a worktree's removal may discard or a new
    /// worktree is seeded with (`[worktrees]`), where runs are sent (`[remote]`) or which
    /// variables reach nodes (`[env]`) is taken from it; those come from this machine alone. Nor are
    /// its `[[hooks]]`: they are commands, and someone else's commands run here only from a
    /// file this machine holds. The run's author is kept: it names who
    /// the run's commits are by and decides nothing about files.
    pub(crate) fn recorded(self) -> Settings {
        Settings {
            git: self.git,
            ..Settings::default()
        }
    }

    /// The fabro home's `settings.toml`.
    pub(crate) fn load_home(home: &Path) -> Result<Settings> {
        Settings::load(&home.join(SETTINGS_FILE))
    }

    /// Reads a TOML file; a missing file is empty settings. Like a file named on the command
    /// line, it must be a regular file of sensible size: a FIFO would block every command.
    pub(crate) fn load(path: &Path) -> Result<Settings> {
        match std::fs::metadata(path) {
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Settings::default());
            }
            Err(err) => return Err(Error::io(format!("cannot read {}", path.display()))(err)),
            Ok(_) => {}
        }
        let bytes = input::read_file(path, "settings", input::MAX_DEFINITION)?;
        let text = String::from_utf8(bytes)
            .map_err(|_| Error::Usage(format!("{} is not UTF-8 text", path.display())))?;
        Settings::parse(&text, path)
    }
}

/// The settings a command works with, once every layer is applied.
#[derive(Clone, Debug)]
pub(crate) struct Config {
    pub identity: Identity,
    pub exclude_globs: Vec<String>,
    pub runs_dir: PathBuf,
    pub remote: String,
    pub max_file_size: u64,
    pub home: PathBuf,
    /// `[gc] finished_older_than` of `settings.toml`, as written (the command parses it).
    pub gc_finished_older_than: Option<String>,
    /// The command agent and prompt nodes run: run.toml, else `fabro.agentCommand` in git
    /// config, else settings.toml (the `--agent` flag, when given, replaces it). Git config
    /// comes before settings.toml here so that a repository can pick its own agent.
    pub agent_command: Option<String>,
    /// The variables the user lets reach nodes beyond the allowlist: `[env] pass` of run.toml
    /// and settings.toml and `fabro.envPass`, all of them (a name allowed anywhere is
    /// allowed).
    pub env_pass: Vec<String>,
    /// The run hooks: settings.toml's, with run.toml's added (a hook of run.toml replaces
    /// the one of settings.toml with the same name, as Fabro's run hooks replace its
    /// server's).
    pub hooks: Vec<HookDefinition>,
    /// The names of the folders that hold only build output when git ignores them (see
    /// [`worktrees`]).
    pub build_dirs: Vec<String>,
    /// How a new run's worktree gets the build folders of the checkout it started from.
    pub seed_build: SeedBuild,
    /// Whether the engine watches a run's files rather than scanning them all at each
    /// checkpoint: `[checkpoint] watch_worktree`, else `fabro.watchWorktree`, else true.
    pub watch_worktree: bool,
    /// What takes secrets out of everything stored from an agent or a node: the built-in
    /// rules, `[redact] patterns` of settings.toml (a machine's, never a run's), and the
    /// secret values of this process's environment.
    pub redactor: std::sync::Arc<Redactor>,
}

impl Config {
    /// Layers `run` (the run's `run.toml`, if any) over `settings.toml` over git config.
    pub(crate) fn load(repo: &Repo, home: &Path, run: Option<&Settings>) -> Result<Config> {
        Config::resolve(repo, home, &Settings::load_home(home)?, run)
    }

    /// [`Config::load`] with the fabro home's `settings.toml` already read, so that a command
    /// that resolves several configurations reads it once.
    pub fn resolve(
        repo: &Repo,
        home: &Path,
        settings: &Settings,
        run: Option<&Settings>,
    ) -> Result<Config> {
        let layers = [run, Some(settings)];
        let author = |pick: fn(&AuthorSettings) -> Option<&String>| {
            layers
                .iter()
                .flatten()
                .find_map(|s| s.git.author.as_ref().and_then(pick).cloned())
        };
        let name = author(|a| a.name.as_ref())
            .or_else(|| repo.config_string(AUTHOR_NAME_KEY))
            .unwrap_or_else(|| DEFAULT_AUTHOR_NAME.to_owned());
        let email = author(|a| a.email.as_ref())
            .or_else(|| repo.config_string(AUTHOR_EMAIL_KEY))
            .unwrap_or_else(|| DEFAULT_AUTHOR_EMAIL.to_owned());
        // The run's list replaces the settings list (FORMAT.md), it does not extend it.
        let exclude_globs = layers
            .iter()
            .flatten()
            .find_map(|s| s.checkpoint.exclude_globs.clone())
            .unwrap_or_else(|| repo.config_strings(EXCLUDE_GLOB_KEY));
        // A relative runs directory is taken inside the fabro home: relative to wherever the
        // command happens to run, it would land in a worktree and be captured by its run.
        let runs_dir = layers
            .iter()
            .flatten()
            .find_map(|s| s.runs.dir.clone())
            .or_else(|| repo.config_path(RUNS_DIR_KEY))
            .map_or_else(|| home.join("runs"), |dir| home.join(dir));
        let remote = layers
            .iter()
            .flatten()
            .find_map(|s| s.remote.name.clone())
            .or_else(|| repo.config_string(REMOTE_KEY))
            .unwrap_or_else(|| DEFAULT_REMOTE.to_owned());
        let max_file_size = match layers
            .iter()
            .flatten()
            .find_map(|s| s.checkpoint.max_file_size.as_ref())
        {
            Some(size) => size.bytes()?,
            None => match repo.config_string(MAX_FILE_SIZE_KEY) {
                Some(text) => {
                    parse_size(&text).ok_or_else(|| bad_size(MAX_FILE_SIZE_KEY, &text))?
                }
                None => DEFAULT_MAX_FILE_SIZE,
            },
        };
        let watch_worktree = match layers
            .iter()
            .flatten()
            .find_map(|s| s.checkpoint.watch_worktree)
        {
            Some(watch) => watch,
            None => repo.config_bool(WATCH_WORKTREE_KEY)?.unwrap_or(true),
        };
        let env_pass = env_pass(repo, &layers)?;
        let rules = settings
            .redact
            .patterns
            .iter()
            .flatten()
            .map(|text| UserRule::parse(text))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|problem| {
                Error::Usage(format!(
                    "[redact] patterns: {problem}; fix it in settings.toml"
                ))
            })?;
        let redactor = Redactor::with_environment(rules, std::env::vars_os());
        let worktree_layers = layers.map(|layer| layer.map(|s| &s.worktrees));
        Ok(Config {
            identity: Identity { name, email },
            exclude_globs,
            runs_dir,
            remote,
            max_file_size,
            home: home.to_owned(),
            // A machine's retention, never a run's: only settings.toml decides it.
            gc_finished_older_than: settings.gc.finished_older_than.clone(),
            agent_command: run
                .and_then(|s| s.agent.command.clone())
                .or_else(|| repo.config_string(AGENT_COMMAND_KEY))
                .or_else(|| settings.agent.command.clone())
                .filter(|c| !c.trim().is_empty()),
            env_pass,
            hooks: hooks::merge(&settings.hooks, run.map_or(&[], |r| &r.hooks)),
            build_dirs: worktrees::build_dirs(repo, &worktree_layers)?,
            seed_build: worktrees::seed_build(repo, &worktree_layers)?,
            watch_worktree,
            redactor: std::sync::Arc::new(redactor),
        })
    }

    /// What snapshots of `workdir` leave out: the defaults, the globs, and the fabro home and
    /// runs directory when they lie inside it (a run must never capture its own state).
    pub(crate) fn excludes(&self, workdir: &Path) -> crate::git::Excludes {
        let mut globs = self.exclude_globs.clone();
        let workdir = std::fs::canonicalize(workdir).unwrap_or_else(|_| workdir.to_owned());
        for dir in [&self.home, &self.runs_dir] {
            let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone());
            if let Ok(inside) = dir.strip_prefix(&workdir)
                && !inside.as_os_str().is_empty()
            {
                globs.push(format!("/{}/", inside.to_string_lossy()));
            }
        }
        globs.extend(crate::format::agent_settings::never_captured(&workdir));
        crate::git::Excludes::new(&globs)
    }
}

/// Every `[env] pass` entry of the layers and of git config, each checked.
fn env_pass(repo: &Repo, layers: &[Option<&Settings>]) -> Result<Vec<String>> {
    let mut names: Vec<String> = layers
        .iter()
        .flatten()
        .filter_map(|s| s.env.pass.clone())
        .flatten()
        .chain(repo.config_strings(ENV_PASS_KEY))
        .collect();
    if let Some(problem) = names.iter().find_map(|name| pass_problem(name)) {
        return Err(Error::Usage(format!(
            "[env] pass: {problem}; fix it in run.toml, settings.toml or `git config {ENV_PASS_KEY}`"
        )));
    }
    names.sort();
    names.dedup();
    Ok(names)
}

/// What is wrong with `pattern` as an `[env] pass` entry: not a variable name (with an
/// optional final `*`), or one of the variables that would point nodes at another repository
/// than the run's worktree (they never reach a node; a pattern such as `GIT_*` passes the
/// others).
fn pass_problem(pattern: &str) -> Option<String> {
    let name = pattern.strip_suffix('*').unwrap_or(pattern);
    let is_name = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !is_name {
        return Some(format!(
            "{pattern:?} is not a variable name (letters, digits and `_`, optionally ending in `*`)"
        ));
    }
    if name == pattern && crate::git::redirects::redirects_repository(name.as_ref()) {
        return Some(format!(
            "{pattern} would point nodes at another repository than the run's worktree, so it never reaches them"
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::Settings;
    use std::path::Path;

    #[test]
    fn unknown_keys_and_bad_toml_name_file_and_line() {
        let err = Settings::parse("[checkpoint]\nexclude_glob = []\n", Path::new("run.toml"))
            .unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("run.toml") && text.contains("line 2"),
            "{text}"
        );
        let err = Settings::parse("[checkpoint\n", Path::new("settings.toml")).unwrap_err();
        assert!(err.to_string().contains("line 1"), "{err}");
    }

    #[test]
    fn pass_entries_are_names_and_never_redirects() {
        assert_eq!(super::pass_problem("NPM_TOKEN"), None);
        assert_eq!(super::pass_problem("MY_*"), None);
        assert_eq!(super::pass_problem("GIT_*"), None);
        for bad in ["", "*", "A-B", "1X", "A=B", "GIT_DIR", "GIT_CONFIG_COUNT"] {
            assert!(super::pass_problem(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn reads_exclude_globs_and_author() {
        let s = Settings::parse(
            "[checkpoint]\nexclude_globs = [\"*.log\"]\n[git.author]\nname = \"Bot\"\n",
            Path::new("run.toml"),
        )
        .unwrap();
        assert_eq!(
            s.checkpoint.exclude_globs.unwrap(),
            vec!["*.log".to_owned()]
        );
        assert_eq!(s.git.author.unwrap().name.as_deref(), Some("Bot"));
    }
}
