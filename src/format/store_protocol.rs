//! The messages of `git fabro store` (docs/store-protocol.md): one JSON object per line each
//! way. A serialized value travels as its type tag and its bytes in base64, and is kept as it
//! came.

use std::collections::BTreeMap;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// The version of the protocol `hello` reports.
pub(crate) const PROTOCOL: u32 = 1;

/// A value as the framework's serializer made it: its type tag and its bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Typed {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(serialize_with = "to_base64", deserialize_with = "from_base64")]
    pub data: Vec<u8>,
}

fn to_base64<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&STANDARD.encode(bytes))
}

fn from_base64<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
    let text = String::deserialize(deserializer)?;
    STANDARD
        .decode(text)
        .map_err(|err| serde::de::Error::custom(format!("data is not base64: {err}")))
}

/// A channel's value at one version.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Blob {
    pub channel: String,
    pub version: String,
    pub value: Typed,
}

/// One pending write as `put_writes` brings it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Write {
    pub idx: i64,
    pub channel: String,
    pub value: Typed,
}

/// One pending write as a tuple holds it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingWrite {
    pub task_id: String,
    pub task_path: String,
    pub idx: i64,
    pub channel: String,
    pub value: Typed,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Put {
    pub thread: String,
    #[serde(default)]
    pub ns: String,
    pub checkpoint_id: String,
    #[serde(default)]
    pub parent_id: Option<String>,
    pub checkpoint: Typed,
    #[serde(default)]
    pub metadata: Map<String, Value>,
    #[serde(default)]
    pub channel_versions: BTreeMap<String, String>,
    #[serde(default)]
    pub blobs: Vec<Blob>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PutWrites {
    pub thread: String,
    #[serde(default)]
    pub ns: String,
    pub checkpoint_id: String,
    pub task_id: String,
    #[serde(default)]
    pub task_path: String,
    pub writes: Vec<Write>,
}

/// A checkpoint as `get` and `list` give it back.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tuple {
    pub thread: String,
    pub ns: String,
    pub checkpoint_id: String,
    pub parent_id: Option<String>,
    pub checkpoint: Typed,
    pub metadata: Map<String, Value>,
    pub blobs: Vec<Blob>,
    pub writes: Vec<PendingWrite>,
}

/// What `list` asks for; an absent field asks for everything.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Query {
    #[serde(default)]
    pub thread: Option<String>,
    #[serde(default)]
    pub ns: Option<String>,
    #[serde(default)]
    pub checkpoint_id: Option<String>,
    #[serde(default)]
    pub filter: Map<String, Value>,
    #[serde(default)]
    pub before: Option<String>,
    #[serde(default)]
    pub limit: Option<usize>,
}

/// A request, by its `op`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Request {
    Hello,
    Put(Put),
    PutWrites(PutWrites),
    Get {
        thread: String,
        #[serde(default)]
        ns: String,
        #[serde(default)]
        checkpoint_id: Option<String>,
    },
    List(Query),
    DeleteThread {
        thread: String,
    },
    DeleteForRuns {
        run_ids: Vec<String>,
    },
    CopyThread {
        source: String,
        target: String,
    },
    Prune {
        threads: Vec<String>,
        #[serde(default = "keep_latest")]
        strategy: String,
    },
}

fn keep_latest() -> String {
    "keep_latest".into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_put_reads_with_its_value_bytes_decoded() {
        let line = r#"{"op": "put", "thread": "t", "checkpoint_id": "1",
            "checkpoint": {"type": "msgpack", "data": "AAH/"}}"#;
        let Request::Put(put) = serde_json::from_str(line).unwrap() else {
            panic!("not a put");
        };
        assert_eq!(put.checkpoint.data, vec![0, 1, 255]);
        assert_eq!((put.ns.as_str(), put.parent_id), ("", None));
    }

    #[test]
    fn a_value_writes_its_bytes_as_base64() {
        let value = Typed {
            kind: "bytes".into(),
            data: vec![0, 1, 255],
        };
        assert_eq!(
            serde_json::to_string(&value).unwrap(),
            r#"{"type":"bytes","data":"AAH/"}"#
        );
    }

    #[test]
    fn unknown_ops_fields_and_bad_base64_are_refused() {
        for line in [
            r#"{"op": "drop_everything"}"#,
            r#"{"op": "get", "thread": "t", "nope": 1}"#,
            r#"{"op": "put", "thread": "t", "checkpoint_id": "1", "checkpoint": {"type": "x", "data": "@@"}}"#,
            r#"{"thread": "t"}"#,
        ] {
            assert!(serde_json::from_str::<Request>(line).is_err(), "{line}");
        }
    }
}
