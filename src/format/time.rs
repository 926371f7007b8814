//! Timestamps as FORMAT.md writes them: RFC 3339 in UTC with millisecond precision. The
//! calendar work is jiff's (already compiled in through gix); this type only fixes the format.

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Timestamp(jiff::Timestamp);

impl Timestamp {
    pub fn now() -> Timestamp {
        Timestamp(jiff::Timestamp::now())
    }

    /// Seconds since the Unix epoch, as git records a commit's time; out of range is the epoch.
    pub(crate) fn from_seconds(seconds: i64) -> Timestamp {
        Timestamp(jiff::Timestamp::from_second(seconds).unwrap_or(jiff::Timestamp::UNIX_EPOCH))
    }

    pub(crate) fn seconds(self) -> i64 {
        self.0.as_second()
    }

    pub(crate) fn millis(self) -> i64 {
        self.0.as_millisecond()
    }

    /// `2026-11-21T05:35:27.123Z`
    pub fn rfc3339(self) -> String {
        let millis = jiff::Timestamp::from_millisecond(self.millis()).unwrap_or(self.0);
        format!("{millis:.3}")
    }

    /// `20261121`, the prefix of run directory names (the UTC date).
    pub(crate) fn yyyymmdd(self) -> String {
        self.0.strftime("%Y%m%d").to_string()
    }

    /// Parses an RFC 3339 timestamp in UTC (`Z` or `+00:00`); other offsets are refused, as
    /// FORMAT.md writes only UTC.
    pub(crate) fn parse_rfc3339(text: &str) -> Option<Timestamp> {
        let utc = text.ends_with(['Z', 'z']) || text.ends_with("+00:00");
        let parsed: jiff::Timestamp = text.parse().ok()?;
        utc.then_some(Timestamp(parsed))
    }
}

/// A duration as `--ttl` takes it back: whole seconds as `2s`, else milliseconds as `1500ms`.
pub(crate) fn short_duration(span: std::time::Duration) -> String {
    let millis = span.as_millis();
    if millis.is_multiple_of(1000) {
        format!("{}s", millis / 1000)
    } else {
        format!("{millis}ms")
    }
}

#[cfg(test)]
mod tests {
    use super::Timestamp;

    #[test]
    fn round_trips_through_rfc3339() {
        let t = Timestamp::parse_rfc3339("2026-11-21T05:35:27.123Z").unwrap();
        assert_eq!(t.millis(), 1_795_239_327_123);
        assert_eq!(t.rfc3339(), "2026-11-21T05:35:27.123Z");
        assert_eq!(t.yyyymmdd(), "20261121");
        assert_eq!(
            Timestamp::from_seconds(1_795_239_327).rfc3339(),
            "2026-11-21T05:35:27.000Z"
        );
    }

    #[test]
    fn refuses_garbage_and_other_offsets() {
        assert_eq!(Timestamp::parse_rfc3339("yesterday"), None);
        assert_eq!(Timestamp::parse_rfc3339("2026-13-01T00:00:00Z"), None);
        assert_eq!(Timestamp::parse_rfc3339("2026-11-21T05:35:27+01:00"), None);
        assert!(Timestamp::parse_rfc3339("2026-11-21T05:35:27+00:00").is_some());
    }
}
