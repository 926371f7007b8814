//! Sizes as the settings files and git config write them: bytes, or a number with a unit.

use serde::Deserialize;

use crate::error::{Error, Result};

/// A size in `settings.toml` or `run.toml`: bytes, or text with a unit.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum Size {
    Bytes(u64),
    Text(String),
}

impl Size {
    pub(super) fn bytes(&self) -> Result<u64> {
        match self {
            Size::Bytes(bytes) => Ok(*bytes),
            Size::Text(text) => parse_size(text).ok_or_else(|| bad_size("max_file_size", text)),
        }
    }
}

pub(super) fn bad_size(key: &str, text: &str) -> Error {
    Error::Usage(format!(
        "{key} = {text:?} is not a size; use bytes or a number with a unit: 512k, 50M, 2G \
         (powers of 1024, as git reads them), 1KiB, 1MiB, 1GiB, or 1kB, 1MB, 1GB (powers of 1000)"
    ))
}

/// `50M`, `2g`, `512k` (powers of 1024, as git reads sizes in config), `1MiB` (the same
/// written out), `1MB` or `1kB` (powers of 1000, as the SI units mean), or a number of bytes,
/// with or without a `B`. Units ignore case; a space may separate them from the number.
pub fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let factor: u64 = match unit.trim_start().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        _ => return None,
    };
    number.parse::<u64>().ok()?.checked_mul(factor)
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes_read_like_git_config() {
        assert_eq!(parse_size("50M"), Some(50 << 20));
        assert_eq!(parse_size("1024"), Some(1024));
        assert_eq!(parse_size("2g"), Some(2 << 30));
        assert_eq!(parse_size("lots"), None);
        assert_eq!(parse_size("1MB"), Some(1_000_000));
        assert_eq!(parse_size("1MiB"), Some(1 << 20));
        assert_eq!(parse_size("512k"), Some(512 << 10));
        assert_eq!(parse_size("512 KiB"), Some(512 << 10));
        assert_eq!(parse_size("7b"), Some(7));
        for bad in [
            "",
            "M",
            "1.5M",
            "-1",
            "1TB",
            "1 M B",
            "99999999999999999999",
        ] {
            assert_eq!(parse_size(bad), None, "{bad}");
        }
    }
}
