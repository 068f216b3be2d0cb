"""The interface every edit format implements, and the line-driven parser base class."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar, overload

from editblocks.models import EditBlock, ParseWarning

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


class LineView(Sequence[str]):
    """Lines ``lo:hi`` (0-based) of a growing line store, read without copying; with ``hi=None``
    the view follows the store's end."""

    __slots__ = ("_hi", "_lines", "_lo")

    def __init__(self, lines: list[str], lo: int, hi: int | None = None) -> None:
        self._lines = lines
        self._lo = lo
        self._hi = hi

    def _end(self) -> int:
        return len(self._lines) if self._hi is None else self._hi

    def stop(self, hi: int) -> None:
        """Stop following the store: the view ends before index ``hi`` from now on."""
        self._hi = hi

    def follow(self, lo: int) -> None:
        """Start the view at index ``lo`` and follow the store's end."""
        self._lo, self._hi = lo, None

    @classmethod
    def empty(cls, lines: list[str]) -> LineView:
        """A view with no lines yet, to :meth:`follow` the store later."""
        return cls(lines, 0, 0)

    def __len__(self) -> int:
        hi = self._hi
        n = (len(self._lines) if hi is None else hi) - self._lo
        return n if n > 0 else 0

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...
    def __getitem__(self, index: int | slice) -> str | list[str]:
        n = len(self)
        if isinstance(index, slice):
            start, stop, step = index.indices(n)
            return self._lines[self._lo + start : self._lo + stop : step]
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("line index out of range")
        return self._lines[self._lo + index]


def text_of(lines: list[str], lo: int, hi: int) -> str:
    """Lines ``lo:hi`` of ``lines`` as one text of whole lines."""
    return "\n".join(lines[lo:hi]) + "\n" if hi > lo else ""


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
    """A state machine fed the reply's lines (without their line endings).

    ``feed`` and ``close`` return the blocks and warnings completed by that line,
    so the same parser serves a finished reply and a reply that is still streaming.
    What a parser returns never starts before its open block (or, outside a block, before
    the line being fed): streaming relies on that to report results in reply order.

    The reader appends every line to a shared store (:meth:`bind`) but feeds the parser only
    the lines :func:`~editblocks.formats.loud_patterns` matches, the ones a marker, fence or
    heading can be on; a parser takes block contents and path candidates from the store. It
    must give the same results when fed every line.
    """

    lines: list[str]
    wake: ClassVar[re.Pattern[str] | None] = None
    """Lines that can make the parser leave its starting state (its start markers, or a stray
    end marker it warns about). Until one occurs, the reader may hold back the other lines and
    replay them when it does: a parser must reach the same state either way."""
    wake_words: ClassVar[tuple[str, ...]] = ()
    """Literals one of which every line ``wake`` matches holds (none: no such promise). A text
    that holds none of them holds no wake line, which a substring test tells faster than the
    pattern."""

    owns_lines = True
    """Not bound to a reader's store: the parser stores the lines it is fed itself (and must
    then be fed every line)."""

    def bind(self, lines: list[str]) -> None:
        """Share the reply's line store: line ``n`` is ``lines[n - 1]``, appended before it is fed."""
        self.lines = lines
        self.owns_lines = False

    def store(self, line: str, lineno: int) -> None:
        """Keep line ``lineno`` in the parser's own store (when it has one)."""
        if self.owns_lines and len(self.lines) < lineno:
            self.lines.append(line)

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

    def open_start(self) -> int | None:
        """The line the unfinished block started on, or None: ``open_block().start``, which a
        parser may know without building the :class:`OpenBlock`."""
        block = self.open_block()
        return block.start if block is not None else None


class EditFormat(ABC):
    """One edit format: how to parse it, recognise it, write it and prompt for it."""

    name: ClassVar[str]
    description: ClassVar[str]
    family: ClassVar[str]
    """Formats of one family share a parser; mixed replies run one parser per family."""
    auto: ClassVar[bool] = True
    """Read in replies whose format is not given (and considered by detection). A format whose
    blocks ordinary prose could look like is read only when asked for."""
    aider_reading: ClassVar[bool] = False
    """Blocks are read as aider reads its own formats: one trailing blank line of SEARCH or of
    REPLACE is not part of the text, and an empty SEARCH on an existing file appends REPLACE."""
    exact_only: ClassVar[bool] = False
    """The format's own rule places a block only where its text is exactly the file's (the
    default match level of its blocks is ``exact``, not ``fuzzy``)."""
    can_delete: ClassVar[bool] = False
    """A block can delete a file."""
    can_move: ClassVar[bool] = False
    """A block can move (rename) a file."""
    can_scope: ClassVar[bool] = False
    """A block can insert lines placed by an enclosing line or at the end of the file, with no
    lines of context."""
    markers: ClassVar[str] = ""
    """The characters this format's marker lines start with (after white space). Only lines
    that start with one of these, or with a fence, tag or heading, reach the parsers: every
    other line is content, passed over without a look (see :func:`loud_pattern`)."""
    content: ClassVar[str | None] = None
    """What a block's text is when it is a file's content rather than an edit ("the file's
    complete content", "a sketch of the file"): such a block holding edit blocks of another
    format is not read as content (the reader warns instead)."""
    prompt_folder: ClassVar[str | None] = None
    """The folder of :mod:`editblocks.prompts` with this format's prompts (default: its name)."""

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
        store: list[str] = []
        parser.bind(store)
        blocks: list[EditBlock] = []
        warnings: list[ParseWarning] = []
        items: list[ParseItem] = []
        for i, line in enumerate(lines, start=1):
            store.append(line)
            items.extend(parser.feed(line, i))
        items.extend(parser.close(len(lines)))
        for item in items:
            (blocks if isinstance(item, EditBlock) else warnings).append(item)  # type: ignore[arg-type]
        return blocks, warnings
