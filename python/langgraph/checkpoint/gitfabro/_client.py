"""The `git fabro store` process a saver talks to (docs/store-protocol.md in git-fabro).

One long-lived child process per saver, started on first use, speaking one JSON object per
line each way. A lock makes each request and its whole reply one exchange, so threads (and
the async saver's worker threads) can share a saver without their lines interleaving.
"""

from __future__ import annotations

import collections
import contextlib
import json
import logging
import os
import shutil
import subprocess
import threading
from typing import IO, Any

logger = logging.getLogger("langgraph.checkpoint.gitfabro")

#: The protocol version this client speaks; `hello` must report it.
PROTOCOL = 1

JSONObject = dict[str, Any]

# How many of the store's last stderr lines an error quotes.
_STDERR_LINES = 200
# How long to wait for the store's stderr to close once it has exited.
_STDERR_GRACE = 5.0


class GitFabroStoreError(Exception):
    """A request that `git fabro store` refused or could not carry out.

    `code` is the error reply's code (`usage`, `conflict`, `corrupt`, `failed`),
    or one of the client's own: `exited` when the process ended or could not be started
    (see `GitFabroStoreExited`), `protocol` when a reply is not what the protocol says.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"git fabro store: {code}: {message}")
        self.code = code
        self.message = message


class GitFabroStoreExited(GitFabroStoreError):
    """The store process ended (or never started) while a request needed it.

    `returncode` is its exit status (negative for a signal, `None` if unknown) and `stderr`
    the last lines it wrote there, which usually say why.
    """

    def __init__(self, message: str, returncode: int | None, stderr: str) -> None:
        detail = message
        if returncode is not None:
            detail += f" (exit status {returncode})"
        if stderr.strip():
            detail += ":\n" + stderr.rstrip()
        super().__init__("exited", detail)
        self.returncode = returncode
        self.stderr = stderr


def find_binary(binary: str | os.PathLike[str] | None) -> str:
    """The git-fabro executable: `binary`, else `$GIT_FABRO`, else `git-fabro` on PATH.

    A relative path is made absolute here, against the caller's directory, because the
    store runs in the saver's directory and would resolve it against that instead.
    """
    chosen = os.fspath(binary) if binary is not None else os.environ.get("GIT_FABRO")
    if chosen:
        if os.sep in chosen or (os.altsep is not None and os.altsep in chosen):
            return os.path.abspath(chosen)
        found = shutil.which(chosen)
        if found is None:
            raise FileNotFoundError(f"git-fabro executable {chosen!r} is not on PATH")
        return found
    found = shutil.which("git-fabro")
    if found is None:
        raise FileNotFoundError(
            "git-fabro is not on PATH: install it (cargo install --locked --path . in a clone "
            "of git-fabro), pass binary=..., or set GIT_FABRO"
        )
    return found


class _StderrTail:
    """Drains the store's stderr so it can never block on a full pipe, keeping its last
    lines for the error that reports a dead store and logging each line as it comes."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._lines: collections.deque[str] = collections.deque(maxlen=_STDERR_LINES)
        self._thread = threading.Thread(
            target=self._drain, args=(stream,), name="git-fabro-store-stderr", daemon=True
        )
        self._thread.start()

    def _drain(self, stream: IO[bytes]) -> None:
        with stream:
            for raw in stream:
                line = raw.decode("utf-8", "replace").rstrip("\r\n")
                self._lines.append(line)
                logger.warning("git fabro store: %s", line)

    def text(self) -> str:
        """Everything kept, once the stream has closed (or after a short grace)."""
        self._thread.join(_STDERR_GRACE)
        return "\n".join(self._lines)


class StoreProcess:
    """One `git fabro store` child process, started lazily and restarted after it ends."""

    def __init__(
        self, directory: str, *, track_files: bool, binary: str | os.PathLike[str] | None
    ) -> None:
        self.directory = directory
        self.track_files = track_files
        self._binary = binary
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: _StderrTail | None = None

    def request(self, message: JSONObject) -> JSONObject:
        """Send one request and return its `{"ok": true, ...}` reply."""
        with self._lock:
            return self._exchange(message, stream=False)[-1]

    def request_list(self, message: JSONObject) -> list[JSONObject]:
        """Send a request whose reply is many lines (`list`) and return the lines before
        the closing `{"ok": true, "count": N}`, all read under the lock."""
        with self._lock:
            lines = self._exchange(message, stream=True)
        closing = lines.pop()
        if closing.get("count") != len(lines):
            raise GitFabroStoreError(
                "protocol",
                f"the reply closed with count {closing.get('count')!r} after {len(lines)} lines",
            )
        return lines

    def close(self) -> None:
        """End the process by closing its input, and wait for it.

        A later request starts a new process, as the first one did.
        """
        with self._lock:
            proc, stderr = self._proc, self._stderr
            self._proc = self._stderr = None
            if proc is None:
                return
            assert proc.stdin is not None and proc.stdout is not None
            with contextlib.suppress(BrokenPipeError):
                proc.stdin.close()
            returncode = proc.wait()
            proc.stdout.close()
            text = stderr.text() if stderr is not None else ""
        if returncode != 0:
            raise GitFabroStoreExited("the store ended badly when closed", returncode, text)

    def _exchange(self, message: JSONObject, *, stream: bool) -> list[JSONObject]:
        """Write one request and read its reply lines; the caller holds the lock.

        Anything that leaves the exchange half done (a dead process, a malformed reply, an
        interrupt between the request and its reply) discards the process, so that the next
        request never reads the reply of an earlier one. The store writes nothing half: a
        request cut off this way either happened whole or not at all.
        """
        line = _encode(message)
        proc = self._running()
        try:
            assert proc.stdin is not None
            try:
                proc.stdin.write(line)
                proc.stdin.flush()
            except BrokenPipeError:
                raise self._exited("the store ended before it read the request") from None
            lines: list[JSONObject] = []
            while True:
                reply = self._read(proc)
                lines.append(reply)
                if "ok" in reply:
                    break
                if not stream:
                    raise GitFabroStoreError(
                        "protocol", f"a reply without `ok` to {message.get('op')!r}: {reply!r}"
                    )
        except BaseException:
            self._discard()
            raise
        closing = lines[-1]
        if closing["ok"] is not True:
            detail = str(closing.get("error", closing))
            if hint := closing.get("hint"):
                detail += f" (hint: {hint})"
            raise GitFabroStoreError(str(closing.get("code", "failed")), detail)
        return lines

    def _read(self, proc: subprocess.Popen[bytes]) -> JSONObject:
        assert proc.stdout is not None
        raw = proc.stdout.readline()
        if not raw:
            raise self._exited("the store ended before it replied")
        try:
            reply = json.loads(raw)
        except ValueError:
            raise GitFabroStoreError("protocol", f"a reply that is not JSON: {raw!r}") from None
        if not isinstance(reply, dict):
            raise GitFabroStoreError("protocol", f"a reply that is not an object: {reply!r}")
        return reply

    def _running(self) -> subprocess.Popen[bytes]:
        """The live process, started (and greeted) if there is none.

        A process that died since the last request is reported, not silently replaced:
        the next request after that starts a new one.
        """
        if self._proc is not None:
            if self._proc.poll() is None:
                return self._proc
            error = self._exited("the store ended between two requests")
            self._discard()
            raise error
        args = [find_binary(self._binary), "store"]
        if self.track_files:
            args.append("--track-files")
        # Its own session: a Ctrl-C at the terminal interrupts Python, not a store in the
        # middle of a request; it ends when its input does, however this process ends.
        self._proc = subprocess.Popen(
            args,
            cwd=self.directory,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        assert self._proc.stderr is not None
        self._stderr = _StderrTail(self._proc.stderr)
        hello = self._exchange({"op": "hello"}, stream=False)[-1]
        if hello.get("protocol") != PROTOCOL or hello.get("track_files") is not self.track_files:
            self._discard()
            raise GitFabroStoreError(
                "protocol",
                f"{args[0]} greets with {hello!r}: this client speaks protocol {PROTOCOL} "
                f"with track_files {self.track_files}",
            )
        return self._proc

    def _exited(self, message: str) -> GitFabroStoreExited:
        """The error for a process that ended: its status and its last stderr lines."""
        assert self._proc is not None
        try:
            returncode: int | None = self._proc.wait(_STDERR_GRACE)
        except subprocess.TimeoutExpired:
            returncode = None
        stderr = self._stderr.text() if self._stderr is not None else ""
        return GitFabroStoreExited(message, returncode, stderr)

    def _discard(self) -> None:
        """Kill and forget the process after an exchange that cannot be trusted."""
        proc, self._proc, self._stderr = self._proc, None, None
        if proc is None:
            return
        proc.kill()
        proc.wait()
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None:
                with contextlib.suppress(BrokenPipeError):
                    pipe.close()


def _encode(message: JSONObject) -> bytes:
    """One request line. NaN, infinities and lone surrogates are refused: JSON has none."""
    try:
        text = json.dumps(message, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        return text.encode("utf-8") + b"\n"
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"git fabro store takes JSON, and this {message.get('op')} request holds a value "
            f"JSON cannot carry (metadata and filters must be JSON): {exc}"
        ) from exc
