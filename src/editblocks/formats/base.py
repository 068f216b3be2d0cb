"""The interface every edit format implements, and the line-driven parser base class."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar, overload

from ..models import EditBlock, ParseWarning

ParseItem = EditBlock | ParseWarning


class LineChain(Sequence[str]):
    """Several growing lists of lines read as one, without copying them."""

    __slots__ = ("_parts",)

    def __init__(self, *parts: Sequence[str]) -> None:
        self._parts = parts

    def __len__(self) -> int:
        n = 0
        for part in self._parts:
            n += len(part)
        return n

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...
    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return [self[i] for i in range(start, stop, step)]
            out: list[str] = []
            for part in self._parts:
                n = len(part)
                if start < n and stop > 0:
                    out.extend(part[max(start, 0) : min(stop, n)])
                start, stop = start - n, stop - n
            return out
        if index < 0:
            index += len(self)
        for part in self._parts:
            if index < len(part):
                return part[index]
            index -= len(part)
        raise IndexError("line index out of range")


@dataclass(frozen=True)
class OpenBlock:
    """The block a parser is in the middle of reading.

    ``old`` holds the lines read so far of the text the block searches for (anchors
    included) and ``new`` those of the text it becomes. Both are live views of the parser's
    state that only grow at their end, and stay valid until the block ends.
    """

    start: int
    path: str | None
    format: str
    old: Sequence[str]
    new: Sequence[str]


class LineParser(ABC):
    """A state machine fed one reply line at a time (without its line ending).

    ``feed`` and ``close`` return the blocks and warnings completed by that line,
    so the same parser serves a finished reply and a reply that is still streaming.
    What a parser returns never starts before its open block (or, outside a block, before
    the line being fed): streaming relies on that to report results in reply order.
    """

    @abstractmethod
    def feed(self, line: str, lineno: int) -> list[ParseItem]:
        """Consume line ``lineno`` (1-based) of the reply."""

    @abstractmethod
    def close(self, lineno: int) -> list[ParseItem]:
        """The reply ended after line ``lineno``; report any block left open."""

    def in_block(self) -> bool:
        """True while the parser is inside an unfinished block."""
        return False

    def open_block(self) -> OpenBlock | None:
        """The unfinished block being read, or None (also for parsers that cannot tell).

        Streaming uses it to announce a block as soon as it starts and to show its text
        while it grows.
        """
        return None


class EditFormat(ABC):
    """One edit format: how to parse it, recognise it, write it and prompt for it."""

    name: ClassVar[str]
    description: ClassVar[str]
    family: ClassVar[str]
    """Formats of one family share a parser; mixed replies run one parser per family."""

    @abstractmethod
    def parser(self) -> LineParser:
        """A fresh line parser for this format."""

    @abstractmethod
    def detect(self, text: str) -> float:
        """How likely ``text`` holds blocks of this format, from 0 (no sign) to 1."""

    @abstractmethod
    def render(self, block: EditBlock) -> str:
        """Write one block in this format (ends with a newline)."""

    def render_blocks(self, blocks: Iterable[EditBlock]) -> str:
        """Write several blocks as one reply."""
        return "\n".join(self.render(b) for b in blocks)

    def parse_lines(self, lines: Sequence[str]) -> tuple[list[EditBlock], list[ParseWarning]]:
        """Run this format's parser over ``lines``."""
        parser = self.parser()
        blocks: list[EditBlock] = []
        warnings: list[ParseWarning] = []
        items: list[ParseItem] = []
        for i, line in enumerate(lines, start=1):
            items.extend(parser.feed(line, i))
        items.extend(parser.close(len(lines)))
        for item in items:
            (blocks if isinstance(item, EditBlock) else warnings).append(item)  # type: ignore[arg-type]
        return blocks, warnings
