"""What a block may say about its place besides its text: a line hint, enclosing lines, the end of
the file. Knows text, not formats.

None of them ever makes a match by itself. They choose among places where the searched text
matches *equally well* (the candidates of one strategy of the chain), and only when the choice is
clear:

* ``at_end``: the candidates that reach the end of the file (blank lines after them allowed);
* ``scope``: the candidates that start inside the region of the enclosing lines (``def name():``,
  ``class Name``...): from such a line to the next line indented as little as it (a closing ``}``
  is included; lines starting with ``)`` or ``]`` continue the header). A candidate may run past
  the region's end (a change at the end of a function and the start of the next). Several scope
  lines nest, outermost first;
* ``hint_line``: the candidate nearest the hinted line, when it lies within :data:`HINT_WINDOW`
  lines of it and every other candidate is at least :data:`HINT_RATIO` times as far away (plus
  :data:`HINT_SLACK` lines).

When they decide, the match says so in its ``note``; when they cannot, the block stays ambiguous
and the reason says why the hint did not settle it. A single match away from the hint, outside
the scope or short of the end of the file is kept (the text itself is unique) with a note; a
fuzzy match outside the scope is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from editblocks.matching.result import Match, MatchFailure
from editblocks.matching.strategies import FileView
from editblocks.matching.text import format_lines, indent_of, line_offsets

HINT_WINDOW = 40
"""Farthest (in lines) the candidate a hint chooses may be from the hinted line."""
HINT_RATIO = 3
"""Every other candidate must be this many times farther from the hinted line ..."""
HINT_SLACK = 3
"""... plus this many lines."""

_IDENT_CHAR = re.compile(r"[\w$]")


@dataclass(frozen=True)
class Narrowing:
    """A block's hints about its place; see the module documentation."""

    hint_line: int | None = None
    scope: tuple[str, ...] = ()
    at_end: bool = False

    def __bool__(self) -> bool:
        return self.hint_line is not None or bool(self.scope) or self.at_end

    # -- choosing among equal candidates --------------------------------------------------------

    def choose(self, view: FileView, starts: list[int], length: int) -> tuple[int | None, str]:
        """(index into ``starts`` of the chosen candidate, or None; a note saying why, or why not).

        ``starts`` are 0-based first lines of equal candidates, each ``length`` lines long.
        """
        lines = [s + 1 for s in starts]
        keep = list(range(len(starts)))
        because: list[str] = []
        remarks: list[str] = []

        def which(idx: list[int]) -> str:
            return ("line " if len(idx) == 1 else "lines ") + format_lines([lines[i] for i in idx])

        if self.at_end:
            end = _content_end(view.lines)
            at = [i for i in keep if starts[i] + length >= end]
            if at and len(at) < len(keep):
                keep = at
                because.append("ends the file")
                remarks.append(f"{which(at)} end the file")
            elif not at:
                remarks.append("none of them ends the file")
        if self.scope:
            regions, missing = scope_regions(view, self.scope)
            if regions is None:
                remarks.append(f"the enclosing line {missing!r} is not in the file")
            else:
                inside = [i for i in keep if _inside(regions, starts[i], length)]
                if inside and len(inside) < len(keep):
                    keep = inside
                    because.append(f"lies inside {_scope_text(self.scope)}")
                    remarks.append(f"{which(inside)} lie inside {_scope_text(self.scope)}")
                elif not inside:
                    remarks.append(f"none of them lies inside {_scope_text(self.scope)}")
                else:
                    remarks.append(f"all of them lie inside {_scope_text(self.scope)}")
        if len(keep) == 1:
            return (
                keep[0],
                f"the text matches at {which(list(range(len(starts))))}; line {lines[keep[0]]} was chosen because it {' and '.join(because)}",
            )
        if self.hint_line is not None:
            hint = self.hint_line
            ranked = sorted((abs(starts[i] + 1 - hint), i) for i in keep)
            (d1, best), (d2, _) = ranked[0], ranked[1]
            if d1 <= HINT_WINDOW and d2 >= HINT_RATIO * d1 + HINT_SLACK:
                return best, (
                    f"the text matches at {which(list(range(len(starts))))}; the hinted line {hint} decided for line {lines[best]}"
                    + (f" (nearest; the next is {d2} lines from the hint)" if d2 else "")
                )
            if d1 > HINT_WINDOW:
                remarks.append(f"the hinted line {hint} is more than {HINT_WINDOW} lines from all of them")
            else:
                remarks.append(f"the hinted line {hint} is not clearly nearer to one of them")
        return None, "; ".join(remarks)

    # -- a single candidate -------------------------------------------------------------------

    def check(self, view: FileView, start: int, length: int) -> str | None:
        """A note when a unique match is away from what the hints say (None when it agrees)."""
        notes = []
        if self.hint_line is not None and abs(start + 1 - self.hint_line) > HINT_WINDOW:
            notes.append(
                f"found at line {start + 1}, {abs(start + 1 - self.hint_line)} lines from the hinted line {self.hint_line}"
            )
        if self.scope:
            regions, missing = scope_regions(view, self.scope)
            if regions is None:
                notes.append(f"the enclosing line {missing!r} is not in the file")
            elif not _inside(regions, start, length):
                notes.append(f"found at line {start + 1}, outside {_scope_text(self.scope)}")
        if self.at_end and start + length < _content_end(view.lines):
            notes.append(f"found at line {start + 1}, not at the end of the file")
        if not notes:
            return None
        return "; ".join(notes) + " (the text occurs only there)"

    def outside_scope(self, view: FileView, start: int, length: int) -> str | None:
        """Why a region is outside the scope, or None when it is inside (or there is no scope)."""
        if not self.scope:
            return None
        regions, _ = scope_regions(view, self.scope)
        if regions is None or _inside(regions, start, length):
            return None
        return f"it is outside {_scope_text(self.scope)}"

    # -- placing an insertion that searches for nothing ------------------------------------------

    def insertion(self, text: str, new: str) -> Match | MatchFailure:
        """Where lines with nothing to search for go: after the innermost scope line, or at the end."""
        view = FileView.of(text)
        if self.scope:
            regions, missing = scope_regions(view, self.scope)
            if regions is None:
                return MatchFailure(
                    f"the enclosing line {missing!r} is not in the file, so the lines to insert cannot be placed; "
                    "copy the line exactly, or add context lines",
                    "not_found",
                )
            if len(regions) > 1:
                lines = [r[0] + 1 for r in regions]
                return MatchFailure(
                    f"the enclosing line {self.scope[-1].strip()!r} occurs at lines {format_lines(lines)}, so where the "
                    "lines to insert go is ambiguous; add context lines",
                    "ambiguous",
                    lines[0],
                    candidates=lines,
                )
            after = regions[0][0] + 1
            offsets = line_offsets(view.lines)
            pos = offsets[after]
            if text.startswith(new, pos):
                return Match(pos, pos + len(new), new, "scope", after + 1, already_applied=True)
            return Match(
                pos, pos, new, "scope", after + 1, note=f"inserted after line {after} {self.scope[-1].strip()!r}"
            )
        if self.at_end:
            pos = len(text)
            line = len(view.lines) + 1
            if new and text.endswith(new) and (len(text) == len(new) or text[-len(new) - 1] == "\n"):
                start = len(text) - len(new)
                return Match(start, pos, new, "end", line - new.count("\n"), already_applied=True)
            return Match(pos, pos, new, "end", line, note="appended at the end of the file")
        return MatchFailure("nothing to search for and no place given for the lines to insert", "not_found")


def _scope_text(scope: tuple[str, ...]) -> str:
    return " / ".join(repr(s.strip()) for s in scope if s.strip())


def _content_end(lines: list[str]) -> int:
    """Index after the last non-blank line."""
    end = len(lines)
    while end > 0 and not lines[end - 1].strip():
        end -= 1
    return end


def _inside(regions: list[tuple[int, int]], start: int, length: int) -> bool:
    """True when a candidate of ``length`` lines from ``start`` starts inside one of the regions."""
    return any(lo <= start < hi for lo, hi in regions)


def scope_regions(view: FileView, scope: tuple[str, ...]) -> tuple[list[tuple[int, int]] | None, str | None]:
    """The regions (0-based ``[start, end)`` line ranges, each starting at its scope line) that the
    scope lines enclose, nested outermost first; (None, the first line not found) when the first
    scope line is nowhere in the file. An inner line that is not found leaves the regions of the
    lines before it."""
    lines = view.lines
    stripped = view.stripped
    regions: list[tuple[int, int]] = [(-1, len(lines))]
    first = True
    for raw in scope:
        want = raw.strip()
        if not want:
            continue
        found: list[tuple[int, int]] = []
        for lo, hi in regions:
            hits = [i for i in range(lo + 1, hi) if stripped[i] == want]
            if not hits:
                hits = [i for i in range(lo + 1, hi) if _starts_header(stripped[i], want)]
            found.extend((i, _extent_end(lines, i, hi)) for i in hits)
        if not found:
            if first:
                return None, want
            break
        regions = found
        first = False
    if first:
        return None, scope[0].strip() if scope else ""
    return regions, None


def _starts_header(line: str, want: str) -> bool:
    """``class Foo`` names the line ``class Foo(Base):`` but not ``class FooBar:``."""
    if len(want) < 3 or not line.startswith(want):
        return False
    rest = line[len(want) :]
    return not rest or not (_IDENT_CHAR.match(rest[0]) and _IDENT_CHAR.match(want[-1]))


def _extent_end(lines: list[str], i: int, hi: int) -> int:
    """Index after the last line of the block headed by line ``i`` (within ``hi``)."""
    width = len(indent_of(lines[i]))
    body = False
    for j in range(i + 1, hi):
        line = lines[j]
        s = line.strip()
        if not s:
            continue
        if len(indent_of(line)) > width:
            body = True
            continue
        if s[0] in ")]":
            continue  # the rest of a header that spans lines
        if not body:
            break
        return j + 1 if s[0] == "}" else j
    # No indented body (a Markdown heading, a decorator line), or the body runs to the end.
    return hi
