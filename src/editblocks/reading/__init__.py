"""Reading a reply: one engine (:class:`~editblocks.reading.reader.ReplyReader`) turns reply text,
whole or arriving in pieces, into edit blocks, warnings and shell commands, with one set of rules.

- :mod:`~editblocks.reading.reader`: the engine, and :func:`parse_reply` for a whole reply;
- :mod:`~editblocks.reading.stream`: :class:`StreamParser` and its events (loaded when first used);
- :mod:`~editblocks.reading.decode`: a whole reply's bytes as text;
- :mod:`~editblocks.reading.scan`: the scans the engine shares (marker balance, shell commands).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from editblocks.reading.decode import ReplyDecodeError, decode_reply
from editblocks.reading.reader import ReplyReader, parse_lines, parse_reply, split_reply

if TYPE_CHECKING:
    from editblocks.reading.stream import StreamParser, stream_events

__all__ = [
    "ReplyDecodeError",
    "ReplyReader",
    "StreamParser",
    "decode_reply",
    "parse_lines",
    "parse_reply",
    "split_reply",
    "stream_events",
]


def __getattr__(name: str) -> Any:
    """The stream face, imported when first asked for (applying a whole reply does not need it)."""
    if name in ("StreamParser", "stream_events"):
        from editblocks.reading import stream

        return getattr(stream, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
