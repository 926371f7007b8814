"""LangGraph checkpointers that keep every checkpoint in git, through `git fabro store`.

A thread is a git-fabro run and each checkpoint a commit, so `git fabro log`, `diff`,
`push` and `fetch` work on threads as on any run. With `track_files=True` each checkpoint
also records the files of the directory, and going back to a checkpoint (time travel)
gives back the files as they were then. See git-fabro's docs/langgraph.md.
"""

from __future__ import annotations

import asyncio
import builtins
import os
import random
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, AbstractContextManager
from types import TracebackType
from typing import Any, TypeVar, cast

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    DeltaChannelHistory,
    PendingWrite,
    get_checkpoint_id,
    get_checkpoint_metadata,
)
from langgraph.checkpoint.serde.base import SerializerProtocol

from ._client import GitFabroStoreError, GitFabroStoreExited, JSONObject, StoreProcess
from ._wire import EMPTY, StoredTuple, parse_tuple, typed_json

__all__ = ["AsyncGitFabroSaver", "GitFabroSaver", "GitFabroStoreError", "GitFabroStoreExited"]

_Saver = TypeVar("_Saver", bound="GitFabroSaver")


class GitFabroSaver(
    BaseCheckpointSaver[str],
    AbstractContextManager["GitFabroSaver"],
    AbstractAsyncContextManager["GitFabroSaver"],
):
    """A checkpointer whose threads live in the git repository (or folder) `directory`.

    It runs one `git fabro store` process for its lifetime, started on the first request
    with `directory` as its working directory, and ended by `close()` or by leaving a
    `with` (or `async with`) block. Its sync and async methods both work, from any thread:
    requests are sent one at a time, and the async ones wait in a worker thread, so a graph
    run with `invoke` or with `ainvoke` can use the same saver.

    Args:
        directory: The repository the threads belong to (outside git, a folder, which
            git-fabro gives a shadow repository).
        track_files: Record the files of `directory` with each checkpoint of a thread's
            root namespace, and put them back when an older checkpoint is read (as a
            graph does when it resumes, forks or updates state from one).
        serde: The serializer for checkpoints and channel values (LangGraph's default
            when None).
        binary: The git-fabro executable; else `$GIT_FABRO`, else `git-fabro` on PATH.

    Raises:
        GitFabroStoreError: from any method, when the store refuses a request (its `code`
            says why); `GitFabroStoreExited` when the store process ended.
    """

    def __init__(
        self,
        directory: str | os.PathLike[str],
        *,
        track_files: bool = False,
        serde: SerializerProtocol | None = None,
        binary: str | os.PathLike[str] | None = None,
    ) -> None:
        super().__init__(serde=serde)
        self.directory = os.path.abspath(os.fspath(directory))
        self.track_files = track_files
        self._store = StoreProcess(self.directory, track_files=track_files, binary=binary)

    # -- lifetime ---------------------------------------------------------------------------

    def close(self) -> None:
        """End the store process: close its input and wait for it to exit.

        The saver stays usable: its next request starts a new process.
        """
        self._store.close()

    def __enter__(self: _Saver) -> _Saver:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    async def __aenter__(self: _Saver) -> _Saver:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await asyncio.to_thread(self.close)

    # -- sync interface ---------------------------------------------------------------------

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """The checkpoint `config` names, or its namespace's newest without a checkpoint_id.

        With `track_files`, reading a root-namespace checkpoint other than the thread's
        newest puts that checkpoint's files back in the directory.
        """
        configurable = config["configurable"]
        reply = self._store.request(
            {
                "op": "get",
                "thread": str(configurable["thread_id"]),
                "ns": configurable.get("checkpoint_ns", ""),
                "checkpoint_id": get_checkpoint_id(config),
            }
        )
        found = reply.get("checkpoint")
        return None if found is None else self._load(parse_tuple(found))

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        """Checkpoints newest first: of `config`'s thread (every thread when None), of its
        `checkpoint_ns` (every namespace when the key is absent), only its `checkpoint_id`
        when it has one, whose metadata matches `filter`, older than `before`'s."""
        query: JSONObject = {"op": "list"}
        if config is not None:
            configurable = config["configurable"]
            query["thread"] = str(configurable["thread_id"])
            if "checkpoint_ns" in configurable:
                query["ns"] = configurable["checkpoint_ns"]
            if checkpoint_id := get_checkpoint_id(config):
                query["checkpoint_id"] = checkpoint_id
        if filter:
            query["filter"] = filter
        if before is not None and (before_id := get_checkpoint_id(before)):
            query["before"] = before_id
        if limit is not None:
            if limit <= 0:
                return
            query["limit"] = limit
        for line in self._store.request_list(query):
            yield self._load(parse_tuple(line.get("checkpoint")))

    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Store a checkpoint as a child of `config`'s checkpoint_id (if any).

        Each channel in `new_versions` gets a blob of its value; the rest of the checkpoint
        is stored whole, channel versions included, so they come back as they were given.
        The metadata is sent as JSON and must be JSON-encodable.
        """
        configurable = config["configurable"]
        thread_id = configurable["thread_id"]
        checkpoint_ns: str = configurable.get("checkpoint_ns", "")
        values = checkpoint["channel_values"]
        without_values = {k: v for k, v in checkpoint.items() if k != "channel_values"}
        request: JSONObject = {
            "op": "put",
            "thread": str(thread_id),
            "ns": checkpoint_ns,
            "checkpoint_id": checkpoint["id"],
            "parent_id": get_checkpoint_id(config),
            "checkpoint": typed_json(self.serde.dumps_typed(without_values)),
            "metadata": get_checkpoint_metadata(config, metadata),
            "channel_versions": {
                channel: str(version)
                for channel, version in checkpoint["channel_versions"].items()
            },
            "blobs": [
                {
                    "channel": channel,
                    "version": str(version),
                    "value": typed_json(
                        self.serde.dumps_typed(values[channel])
                        if channel in values
                        else (EMPTY, b"")
                    ),
                }
                for channel, version in new_versions.items()
            ],
        }
        self._store.request(request)
        return {
            "configurable": {
                "thread_id": thread_id,
                "checkpoint_ns": checkpoint_ns,
                "checkpoint_id": checkpoint["id"],
            }
        }

    def put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Store a task's pending writes at `config`'s checkpoint.

        LangGraph's special channels (errors, interrupts, resumes, scheduled) get their
        fixed negative index and replace what the task wrote there before; every other
        write is kept once per task and index, so a retried task does not double it.

        LangGraph saves a checkpoint in the background while the next step runs (its
        default, "async" durability), so a task's writes can come before the checkpoint
        they belong to: the store keeps them, and gives them back once it comes.
        """
        configurable = config["configurable"]
        request: JSONObject = {
            "op": "put_writes",
            "thread": str(configurable["thread_id"]),
            "ns": configurable.get("checkpoint_ns", ""),
            "checkpoint_id": configurable["checkpoint_id"],
            "task_id": task_id,
            "task_path": task_path,
            "writes": [
                {
                    "idx": WRITES_IDX_MAP.get(channel, idx),
                    "channel": channel,
                    "value": typed_json(self.serde.dumps_typed(value)),
                }
                for idx, (channel, value) in enumerate(writes)
            ],
        }
        self._store.request(request)

    def delete_thread(self, thread_id: str) -> None:
        """Delete the thread: its run is archived and collected, no ref of it is left."""
        self._store.request({"op": "delete_thread", "thread": str(thread_id)})

    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Delete, in every thread, the checkpoints (and writes) whose metadata's `run_id`
        is one of `run_ids`."""
        self._store.request({"op": "delete_for_runs", "run_ids": [str(r) for r in run_ids]})

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """Make `target_thread_id` a fork of `source_thread_id` holding all its checkpoints
        and writes. A target that exists already is refused (code `usage`)."""
        self._store.request(
            {"op": "copy_thread", "source": str(source_thread_id), "target": str(target_thread_id)}
        )

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """`keep_latest`: keep each namespace's newest checkpoint (and its writes);
        `delete`: delete the threads."""
        self._store.request(
            {"op": "prune", "threads": [str(t) for t in thread_ids], "strategy": strategy}
        )

    def get_delta_channel_history(
        self, *, config: RunnableConfig, channels: Sequence[str]
    ) -> Mapping[str, DeltaChannelHistory]:
        """For each of `channels` (LangGraph's `DeltaChannel`s), the writes stored at the
        ancestors of `config`'s checkpoint back to the nearest one that holds a value of
        the channel, its seed.

        It reads the ancestors with `list`, not `get_tuple`, so that with `track_files`
        rebuilding a channel never puts an ancestor's files back in the directory.
        """
        open_channels = set(channels)
        newest_first: dict[str, builtins.list[PendingWrite]] = {c: [] for c in channels}
        seeds: dict[str, Any] = {}
        target = self._peek(config)
        parent = target.parent_config if target is not None else None
        while parent is not None and open_channels:
            ancestor = self._peek(parent)
            if ancestor is None:
                break
            for write in reversed(ancestor.pending_writes or []):
                if write[1] in open_channels:
                    newest_first[write[1]].append(write)
            values = ancestor.checkpoint["channel_values"]
            for channel in open_channels & values.keys():
                seeds[channel] = values[channel]
                open_channels.discard(channel)
            parent = ancestor.parent_config
        histories: dict[str, DeltaChannelHistory] = {}
        for channel in channels:
            history: DeltaChannelHistory = {"writes": newest_first[channel][::-1]}
            if channel in seeds:
                history["seed"] = seeds[channel]
            histories[channel] = history
        return histories

    def get_next_version(self, current: str | None, channel: None) -> str:
        """A version that sorts after `current` as a string: a zero-padded counter, then a
        random fraction so that two writers never make the same version."""
        if current is None:
            counter = 0
        elif isinstance(current, int):
            counter = current
        else:
            counter = int(current.split(".", 1)[0])
        return f"{counter + 1:032}.{random.random():016}"

    # -- async interface --------------------------------------------------------------------

    async def aget_delta_channel_history(
        self, *, config: RunnableConfig, channels: Sequence[str]
    ) -> Mapping[str, DeltaChannelHistory]:
        """`get_delta_channel_history`, waiting in a worker thread."""
        return await asyncio.to_thread(
            lambda: self.get_delta_channel_history(config=config, channels=channels)
        )

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """`get_tuple`, waiting in a worker thread."""
        return await asyncio.to_thread(self.get_tuple, config)

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        """`list`, waiting in a worker thread for the whole reply."""
        found = await asyncio.to_thread(
            lambda: builtins.list(self.list(config, filter=filter, before=before, limit=limit))
        )
        for item in found:
            yield item

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """`put`, waiting in a worker thread."""
        return await asyncio.to_thread(self.put, config, checkpoint, metadata, new_versions)

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """`put_writes`, waiting in a worker thread."""
        await asyncio.to_thread(self.put_writes, config, writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        """`delete_thread`, waiting in a worker thread."""
        await asyncio.to_thread(self.delete_thread, thread_id)

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        """`delete_for_runs`, waiting in a worker thread."""
        await asyncio.to_thread(self.delete_for_runs, run_ids)

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """`copy_thread`, waiting in a worker thread."""
        await asyncio.to_thread(self.copy_thread, source_thread_id, target_thread_id)

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """`prune`, waiting in a worker thread."""
        await asyncio.to_thread(self.prune, thread_ids, strategy=strategy)

    # -- reading replies --------------------------------------------------------------------

    def _peek(self, config: RunnableConfig) -> CheckpointTuple | None:
        """The checkpoint `get_tuple` would give, read with `list`, which puts no files back."""
        configurable = config["configurable"]
        exact: RunnableConfig = {
            "configurable": {
                "thread_id": configurable["thread_id"],
                "checkpoint_ns": configurable.get("checkpoint_ns", ""),
                "checkpoint_id": get_checkpoint_id(config),
            }
        }
        return next(self.list(exact, limit=1), None)

    def _load(self, stored: StoredTuple) -> CheckpointTuple:
        """A stored tuple deserialized: the checkpoint with its channel values put back."""
        checkpoint: Checkpoint = self.serde.loads_typed(stored.checkpoint)
        checkpoint["channel_values"] = {
            channel: self.serde.loads_typed(blob)
            for channel, blob in stored.blobs.items()
            if blob[0] != EMPTY
        }
        return CheckpointTuple(
            config=self._config(stored, stored.checkpoint_id),
            checkpoint=checkpoint,
            metadata=cast(CheckpointMetadata, stored.metadata),
            parent_config=(
                None if stored.parent_id is None else self._config(stored, stored.parent_id)
            ),
            pending_writes=[
                (write.task_id, write.channel, self.serde.loads_typed(write.value))
                for write in stored.writes
            ],
        )

    @staticmethod
    def _config(stored: StoredTuple, checkpoint_id: str) -> RunnableConfig:
        return {
            "configurable": {
                "thread_id": stored.thread,
                "checkpoint_ns": stored.ns,
                "checkpoint_id": checkpoint_id,
            }
        }


class AsyncGitFabroSaver(GitFabroSaver):
    """The same saver, named for code that runs graphs with `ainvoke` and opens its
    checkpointer with `async with`, as LangGraph's other async savers are.

    Its async methods wait for the store in a worker thread, never blocking the event
    loop; its sync methods work too (they block the calling thread for one request),
    unlike `AsyncSqliteSaver`'s, which refuse to run on the event loop's thread.
    """
