"""Turning a reply into blocks: one format, or every format block by block.

One engine, :class:`ReplyReader`, reads every reply: a finished one (:func:`parse_reply`) as
one batch of lines, one still arriving (:class:`editblocks.StreamParser`) a batch per chunk,
with the same parsers and the same rules for what is kept; it reports each result as soon as
it is certain.
"""

from __future__ import annotations

import heapq
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from operator import attrgetter

from editblocks.formats import detect_format, family_formats, get_format, loud_patterns
from editblocks.formats.base import LineParser, OpenBlock, ParseItem
from editblocks.models import EditBlock, ParsedReply, ParseWarning
from editblocks.reading.scan import MarkerBalance, ShellScanner, combined_wake, line_indexes, may_suggest_shell

_BACKTICK = re.compile(r"`[^\n]*")
"""The rest of a line from its first backtick: one match per line holding one."""

DETECT_LINES = 2000
"""Lines of a reply without blocks that the format guess reads."""


def split_reply(text: str) -> list[str]:
    """The reply's lines without their endings (CRLF and LF both end a line)."""
    if not text:
        return []
    lines = (text.replace("\r\n", "\n") if "\r" in text else text).split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def parse_reply(text: str, format: str | None = None) -> ParsedReply:
    """Find the edit blocks in a model's reply.

    With ``format=None`` every format is tried and each block is read in the format it is
    written in. Malformed blocks become :class:`ParseWarning` entries; parsing never raises
    on any text.
    """
    if not isinstance(text, str):
        raise TypeError(f"parse_reply expects the reply as str, not {type(text).__name__}")
    lines = split_reply(text)
    # The lines joined again are the text itself, but for CRLF line endings (a last line ending
    # more changes nothing the reader looks for in it).
    return _parse(lines, format, text if "\r" not in text else None)


def parse_lines(lines: Sequence[str], format: str | None = None) -> ParsedReply:
    """:func:`parse_reply` on a reply already split into lines (none may hold a line ending)."""
    if any("\n" in line for line in lines):
        raise ValueError("parse_lines expects lines without line endings; use parse_reply for a whole text")
    return _parse(lines, format)


def _parse(lines: Sequence[str], format: str | None, joined: str | None = None) -> ParsedReply:
    reader = ReplyReader(format)
    reader.feed_lines(lines, last=True, joined=joined)
    reader.close()
    parsed = reader.reply()
    if parsed.format is None:
        # No block found: a best guess at the format, from the reply's first lines.
        parsed.format = detect_format("\n".join(lines[:DETECT_LINES]))
    return parsed


class _Family:
    """One format family's parser inside a :class:`ReplyReader`, and what is known of its open block."""

    __slots__ = ("content", "dormant", "index", "parser", "start")

    def __init__(self, index: int, parser: LineParser, content: str | None = None) -> None:
        self.index = index
        self.parser = parser
        self.content = content
        """What the family's blocks are when they are a file's content (see ``EditFormat.content``)."""
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
    """Reads a reply in batches of complete lines and settles its blocks, warnings and shell
    commands in reply order: the one reading engine, for finished replies (one batch) and for
    replies still arriving (a batch per chunk).

    Only the lines a parser may react to (*loud* lines, see
    :func:`~editblocks.formats.loud_patterns`) pass through the parsers; a batch's loud lines
    are found by one C-speed scan and fed to each family's parser in one tight loop, and the
    other lines go to the line store as a run. Where blocks of two families overlap, the block
    that starts first wins (on a tie, the longer one), so a block is *settled* only when no
    family can still produce a block starting before it. Warnings on lines inside kept blocks
    are dropped and the others settle in line order; the lines outside kept blocks are scanned
    for shell commands as they settle (only the loud lines and those holding a backtick, and
    every line of a shell fence). The work per line does not depend on the reply's length.

    Results go to :meth:`completed`, :meth:`warning` and :meth:`shell_command`, which collect
    them in :attr:`blocks`, :attr:`warnings` and :attr:`shell_suggestions`. With
    ``track_open=True`` the reader also reports the block being written through
    :meth:`started`, :meth:`progress` (from :meth:`report_progress`, once per batch) and
    :meth:`abandoned`; a subclass overrides these methods to turn them into events.
    """

    def __init__(self, format: str | None = None, *, track_open: bool = False) -> None:
        formats = [get_format(format)] if format else family_formats()
        self.format = format
        self._loud_line, self.loud_after_newline = loud_patterns()
        self._loud_start = loud_starts(self._loud_line)
        """What a loud line starts with after white space: ``line.lstrip()[:1] in self._loud_start``
        is ``self._loud_line.match(line) is not None``, in half the time."""
        self.line_count = 0
        self.blocks: list[EditBlock] = []
        self.warnings: list[ParseWarning] = []
        """Settled warnings in line order; the marker-balance warning, known only at the end, comes last."""
        self.shell_suggestions: list[str] = []
        self.closed = False
        self.lines: list[str] = []
        """Every line read so far: the store the parsers take block texts and path lines from."""
        self._families = [_Family(i, fmt.parser(), fmt.content) for i, fmt in enumerate(formats)]
        for fam in self._families:
            fam.parser.bind(self.lines)
        self._held: list[int] = []
        """The loud lines so far, while a parser sleeps: fed to it when it wakes."""
        self._dormant = sum(1 for fam in self._families if fam.dormant)
        self._awake = [fam for fam in self._families if not fam.dormant]
        """The families fed every loud line, in family order."""
        self._any_wake = combined_wake([fam.parser for fam in self._families if fam.dormant])
        """Matches a line that may wake any dormant parser (one test instead of one per parser)."""
        self._track = track_open
        self._seq = 0
        # Completed blocks and warnings waiting to settle, as heaps in settling order.
        self._candidates: list[tuple[int, int, int, int, EditBlock]] = []
        self._pending_warnings: list[tuple[int, int, int, ParseWarning]] = []
        # Kept blocks' spans, and cursors into them.
        self._starts: list[int] = []
        self._ends: list[int] = []
        self._last_end = 0
        self._warning_span = 0
        self._idle = True
        """No family is inside a block: every line read so far is settled."""
        # Shell commands: the lines that can matter (loud, or holding a backtick) and how far the
        # lines are scanned.
        self._ended = False
        """The last batch was read (``feed_lines(last=True)``)."""
        self._no_shell = False
        """The whole reply, read as one batch, suggests no shell command: nothing to scan."""
        self._marks: list[int] = []
        self._mark_pos = 0
        self._scanned = 0
        self._span = 0
        self._shell = ShellScanner()
        self._shell_seen: set[str] = set()
        self._markers = MarkerBalance()
        self._open: _Announced | None = None
        self._route: tuple[int, int] | None = None
        """How each quiet line grows the announced block's searched and replacing texts, when a
        line since the last loud one showed it: quiet lines are not fed to the parsers, so between
        two loud lines each quiet line extends the same texts as the one before it."""
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
        if line.lstrip()[:1] in self._loud_start:
            self.feed_loud_line(line)
            return
        if self.closed:
            raise ValueError("the reply was already closed")
        self.lines.append(line)
        n = self.line_count = self.line_count + 1
        if "`" in line:
            self._marks.append(n)
        elif self._shell.shell is None and self._scanned == n - 1:
            self._scanned = n  # nothing in it for the shell scan
            return
        if self._idle:
            self._scan_shell(n)

    def feed_loud_line(self, line: str) -> None:
        """:meth:`feed_line` for a line known to be loud (a parser may react to it)."""
        if self.closed:
            raise ValueError("the reply was already closed")
        self.lines.append(line)
        n = self.line_count = self.line_count + 1
        self._marks.append(n)
        # :meth:`_read_loud` for one line, the usual case while a reply streams.
        self._route = None
        self._last_loud = n
        if ("SEARCH" in line and "<<<<<" in line) or ("REPLACE" in line and ">>>>>" in line):
            self._markers.count(line, n)  # (a line without both cannot be a marker it counts)
        if self._dormant:
            self._held.append(n)
            if self._any_wake.match(line) is not None:
                # The batch reader wakes the parsers this line wakes and feeds them every loud line so far.
                self._held.pop()
                self._feed_families([n])
                self._after(n)
                return
        ann = self._open
        for fam in self._awake:
            parser = fam.parser
            items = parser.feed(line, n)
            if items:
                if self._fed(fam, items, n, ann):
                    ann = None
                continue
            # :meth:`_fed` for the usual line, which completes no item.
            if parser.in_block():
                if fam.start is None:
                    opened = parser.open_start()
                    fam.start = opened if opened is not None else n
            else:
                fam.start = None
            if ann is not None and ann.family is fam and fam.start != ann.block.start:
                self._announced_ended(items)
                ann = None
        if not self._dormant and self._held:
            self._held = []
        self._after(n)

    def feed_lines(self, lines: Sequence[str], *, last: bool = False, joined: str | None = None) -> None:
        """Read the next complete lines of the reply (without their line endings): one batch.

        The batch's loud lines pass through the parsers; the others go to the line store in a
        run, untouched. ``last``: no line follows (a whole reply read at once), so a reply that
        holds no shell command at all is not scanned for them. ``joined``: the same lines joined
        by line endings (a last line ending may follow), when the caller has that text already.
        """
        if self.closed or self._ended:
            raise ValueError("the reply was already closed")
        self._ended = last
        if not lines:
            return
        base = self.line_count
        self.lines.extend(lines)
        n = self.line_count = base + len(lines)
        if len(lines) < 16:
            match = self._loud_line.match
            loud = [base + k for k, line in enumerate(lines, start=1) if match(line) is not None]
            ticks = [base + k for k, line in enumerate(lines, start=1) if "`" in line]
        else:
            padded = "\n" + (joined if joined is not None else "\n".join(lines))
            loud = [base + 1 + k for k in line_indexes(padded, self.loud_after_newline)]
            loud_text = "\n" + "\n".join([lines[k - base - 1] for k in loud])
            """The loud lines, each after a line ending: searched for markers and wake lines."""
            if last and base == 0 and not may_suggest_shell(padded, loud_text):
                self._no_shell = True
                ticks = []
            else:
                ticks = [base + k for k in line_indexes(padded, _BACKTICK)] if "`" in padded else []
        if self._no_shell:
            pass
        elif ticks:
            self._marks.extend(sorted(set(loud).union(ticks)))
        else:
            self._marks.extend(loud)
        if loud:
            if len(lines) < 16:
                self._read_loud(loud)
            else:
                self._markers.count_text(loud_text, loud)
                self._read_loud(loud, loud_text)
        self._after(n)

    def _read_loud(self, loud: list[int], loud_text: str | None = None) -> None:
        """Feed the loud lines ``loud`` (line numbers, ascending) to the parsers, each family's in
        one loop, and collect what they complete; count their SEARCH/REPLACE markers unless
        they were counted in ``loud_text`` (the same lines, each after a line ending)."""
        self._route = None
        self._last_loud = loud[-1]
        if loud_text is None:
            lines = self.lines
            markers = self._markers
            for n in loud:
                line = lines[n - 1]
                if ("SEARCH" in line and "<<<<<" in line) or ("REPLACE" in line and ">>>>>" in line):
                    markers.count(line, n)  # (a line without both cannot be a marker it counts)
        self._feed_families(loud, loud_text)

    def _feed_families(self, loud: list[int], loud_text: str | None = None) -> None:
        """Feed the loud lines ``loud`` to every awake parser, and to those they wake the loud
        lines held back from them too."""
        lines = self.lines
        woken: list[_Family] = []
        if self._dormant:
            self._held.extend(loud)
            if len(loud) == 1:
                line = lines[loud[0] - 1]
                if self._any_wake.match(line) is not None:
                    woken = [fam for fam in self._families if fam.dormant and _wakes_line(fam.parser, line)]
            else:
                # The loud lines as one text, each after a line ending: each dormant parser's
                # wake pattern is searched in it at C speed, and only a hit is checked line by line.
                if loud_text is None:
                    loud_text = "\n" + "\n".join([lines[n - 1] for n in loud])
                woken = [fam for fam in self._families if fam.dormant and _wakes(fam.parser, lines, loud, loud_text)]
            for fam in woken:
                fam.dormant = False
                self._dormant -= 1
            if woken:
                self._awake = [fam for fam in self._families if not fam.dormant]
                self._any_wake = combined_wake([fam.parser for fam in self._families if fam.dormant])
        ann = self._open
        for fam in self._awake:
            parser = fam.parser
            todo = self._held if fam in woken else loud
            feed = parser.feed
            if self._fed(fam, [item for n in todo for item in feed(lines[n - 1], n)], todo[0], ann):
                ann = None
        if not self._dormant:
            self._held = []

    def _fed(self, fam: _Family, items: list[ParseItem], first: int, ann: _Announced | None) -> bool:
        """``fam``'s parser was fed lines from ``first`` on and completed ``items``: note where
        its open block starts, collect the items, and end the announced block if it was this
        family's and ended (returns True then)."""
        parser = fam.parser
        if items and fam.content is not None:
            items = _as_content(items, fam.content)
        if parser.in_block():
            if fam.start is None or items:
                opened = parser.open_start()
                # A parser that cannot tell where its block started: the first line fed, which is safe.
                fam.start = opened if opened is not None else first
        else:
            fam.start = None
        if items:
            self._collect(fam, items)
        if ann is not None and ann.family is fam and fam.start != ann.block.start:
            self._announced_ended(items)
            return True
        return False

    def _after(self, n: int) -> None:
        """Lines up to ``n`` are read: settle what no family can still precede."""
        limit = n + 1
        inside = False
        for fam in self._awake:
            start = fam.start
            if start is not None:
                inside = True
                if start < limit:
                    limit = start
        self._idle = limit > n
        if self._candidates or self._pending_warnings:
            self._settle(limit)
        elif self._scanned < limit - 1:
            self._scan_shell(limit - 1)  # all _settle would do
        if self._track and self._open is None and inside:
            self._announce()  # (with no family inside a block there is nothing to announce)

    def close(self) -> None:
        """The reply is complete: report unfinished blocks and settle everything."""
        if self.closed:
            return
        self.closed = True
        self._route = None
        n = self.line_count
        for fam in self._awake:  # a family never woken has nothing open (see LineParser.wake)
            items = fam.parser.close(n)
            if items and fam.content is not None:
                items = _as_content(items, fam.content)
            fam.start = None
            if items:
                self._collect(fam, items)
            if self._open is not None and self._open.family is fam:
                self._announced_ended(items)
        self._settle(n + 1)
        balance = self._markers.warning()
        if balance is not None:
            self.warning(balance)

    def reply(self) -> ParsedReply:
        """What was settled so far, as :func:`parse_reply` reports it.

        ``format`` is the requested format, else the most common format among the blocks,
        else None.
        """
        if self.format:
            name: str | None = self.format
        elif self.blocks:
            name = Counter(b.format for b in self.blocks).most_common(1)[0][0]
        else:
            name = None
        return ParsedReply(
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
        if ann is None:
            return
        stored = len(self.lines)
        reported = ann.store_len
        if reported == stored:
            return
        ann.store_len = stored
        block = ann.block
        old, new = block.old, block.new
        old_seen, new_seen = ann.old_seen, ann.new_seen
        n_old, n_new = len(old), len(new)
        if n_old > old_seen or n_new > new_seen:
            old_added = "\n".join(old[old_seen:]) + "\n" if n_old > old_seen else ""
            new_added = "\n".join(new[new_seen:]) + "\n" if n_new > new_seen else ""
            ann.old_seen, ann.new_seen = n_old, n_new
            if reported == stored - 1 and self._last_loud != stored:
                # The block's texts grow by this quiet line; so they will by each quiet line until
                # the next line a parser is fed (see _EventReader.feed_one's short way).
                route = _ROUTES.get((n_old - old_seen, n_new - new_seen))
                if route is not None:
                    self._route = route
            self.progress(block.path, block.format, block.start, old_added, new_added)

    # -- internals ----------------------------------------------------------------

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
        self._scan_shell(limit - 1)

    def _scan_shell(self, stop: int) -> None:
        """Scan the lines after the last scanned one up to ``stop`` for shell commands, those
        outside kept blocks: the marked lines (loud, or holding a backtick), and every line
        inside a shell fence."""
        i = self._scanned + 1
        if i > stop:
            return
        if self._no_shell:
            self._scanned = stop
            return
        shell = self._shell
        feed = shell.feed
        store = self.lines
        marks = self._marks
        n_marks = len(marks)
        mp = self._mark_pos
        starts, ends = self._starts, self._ends
        count = len(starts)
        span = self._span
        while i <= stop:
            while span < count and ends[span] < i:
                span += 1
            if span < count and starts[span] <= i:
                # Lines of a kept block: only mark a fence around them as not a shell block.
                feed("", True)
                i = ends[span] + 1
                continue
            seg_end = min(stop, starts[span] - 1) if span < count else stop
            while mp < n_marks and marks[mp] < i:
                mp += 1
            if shell.shell is not None:
                # Inside a shell fence every line is a command, up to the next marked line.
                upto = min(marks[mp] if mp < n_marks else seg_end + 1, seg_end + 1)
                for k in range(i, upto):
                    feed(store[k - 1], False)
            while mp < n_marks and marks[mp] <= seg_end:
                k = marks[mp]
                mp += 1
                found = feed(store[k - 1], False)
                if found:
                    self._shell_found(found)
                if shell.shell is not None:
                    upto = min(marks[mp] if mp < n_marks else seg_end + 1, seg_end + 1)
                    for j in range(k + 1, upto):
                        feed(store[j - 1], False)
            i = seg_end + 1
        self._scanned = max(stop, self._scanned)
        self._mark_pos = mp
        self._span = span

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
        for item in items:
            if isinstance(item, EditBlock) and item.line_number == block.start:
                self._waiting[(ann.family.index, block.start)] = (block.path, block.format, ann.old_seen, ann.new_seen)
                return
        self.abandoned(block.path, block.format, block.start)

    def _announce(self) -> None:
        """Announce the earliest open block, unless it lies in a kept block."""
        leader: _Family | None = None
        for fam in self._awake:  # (a dormant family has no block)
            if fam.start is not None and fam.start > self._last_end and (leader is None or fam.start < leader.start):  # type: ignore[operator]
                leader = fam
        if leader is None:
            return
        block = leader.parser.open_block()
        if block is None:
            return
        self._open = _Announced(leader, block)
        self.started(block.path, block.format, block.start)


_MARKER_START = re.compile(r"^\s*(?:<{5}|-{3}|\+{3}|@@|«{3}|\*\*\* )")
"""How the first line of an edit block of any format starts."""


def _as_content(items: list[ParseItem], content: str) -> list[ParseItem]:
    """The items of a family whose blocks are a file's content, each such block checked."""
    return [_content_or_warning(item, content) if isinstance(item, EditBlock) else item for item in items]


def _content_or_warning(block: EditBlock, content: str) -> EditBlock | ParseWarning:
    """``block``, a file's content (``content`` says which), or a warning when its text holds
    edit blocks of another format: the model wrote edits in the wrong format, not a file."""
    body = block.new_lines.split("\n")
    if not any(_MARKER_START.match(line) for line in body):
        return block
    # Read as if the block's path stood above it, as it does above the fence.
    found = parse_lines([block.file_path, *body[:-1]]).blocks
    if not found:
        return block
    first = found[0]
    return ParseWarning(
        block.line_number,
        f"the fenced block for {block.file_path} holds {first.format} edit blocks "
        f"(line {block.line_number + first.line_number - 1}), not {content}; block ignored",
        block.format,
    )


def loud_starts(loud_line: re.Pattern[str]) -> frozenset[str]:
    """The characters a line matched by ``loud_line`` starts with after white space.

    ``loud_line`` is ``\\s*[...]`` (see :func:`~editblocks.formats.loud_patterns`), and
    ``str.lstrip`` strips exactly the characters ``\\s`` matches, so
    ``line.lstrip()[:1] in loud_starts(loud_line)`` is ``loud_line.match(line) is not None``.
    """
    found = _LOUD_STARTS.get(loud_line)
    if found is None:
        pattern = loud_line.pattern
        chars = re.sub(r"\\(.)", r"\1", pattern[4:-1], flags=re.DOTALL)
        if pattern != r"\s*[" + re.escape(chars) + "]" or loud_line.flags != re.UNICODE:
            raise ValueError(f"not a loud-line pattern: {pattern!r}")
        if any(c.isspace() for c in chars):
            raise ValueError(f"a loud line cannot start with white space: {pattern!r}")
        found = _LOUD_STARTS[loud_line] = frozenset(chars)
    return found


_LOUD_STARTS: dict[re.Pattern[str], frozenset[str]] = {}


def _wakes_line(parser: LineParser, line: str) -> bool:
    """True when ``line`` wakes ``parser``."""
    return parser.wake is None or parser.wake.match(line) is not None


def _wakes(parser: LineParser, lines: list[str], loud: list[int], loud_text: str) -> bool:
    """True when one of the loud lines ``loud`` (line numbers; ``loud_text`` is them each after a
    line ending) wakes ``parser`` (see ``LineParser.wake``)."""
    wake = parser.wake
    if wake is None:
        return True
    words = parser.wake_words
    if words and not any(word in loud_text for word in words):
        return False  # (a substring test at C speed, much faster than the pattern's search)
    found = _text_wake(wake).search(loud_text)
    if found is None:
        return False  # every loud line that wakes the parser would be found in the text
    match = wake.match
    first = loud_text.count("\n", 0, found.start())  # the search may find more: test the lines
    return any(match(lines[n - 1]) is not None for n in loud[first:])


_TEXT_WAKES: dict[re.Pattern[str], re.Pattern[str]] = {}


def _text_wake(wake: re.Pattern[str]) -> re.Pattern[str]:
    """``wake`` tried after every line ending of a text. It finds every line ``wake.match``
    accepts, and maybe more: white space may run over a line ending."""
    found = _TEXT_WAKES.get(wake)
    if found is None:
        found = _TEXT_WAKES[wake] = re.compile(f"\n(?:{wake.pattern})", wake.flags | re.MULTILINE)
    return found


ROUTE_OLD, ROUTE_NEW, ROUTE_BOTH = (1, 0), (0, 1), (1, 1)
"""The routes of a quiet line (see ``ReplyReader._route``): it grows the searched text, the
replacing text, or both. ``_route`` is always one of these objects, so ``is`` tells them apart."""
_ROUTES = {r: r for r in (ROUTE_OLD, ROUTE_NEW, ROUTE_BOTH)}


def _drop_lines(text: str, count: int) -> str:
    """``text`` without its first ``count`` lines."""
    if count == 0:
        return text
    ends = text.count("\n")
    if ends <= count:
        # The usual case in a stream: every line but maybe an unended last one was reported.
        return text[text.rfind("\n") + 1 :] if ends == count else ""
    pos = 0
    for _ in range(count):
        pos = text.find("\n", pos) + 1
        if pos == 0:
            return ""
    return text[pos:]
