//! The `git fabro` command line: one file per command, each an `Args` struct whose doc comment
//! is its help text and a `run` function that resolves arguments, calls one domain function and
//! renders the result. Shared plumbing (opening the repository, finding a run's worktree and
//! directory, output) lives here and in `output.rs`.

mod agent_hook;
mod agent_session;
mod agents;
mod archive;
mod checkpoint;
mod colour;
mod complete;
mod completions;
mod conversation;
mod deferred;
mod diff;
mod diff_stat;
mod examples;
mod execute;
mod fetch;
mod finish;
mod fork;
mod fsck;
mod gc;
mod gc_remote;
pub mod generate;
mod graph;
mod help;
mod hooks;
mod interview;
mod land;
mod log;
mod man;
mod open_run;
pub mod output;
mod pager;
mod path;
mod pool_remote;
mod prepare;
mod progress;
mod ps;
mod ps_remote;
mod push;
mod restore;
mod resume;
mod resume_remote;
mod rewind;
mod run;
mod run_agent;
mod run_arg;
mod show;
mod snapshot;
mod stage_progress;
mod start;
mod status;
mod store;
mod submit;
mod trust_review;
mod undo;
mod validate;
mod worker;
mod workflow_file;

use std::path::PathBuf;

use anyhow::Result;
use clap::{CommandFactory, Parser, Subcommand};

use self::deferred::Deferred;
use crate::config::{Config, Settings, fabro_home};
use crate::error::Error;
use crate::format::run_id::RunId;
use crate::format::store::RunDir;
use crate::git::{Repo, shadow};
use crate::ops::run_pid;
use crate::run::workspace::Workspace;

/// Checkpoint workflow and agent runs in git: one commit per completed node on a run branch,
/// execution state on an orphan metadata branch, timelines rebuilt from commit trailers.
#[derive(Debug, Parser)]
#[command(
    name = "git-fabro",
    bin_name = "git fabro",
    version,
    max_term_width = 100
)]
pub struct Cli {
    /// Run as if git-fabro was started in DIR instead of the current directory
    #[arg(short = 'C', value_name = "DIR", global = true)]
    pub directory: Option<PathBuf>,

    /// Print no messages for people on stderr (data, warnings and errors still appear)
    #[arg(short, long, global = true)]
    pub quiet: bool,

    /// Do not send the output of log, diff and show through a pager
    #[arg(short = 'P', long, global = true)]
    pub no_pager: bool,

    #[command(subcommand)]
    pub command: Deferred<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    Start(Deferred<start::Args>),
    Checkpoint(Deferred<checkpoint::Args>),
    Snapshot(Deferred<snapshot::Args>),
    Finish(Deferred<finish::Args>),
    Log(Deferred<log::Args>),
    Ps(Deferred<ps::Args>),
    Status(Deferred<status::Args>),
    Show(Deferred<show::Args>),
    Diff(Deferred<diff::Args>),
    Graph(Deferred<graph::Args>),
    Land(Deferred<land::Args>),
    Path(Deferred<path::Args>),
    Fork(Deferred<fork::Args>),
    Rewind(Deferred<rewind::Args>),
    Resume(Deferred<resume::Args>),
    Restore(Deferred<restore::Args>),
    Undo(Deferred<undo::Args>),
    Archive(Deferred<archive::ArchiveArgs>),
    Unarchive(Deferred<archive::UnarchiveArgs>),
    Gc(Deferred<gc::Args>),
    Fsck(Deferred<fsck::Args>),
    Push(Deferred<push::Args>),
    Fetch(Deferred<fetch::Args>),
    Submit(Deferred<submit::Args>),
    Worker(Deferred<worker::Args>),
    Store(Deferred<store::Args>),
    Hooks(Deferred<hooks::Args>),
    Validate(Deferred<validate::Args>),
    Run(Deferred<run::Args>),
    Agents(Deferred<agents::Args>),
    Completions(Deferred<completions::CompletionsArgs>),
    #[command(hide = true, name = "__complete")]
    Complete(Deferred<complete::Args>),
    #[command(hide = true)]
    GenerateDocs(Deferred<completions::GenerateDocsArgs>),
}

/// The clap definition, the one source of help, man pages and completions.
pub fn command() -> clap::Command {
    examples::attach(help::with_groups(deferred::whole(Cli::command)))
}

/// The command line. The groups and examples are help text, so they are built only when help is
/// shown: every other invocation parses against the plain definition, which starts sooner, and
/// first against only the commands it names. Should that fail, the whole plain definition
/// parses it again, so that every error and suggestion reads as it always did.
pub fn try_parse() -> Result<Cli, clap::Error> {
    use clap::FromArgMatches;
    use clap::error::ErrorKind;
    let words: Vec<_> = std::env::args_os().collect();
    let named = deferred::named(&words, Cli::command)
        .try_get_matches_from(&words)
        .and_then(|matches| Cli::from_arg_matches(&matches));
    if let Ok(cli) = named {
        return Ok(cli);
    }
    let mut plain = Cli::command();
    match plain.try_get_matches_from_mut(&words) {
        Ok(matches) => Cli::from_arg_matches(&matches),
        Err(err)
            if matches!(
                err.kind(),
                ErrorKind::DisplayHelp | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) =>
        {
            Err(command().try_get_matches_from(&words).err().unwrap_or(err))
        }
        Err(mut err) => {
            suggest_subcommand(&plain, &mut err);
            Err(err)
        }
    }
}

/// clap's "a similar subcommand exists" for a mistyped command (`lgo`), measured as every
/// other suggestion of git-fabro's is; hidden commands are never offered.
fn suggest_subcommand(command: &clap::Command, err: &mut clap::Error) {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if err.kind() != ErrorKind::InvalidSubcommand
        || err.get(ContextKind::SuggestedSubcommand).is_some()
    {
        return;
    }
    let Some(ContextValue::String(typed)) = err.get(ContextKind::InvalidSubcommand) else {
        return;
    };
    let names = command
        .get_subcommands()
        .filter(|sub| !sub.is_hide_set())
        .map(clap::Command::get_name);
    if let Some(name) = crate::format::suggest::closest(typed, names) {
        let suggestion = ContextValue::Strings(vec![name.to_owned()]);
        err.insert(ContextKind::SuggestedSubcommand, suggestion);
    }
}

/// The variable that chooses what reads timelines (`git::ObjectReader`): `gix` or `own`.
pub(crate) const OBJECT_READER_ENV: &str = "GIT_FABRO_OBJECT_READER";

pub fn run(cli: Cli) -> Result<()> {
    output::set_quiet(cli.quiet);
    if let Some(name) = std::env::var_os(OBJECT_READER_ENV).filter(|name| !name.is_empty()) {
        let reader = name.to_str().and_then(crate::git::ObjectReader::parse);
        let reader = reader.ok_or_else(|| {
            Error::Usage(format!(
                "{OBJECT_READER_ENV} is {name:?}: it takes `gix` or `own`"
            ))
        })?;
        crate::git::use_object_reader(reader);
    }
    if cli.no_pager {
        pager::disable();
    }
    // As git does for `-C`: every relative path after it (--workflow, --config, --attach,
    // --run-dir, snapshot's paths) is relative to DIR, because DIR becomes the current one.
    if let Some(dir) = &cli.directory {
        std::env::set_current_dir(dir)
            .map_err(|err| Error::Usage(format!("cannot change to {}: {err}", dir.display())))?;
    }
    let ctx = || Ctx::open(false);
    match cli.command.0 {
        Command::Start(Deferred(args)) => start::run(&Ctx::open(true)?, args),
        Command::Checkpoint(Deferred(args)) => checkpoint::run(&ctx()?, args),
        Command::Snapshot(Deferred(args)) => snapshot::run(&ctx()?, args),
        Command::Finish(Deferred(args)) => finish::run(&ctx()?, args),
        Command::Log(Deferred(args)) => log::run(&ctx()?, args),
        Command::Ps(Deferred(args)) => ps::run(&ctx()?, args),
        Command::Status(Deferred(args)) => status::run(&ctx()?, args),
        Command::Show(Deferred(args)) => show::run(&ctx()?, args),
        Command::Diff(Deferred(args)) => diff::run(&ctx()?, args),
        Command::Graph(Deferred(args)) => graph::run(ctx, args),
        Command::Land(Deferred(args)) => land::run(&ctx()?, args),
        Command::Path(Deferred(args)) => path::run(&ctx()?, args),
        Command::Fork(Deferred(args)) => fork::run(&ctx()?, args),
        Command::Rewind(Deferred(args)) => rewind::run(&ctx()?, args),
        Command::Resume(Deferred(args)) => resume::run(&ctx()?, args),
        Command::Restore(Deferred(args)) => restore::run(&ctx()?, args),
        Command::Undo(Deferred(args)) => undo::run(&ctx()?, args),
        Command::Archive(Deferred(args)) => archive::archive(&ctx()?, args),
        Command::Unarchive(Deferred(args)) => archive::unarchive(&ctx()?, args),
        Command::Gc(Deferred(args)) => gc::run(&ctx()?, args),
        Command::Fsck(Deferred(args)) => fsck::run(&ctx()?, args),
        Command::Push(Deferred(args)) => push::run(&ctx()?, args),
        Command::Fetch(Deferred(args)) => fetch::run(&ctx()?, args),
        Command::Submit(Deferred(args)) => submit::run(args),
        Command::Worker(Deferred(args)) => worker::run(&ctx()?, args),
        Command::Store(Deferred(args)) => store::run(&Ctx::open(true)?, args),
        Command::Hooks(Deferred(args)) => hooks::run(ctx, args),
        // A workflow is checked or simulated from its file alone: no repository is opened.
        Command::Validate(Deferred(args)) => validate::run(args),
        Command::Run(Deferred(args)) => run::run(args),
        Command::Agents(Deferred(args)) => agents::run(args),
        Command::Completions(Deferred(args)) => completions::completions(args),
        Command::Complete(Deferred(args)) => complete::run(ctx, args),
        Command::GenerateDocs(Deferred(args)) => completions::generate_docs(args),
    }
}

/// A child's exit code that git-fabro passes through as its own (`resume -- COMMAND`).
#[derive(Debug)]
pub struct ExitWith(pub u8);

impl std::fmt::Display for ExitWith {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the command exited with {}", self.0)
    }
}

impl std::error::Error for ExitWith {}

/// What every command works with: the repository, the fabro home, and what the environment
/// says about the run it works for.
pub(crate) struct Ctx {
    pub repo: Repo,
    pub home: PathBuf,
    pub env: RunEnv,
    /// `settings.toml` and the configuration it gives, read once per command.
    settings: std::cell::OnceCell<Settings>,
    base: std::cell::OnceCell<Config>,
    /// Every run id, to show each by its shortest unique prefix.
    abbreviations: std::cell::OnceCell<crate::run::abbrev::Abbreviations>,
    /// Without that listing, the runs near each id shown so far, by the id's first characters.
    near: std::cell::RefCell<Vec<(String, crate::run::abbrev::Abbreviations)>>,
}

/// The variables `resume -- COMMAND` sets for the command it runs, read once here so that
/// nothing below the command line reads the environment.
pub(crate) struct RunEnv {
    /// `$FABRO_RUN_ID`: the run a command without a RUN argument works on.
    pub run_id: Option<String>,
    /// `$FABRO_RUN_DIR`: that run's directory.
    pub run_dir: Option<PathBuf>,
    /// `$FABRO_RUN_PID`: the process holding that run, whose own work this command is.
    pub holder_pid: Option<u32>,
}

impl RunEnv {
    fn read() -> RunEnv {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        RunEnv {
            run_id: var("FABRO_RUN_ID"),
            run_dir: var("FABRO_RUN_DIR").map(PathBuf::from),
            holder_pid: var(run_pid::HOLDER_ENV).and_then(|pid| pid.parse().ok()),
        }
    }
}

impl Ctx {
    /// Opens the repository of the current directory. Outside git, that is the directory's
    /// shadow repository, which `start` creates when there is none.
    fn open(create_shadow: bool) -> Result<Ctx> {
        let dir =
            std::env::current_dir().map_err(Error::io("cannot read the current directory"))?;
        let home = fabro_home();
        let repo = match Repo::discover_current(&dir) {
            Ok(repo) => repo,
            Err(err @ crate::git::Error::NotARepository(_)) => match shadow::find(&home, &dir) {
                Some(repo) => repo,
                None if create_shadow => shadow::create(&home, &dir)?,
                None => return Err(Error::from(err).into()),
            },
            Err(err) => return Err(Error::from(err).into()),
        };
        Ok(Ctx {
            repo,
            home,
            env: RunEnv::read(),
            settings: std::cell::OnceCell::new(),
            base: std::cell::OnceCell::new(),
            abbreviations: std::cell::OnceCell::new(),
            near: std::cell::RefCell::default(),
        })
    }

    /// The run named by a RUN argument, else `$FABRO_RUN_ID`, else the run whose worktree
    /// holds the current directory, else the one run in place in this directory.
    pub(crate) fn run_id(&self, explicit: Option<&str>) -> Result<RunId> {
        let repo = &self.repo;
        if let Some(text) = explicit.or(self.env.run_id.as_deref()) {
            return Ok(crate::run::resolve(repo, text)?);
        }
        if let Some(id) = repo.head_branch().and_then(|b| {
            b.strip_prefix(crate::run::RUN_BRANCH_PREFIX)
                .map(ToOwned::to_owned)
        }) {
            return Ok(crate::run::resolve(repo, &id)?);
        }
        let here = repo
            .workdir()
            .and_then(|dir| std::fs::canonicalize(dir).ok());
        let mut in_place: Vec<RunId> = crate::run::workspace::registrations(repo)
            .into_iter()
            .filter(|r| std::fs::canonicalize(&r.workdir).ok() == here)
            .filter_map(|r| RunId::parse(&r.run_id).ok())
            .collect();
        match in_place.len() {
            0 => Err(Error::NoCurrentRun.into()),
            1 => Ok(in_place.remove(0)),
            _ => Err(Error::AmbiguousRun {
                prefix: "the runs in place here".into(),
                candidates: in_place.iter().map(ToString::to_string).collect(),
            }
            .into()),
        }
    }

    /// Whether the command runs in a run's worktree (its branch is a run branch).
    pub(crate) fn in_run_worktree(&self) -> bool {
        crate::run::workspace::in_run_worktree(&self.repo)
    }

    /// Refuses (exit 3) while a live process other than the one this command works for holds
    /// the run, unless `force`.
    pub(crate) fn ensure_not_held(
        &self,
        run_dir: Option<&RunDir>,
        id: &RunId,
        force: bool,
    ) -> Result<()> {
        Ok(run_pid::ensure_not_held(
            run_dir,
            id,
            force,
            self.env.holder_pid,
        )?)
    }

    /// The run's workspace on this machine: its worktree, or the directory it runs in place.
    pub(crate) fn workspace(&self, id: &RunId) -> Result<Workspace> {
        match Workspace::find(&self.repo, id)? {
            Some(workspace) => Ok(workspace),
            None => Err(crate::run::RunState::load(&self.repo, id)?
                .no_workspace()
                .into()),
        }
    }
}

/// Once a command is done with the repository, git's housekeeping may start behind it, as
/// after git's own commands that write objects.
impl Drop for Ctx {
    fn drop(&mut self) {
        self.repo.start_auto_gc_if_due();
    }
}
