"""Turning a reply into blocks: one format, or every format block by block.

A finished reply (:func:`parse_response`) is read in one pass per format family
(:mod:`editblocks.onepass`). :class:`ReplyReader` reads a reply that is still arriving
(:class:`editblocks.StreamParser`) one line at a time, with the same parsers and the same rules
for what is kept, and reports each result as soon as it is certain.
"""

from __future__ import annotations

import heapq
from collections import Counter, deque
from collections.abc import Iterable, Sequence
from operator import attrgetter

from .formats import detect_format, family_formats, get_format, loud_patterns
from .formats.base import LineParser, OpenBlock
from .models import EditBlock, ParsedResponse, ParseWarning
from .onepass import read_finished
from .replyscan import MarkerBalance, ShellScanner, combined_wake, loud_indexes

DETECT_LINES = 2000
"""Lines of a reply without blocks that the format guess reads."""


def split_reply(text: str) -> list[str]:
    """The reply's lines without their endings (CRLF and LF both end a line)."""
    if not text:
        return []
    lines = text.replace("\r\n", "\n").split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def parse_response(text: str, format: str | None = None) -> ParsedResponse:
    """Find the edit blocks in a model's reply.

    With ``format=None`` every format is tried and each block is read in the format it is
    written in. Malformed blocks become :class:`ParseWarning` entries; parsing never raises
    on any text.
    """
    if not isinstance(text, str):
        raise TypeError(f"parse_response expects the reply as str, not {type(text).__name__}")
    lines = split_reply(text)
    return _parse(lines, format, text if "\r" not in text else None)


def parse_lines(lines: Sequence[str], format: str | None = None) -> ParsedResponse:
    """:func:`parse_response` on a reply already split into lines (none may hold a line ending)."""
    if any("\n" in line for line in lines):
        raise ValueError("parse_lines expects lines without line endings; use parse_response for a whole text")
    return _parse(lines, format, None)


def _parse(lines: Sequence[str], format: str | None, joined: str | None) -> ParsedResponse:
    parsed = read_finished(lines if isinstance(lines, list) else list(lines), format, joined)
    if parsed.format is None:
        # No block found: a best guess at the format, from the reply's first lines.
        parsed.format = detect_format("\n".join(lines[:DETECT_LINES]))
    return parsed


class _Family:
    """One format family's parser inside a :class:`ReplyReader`, and what is known of its open block."""

    __slots__ = ("dormant", "index", "parser", "start")

    def __init__(self, index: int, parser: LineParser) -> None:
        self.index = index
        self.parser = parser
        self.dormant = parser.wake is not None
        """No line has woken the parser yet: lines are held back for it (see ``LineParser.wake``)."""
        self.start: int | None = None
        """Line where the parser's open block started (None outside a block)."""


class _Announced:
    """The open block announced through ``started``, and how many of its lines were reported."""

    __slots__ = ("block", "family", "new_seen", "old_seen", "store_len")

    def __init__(self, family: _Family, block: OpenBlock) -> None:
        self.family = family
        self.block = block
        self.old_seen = 0
        self.new_seen = 0
        self.store_len = 0
        """Lines in the store at the last progress report: no new line, no new progress."""


class ReplyReader:
    """Reads a reply line by line and settles its blocks, warnings and shell commands in reply order.

    Every format family's parser sees every line. Where blocks of two families overlap, the
    block that starts first wins (on a tie, the longer one), so a block is *settled* only when
    no family can still produce a block starting before it: while another family has an open
    block that started earlier, the completed block waits. Warnings on lines inside kept blocks
    are dropped and the others settle in line order; lines outside kept blocks are scanned for
    shell commands as they settle. The work per line does not depend on the reply's length.

    Results go to :meth:`completed`, :meth:`warning` and :meth:`shell_command`, which collect
    them in :attr:`blocks`, :attr:`warnings` and :attr:`shell_suggestions`. With
    ``track_open=True`` the reader also reports the block being written through
    :meth:`started`, :meth:`progress` (from :meth:`report_progress`) and :meth:`abandoned`; a
    subclass overrides these methods to turn them into events.
    """

    def __init__(self, format: str | None = None, *, track_open: bool = False) -> None:
        formats = [get_format(format)] if format else family_formats()
        self.format = format
        self._loud_line = loud_patterns()[0]
        """Matches the lines a parser may react to (the registered formats' markers, fences, headings)."""
        self.line_count = 0
        self.blocks: list[EditBlock] = []
        self.warnings: list[ParseWarning] = []
        """Settled warnings in line order; the marker-balance warning, known only at the end, comes last."""
        self.shell_suggestions: list[str] = []
        self.closed = False
        self.lines: list[str] = []
        """Every line read so far: the store the parsers take block texts and path lines from."""
        self._families = [_Family(i, fmt.parser()) for i, fmt in enumerate(formats)]
        for fam in self._families:
            fam.parser.bind(self.lines)
        self._idle = True
        """No family is inside a block: a plain line settles at once."""
        self._held: list[int] = []
        """Lines held back from dormant parsers (only lines a parser is fed)."""
        self._dormant = sum(1 for fam in self._families if fam.dormant)
        self._awake = [fam for fam in self._families if not fam.dormant]
        """The families fed every line, in family order."""
        self._any_wake = combined_wake([fam.parser for fam in self._families if fam.dormant])
        """Matches a line that may wake any dormant parser (one test instead of one per parser)."""
        self._track = track_open
        self._seq = 0
        # Completed blocks and warnings waiting to settle, as heaps in settling order.
        self._candidates: list[tuple[int, int, int, int, EditBlock]] = []
        self._pending_warnings: list[tuple[int, int, int, ParseWarning]] = []
        # Ranges of lines not yet scanned for shell commands.
        self._unsettled: deque[list[int]] = deque()
        # Kept blocks' spans, and a cursor into them per stream of line numbers.
        self._starts: list[int] = []
        self._ends: list[int] = []
        self._last_end = 0
        self._warning_span = 0
        self._line_span = 0
        self._shell = ShellScanner()
        self._shell_seen: set[str] = set()
        self._markers = MarkerBalance()
        self._open: _Announced | None = None
        self._route: tuple[int, int] | None = None
        """How each quiet line grows the announced block's searched and replacing texts, when a
        line since the last loud one showed it (see :meth:`feed_quiet_line`)."""
        self._last_loud = 0
        # Announced blocks that completed and wait to settle: (family, start) -> (path, format, old, new seen).
        self._waiting: dict[tuple[int, int], tuple[str | None, str, int, int]] = {}

    # -- results (override to observe them) -----------------------------------------

    def completed(self, block: EditBlock) -> None:
        """A block settled and is kept."""
        self.blocks.append(block)

    def warning(self, warning: ParseWarning) -> None:
        """A warning settled."""
        self.warnings.append(warning)

    def shell_command(self, command: str) -> None:
        """A shell command the reply suggests (each command once)."""
        self.shell_suggestions.append(command)

    def started(self, path: str | None, format: str, line: int) -> None:
        """A block started at reply line ``line`` (track mode)."""

    def progress(self, path: str | None, format: str, line: int, old_added: str, new_added: str) -> None:
        """Lines were added to the searched (``old``) or replacing (``new``) text of a started block."""

    def abandoned(self, path: str | None, format: str, line: int) -> None:
        """A started block will not be kept (malformed, truncated, or inside an earlier block)."""

    # -- reading ------------------------------------------------------------------

    def feed_line(self, line: str) -> None:
        """Read the next line of the reply (without its line ending)."""
        if self.closed:
            raise ValueError("the reply was already closed")
        self.lines.append(line)
        n = self.line_count = self.line_count + 1
        if self._loud_line.match(line) is not None:
            self._loud(line, n)
        elif self._idle:
            if "`" in line or self._shell.fence_marker is not None:
                self._shell_found(self._shell.feed(line, False))
        else:
            self._hold(n, n)

    def feed_lines(self, lines: Sequence[str]) -> None:
        """Read the next complete lines of the reply (without their line endings).

        Lines no parser reacts to (see :func:`~editblocks.formats.loud_patterns`) go to the line
        store in runs; only the others pass through the parsers one by one.
        """
        if self.closed:
            raise ValueError("the reply was already closed")
        if len(lines) < 16:
            loud_at = [k for k, line in enumerate(lines) if self._loud_line.match(line)]
        else:
            loud_at = loud_indexes(lines)
        i = 0
        for k in loud_at:
            if k > i:
                self._quiet(lines[i:k])
            line = lines[k]
            self.lines.append(line)
            self.line_count += 1
            self._loud(line, self.line_count)
            i = k + 1
        if i < len(lines):
            self._quiet(lines[i:])

    def _quiet(self, run: Sequence[str]) -> None:
        """Lines no parser reacts to: stored, and settled at once outside every block."""
        first = self.line_count + 1
        self.lines.extend(run)
        self.line_count += len(run)
        if not self._idle:
            self._hold(first, self.line_count)
            return
        shell = self._shell
        if shell.fence_marker is not None:
            for line in run:
                shell.feed(line, False)
        else:
            for line in run:
                if "`" in line:
                    self._shell_found(shell.feed(line, False))

    def _hold(self, first: int, last: int) -> None:
        """Lines ``first`` to ``last`` wait to settle (scanned for shell commands when they do)."""
        held = self._unsettled
        if held and held[-1][1] == first - 1:
            held[-1][1] = last
        else:
            held.append([first, last])

    def _loud(self, line: str, n: int) -> None:
        self._route = None
        self._last_loud = n
        if "<<<<<" in line or ">>>>>" in line:
            self._markers.count(line, n)
        if self._dormant:
            self._held.append(n)
            if self._any_wake.match(line) is not None:
                self._wake_for(line)
        limit = n + 1
        ann = self._open
        for fam in self._awake:
            parser = fam.parser
            items = parser.feed(line, n)
            if parser.in_block():
                start = fam.start
                if start is None or items:
                    opened = parser.open_start()
                    if opened is not None:
                        start = fam.start = opened
                    elif start is None:
                        start = fam.start = n
                    # else: a parser that cannot tell keeps the earlier start, which is safe.
                if start < limit:
                    limit = start
            else:
                fam.start = None
            if items:
                self._collect(fam, items)
            if ann is not None and ann.family is fam and fam.start != ann.block.start:
                self._announced_ended(items)
        if limit > n and not self._unsettled and not self._candidates and not self._pending_warnings:
            # Outside every block with nothing waiting: the line settles at once.
            self._idle = True
            found = self._shell.feed(line, False)
            if found:
                self._shell_found(found)
        else:
            self._hold(n, n)
            held = self._unsettled
            if self._candidates or self._pending_warnings or held[0][0] < limit:
                self._settle(limit)
            self._idle = limit > n and not held
        if self._track and self._open is None:
            self._announce()

    def close(self) -> None:
        """The reply is complete: report unfinished blocks and settle everything."""
        if self.closed:
            return
        self.closed = True
        self._route = None
        n = self.line_count
        for fam in self._awake:  # a family never woken has nothing open (see LineParser.wake)
            items = fam.parser.close(n)
            fam.start = None
            if items:
                self._collect(fam, items)
            if self._open is not None and self._open.family is fam:
                self._announced_ended(items)
        self._settle(n + 1)
        balance = self._markers.warning()
        if balance is not None:
            self.warning(balance)

    def response(self) -> ParsedResponse:
        """What was settled so far, as :func:`parse_response` reports it.

        ``format`` is the requested format, else the most common format among the blocks,
        else None.
        """
        if self.format:
            name: str | None = self.format
        elif self.blocks:
            name = Counter(b.format for b in self.blocks).most_common(1)[0][0]
        else:
            name = None
        return ParsedResponse(
            blocks=list(self.blocks),
            warnings=sorted(self.warnings, key=attrgetter("line")),
            shell_suggestions=list(self.shell_suggestions),
            format=name,
        )

    def announced_block(self) -> OpenBlock | None:
        """The announced block that is still open, as its parser shows it (track mode)."""
        return self._open.block if self._open is not None else None

    def report_progress(self) -> None:
        """Report the lines added to the announced open block since its last report (track mode)."""
        ann = self._open
        stored = len(self.lines)
        if ann is None or ann.store_len == stored:
            return
        one_quiet_line = ann.store_len == stored - 1 and self._last_loud != stored
        ann.store_len = stored
        block = ann.block
        old, new = block.old, block.new
        n_old, n_new = len(old), len(new)
        if n_old > ann.old_seen or n_new > ann.new_seen:
            grew = (n_old - ann.old_seen, n_new - ann.new_seen)
            old_added = "\n".join(old[ann.old_seen :]) + "\n" if n_old > ann.old_seen else ""
            new_added = "\n".join(new[ann.new_seen :]) + "\n" if n_new > ann.new_seen else ""
            ann.old_seen, ann.new_seen = n_old, n_new
            if one_quiet_line and grew in _ROUTES:
                # The block's texts grow by this line; so they will by each quiet line until the
                # next line a parser is fed (see feed_quiet_line).
                self._route = grew
            self.progress(block.path, block.format, block.start, old_added, new_added)

    def feed_quiet_line(self, line: str) -> bool:
        """Read the next line and report its progress at once, when the line is quiet and the
        announced block's texts are known to grow by it (track mode); else read nothing and
        return False, and the caller uses :meth:`feed_line` and :meth:`report_progress`.

        Quiet lines are not fed to the parsers, so between two loud lines the store is all that
        grows: each quiet line extends the same texts of the open block as the one before it.
        """
        route = self._route
        if route is None or self._loud_line.match(line) is not None:
            return False  # (a closed reader has no route either)
        self.lines.append(line)
        n = self.line_count = self.line_count + 1
        self._hold(n, n)  # a block is open: the line waits to settle
        ann = self._open
        assert ann is not None
        ann.store_len = n
        ann.old_seen += route[0]
        ann.new_seen += route[1]
        text = line + "\n"
        block = ann.block
        self.progress(block.path, block.format, block.start, text if route[0] else "", text if route[1] else "")
        return True

    # -- internals ----------------------------------------------------------------

    def _wake_for(self, line: str) -> None:
        """A line that may wake dormant parsers arrived: wake those it does (see :meth:`_wake`)."""
        woken = False
        for fam in self._families:
            if fam.dormant and fam.parser.wake.match(line):  # type: ignore[union-attr]
                self._wake(fam)
                woken = True
        if woken:
            self._awake = [fam for fam in self._families if not fam.dormant]
            self._any_wake = combined_wake([fam.parser for fam in self._families if fam.dormant])
            if not self._dormant:
                self._held = []

    def _wake(self, fam: _Family) -> None:
        """A dormant parser's start marker arrived: feed it the lines held back until now (the
        line that woke it is fed next, with the awake parsers)."""
        fam.dormant = False
        self._dormant -= 1
        parser = fam.parser
        lines = self.lines
        for m in self._held[:-1]:
            items = parser.feed(lines[m - 1], m)
            if items:
                self._collect(fam, items)

    def _collect(self, fam: _Family, items: Iterable[EditBlock | ParseWarning]) -> None:
        for item in items:
            self._seq += 1
            if isinstance(item, EditBlock):
                heapq.heappush(self._candidates, (item.line_number, -item.end_line, fam.index, self._seq, item))
            else:
                heapq.heappush(self._pending_warnings, (item.line, fam.index, self._seq, item))

    def _settle(self, limit: int) -> None:
        """Settle everything that starts before line ``limit``: no family can still produce anything earlier."""
        candidates = self._candidates
        while candidates and candidates[0][0] < limit:
            start, _, index, _, block = heapq.heappop(candidates)
            if start > self._last_end:
                self._starts.append(start)
                self._ends.append(block.end_line)
                self._last_end = block.end_line
                self._keep(block, index)
            elif self._track:
                waiting = self._waiting.pop((index, start), None)
                if waiting is not None:
                    self.abandoned(waiting[0], waiting[1], start)
        warnings = self._pending_warnings
        while warnings and warnings[0][0] < limit:
            line, _, _, w = heapq.heappop(warnings)
            self._warning_span, inside = self._in_span(self._warning_span, line)
            if not inside:
                self.warning(w)
        held = self._unsettled
        if held and held[0][0] < limit:
            shell = self._shell
            store = self.lines
            span = self._line_span
            starts, ends = self._starts, self._ends
            count = len(starts)
            while held and held[0][0] < limit:
                first, last = held[0]
                stop = min(last, limit - 1)
                i = first
                while i <= stop:
                    while span + 1 < count and starts[span + 1] <= i:
                        span += 1
                    if span < count and starts[span] <= i <= ends[span]:
                        # Lines of a kept block: only mark a fence around them as not a shell block.
                        shell.feed("", True)
                        i = min(ends[span], stop) + 1
                        continue
                    if span < count and starts[span] > i:
                        seg_end = min(stop, starts[span] - 1)
                    elif span + 1 < count:
                        seg_end = min(stop, starts[span + 1] - 1)
                    else:
                        seg_end = stop
                    for k in range(i, seg_end + 1):
                        found = shell.feed(store[k - 1], False)
                        if found:
                            self._shell_found(found)
                    i = seg_end + 1
                if stop == last:
                    held.popleft()
                else:
                    held[0][0] = stop + 1
            self._line_span = span

    def _shell_found(self, found: list[str]) -> None:
        for cmd in found:
            if cmd not in self._shell_seen:
                self._shell_seen.add(cmd)
                self.shell_command(cmd)

    def _in_span(self, span: int, line: int) -> tuple[int, bool]:
        starts = self._starts
        count = len(starts)
        while span + 1 < count and starts[span + 1] <= line:
            span += 1
        return span, span < count and starts[span] <= line <= self._ends[span]

    def _keep(self, block: EditBlock, index: int) -> None:
        if self._track:
            waiting = self._waiting.pop((index, block.line_number), None)
            if waiting is None:
                self.started(block.file_path, block.format, block.line_number)
                old_seen = new_seen = 0
            else:
                old_seen, new_seen = waiting[2], waiting[3]
            old_added = _drop_lines(block.search_text, old_seen)
            new_added = _drop_lines(block.replace_text, new_seen)
            if old_added or new_added:
                self.progress(block.file_path, block.format, block.line_number, old_added, new_added)
        self.completed(block)

    def _announced_ended(self, items: Iterable[EditBlock | ParseWarning]) -> None:
        """The announced open block ended on this line: it waits to settle, or is abandoned."""
        ann = self._open
        assert ann is not None
        self._open = None
        block = ann.block
        if any(isinstance(item, EditBlock) and item.line_number == block.start for item in items):
            self._waiting[(ann.family.index, block.start)] = (block.path, block.format, ann.old_seen, ann.new_seen)
        else:
            self.abandoned(block.path, block.format, block.start)

    def _announce(self) -> None:
        """Announce the earliest open block, unless it lies in a kept block."""
        leader: _Family | None = None
        for fam in self._families:
            if fam.start is not None and fam.start > self._last_end and (leader is None or fam.start < leader.start):  # type: ignore[operator]
                leader = fam
        if leader is None:
            return
        block = leader.parser.open_block()
        if block is None:
            return
        self._open = _Announced(leader, block)
        self.started(block.path, block.format, block.start)


_ROUTES = frozenset({(1, 0), (0, 1), (1, 1)})


def _drop_lines(text: str, count: int) -> str:
    """``text`` without its first ``count`` lines."""
    pos = 0
    for _ in range(count):
        pos = text.find("\n", pos) + 1
        if pos == 0:
            return ""
    return text[pos:]
