"""Text primitives for matching: line-aligned search, line numbers, indentation."""

from __future__ import annotations

import re
import threading
from collections import Counter
from dataclasses import dataclass
from itertools import accumulate, repeat
from operator import add

MAX_LISTED = 12


def find_all(text: str, needle: str, limit: int = 1000) -> list[int]:
    """Character offsets where the whole lines ``needle`` occur in ``text`` (overlaps included).

    Searches for the needle preceded by a newline with the C string search, so every hit starts
    at a line start and ends at a line end without any per-line Python work or copying.
    """
    if not needle:
        return []
    hits: list[int] = [0] if text.startswith(needle) else []
    target = "\n" + needle
    pos = text.find(target)
    while pos != -1 and len(hits) < limit:
        hits.append(pos + 1)
        pos = text.find(target, pos + 1)
    return hits


def find_lines(lines: list[str], needle: list[str], limit: int = 1000) -> list[int]:
    """Indexes where the line list ``needle`` occurs in ``lines`` (C-speed search on the joined text)."""
    if not needle:
        return []
    text = "\n".join(lines) + "\n"
    return [text.count("\n", 0, off) for off in find_all(text, "\n".join(needle) + "\n", limit)]


_known = threading.local()
"""The last line position remembered, per thread (each apply runs in one thread)."""


def line_of(text: str, offset: int) -> int:
    """1-based line number of character ``offset``.

    Counting starts from the last position remembered for this very text (see
    :func:`remember_line`), so walking a large file top to bottom costs one pass, not one per edit.
    """
    known: tuple[str, int, int] | None = getattr(_known, "line", None)
    if known is not None and known[0] is text and known[1] <= offset:
        return known[2] + text.count("\n", known[1], offset)
    return text.count("\n", 0, offset) + 1


def remember_line(text: str, offset: int, line: int) -> None:
    """Record that character ``offset`` of ``text`` starts line ``line`` (1-based)."""
    _known.line = (text, offset, line)


def format_lines(lines: list[int]) -> str:
    """``12``, ``12 and 48``, ``12, 48 and 97`` (cut after a dozen)."""
    shown = [str(n) for n in lines[:MAX_LISTED]]
    if len(lines) > MAX_LISTED:
        shown.append(f"{len(lines) - MAX_LISTED} more")
    if len(shown) == 1:
        return shown[0]
    return ", ".join(shown[:-1]) + " and " + shown[-1]


def split_lines(text: str) -> list[str]:
    """The lines of a whole-line text (every line ends with a newline), without endings."""
    if not text:
        return []
    return text[:-1].split("\n") if text.endswith("\n") else text.split("\n")


def line_offsets(lines: list[str]) -> list[int]:
    """Character offset of the start of every line, plus the end of the text."""
    return [0, *accumulate(map(add, map(len, lines), repeat(1)))]


_INDENT = re.compile(r"^[ \t]*")


def indent_of(line: str) -> str:
    return _INDENT.match(line).group(0)  # type: ignore[union-attr]


def indent_width(line: str) -> int:
    """The width of a line's leading white space, a tab counting 8."""
    return len(line[: len(line) - len(line.lstrip())].expandtabs(8))


@dataclass(frozen=True)
class IndentStyle:
    """How a text indents: with tabs, or with ``unit`` spaces per level."""

    tabs: bool
    unit: int

    def level(self, indent: str) -> tuple[int, int]:
        """(levels, extra spaces) of an indentation string in this style."""
        if self.tabs or "\t" in indent:
            tabs = len(indent) - len(indent.lstrip("\t"))
            rest = indent[tabs:]
            spaces = rest.count(" ") + rest.count("\t") * self.unit
            if self.tabs:
                return tabs, spaces
            more, extra = divmod(spaces, self.unit)
            return tabs + more, extra
        return divmod(len(indent), self.unit)

    def make(self, levels: int, extra: int) -> str:
        levels = max(levels, 0)
        return ("\t" * levels if self.tabs else " " * (levels * self.unit)) + " " * extra


def detect_style(lines: list[str], fallback: IndentStyle | None = None) -> IndentStyle:
    """The indentation style of ``lines``: tabs if most indented lines start with a tab, else the
    first of 4, 2, 8, 3 spaces that divides at least 80% of the space indents."""
    tabbed = spaced = 0
    widths: list[int] = []
    for line in lines:
        if not line.strip():
            continue
        ind = indent_of(line)
        if not ind:
            continue
        if ind.startswith("\t"):
            tabbed += 1
        else:
            spaced += 1
            widths.append(len(ind) - len(ind.lstrip(" ")))
    if tabbed > spaced:
        return IndentStyle(True, fallback.unit if fallback and not fallback.tabs else 4)
    if not widths:
        return fallback or IndentStyle(False, 4)
    counts = Counter(widths)
    total = len(widths)
    for unit in (4, 2, 8, 3):
        if sum(n for w, n in counts.items() if w % unit == 0) >= 0.8 * total:
            return IndentStyle(False, unit)
    return IndentStyle(False, 1)
