"""The interface every edit format implements, and the line-driven parser base class."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from typing import ClassVar

from ..models import EditBlock, ParseWarning

ParseItem = EditBlock | ParseWarning


class LineParser(ABC):
    """A state machine fed one reply line at a time (without its line ending).

    ``feed`` and ``close`` return the blocks and warnings completed by that line,
    so the same parser serves a finished reply and a reply that is still streaming.
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
