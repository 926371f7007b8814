"""The shapes that travel to and from the store: typed values and checkpoint tuples.

A reply is checked here, before anything is deserialized, so that a reply of the wrong
shape is reported as the store's fault (`protocol`) and a value the serializer cannot read
as the serializer's.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any

from ._client import GitFabroStoreError, JSONObject

#: A serialized value as `SerializerProtocol.dumps_typed` makes it.
Typed = tuple[str, bytes]

#: The type of a channel's blob when the channel had no value at its new version.
EMPTY = "empty"


def typed_json(value: Typed) -> JSONObject:
    """A typed value as the protocol carries it: the type tag and base64 bytes."""
    kind, data = value
    return {"type": kind, "data": base64.b64encode(data).decode("ascii")}


@dataclass(frozen=True)
class StoredWrite:
    task_id: str
    channel: str
    value: Typed


@dataclass(frozen=True)
class StoredTuple:
    """A `TUPLE` of a reply, checked but not yet deserialized."""

    thread: str
    ns: str
    checkpoint_id: str
    parent_id: str | None
    checkpoint: Typed
    metadata: JSONObject
    blobs: dict[str, Typed]
    writes: list[StoredWrite]


def parse_tuple(obj: object) -> StoredTuple:
    """Checks a reply's `TUPLE` and takes it apart."""
    tup = _object(obj, "a checkpoint")
    parent = tup.get("parent_id")
    if parent is not None and not isinstance(parent, str):
        raise _bad("parent_id", parent)
    blobs: dict[str, Typed] = {}
    for blob in _list(tup, "blobs"):
        entry = _object(blob, "a blob")
        blobs[_str(entry, "channel")] = _typed(entry.get("value"))
    return StoredTuple(
        thread=_str(tup, "thread"),
        ns=_str(tup, "ns"),
        checkpoint_id=_str(tup, "checkpoint_id"),
        parent_id=parent,
        checkpoint=_typed(tup.get("checkpoint")),
        metadata=_object(tup.get("metadata"), "metadata"),
        blobs=blobs,
        writes=[
            StoredWrite(
                task_id=_str(entry, "task_id"),
                channel=_str(entry, "channel"),
                value=_typed(entry.get("value")),
            )
            for entry in (_object(write, "a write") for write in _list(tup, "writes"))
        ],
    )


def _typed(obj: object) -> Typed:
    value = _object(obj, "a typed value")
    data = _str(value, "data")
    try:
        return _str(value, "type"), base64.b64decode(data, validate=True)
    except binascii.Error:
        raise _bad("data", data) from None


def _object(obj: object, what: str) -> JSONObject:
    if not isinstance(obj, dict):
        raise GitFabroStoreError("protocol", f"{what} in a reply is not an object: {obj!r}")
    return obj


def _str(obj: JSONObject, key: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str):
        raise _bad(key, value)
    return value


def _list(obj: JSONObject, key: str) -> list[Any]:
    value = obj.get(key)
    if not isinstance(value, list):
        raise _bad(key, value)
    return value


def _bad(key: str, value: object) -> GitFabroStoreError:
    return GitFabroStoreError("protocol", f"`{key}` in a reply is {value!r}")
