"""Parsing a reply while it arrives: :class:`StreamParser` and the events it reports.

>>> stream = StreamParser()
>>> events = []
>>> for chunk in ("src/a.py\\n<<<<<<< SEA", "RCH\\nx = 1\\n=======\\nx = 2\\n>>>>>>> REPLACE\\n"):
...     events += stream.feed(chunk)
>>> events += stream.close()
>>> [type(e).__name__ for e in events]
['BlockStarted', 'BlockProgress', 'BlockCompleted']

Chunks may split the reply anywhere, inside a marker or inside a multi-byte UTF-8 character
(``bytes`` chunks are cut into lines before they are decoded, so a character split between
chunks is decoded whole). Whatever the split, the blocks of the :class:`BlockCompleted`
events, in order, are the blocks :func:`editblocks.parse_reply` finds in the whole reply;
the :class:`ParseWarningEvent` warnings are its warnings, in line order except the
SEARCH/REPLACE marker-count warning, which can only be known at the end and comes last; and
the :class:`ShellSuggestion` commands are its shell suggestions, in order.

Events are small records (slotted dataclasses, cheap to create: a reply streamed in tiny
chunks produces one per line); treat them as read-only.

A block is announced by :class:`BlockStarted` as soon as its first line is complete, grows
through :class:`BlockProgress`, and ends with exactly one :class:`BlockCompleted` or
:class:`BlockAbandoned` for the same ``reply_line``. A completed block is reported when it is
certain: when the reply mixes formats and a block of another format that started earlier is
still open, the later block waits, because the earlier one would win if both overlap.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from editblocks.models import EditBlock, ParsedReply, ParseWarning
from editblocks.reading.decode import ReplyDecodeError
from editblocks.reading.reader import ROUTE_NEW as _NEW
from editblocks.reading.reader import ROUTE_OLD as _OLD
from editblocks.reading.reader import ReplyReader


@dataclass(slots=True)
class BlockStarted:
    """A block starts at ``reply_line`` (1-based); ``path`` is None when the reply names no file for it."""

    path: str | None
    format: str
    reply_line: int


@dataclass(slots=True)
class BlockProgress:
    """Whole lines added to a started block since its previous event.

    ``old_added`` continues the text the block searches for (anchors included) and
    ``new_added`` the text that replaces it. Concatenated over a block's progress events they
    give the :class:`EditBlock`'s ``search_text`` and ``replace_text`` once it completes.
    """

    path: str | None
    format: str
    reply_line: int
    old_added: str
    new_added: str


@dataclass(slots=True)
class BlockCompleted:
    """A block is complete and kept: ``block`` is what :func:`editblocks.parse_reply` returns for it."""

    block: EditBlock

    @property
    def path(self) -> str:
        return self.block.file_path

    @property
    def format(self) -> str:
        return self.block.format

    @property
    def reply_line(self) -> int:
        return self.block.line_number


@dataclass(slots=True)
class BlockAbandoned:
    """A started block will not complete: it is malformed or truncated (a warning says why), or it
    lies inside a block of another format that started earlier."""

    path: str | None
    format: str
    reply_line: int


@dataclass(slots=True)
class ParseWarningEvent:
    """A warning about the reply, as :func:`editblocks.parse_reply` reports it."""

    warning: ParseWarning

    @property
    def line(self) -> int:
        return self.warning.line

    @property
    def message(self) -> str:
        return self.warning.message


@dataclass(slots=True)
class ShellSuggestion:
    """A shell command the reply suggests to the user (never run); each command is reported once."""

    command: str


Event = BlockStarted | BlockProgress | BlockCompleted | BlockAbandoned | ParseWarningEvent | ShellSuggestion


@dataclass(frozen=True)
class PartialBlock:
    """The block being written, with its text so far (see :meth:`StreamParser.partial`)."""

    path: str | None
    format: str
    reply_line: int
    old_text: str
    new_text: str


class _EventReader(ReplyReader):
    """A :class:`ReplyReader` that records what it reports as events."""

    def __init__(self, format: str | None) -> None:
        super().__init__(format, track_open=True)
        self.events: list[Event] = []

    def completed(self, block: EditBlock) -> None:
        super().completed(block)
        self.events.append(BlockCompleted(block))

    def warning(self, warning: ParseWarning) -> None:
        super().warning(warning)
        self.events.append(ParseWarningEvent(warning))

    def shell_command(self, command: str) -> None:
        super().shell_command(command)
        self.events.append(ShellSuggestion(command))

    def started(self, path: str | None, format: str, line: int) -> None:
        self.events.append(BlockStarted(path, format, line))

    def progress(self, path: str | None, format: str, line: int, old_added: str, new_added: str) -> None:
        self.events.append(BlockProgress(path, format, line, old_added, new_added))

    def abandoned(self, path: str | None, format: str, line: int) -> None:
        self.events.append(BlockAbandoned(path, format, line))

    def drain(self) -> list[Event]:
        """The events recorded since the last drain."""
        events = self.events
        if not events:
            return []
        self.events = []
        return events

    def feed_one(self, line: str) -> list[Event]:
        """Read one complete line (without its line ending) and return the events it completes.

        The two lines a reply is mostly made of take a short way, with the same outcome as
        :meth:`feed_line` and :meth:`report_progress`: a quiet line inside the announced block,
        whose texts grow by it as they grew by the quiet line before (see
        :attr:`_route`), and a quiet line outside every block with nothing in it for
        the shell scan.
        """
        if line.lstrip()[:1] not in self._loud_start:  # (the loud-line test, see ReplyReader)
            route = self._route
            if route is not None:
                self.lines.append(line)
                n = self.line_count = self.line_count + 1
                if "`" in line:
                    self._marks.append(n)
                ann = self._open
                assert ann is not None
                ann.store_len = n
                text = line + "\n"
                block = ann.block
                if route is _OLD:
                    ann.old_seen += 1
                    return [BlockProgress(block.path, block.format, block.start, text, "")]
                ann.new_seen += 1
                if route is _NEW:
                    return [BlockProgress(block.path, block.format, block.start, "", text)]
                ann.old_seen += 1
                return [BlockProgress(block.path, block.format, block.start, text, text)]
            n = self.line_count
            if self._open is None and self._scanned == n and "`" not in line and self._shell.shell is None:
                self.lines.append(line)
                self.line_count = self._scanned = n + 1
                return []
            self.feed_line(line)
        else:
            self.feed_loud_line(line)
        if self._open is not None:  # (there is no progress to report without an announced block)
            self.report_progress()
        events = self.events  # drain(), inline
        if events:
            self.events = []
            return events
        return []


class StreamParser:
    """Parses a reply chunk by chunk, reporting blocks as they start, grow and complete.

    ``format`` works as in :func:`editblocks.parse_reply`: None reads every format. Feed
    ``str`` or UTF-8 ``bytes`` chunks (undecodable bytes become U+FFFD, as when the command
    line reads a reply), then call :meth:`close` once the reply has ended. Only the unfinished
    last line is buffered, so the total work is proportional to the reply's length however it
    is split.
    """

    def __init__(self, format: str | None = None) -> None:
        self._reader = _EventReader(format)
        self._kind: type | None = str
        """The kind of chunk arriving (``str`` or ``bytes``; None once closed): a chunk of this
        exact class takes :meth:`feed`'s short ways, any other goes through :meth:`_feed_other`."""
        self._newline: Any = "\n"
        """What ``in`` finds a line ending with in that kind: ``"\\n"``, or the byte's value 10
        (``10 in data`` is a plain byte search, much quicker than ``b"\\n" in data``)."""
        # Pieces of the unfinished last line: str pieces, or bytes pieces while bytes arrive
        # (after ``_prefix``, the part that arrived as str before the first bytes chunk). One list
        # for the parser's life, emptied when a line is complete.
        self._tail: list[Any] = []
        self._prefix = ""
        self._decoded = 0
        """Bytes of the reply decoded so far (where a byte that is not UTF-8 is reported)."""

    @property
    def closed(self) -> bool:
        return self._kind is None

    @property
    def line_count(self) -> int:
        """How many complete lines were read so far."""
        return self._reader.line_count

    def feed(self, chunk: str | bytes | bytearray | memoryview) -> list[Event]:
        """Read the next piece of the reply; returns the events it completes."""
        if chunk.__class__ is self._kind and self._newline not in chunk:
            # Most small chunks end no line: they only wait for the rest of it (this short
            # function is what such a chunk costs).
            self._tail.append(chunk)
            return []
        return self._feed_lines(chunk)

    def _feed_lines(self, chunk: str | bytes | bytearray | memoryview) -> list[Event]:
        """:meth:`feed` for a chunk that ends a line, or is of another kind than the last."""
        kind = chunk.__class__
        if kind is not self._kind:
            return self._feed_other(chunk)
        tail = self._tail
        if kind is str:
            piece: str = chunk  # type: ignore[assignment]
            head, _, rest = piece.partition("\n")
            if "\n" not in rest:
                # Exactly one line ends in the chunk, the usual case for small chunks: it goes
                # straight to the reader, as _read_text would send it.
                if tail:
                    tail.append(head)
                    line = "".join(tail)
                    tail.clear()
                else:
                    line = head
                if rest:
                    tail.append(rest)
                if "\r" in line and line.endswith("\r"):
                    line = line[:-1]
                return self._reader.feed_one(line)
            end = piece.rfind("\n")
            if tail:
                tail.append(piece[: end + 1])
                text = "".join(tail)
                tail.clear()
            else:
                text = piece[: end + 1]
            if end + 1 < len(piece):
                tail.append(piece[end + 1 :])
            return self._read_text(text)
        # Bytes are split into lines before decoding: b"\n" never occurs inside a UTF-8
        # character, so each decoded run of lines ends on a character boundary.
        data: bytes = chunk  # type: ignore[assignment]
        head_b, _, rest_b = data.partition(b"\n")
        if 10 not in rest_b:
            # One line, as for str above; only its bytes are joined and decoded (decoding them
            # with the line ending or without fails at the same byte).
            if tail:
                tail.append(head_b)
                raw = b"".join(tail)
                tail.clear()
            else:
                raw = head_b
            if rest_b:
                tail.append(rest_b)
            line = self._decode(raw)
            self._decoded += 1  # its line ending
            if self._prefix:
                line = self._prefix + line
                self._prefix = ""
            if "\r" in line and line.endswith("\r"):
                line = line[:-1]
            return self._reader.feed_one(line)
        end = data.rfind(b"\n")
        if tail:
            tail.append(data[: end + 1])
            raw = b"".join(tail)
            tail.clear()
        else:
            raw = data[: end + 1]
        if end + 1 < len(data):
            tail.append(data[end + 1 :])
        text = self._decode(raw)
        if self._prefix:
            text = self._prefix + text
            self._prefix = ""
        return self._read_text(text)

    def _read_text(self, text: str) -> list[Event]:
        """Read ``text``, two complete lines or more, each with its line ending."""
        lines = text.split("\n")
        lines.pop()  # the empty text after the last line ending
        if "\r" in text:
            lines = [line[:-1] if line.endswith("\r") else line for line in lines]
        reader = self._reader
        if len(lines) > 4:
            # Many lines: one batch.
            reader.feed_lines(lines)
            reader.report_progress()
            return reader.drain()
        # A few lines (a blank line and the next, say): each the way of one line.
        feed_one = reader.feed_one
        events = feed_one(lines[0])
        for line in lines[1:]:
            events += feed_one(line)
        return events

    def _feed_other(self, chunk: str | bytes | bytearray | memoryview) -> list[Event]:
        """:meth:`feed` for a chunk of another kind than the last, or after :meth:`close`."""
        if self._kind is None:
            raise ValueError("feed() after close()")
        if isinstance(chunk, str):
            if self._kind is bytes:
                self._to_str()
            return self.feed(str.__str__(chunk))
        if isinstance(chunk, (bytes, bytearray, memoryview)):
            if self._kind is str:
                self._prefix = "".join(self._tail)
                self._tail.clear()
                self._kind, self._newline = bytes, 10
            return self.feed(bytes(chunk))
        raise TypeError(f"StreamParser.feed expects str or bytes, not {chunk.__class__.__name__}")

    def close(self) -> list[Event]:
        """The reply has ended: returns the last events (truncated blocks become warnings)."""
        if self._kind is None:
            return []
        if self._kind is bytes:
            self._to_str()
        self._kind = None
        last = "".join(self._tail)
        self._tail.clear()
        if last:
            self._reader.feed_line(last)
        self._reader.close()
        return self._reader.drain()

    def _to_str(self) -> None:
        """Leave bytes mode: decode the unfinished line (a character cut short at the very end,
        as a reply cut off mid-character leaves it, becomes U+FFFD; any other byte that is not
        UTF-8 raises :class:`ReplyDecodeError`)."""
        data = b"".join(self._tail)
        try:
            decoded = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            if exc.end < len(data) or "end of data" not in exc.reason:
                raise ReplyDecodeError(self._decoded + exc.start, data[exc.start]) from None
            decoded = data.decode("utf-8", "replace")
        self._decoded += len(data)
        text = self._prefix + decoded
        self._tail.clear()
        if text:
            self._tail.append(text)
        self._prefix = ""
        self._kind, self._newline = str, "\n"

    def _decode(self, data: bytes) -> str:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ReplyDecodeError(self._decoded + exc.start, data[exc.start]) from None
        self._decoded += len(data)
        return text

    def partial(self) -> PartialBlock | None:
        """The announced block still being written, with all its text so far, or None."""
        block = self._reader.announced_block()
        if block is None:
            return None
        return PartialBlock(
            block.path,
            block.format,
            block.start,
            "".join(x + "\n" for x in block.old),
            "".join(x + "\n" for x in block.new),
        )

    def reply(self) -> ParsedReply:
        """Everything completed so far as a :class:`ParsedReply`.

        After :meth:`close` it equals :func:`editblocks.parse_reply` on the whole reply,
        except that ``format`` is None (not a guess from the text) when there is no block and
        no format was requested.
        """
        return self._reader.reply()


def stream_events(chunks: Iterable[str | bytes], format: str | None = None) -> Iterator[Event]:
    """The events of a reply arriving as ``chunks``, yielded as soon as each is known."""
    parser = StreamParser(format)
    for chunk in chunks:
        yield from parser.feed(chunk)
    yield from parser.close()


# The issue names the warning event ``Warning``; that name is kept here as an alias (it is not
# exported from the package, where it would hide Python's built-in ``Warning``).
Warning = ParseWarningEvent

__all__ = [
    "BlockAbandoned",
    "BlockCompleted",
    "BlockProgress",
    "BlockStarted",
    "Event",
    "ParseWarningEvent",
    "PartialBlock",
    "ShellSuggestion",
    "StreamParser",
    "stream_events",
]
