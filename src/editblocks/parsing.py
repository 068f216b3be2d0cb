"""Turning a reply into blocks: one format, or every format block by block."""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Sequence

from .formats import detect_format, family_formats, get_format
from .formats.common import parse_fence
from .formats.search_replace import REPLACE, SEARCH
from .models import EditBlock, ParsedResponse, ParseWarning

_INLINE_SHELL = re.compile(r"`((?:git rm|git mv|mkdir -p|rm -rf|rm -r|mv|cp|rmdir) [^`\n]+)`")


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
    return parse_lines(split_reply(text), format)


def parse_lines(lines: Sequence[str], format: str | None = None) -> ParsedResponse:
    """:func:`parse_response` on a reply already split into lines."""
    formats = [get_format(format)] if format else family_formats()
    candidates: list[EditBlock] = []
    warnings: list[ParseWarning] = []
    for fmt in formats:
        blocks, warns = fmt.parse_lines(lines)
        candidates.extend(blocks)
        warnings.extend(warns)
    blocks = _non_overlapping(candidates)
    spans = _Spans(blocks)
    warnings = [w for w in warnings if not spans.contains(w.line)]
    warnings.extend(_marker_balance(lines, spans))
    warnings.sort(key=lambda w: w.line)
    if format:
        name: str | None = format
    elif blocks:
        name = Counter(b.format for b in blocks).most_common(1)[0][0]
    else:
        name = detect_format("\n".join(lines))
    return ParsedResponse(
        blocks=blocks,
        warnings=warnings,
        shell_suggestions=shell_suggestions(lines, spans),
        format=name,
    )


def _non_overlapping(candidates: list[EditBlock]) -> list[EditBlock]:
    """Blocks in reply order; where two formats claim overlapping lines, the earlier block wins."""
    candidates.sort(key=lambda b: (b.line_number, -b.end_line))
    kept: list[EditBlock] = []
    last_end = 0
    for block in candidates:
        if block.line_number > last_end:
            kept.append(block)
            last_end = block.end_line
    return kept


class _Spans:
    """The reply lines covered by accepted blocks."""

    def __init__(self, blocks: list[EditBlock]) -> None:
        self.starts = [b.line_number for b in blocks]
        self.ends = [b.end_line for b in blocks]

    def contains(self, line: int) -> bool:
        i = bisect.bisect_right(self.starts, line) - 1
        return i >= 0 and line <= self.ends[i]


def _marker_balance(lines: Sequence[str], spans: _Spans) -> list[ParseWarning]:
    """Seed 004's check: as many ``<<<<<<< SEARCH`` as ``>>>>>>> REPLACE`` markers."""
    searches: list[int] = []
    replaces = 0
    for i, line in enumerate(lines, start=1):
        if spans.contains(i) and not (SEARCH.match(line) or REPLACE.match(line)):
            continue
        if SEARCH.match(line):
            searches.append(i)
        elif REPLACE.match(line) and "REPLACE" in line:
            replaces += 1
    if len(searches) != replaces and (searches or replaces):
        first = searches[0] if searches else 1
        return [ParseWarning(first, f"Mismatched SEARCH/REPLACE: {len(searches)} SEARCH vs {replaces} REPLACE", "diff")]
    return []


def shell_suggestions(lines: Sequence[str], spans: _Spans | None = None) -> list[str]:
    """Shell commands the reply suggests (collected, never run).

    Inline ```git rm``/``git mv``/``mkdir -p``/``rm -rf``` spans and the lines of fenced
    ``bash``/``sh`` blocks outside any edit block.
    """
    found: list[str] = []
    fence_marker: str | None = None
    shell: list[str] | None = None
    tainted = False
    for i, line in enumerate(lines, start=1):
        if spans is not None and spans.contains(i):
            tainted = True
            continue
        fence = parse_fence(line)
        if fence_marker is not None:
            if fence is not None and not fence.info and fence.marker[0] == fence_marker[0] and len(fence.marker) >= len(fence_marker):
                if shell is not None and not tainted:
                    found.extend(shell)
                fence_marker, shell = None, None
            elif shell is not None:
                cmd = line.strip()
                if cmd.startswith("$ "):
                    cmd = cmd[2:].strip()
                if cmd and not cmd.startswith("#"):
                    shell.append(cmd)
            continue
        if fence is not None and not fence.marker.startswith("<"):
            fence_marker = fence.marker
            shell = [] if fence.is_shell else None
            tainted = False
            continue
        found.extend(m.group(1).strip() for m in _INLINE_SHELL.finditer(line))
    return list(dict.fromkeys(found))
