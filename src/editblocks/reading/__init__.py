"""Reading a reply: one engine (:class:`~editblocks.reading.reader.ReplyReader`) turns reply text,
whole or arriving in pieces, into edit blocks, warnings and shell commands, with one set of rules.

- :mod:`~editblocks.reading.reader`: the engine, and :func:`parse_reply` for a whole reply;
- :mod:`~editblocks.reading.stream`: :class:`StreamParser`, its events, and reply bytes;
- :mod:`~editblocks.reading.scan`: the scans the engine shares (marker balance, shell commands).
"""

from editblocks.reading.reader import ReplyReader, parse_lines, parse_reply, split_reply
from editblocks.reading.stream import ReplyDecodeError, StreamParser, decode_reply, stream_events

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
