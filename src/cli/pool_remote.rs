//! What the pool commands share: the shared remote they work with when none is named
//! (`[remote] pool` of settings.toml, else the remote `push` and `fetch` use), and the
//! executor that `submit` and `resume --remote` start a worker with.

use anyhow::Result;

use super::Ctx;
use crate::error::Error;
use crate::format::run_id::RunId;
use crate::ops::pool::executor::{self, Started};
use crate::run::RunState;

impl Ctx {
    /// `given`, else the configured pool remote.
    pub fn pool_remote(&self, given: Option<&str>) -> Result<String> {
        if let Some(given) = given {
            return Ok(given.to_owned());
        }
        if let Some(pool) = &self.settings()?.remote.pool {
            return Ok(pool.clone());
        }
        Ok(self.base_config()?.remote)
    }

    /// `given`, else `[executor] default`: the executor to start a worker with, if any.
    pub fn executor(&self, given: Option<String>) -> Result<Option<String>> {
        match given {
            Some(given) => Ok(Some(given)),
            None => Ok(self.settings()?.executor.default.clone()),
        }
    }

    /// The sha256 of what run `state` executes (its workflow, the values it renders it with)
    /// that this machine approved: a worker started from here runs exactly that.
    pub fn approved_here(&self, state: &RunState) -> Vec<String> {
        let texts = crate::engine::trusted::texts(&state.record);
        texts
            .into_iter()
            .filter(|(_, text)| crate::ops::trust::is_approved(&self.home, text.as_bytes()))
            .map(|(_, text)| crate::ops::start::sha256_hex(text.as_bytes()))
            .collect()
    }

    /// Starts a worker for run `id`, queued on `remote`, with executor `kind`. A failure
    /// leaves the run queued, and says how to start one another way.
    pub fn start_worker(
        &self,
        id: &RunId,
        remote: &str,
        kind: &str,
        approved: Vec<String>,
    ) -> Result<Started> {
        let settings = self.settings()?;
        let launch = executor::Launch {
            repo: &self.repo,
            home: &self.home,
            run: id,
            remote,
            ttl: settings.lease.ttl()?,
            approved,
            settings: &settings.executor,
        };
        Ok(
            executor::start(kind, &launch).map_err(|err| Error::ExecutorFailed {
                run: id.to_string(),
                remote: remote.to_owned(),
                executor: kind.to_owned(),
                why: err.to_string(),
            })?,
        )
    }
}
