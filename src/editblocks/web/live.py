"""A reply arriving piece by piece (piped in, or pushed by another program), for the live view.

The completed blocks and the block still being written come from
:class:`editblocks.StreamParser`; without it (an older build) the reply received so far is
parsed again with :func:`editblocks.parse_reply` when the page asks, and the lines after the
last complete block are shown as still arriving.
"""

from __future__ import annotations

import codecs
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from editblocks.models import EditBlock, ParseWarning
from editblocks.reading.reader import parse_reply

try:
    from editblocks.reading.stream import StreamParser
except ImportError:  # pragma: no cover - a build without the streaming parser
    StreamParser = None  # type: ignore[assignment,misc]

MAX_LIVE_BYTES = 50 * 1024 * 1024
TAIL_LINES = 40


@dataclass
class LiveSnapshot:
    """The live reply at one moment."""

    session: str
    version: int
    active: bool
    done: bool
    text: str
    blocks: list[EditBlock]
    warnings: list[ParseWarning]
    shell_suggestions: list[str]
    format: str | None
    in_progress: dict[str, Any] | None
    error: str | None = None
    size: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


class LiveReply:
    """One reply being received. ``feed`` and ``finish`` may be called from any thread."""

    def __init__(self, format: str | None = None) -> None:
        self.session = secrets.token_hex(6)
        self.format = format
        self._lock = threading.Lock()
        self._parts: list[str] = []
        self._size = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._parser = StreamParser(format) if StreamParser is not None else None
        self.active = False
        self.done = False
        self.error: str | None = None
        self.version = 0
        self._listeners: dict[int, Callable[[], None]] = {}
        self._next_listener = 0

    # -- receiving ---------------------------------------------------------------------

    def feed(self, chunk: str | bytes) -> None:
        """Add the next piece of the reply (bytes are decoded as UTF-8, split anywhere)."""
        with self._lock:
            if self.done:
                raise ValueError("the reply has already ended")
            if isinstance(chunk, bytes):
                text = self._decoder.decode(chunk)
            else:
                text = chunk
            self._size += len(text)
            if self._size > MAX_LIVE_BYTES:
                self.error = f"the reply is larger than {MAX_LIVE_BYTES // (1024 * 1024)} MB; the rest was dropped"
                self._finish_locked()
            else:
                self.active = True
                if text:
                    self._parts.append(text)
                    if self._parser is not None:
                        self._parser.feed(text)
                self.version += 1
        self._notify()

    def finish(self, error: str | None = None) -> None:
        """The reply has ended."""
        with self._lock:
            if self.done:
                return
            if error:
                self.error = error
            rest = self._decoder.decode(b"", final=True)
            if rest:
                self._parts.append(rest)
                if self._parser is not None:
                    self._parser.feed(rest)
            self._finish_locked()
        self._notify()

    def _finish_locked(self) -> None:
        if self._parser is not None:
            self._parser.close()
        self.active = True
        self.done = True
        self.version += 1

    # -- watching ----------------------------------------------------------------------

    def subscribe(self, callback: Callable[[], None]) -> int:
        """Call ``callback`` (from the feeding thread) after every change; returns a token."""
        with self._lock:
            token = self._next_listener
            self._next_listener += 1
            self._listeners[token] = callback
            return token

    def unsubscribe(self, token: int) -> None:
        with self._lock:
            self._listeners.pop(token, None)

    def wake(self) -> None:
        """Call the listeners without a change (they look again, e.g. for a newer reply)."""
        self._notify()

    def _notify(self) -> None:
        with self._lock:
            listeners = list(self._listeners.values())
        for callback in listeners:
            try:
                callback()
            except Exception:  # a closed page must not stop the reply
                pass

    def snapshot(self) -> LiveSnapshot:
        with self._lock:
            text = "".join(self._parts)
            self._parts = [text] if text else []
            if self._parser is not None:
                parsed = self._parser.reply()
                partial = self._parser.partial()
                in_progress = None
                if partial is not None and not self.done:
                    in_progress = {
                        "path": partial.path,
                        "format": partial.format,
                        "reply_line": partial.reply_line,
                        "old": partial.old_text,
                        "new": partial.new_text,
                        "tail": None,
                    }
                blocks, warnings, shell, fmt = parsed.blocks, parsed.warnings, parsed.shell_suggestions, parsed.format
            else:
                complete = text if self.done else text[: text.rfind("\n") + 1]
                parsed = parse_reply(complete, self.format)
                blocks, warnings, shell, fmt = parsed.blocks, parsed.warnings, parsed.shell_suggestions, parsed.format
                in_progress = None
                if not self.done:
                    lines = complete.split("\n")[:-1]
                    start = blocks[-1].end_line if blocks else 0
                    tail = [line for line in lines[start:]][-TAIL_LINES:]
                    if any(line.strip() for line in tail):
                        in_progress = {
                            "path": None,
                            "format": None,
                            "reply_line": start + 1,
                            "old": "",
                            "new": "",
                            "tail": "\n".join(tail),
                        }
            if self.done and fmt is None and blocks:
                fmt = blocks[0].format
            return LiveSnapshot(
                session=self.session,
                version=self.version,
                active=self.active,
                done=self.done,
                text=text,
                blocks=list(blocks),
                warnings=list(warnings),
                shell_suggestions=list(shell),
                format=fmt,
                in_progress=in_progress,
                error=self.error,
                size=len(text),
            )
