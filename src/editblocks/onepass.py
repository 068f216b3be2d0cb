"""Reading a finished reply in one pass per format family.

A reply that is already complete needs none of the bookkeeping that lets
:class:`~editblocks.parsing.ReplyReader` report results while lines arrive. Each family's parser
reads the reply's loud lines in one tight loop, and the same rules then decide what is kept: of
blocks that overlap, the one that starts first (on a tie, the longer one); warnings on lines
inside kept blocks are dropped; shell commands are read from the lines outside kept blocks.
The result is the reader's, found with less work per line.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from operator import attrgetter

from .formats import family_formats, get_format, loud_patterns
from .formats.base import LineParser
from .models import EditBlock, ParsedResponse, ParseWarning
from .replyscan import MarkerBalance, ShellScanner, line_indexes, may_suggest_shell

_BACKTICK = re.compile(r"`[^\n]*")
"""The rest of a line from its first backtick: one match per line holding one."""


def read_finished(lines: list[str], format: str | None = None, joined: str | None = None) -> ParsedResponse:
    """Blocks, warnings and shell commands of a complete reply split into ``lines``.

    ``format`` names the one format to read (None: every family, block by block); ``joined``
    may give the same lines joined by line endings, when the caller has that text already.
    ``format`` of the result is the requested format, else the most common among the blocks,
    else None.
    """
    formats = [get_format(format)] if format else family_formats()
    padded = "\n" + (joined if joined is not None else "\n".join(lines))
    loud = line_indexes(padded, loud_patterns()[1])
    loud_text = "\n" + "\n".join([lines[k] for k in loud])
    """The loud lines, each after a line ending: what wakes parsers and what markers to count."""
    blocks: list[tuple[int, int, int, int, EditBlock]] = []
    warnings: list[tuple[int, int, int, ParseWarning]] = []
    seq = 0
    for index, fmt in enumerate(formats):
        parser = fmt.parser()
        if not _wakes(parser, lines, loud, loud_text):
            continue  # never leaves its starting state: nothing to read (see LineParser.wake)
        parser.bind(lines)
        feed = parser.feed
        found = [item for k in loud for item in feed(lines[k], k + 1)]
        found.extend(parser.close(len(lines)))
        for item in found:
            seq += 1
            if isinstance(item, EditBlock):
                blocks.append((item.line_number, -item.end_line, index, seq, item))
            else:
                warnings.append((item.line, index, seq, item))
    blocks.sort()
    kept: list[EditBlock] = []
    starts: list[int] = []
    ends: list[int] = []
    last_end = 0
    for start, _, _, _, block in blocks:
        if start > last_end:
            kept.append(block)
            starts.append(start)
            ends.append(block.end_line)
            last_end = block.end_line
    warnings.sort()
    settled = [w for line, _, _, w in warnings if not _inside(starts, ends, line)]
    balance = MarkerBalance.of_text(loud_text, loud).warning()
    if balance is not None:
        settled.append(balance)
    if format:
        name: str | None = format
    elif kept:
        name = Counter(b.format for b in kept).most_common(1)[0][0]
    else:
        name = None
    commands: list[str] = []
    if may_suggest_shell(padded, loud_text):
        ticks = [k - 1 for k in line_indexes(padded, _BACKTICK)]
        marks = sorted(set(loud).union(ticks)) if ticks else loud
        commands = _shell_commands(lines, marks, starts, ends)
    return ParsedResponse(
        blocks=kept,
        warnings=sorted(settled, key=attrgetter("line")),
        shell_suggestions=commands,
        format=name,
    )


def _wakes(parser: LineParser, lines: list[str], loud: list[int], loud_text: str) -> bool:
    """True when a line of the reply wakes ``parser`` (always, for a parser that needs no waking).

    Only loud lines can wake a parser. Lines held back from a dormant parser are replayed when
    it wakes, so a parser that wakes reads every loud line, as if it had never slept.
    """
    wake = parser.wake
    if wake is None:
        return True
    found = _text_wake(wake).search(loud_text)
    if found is None:
        return False  # every loud line that wakes the parser would be found in the text
    match = wake.match
    first = loud_text.count("\n", 0, found.start())  # the search may find more: test the lines
    return any(match(lines[k]) is not None for k in loud[first:])


_TEXT_WAKES: dict[re.Pattern[str], re.Pattern[str]] = {}


def _text_wake(wake: re.Pattern[str]) -> re.Pattern[str]:
    """``wake`` tried after every line ending of a text. It finds every line ``wake.match``
    accepts, and maybe more: white space may run over a line ending."""
    found = _TEXT_WAKES.get(wake)
    if found is None:
        found = _TEXT_WAKES[wake] = re.compile(f"\n(?:{wake.pattern})", wake.flags | re.MULTILINE)
    return found


def _inside(starts: list[int], ends: list[int], line: int) -> bool:
    i = bisect.bisect_right(starts, line) - 1
    return i >= 0 and line <= ends[i]


def _shell_commands(lines: list[str], marks: list[int], starts: list[int], ends: list[int]) -> list[str]:
    """Shell commands on the lines outside the kept blocks (lines ``starts[i]`` to ``ends[i]``),
    each once. ``marks`` are the indexes of the lines that can matter outside a shell fence:
    the loud ones (a fence may open or close) and those holding a backtick."""
    scanner = ShellScanner()
    feed = scanner.feed
    found: list[str] = []
    pos = 0  # index of the first line after the last kept block
    total = len(lines)
    for start, end in [*zip(starts, ends), (total + 1, total)]:
        stop = start - 1  # lines pos .. stop - 1 lie between two kept blocks
        lo, hi = bisect.bisect_left(marks, pos), bisect.bisect_left(marks, stop)
        for i in range(lo, hi):
            k = marks[i]
            found += feed(lines[k], False)
            if scanner.shell is not None:
                # Inside a shell fence every line is a command.
                for j in range(k + 1, marks[i + 1] if i + 1 < hi else stop):
                    found += feed(lines[j], False)
        if start <= total:
            feed("", True)
        pos = end
    return list(dict.fromkeys(found))
