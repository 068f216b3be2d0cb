"""Scans of a reply's lines for the reader: the lines parsers react to, the lines that
wake a dormant parser, and the shell commands a reply suggests."""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import accumulate, chain, repeat

from editblocks.formats import loud_patterns
from editblocks.formats.base import LineParser
from editblocks.formats.common import parse_fence
from editblocks.formats.search_replace import REPLACE, SEARCH
from editblocks.models import ParseWarning

_INLINE_SHELL = re.compile(r"`((?:git rm|git mv|mkdir -p|rm -rf|rm -r|mv|cp|rmdir) [^`\n]+)`")
_SHELL_FENCE_AFTER_NEWLINE = re.compile(
    r"\n[^\S\n]*+(?:`{3}|~{3})[`~]*[^\S\n]*(?i:sh|bash|zsh|console|powershell|ps1|cmd|bat)"
)
"""A line ending and a fence after it that may open a shell block (every one does, and some more)."""


_SEARCH_AFTER_NEWLINE = re.compile(r"\n[^\S\n]*+<{5,9}[^\S\n]*SEARCH[^\S\n]*>?[^\S\n]*(?![^\n])")
"""A line ending and the line after it, when :data:`~editblocks.formats.search_replace.SEARCH` matches that line."""
_REPLACE_AFTER_NEWLINE = re.compile(r"\n[^\S\n]*+>{5,9}[^\S\n]*REPLACE[^\S\n]*(?![^\n])")
"""A line ending and the line after it, when that line is a ``>>>>>>> REPLACE`` marker."""


def may_suggest_shell(text: str, loud_text: str) -> bool:
    """False when a reply certainly suggests no shell command: ``text`` holds no inline command
    and ``loud_text`` (its loud lines, each after a line ending) no fence that may open a shell
    block."""
    return _INLINE_SHELL.search(text) is not None or _SHELL_FENCE_AFTER_NEWLINE.search(loud_text) is not None


def line_indexes(padded: str, pattern: re.Pattern[str]) -> list[int]:
    """For each match of ``pattern`` in ``padded`` (a reply after one line ending), the number of
    line endings before it. A match that starts at the line ending before a line (as with
    the second of :func:`~editblocks.formats.loud_patterns`) gives that line's 0-based index in the reply; a match inside a
    line gives its index plus one."""
    offsets = [m.start() for m in pattern.finditer(padded)]
    # The index is the number of line endings before the offset, counted at C speed.
    return list(accumulate(map(padded.count, repeat("\n"), chain((0,), offsets), offsets)))


def combined_wake(parsers: Sequence[LineParser]) -> re.Pattern[str]:
    """One pattern matching the lines that wake any of ``parsers`` (see ``LineParser.wake``)."""
    wakes = [p.wake for p in parsers if p.wake is not None]
    patterns = [w.pattern for w in wakes]
    flags = 0
    for w in wakes:
        flags |= w.flags & (re.IGNORECASE | re.MULTILINE)
    return re.compile("|".join(f"(?:{p})" for p in patterns) or "(?!)", flags)


class MarkerBalance:
    """The balance check: the SEARCH and REPLACE markers of every line, inside blocks or not.

    Only lines holding ``<<<<<`` or ``>>>>>`` need to be :meth:`count`-ed.
    """

    __slots__ = ("_open", "first_search", "replaces", "searches", "unbalanced")

    def __init__(self) -> None:
        self.searches = 0
        self.replaces = 0
        self.first_search = 0
        self._open = 0
        self.unbalanced = 0
        """Line of the first marker without its partner (a SEARCH left open, or a lone REPLACE)."""

    def count(self, line: str, lineno: int) -> None:
        """Count the marker on line ``lineno``, if it holds one."""
        if SEARCH.match(line):
            self._search(lineno)
        elif REPLACE.match(line) and "REPLACE" in line:
            self._replace(lineno)

    def _search(self, lineno: int) -> None:
        if not self.searches:
            self.first_search = lineno
        self.searches += 1
        if self._open and not self.unbalanced:
            self.unbalanced = self._open
        self._open = lineno

    def _replace(self, lineno: int) -> None:
        self.replaces += 1
        if not self._open and not self.unbalanced:
            self.unbalanced = lineno
        self._open = 0

    def count_text(self, padded: str, numbers: Sequence[int]) -> None:
        """Count the markers of lines at C speed: ``padded`` is the lines, each after a line
        ending, and its ``i``-th line is line ``numbers[i]`` of the reply."""
        events = sorted(
            [(m.start(), True) for m in _SEARCH_AFTER_NEWLINE.finditer(padded)]
            + [(m.start(), False) for m in _REPLACE_AFTER_NEWLINE.finditer(padded)]
        )
        at, line = 0, 0
        for pos, is_search in events:
            line += padded.count("\n", at, pos)
            at = pos
            (self._search if is_search else self._replace)(numbers[line])

    def warning(self) -> ParseWarning | None:
        """The warning for a reply whose SEARCH and REPLACE markers differ in number, or None; it
        points at the first block whose markers are unbalanced."""
        if self.searches == self.replaces:
            return None
        first = self.unbalanced or self._open or (self.first_search if self.searches else 1)
        return ParseWarning(
            first, f"Mismatched SEARCH/REPLACE: {self.searches} SEARCH vs {self.replaces} REPLACE", "diff"
        )


class ShellScanner:
    """Finds shell commands line by line: inline ``git rm ...`` spans and fenced shell blocks.

    Lines inside edit blocks are skipped, and a fence that contains such a line is not a
    shell block.
    """

    __slots__ = ("_loud_line", "fence_marker", "shell", "tainted")

    def __init__(self) -> None:
        self._loud_line = loud_patterns()[0]
        self.fence_marker: str | None = None
        self.shell: list[str] | None = None
        self.tainted = False

    def feed(self, line: str, in_block: bool) -> list[str]:
        if in_block:
            self.tainted = True
            return []
        if self._loud_line.match(line) is None:
            # Not a fence: a command inside a shell fence, or text that may hold inline commands.
            if self.fence_marker is not None:
                if self.shell is not None:
                    cmd = line.strip()
                    if cmd.startswith("$ "):
                        cmd = cmd[2:].strip()
                    if cmd:
                        self.shell.append(cmd)
                return []
            if "`" not in line:
                return []
            return [m.group(1).strip() for m in _INLINE_SHELL.finditer(line)]
        fence = parse_fence(line)
        if self.fence_marker is not None:
            if (
                fence is not None
                and not fence.info
                and fence.marker[0] == self.fence_marker[0]
                and len(fence.marker) >= len(self.fence_marker)
            ):
                found = self.shell if self.shell is not None and not self.tainted else []
                self.fence_marker, self.shell = None, None
                return found
            if self.shell is not None:
                cmd = line.strip()
                if cmd.startswith("$ "):
                    cmd = cmd[2:].strip()
                if cmd and not cmd.startswith("#"):
                    self.shell.append(cmd)
            return []
        if fence is not None and not fence.marker.startswith("<"):
            self.fence_marker = fence.marker
            self.shell = [] if fence.is_shell else None
            self.tainted = False
            return []
        if "`" not in line:
            return []
        return [m.group(1).strip() for m in _INLINE_SHELL.finditer(line)]
