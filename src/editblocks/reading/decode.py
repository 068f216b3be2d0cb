"""A whole reply's bytes as text: UTF-8 or refused, never guessed."""

from __future__ import annotations

from editblocks.errors import EditblocksError

__all__ = ["ReplyDecodeError", "decode_reply"]


class ReplyDecodeError(EditblocksError, ValueError):
    """The reply's bytes are not UTF-8 (nor, for a whole reply, one legacy encoding throughout).

    Nothing of such a reply is applied: a replacement character the model did not write is
    never written into a file."""

    def __init__(self, offset: int, byte: int) -> None:
        super().__init__(
            f"the reply is not UTF-8 text: byte 0x{byte:02x} at byte offset {offset} is not valid UTF-8; "
            "send the reply as UTF-8"
        )
        self.offset = offset


def decode_reply(data: bytes) -> str:
    """A whole reply's text: UTF-8, a byte order mark dropped. Any other bytes raise
    :class:`ReplyDecodeError` naming the first one that is not UTF-8: a reply in a legacy
    encoding is refused, not guessed (on a reply's few accented letters, charset detection
    picks the wrong code page often enough to change what the model wrote)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ReplyDecodeError(exc.start, data[exc.start]) from None
