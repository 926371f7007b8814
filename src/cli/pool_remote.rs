//! The shared remote the pool commands (`submit`, `worker`, `ps --remote`, `resume --remote`,
//! `gc --remote`) work with when none is named: `[remote] pool` of settings.toml, else the
//! remote `push` and `fetch` use.

use anyhow::Result;

use super::Ctx;

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
}
