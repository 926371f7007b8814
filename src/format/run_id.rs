//! Run ids are ULIDs (FORMAT.md, Run ids): 26 upper-case Crockford base32 characters, minted
//! here, accepted from users as any unambiguous prefix of at least four characters.

use std::fmt;

use crate::error::{Error, Result};

/// The smallest prefix a user may abbreviate a run id to.
pub(crate) const MIN_PREFIX: usize = 4;
const LEN: usize = 26;
const ALPHABET: &str = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

#[derive(
    Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(try_from = "String", into = "String")]
pub struct RunId(String);

impl RunId {
    pub(crate) fn mint() -> RunId {
        RunId(new_ulid().to_string())
    }

    /// A full run id, exactly as FORMAT.md spells it.
    pub fn parse(text: &str) -> Result<RunId> {
        if text.len() == LEN && text.chars().all(|c| ALPHABET.contains(c)) {
            Ok(RunId(text.to_owned()))
        } else {
            Err(Error::Usage(format!(
                "{text:?} is not a run id (26 characters of Crockford base32)"
            )))
        }
    }

    /// Normalises what a user typed into the upper-case prefix to look for.
    pub fn prefix(text: &str) -> Result<String> {
        let upper = text.to_ascii_uppercase();
        if upper.len() < MIN_PREFIX
            || upper.len() > LEN
            || !upper.chars().all(|c| ALPHABET.contains(c))
        {
            return Err(Error::RunNotFound(text.to_owned()));
        }
        Ok(upper)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The form shown to people: the first eight characters.
    pub fn short(&self) -> &str {
        &self.0[..8]
    }
}

/// A new ULID: the time now and 80 bits from the system's random source, taken straight from
/// it: a random generator's set-up asks the processor for its features, which costs
/// microseconds on a virtual machine, and one id needs no generator.
pub(crate) fn new_ulid() -> ulid::Ulid {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let mut bytes = [0u8; 16];
    let random = match getrandom::fill(&mut bytes) {
        Ok(()) => u128::from_le_bytes(bytes),
        // With no random source at all (a sandbox may deny it), the nanoseconds and the
        // process id still tell two ids apart.
        Err(_) => now.as_nanos() ^ (u128::from(std::process::id()) << 64),
    };
    let millis = u64::try_from(now.as_millis()).unwrap_or(u64::MAX);
    ulid::Ulid::from_parts(millis, random)
}

impl fmt::Display for RunId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for RunId {
    type Error = Error;
    fn try_from(value: String) -> Result<Self> {
        RunId::parse(&value)
    }
}

impl From<RunId> for String {
    fn from(id: RunId) -> String {
        id.0
    }
}

#[cfg(test)]
mod tests {
    use super::RunId;

    #[test]
    fn minted_ids_parse_back() {
        let id = RunId::mint();
        assert_eq!(RunId::parse(id.as_str()).unwrap(), id);
        assert_eq!(id.short().len(), 8);
    }

    #[test]
    fn minted_ids_start_with_the_time_and_differ() {
        let now = || {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_millis() as u64
        };
        let before = now();
        let (first, second) = (RunId::mint(), RunId::mint());
        let minted = ulid::Ulid::from_string(first.as_str())
            .unwrap()
            .timestamp_ms();
        assert!((before..=now()).contains(&minted));
        assert_ne!(first, second);
    }

    #[test]
    fn prefixes_are_case_insensitive_and_bounded() {
        assert_eq!(RunId::prefix("01jk").unwrap(), "01JK");
        assert!(RunId::prefix("01J").is_err());
        assert!(RunId::prefix("01JK!").is_err());
        assert!(RunId::parse("01JKXYZ").is_err());
    }
}
