//! Timestamps as FORMAT.md writes them: RFC 3339 in UTC with millisecond precision.
//! Hand-rolled because the civil-date arithmetic is twenty lines and no timezone is involved.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Timestamp {
    /// Milliseconds since the Unix epoch.
    pub millis: i64,
}

impl Timestamp {
    pub fn now() -> Timestamp {
        let since = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or(Duration::ZERO);
        Timestamp {
            millis: since.as_millis() as i64,
        }
    }

    pub fn from_seconds(seconds: i64) -> Timestamp {
        Timestamp {
            millis: seconds * 1000,
        }
    }

    pub fn seconds(self) -> i64 {
        self.millis.div_euclid(1000)
    }

    /// `2026-11-21T05:35:27.123Z`
    pub fn rfc3339(self) -> String {
        let (date, secs_of_day) = self.civil();
        let ms = self.millis.rem_euclid(1000);
        format!(
            "{date}T{:02}:{:02}:{:02}.{ms:03}Z",
            secs_of_day / 3600,
            secs_of_day / 60 % 60,
            secs_of_day % 60
        )
    }

    /// `20261121`, the prefix of run directory names.
    pub fn yyyymmdd(self) -> String {
        self.civil().0.replace('-', "")
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff...](Z|+00:00)`; other offsets are refused.
    pub fn parse_rfc3339(text: &str) -> Option<Timestamp> {
        let (date, time) = text.split_once(['T', 't', ' '])?;
        let mut parts = date.splitn(3, '-');
        let year: i64 = parts.next()?.parse().ok()?;
        let month: i64 = parts.next()?.parse().ok()?;
        let day: i64 = parts.next()?.parse().ok()?;
        let time = time
            .strip_suffix(['Z', 'z'])
            .or_else(|| time.strip_suffix("+00:00"))?;
        let (hms, fraction) = time.split_once('.').unwrap_or((time, ""));
        let mut hms = hms.splitn(3, ':');
        let h: i64 = hms.next()?.parse().ok()?;
        let m: i64 = hms.next()?.parse().ok()?;
        let s: i64 = hms.next()?.parse().ok()?;
        if !(1..=12).contains(&month) || !(1..=31).contains(&day) || h > 23 || m > 59 || s > 60 {
            return None;
        }
        let ms = match fraction.get(..3.min(fraction.len())) {
            Some("") | None => 0,
            Some(digits) => format!("{digits:0<3}").parse::<i64>().ok()?,
        };
        let days = days_from_civil(year, month, day);
        Some(Timestamp {
            millis: ((days * 86_400) + h * 3600 + m * 60 + s) * 1000 + ms,
        })
    }

    fn civil(self) -> (String, i64) {
        let secs = self.seconds();
        let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
        (format!("{y:04}-{m:02}-{d:02}"), secs.rem_euclid(86_400))
    }
}

// Howard Hinnant's days-from-civil algorithms.
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::Timestamp;

    #[test]
    fn round_trips_through_rfc3339() {
        let t = Timestamp {
            millis: 1_795_239_327_123,
        };
        let text = t.rfc3339();
        assert_eq!(text, "2026-11-21T05:35:27.123Z");
        assert_eq!(Timestamp::parse_rfc3339(&text), Some(t));
        assert_eq!(t.yyyymmdd(), "20261121");
    }

    #[test]
    fn refuses_garbage() {
        assert_eq!(Timestamp::parse_rfc3339("yesterday"), None);
        assert_eq!(Timestamp::parse_rfc3339("2026-13-01T00:00:00Z"), None);
    }
}
