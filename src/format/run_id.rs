//! Run ids are ULIDs (FORMAT.md, Run ids): 26 upper-case Crockford base32 characters, minted
//! here, accepted from users as any unambiguous prefix of at least four characters.

use std::fmt;

use crate::error::{Error, Result};

/// The smallest prefix a user may abbreviate a run id to.
pub const MIN_PREFIX: usize = 4;
const LEN: usize = 26;
const ALPHABET: &str = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

#[derive(
    Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(try_from = "String", into = "String")]
pub struct RunId(String);

impl RunId {
    pub fn mint() -> RunId {
        RunId(ulid::Ulid::generate().to_string())
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
    fn prefixes_are_case_insensitive_and_bounded() {
        assert_eq!(RunId::prefix("01jk").unwrap(), "01JK");
        assert!(RunId::prefix("01J").is_err());
        assert!(RunId::prefix("01JK!").is_err());
        assert!(RunId::parse("01JKXYZ").is_err());
    }
}
