//! The pool's settings (docs/many-machines.md): how long a lease lives, what a worker calls
//! itself and whose submissions it runs, and how `submit --executor` starts a worker. They are
//! a machine's own, so the pool commands read them from the fabro home's `settings.toml`
//! alone, never from a run's `run.toml`.

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

use crate::error::{Error, Result};

/// A lease lives this long unrenewed before another worker may take its run.
pub const DEFAULT_TTL: Duration = Duration::from_secs(60);

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LeaseSettings {
    /// `60s`, `2m`, ...: `worker --ttl`'s default.
    pub ttl: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct WorkerSettings {
    /// The worker's name in its leases (default: the host name).
    pub name: Option<String>,
    /// The SSH public keys whose signed submissions this machine's workers run, in the format
    /// of git's `gpg.ssh.allowedSignersFile` (a relative path is taken in the fabro home).
    pub allowed_signers: Option<PathBuf>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExecutorSettings {
    /// The executor `submit` starts a worker with when `--executor` is not given: `local`,
    /// `slurm`, `ssh` or `kubernetes`; unset, `submit` only queues the run.
    pub default: Option<String>,
    /// How a worker machine runs git-fabro (default `git fabro`).
    pub command: Option<String>,
    #[serde(default)]
    pub slurm: SlurmSettings,
    #[serde(default)]
    pub ssh: SshSettings,
    #[serde(default)]
    pub kubernetes: KubernetesSettings,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SlurmSettings {
    /// Options `sbatch` gets before git-fabro's own (`--partition=...`, `--time=...`).
    pub sbatch: Option<Vec<String>>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SshSettings {
    /// The hosts workers are started on, tried in turn from the one a run's id picks.
    pub hosts: Option<Vec<String>>,
    /// Options `ssh` gets before the host (`-p`, `-i`, `-o ...`).
    pub options: Option<Vec<String>>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct KubernetesSettings {
    /// The Job template (YAML) the user keeps; a relative path is taken in the repository.
    pub template: Option<PathBuf>,
    /// The command that applies it, reading it on stdin (default `kubectl apply -f -`).
    pub apply: Option<Vec<String>>,
}

/// A lease's life as `--ttl` and `[lease] ttl` write it: `500ms`, `30s`, `2m`.
pub fn parse_ttl(text: &str) -> std::result::Result<Duration, String> {
    let span: jiff::Span = text
        .parse()
        .map_err(|_| format!("{text:?} is not a duration (like 500ms, 30s, 2m)"))?;
    let millis = span
        .total(jiff::SpanTotal::from(jiff::Unit::Millisecond).days_are_24_hours())
        .map_err(|_| format!("{text:?} is not a duration"))?;
    if !(1.0..=86_400_000.0).contains(&millis) {
        return Err(format!("{text:?}: a lease lives between 1ms and a day"));
    }
    Ok(Duration::from_millis(millis as u64))
}

impl LeaseSettings {
    /// `[lease] ttl`, else the default.
    pub fn ttl(&self) -> Result<Duration> {
        match &self.ttl {
            None => Ok(DEFAULT_TTL),
            Some(text) => parse_ttl(text).map_err(|why| {
                Error::Usage(format!("[lease] ttl: {why}; fix it in settings.toml"))
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lease_life_is_a_duration_between_a_millisecond_and_a_day() {
        assert_eq!(parse_ttl("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_ttl("500ms"), Ok(Duration::from_millis(500)));
        assert!(parse_ttl("2 days").is_err());
        assert!(parse_ttl("soon").is_err());
        let settings = LeaseSettings { ttl: None };
        assert_eq!(settings.ttl().unwrap(), DEFAULT_TTL);
    }
}
