//! `slurm`: one batch job that acts as a worker machine, `--requeue`d so that Slurm starts it
//! again elsewhere when its node fails; the lease keeps a job that Slurm gave up on but that
//! lives on from writing anything once its copy took over.

use std::process::Command;

use super::{Launch, Started, run_tool};
use crate::error::Result;

pub fn start(launch: &Launch) -> Result<Started> {
    let log = launch.log_path();
    let mut sbatch = Command::new("sbatch");
    sbatch.args(launch.settings.slurm.sbatch.iter().flatten());
    sbatch.args([
        "--parsable".to_owned(),
        "--requeue".into(),
        format!("--job-name=fabro-{}", launch.run),
        "--chdir=/tmp".into(),
        format!("--output={}", log.display()),
        format!("--wrap={}", launch.worker_script()?),
    ]);
    if let Some(dir) = log.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let job = run_tool(&mut sbatch, None)?;
    // `--parsable` prints `JOBID` or `JOBID;CLUSTER`.
    let job = job.split(';').next().unwrap_or_default().to_owned();
    Ok(Started {
        what: format!("Slurm job {job}"),
        log: Some(log.display().to_string()),
    })
}
