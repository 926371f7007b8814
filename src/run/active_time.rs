//! How long a run was at work: its wall time less the time it stood stopped, blocked at a human
//! gate with nobody to answer or paused by Ctrl-C, until `resume` took it up again. A run held
//! at a gate overnight worked for minutes, not fourteen hours. The stops are the metadata
//! commits the engine writes when it stops (`block run at <node>`, `pause run: ...`), and a
//! stop lasts until the next metadata commit (`resume run`, or `finalize run` for a run
//! finished where it stood), so this needs git alone: no run directory, no clock of its own.

use crate::error::Result;
use crate::format::record::Conclusion;
use crate::git::{ObjectId, Repo};

/// git-fabro's key beside Fabro's `duration_ms` (wall time) in a run's conclusion.
pub const ACTIVE_MS: &str = "active_ms";

/// A concluded run's active time; a conclusion without one (Fabro's, or written before
/// git-fabro recorded it) was active all along.
pub fn of(conclusion: &Conclusion) -> u64 {
    conclusion
        .extra
        .get(ACTIVE_MS)
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(conclusion.duration_ms)
}

/// The subject of the metadata commit a run blocked at a human gate ends with.
pub const BLOCKED_SUBJECT: &str = "block run at";
/// The subject of the metadata commit a run interrupted by Ctrl-C or SIGTERM ends with.
pub const PAUSED_SUBJECT: &str = "pause run:";

/// Milliseconds between `start_ms` and `end_ms` during which the run whose metadata branch is
/// at `meta_tip` was stopped; a stop at the tip lasts until `end_ms`. Commit times are whole
/// seconds, so a stop is known to the second.
pub fn stopped_ms(repo: &Repo, meta_tip: ObjectId, start_ms: i64, end_ms: i64) -> Result<u64> {
    let mut stopped = 0;
    let mut later_ms = end_ms;
    for commit in repo.first_parents(meta_tip) {
        let commit = commit?;
        let at_ms = commit.time.saturating_mul(1000).max(start_ms);
        let subject = commit
            .message
            .split(|b| *b == b'\n')
            .next()
            .unwrap_or_default();
        if [BLOCKED_SUBJECT, PAUSED_SUBJECT]
            .iter()
            .any(|stop| subject.starts_with(stop.as_bytes()))
        {
            stopped += u64::try_from(later_ms - at_ms).unwrap_or(0);
        }
        if at_ms <= start_ms {
            break;
        }
        later_ms = at_ms;
    }
    Ok(stopped)
}

/// A run's time for people: `2m13s`, or `2m13s active, 14h12m in all` when it stood stopped
/// for part of it.
pub fn shown(active_ms: u64, total_ms: u64) -> String {
    let (active, total) = (duration(active_ms), duration(total_ms));
    if active == total {
        total
    } else {
        format!("{active} active, {total} in all")
    }
}

/// `850ms`, `4.2s`, `2m13s`, `14h12m`, `3d4h`.
pub fn duration(ms: u64) -> String {
    let seconds = ms / 1000;
    let (minutes, hours, days) = (seconds / 60, seconds / 3600, seconds / 86_400);
    match ms {
        0..1000 => format!("{ms}ms"),
        1000..60_000 => format!("{:.1}s", ms as f64 / 1000.0),
        60_000..3_600_000 => format!("{minutes}m{}s", seconds % 60),
        3_600_000..86_400_000 => format!("{hours}h{}m", minutes % 60),
        _ => format!("{days}d{}h", hours % 24),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_at_a_glance() {
        assert_eq!(duration(850), "850ms");
        assert_eq!(duration(4_210), "4.2s");
        assert_eq!(duration(133_000), "2m13s");
        assert_eq!(duration(51_120_000), "14h12m");
        assert_eq!(duration(273_600_000), "3d4h");
        assert_eq!(shown(133_000, 133_400), "2m13s");
        assert_eq!(shown(133_000, 51_120_000), "2m13s active, 14h12m in all");
    }
}
