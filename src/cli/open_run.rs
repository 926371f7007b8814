//! A run opened for a command, resolved once: which run, its state, where its files live on
//! this machine and the configuration in force for it. Commands that change a run start here
//! instead of finding each piece on their own (and reading the settings again for each).

use std::path::Path;

use anyhow::Result;

use super::Ctx;
use crate::config::{Config, RUN_FILE, Settings};
use crate::format::store::{RunDir, RunsListing};
use crate::git::Repo;
use crate::ops::finish::{FinishRequest, Finished, finish};
use crate::run::RunState;
use crate::run::workspace::{Place, Workspace};

pub struct OpenRun {
    pub state: RunState,
    /// Its worktree, or the directory it runs in place in; None when this machine has neither.
    pub workspace: Option<Workspace>,
    pub run_dir: Option<RunDir>,
    pub config: Config,
}

impl OpenRun {
    /// The workspace, for commands that cannot work without one.
    pub fn workspace(&self) -> Result<&Workspace> {
        Ok(self
            .workspace
            .as_ref()
            .ok_or_else(|| self.state.no_workspace())?)
    }

    /// Finishes the run where this machine holds it (its directory and workspace).
    pub fn finish(&self, repo: &Repo, request: &FinishRequest) -> Result<Finished> {
        Ok(finish(
            repo,
            &self.state,
            &self.config,
            request,
            self.run_dir.as_ref(),
            self.workspace.as_ref(),
        )?)
    }
}

impl Ctx {
    /// Opens the run named by `explicit`, else the current run.
    pub fn open_run(&self, explicit: Option<&str>) -> Result<OpenRun> {
        let id = self.run_id(explicit)?;
        let state = RunState::load(&self.repo, &id)?;
        let workspace = match Workspace::find(&self.repo, &id)? {
            Some(found) => Some(found),
            None => Workspace::after_end(&self.repo, &state)?,
        };
        let run_dir = match &workspace {
            Some(ws) => self.run_dir_of(&id, ws),
            None => self.run_dir(&id, None),
        };
        // The run directory was looked for above: none here means this machine has none.
        let config = self.config_with(&state, run_dir.as_ref())?;
        Ok(OpenRun {
            state,
            workspace,
            run_dir,
            config,
        })
    }

    /// The run's local directory, found next to its worktree when it has one.
    pub fn run_dir_of(&self, id: &crate::format::run_id::RunId, ws: &Workspace) -> Option<RunDir> {
        let worktree = (ws.place == Place::Worktree).then_some(ws.path.as_path());
        self.run_dir(id, worktree)
    }

    /// The run's local directory, if this machine has one.
    pub fn run_dir(
        &self,
        id: &crate::format::run_id::RunId,
        worktree: Option<&Path>,
    ) -> Option<RunDir> {
        RunDir::locate(
            &self.base_config().ok()?.runs_dir,
            id,
            self.env.run_dir.as_deref(),
            worktree,
            || self.repo.main_path(),
        )
    }

    /// The runs directory listed once, for looking up many runs' directories.
    pub fn runs_listing(&self) -> Option<RunsListing> {
        Some(RunsListing::read(&self.base_config().ok()?.runs_dir))
    }

    /// The run's local directory, looked for in `listing`, when it may hold a file `name`.
    pub fn run_dir_holding(
        &self,
        listing: &RunsListing,
        id: &crate::format::run_id::RunId,
        worktree: Option<&Path>,
        name: &str,
    ) -> Option<RunDir> {
        let named = self.env.run_dir.as_deref();
        if !RunDir::may_hold(listing, id, named, worktree, name) {
            return None;
        }
        RunDir::locate_listed(&listing, id, named, worktree, || self.repo.main_path())
    }

    /// The configuration in force for a run: its `run.toml` over the other layers. Without
    /// `run_dir`, the run's directory on this machine is looked for.
    pub fn config(&self, state: &RunState, run_dir: Option<&RunDir>) -> Result<Config> {
        let found = match run_dir {
            Some(_) => None,
            None => self.local_run_dir(&state.id),
        };
        self.config_with(state, run_dir.or(found.as_ref()))
    }

    /// [`Ctx::config`] with the run directory already looked for.
    fn config_with(&self, state: &RunState, run_dir: Option<&RunDir>) -> Result<Config> {
        let run = self.run_settings(state, run_dir)?;
        Ok(Config::resolve(
            &self.repo,
            &self.home,
            self.settings()?,
            run.as_ref(),
        )?)
    }

    /// The configuration for commands that are not about one run, resolved once.
    pub fn base_config(&self) -> Result<Config> {
        if let Some(config) = self.base.get() {
            return Ok(config.clone());
        }
        let config = Config::resolve(&self.repo, &self.home, self.settings()?, None)?;
        Ok(self.base.get_or_init(|| config).clone())
    }

    /// The fabro home's `settings.toml`, read once.
    pub(super) fn settings(&self) -> Result<&Settings> {
        if let Some(settings) = self.settings.get() {
            return Ok(settings);
        }
        let settings = Settings::load_home(&self.home)?;
        Ok(self.settings.get_or_init(|| settings))
    }

    /// The run's `run.toml`: the run directory's copy, else what the copy on the metadata
    /// branch, which may come from another clone, may decide here.
    fn run_settings(&self, state: &RunState, run_dir: Option<&RunDir>) -> Result<Option<Settings>> {
        if let Some(path) = run_dir
            .map(|d| d.path.join(RUN_FILE))
            .filter(|p| p.is_file())
        {
            return Ok(Some(Settings::load(&path)?));
        }
        let limit = crate::input::MAX_DEFINITION;
        match self.repo.blob_at_most(state.meta_tree, RUN_FILE, limit)? {
            Some(bytes) => {
                let origin = format!("run.toml of run {}", state.id);
                let recorded =
                    Settings::parse(&String::from_utf8_lossy(&bytes), Path::new(&origin))?;
                Ok(Some(recorded.recorded()))
            }
            None => Ok(None),
        }
    }

    /// The run's directory on this machine, next to its workspace or in the runs directory.
    fn local_run_dir(&self, id: &crate::format::run_id::RunId) -> Option<RunDir> {
        match Workspace::locate(&self.repo, id) {
            Ok(Some((path, Place::Worktree))) => self.run_dir(id, Some(&path)),
            _ => self.run_dir(id, None),
        }
    }
}
