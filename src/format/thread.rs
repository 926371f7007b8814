//! A thread of an agent framework's checkpointer (LangGraph's), kept in the `thread/` folder of
//! its run's metadata tree (FORMAT.md, "Threads"): each namespace's checkpoints, their pending
//! writes and the channel values they read, as the framework serialized them. Names the
//! framework chooses become path components through [`encode`], so that no name can escape
//! its folder or trip `git fsck`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};

/// The label that makes a run a thread, and names it.
pub(crate) const THREAD_LABEL: &str = "thread_id";
/// The folder of the metadata tree that holds the thread.
pub(crate) const THREAD_DIR: &str = "thread";
/// The longest name the store takes (a thread, namespace, checkpoint, task, channel, version).
const MAX_NAME: usize = 1024;
/// The longest type tag of a serialized value.
const MAX_TYPE: usize = 128;

/// A name as a path component: `A-Z a-z 0-9 - _ :` stay, every other byte is `%XX`, and the
/// empty name is `%`. No component holds `.` or `/`, so none is `.`, `..` or `.git`.
pub(crate) fn encode(name: &str) -> String {
    if name.is_empty() {
        return "%".into();
    }
    let mut out = String::with_capacity(name.len());
    for byte in name.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_:".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The name [`encode`] made `component` from; `None` for one it cannot have made.
pub(crate) fn decode(component: &str) -> Option<String> {
    if component == "%" {
        return Some(String::new());
    }
    let mut bytes = Vec::with_capacity(component.len());
    let mut rest = component.as_bytes();
    while let Some((&first, tail)) = rest.split_first() {
        if first == b'%' {
            let hex = std::str::from_utf8(tail.get(..2)?).ok()?;
            bytes.push(u8::from_str_radix(hex, 16).ok()?);
            rest = &tail[2..];
        } else {
            bytes.push(first);
            rest = tail;
        }
    }
    String::from_utf8(bytes).ok()
}

/// Refuses a name the store cannot hold: too long, or with a NUL (git's paths end at one).
pub(crate) fn check_name(what: &str, name: &str) -> Result<()> {
    if name.len() > MAX_NAME || name.contains('\0') {
        return Err(Error::Usage(format!(
            "{what} {:?} is not a name the store takes: at most {MAX_NAME} bytes, no NUL",
            name.chars().take(40).collect::<String>()
        )));
    }
    Ok(())
}

// The paths below are inside the thread's folder.

/// Where the namespaces are, one folder each.
pub(crate) const NAMESPACES_DIR: &str = "ns";

/// `ns/<ns>`: a namespace's folder.
pub(crate) fn namespace_dir(ns: &str) -> String {
    format!("{NAMESPACES_DIR}/{}", encode(ns))
}

/// `<namespace>/checkpoints`: the namespace's checkpoints, one folder each.
pub(crate) fn checkpoints_dir(ns: &str) -> String {
    format!("{}/checkpoints", namespace_dir(ns))
}

/// `<namespace>/checkpoints/<id>`: one checkpoint's folder.
pub(crate) fn checkpoint_dir(ns: &str, id: &str) -> String {
    format!("{}/{}", checkpoints_dir(ns), encode(id))
}

/// `<namespace>/channels/<channel>/<version>`: a channel's value at one version.
pub(crate) fn channel_path(ns: &str, channel: &str, version: &str) -> String {
    format!(
        "{}/channels/{}/{}",
        namespace_dir(ns),
        encode(channel),
        encode(version)
    )
}

/// `writes/<task>.<idx>` inside a checkpoint's folder.
pub(crate) fn write_name(task_id: &str, idx: i64) -> String {
    format!("{}.{idx}", encode(task_id))
}

pub(crate) const RECORD_FILE: &str = "record.json";
pub(crate) const CHECKPOINT_FILE: &str = "checkpoint";
pub(crate) const WRITES_DIR: &str = "writes";

/// `record.json` of a checkpoint: what the store reads to list and filter without reading the
/// serialized checkpoint.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct CheckpointRecord {
    pub checkpoint_id: String,
    pub parent_id: Option<String>,
    pub metadata: serde_json::Map<String, Value>,
    /// Every channel's version in the checkpoint, whose values `channels/` holds.
    pub channel_versions: BTreeMap<String, String>,
}

/// What a stored value's first line says: its serializer's type tag and, for a pending
/// write, where it came from. The value's bytes follow the line.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub(crate) struct ValueHeader {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idx: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
}

/// Refuses a type tag the store cannot keep on its value's first line.
pub(crate) fn check_type(kind: &str) -> Result<()> {
    if kind.len() > MAX_TYPE || kind.chars().any(char::is_control) {
        return Err(Error::Usage(format!(
            "type {:?} is not a type tag the store takes: at most {MAX_TYPE} bytes, no control characters",
            kind.chars().take(40).collect::<String>()
        )));
    }
    Ok(())
}

/// A stored value: its header as one line of JSON, a newline, then its bytes as they came.
pub(crate) fn value_file(header: &ValueHeader, bytes: &[u8]) -> Result<Vec<u8>> {
    check_type(&header.kind)?;
    let mut file = serde_json::to_vec(header).map_err(|err| Error::Usage(err.to_string()))?;
    file.push(b'\n');
    file.extend_from_slice(bytes);
    Ok(file)
}

/// The header and the bytes of a stored value.
pub(crate) fn parse_value_file(file: &[u8], path: &str) -> Result<(ValueHeader, Vec<u8>)> {
    let corrupt = || Error::Corrupt(format!("{path} in a thread is not a stored value"));
    let newline = file.iter().position(|&b| b == b'\n').ok_or_else(corrupt)?;
    let header = serde_json::from_slice(&file[..newline]).map_err(|_| corrupt())?;
    Ok((header, file[newline + 1..].to_vec()))
}

/// A checkpoint's `record.json`, refused whole when it is not one.
pub(crate) fn parse_record(bytes: &[u8], path: &str) -> Result<CheckpointRecord> {
    serde_json::from_slice(bytes).map_err(|err| {
        Error::Corrupt(format!(
            "{path} in a thread is not a checkpoint record: {err}"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_never_make_a_dot_or_slash() {
        for name in [
            "", "child:1", "a|b:c", ".", "..", ".git", "x/y", "ü", "%", "1ef-2",
        ] {
            let component = encode(name);
            assert!(
                !component.contains('.') && !component.contains('/'),
                "{component}"
            );
            assert_eq!(decode(&component).as_deref(), Some(name));
        }
        assert_eq!(encode(""), "%");
        assert_eq!(encode("child:1"), "child:1");
        assert_eq!(encode("a.b"), "a%2Eb");
    }

    #[test]
    fn a_component_encode_cannot_make_is_not_decoded() {
        assert_eq!(decode("%G1"), None);
        assert_eq!(decode("%4"), None);
        assert_eq!(decode("%FF"), None);
    }

    #[test]
    fn a_value_file_keeps_its_header_and_bytes() {
        let header = ValueHeader {
            channel: Some("x".into()),
            idx: Some(-1),
            kind: "msgpack".into(),
            ..ValueHeader::default()
        };
        let file = value_file(&header, b"\x00\n\xff").unwrap();
        assert_eq!(
            parse_value_file(&file, "p").unwrap(),
            (header, b"\x00\n\xff".to_vec())
        );
        assert!(
            value_file(
                &ValueHeader {
                    kind: "a\nb".into(),
                    ..ValueHeader::default()
                },
                b""
            )
            .is_err()
        );
        assert!(parse_value_file(b"no header", "p").is_err());
    }
}
