"""Finding where an edit goes in a file's text. Knows text, not formats.

Texts are LF-normalised and made of whole lines (every line ends with ``"\\n"``). A match is
always line-aligned: a searched line never matches part of a file line. The location must be
unique; otherwise the failure lists every place.
"""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_LISTED = 12


@dataclass(frozen=True)
class Match:
    """A unique location: characters ``start:end`` of the text become ``replacement``."""

    start: int
    end: int
    replacement: str
    strategy: str
    line: int
    """1-based line where the matched region starts."""
    score: float | None = None


@dataclass(frozen=True)
class MatchFailure:
    """No certain location; ``reason`` says why in words a model can act on."""

    reason: str
    kind: str
    """``not_found``, ``ambiguous``, ``anchor_not_found``, ``old_mismatch`` or ``trailing_mismatch``."""
    line: int | None = None
    """The nearest line of the file, when one is known."""
    candidates: list[int] = field(default_factory=list)


def find_all(text: str, needle: str, limit: int = 1000) -> list[int]:
    """Character offsets where the whole lines ``needle`` occur in ``text`` (overlaps included).

    Uses the C string search on the text padded with a newline, so every hit starts at a line
    start and ends at a line end without any per-line Python work.
    """
    if not needle:
        return []
    padded = "\n" + text
    target = "\n" + needle
    hits: list[int] = []
    pos = padded.find(target)
    while pos != -1 and len(hits) < limit:
        hits.append(pos)
        pos = padded.find(target, pos + 1)
    return hits


def line_of(text: str, offset: int) -> int:
    """1-based line number of character ``offset``."""
    return text.count("\n", 0, offset) + 1


def format_lines(lines: list[int]) -> str:
    """``12``, ``12 and 48``, ``12, 48 and 97`` (cut after a dozen)."""
    shown = [str(n) for n in lines[:MAX_LISTED]]
    if len(lines) > MAX_LISTED:
        shown.append(f"{len(lines) - MAX_LISTED} more")
    if len(shown) == 1:
        return shown[0]
    return ", ".join(shown[:-1]) + " and " + shown[-1]


def locate(text: str, old: str, new: str, *, leading: str = "", trailing: str = "") -> Match | MatchFailure:
    """Where ``leading + old + trailing`` occurs exactly once in ``text``.

    The region becomes ``leading + new + trailing``. All arguments are whole-line texts.
    """
    search = leading + old + trailing
    hits = find_all(text, search)
    if len(hits) == 1:
        start = hits[0]
        return Match(start, start + len(search), leading + new + trailing, "exact", line_of(text, start))
    if len(hits) > 1:
        lines = [line_of(text, h) for h in hits]
        return MatchFailure(
            f"Edit location is ambiguous (matches at lines {format_lines(lines)}); "
            "include more surrounding lines so the text occurs only once",
            "ambiguous",
            lines[0],
            lines,
        )
    return diagnose(text, old, leading=leading, trailing=trailing)


def diagnose(text: str, old: str, *, leading: str = "", trailing: str = "") -> MatchFailure:
    """Why ``leading + old + trailing`` is not in ``text``, with the nearest line where it helps."""
    if leading:
        anchors = find_all(text, leading)
        if not anchors:
            line, detail = _nearest(text, leading)
            return MatchFailure("Leading anchor not found" + detail, "anchor_not_found", line)
        with_old = [a for a in anchors if text.startswith(old, a + len(leading))]
        if not with_old:
            anchor_line = line_of(text, anchors[0])
            diff = _first_difference(text, anchors[0] + len(leading), old)
            return MatchFailure(
                f"Old lines don't match content after anchor (anchor found at line {anchor_line}){diff}",
                "old_mismatch",
                anchor_line,
            )
        anchor_line = line_of(text, with_old[0])
        return MatchFailure(
            f"Trailing anchor not found after old lines (anchor found at line {anchor_line})"
            + _first_difference(text, with_old[0] + len(leading) + len(old), trailing),
            "trailing_mismatch",
            anchor_line,
        )
    if trailing and old:
        if find_all(text, old) and not find_all(text, trailing):
            line, detail = _nearest(text, trailing)
            return MatchFailure("Trailing anchor not found" + detail, "anchor_not_found", line)
        if find_all(text, old):
            line = line_of(text, find_all(text, old)[0])
            return MatchFailure(
                f"Trailing anchor not found after old lines (old lines found at line {line})",
                "trailing_mismatch",
                line,
            )
    line, detail = _nearest(text, old or trailing)
    return MatchFailure("SEARCH text not found in file" + detail, "not_found", line)


def _nearest(text: str, search: str) -> tuple[int | None, str]:
    """A hint: where the first non-blank searched line occurs, and the first line that differs."""
    search_lines = search.split("\n")[:-1]
    first_idx = next((i for i, s in enumerate(search_lines) if s.strip()), None)
    if first_idx is None:
        return None, ""
    probe = search_lines[first_idx]
    hits = find_all(text, probe + "\n", limit=MAX_LISTED + 1)
    how = ""
    if not hits:
        stripped = probe.strip()
        for offset in _find_stripped(text, stripped):
            hits.append(offset)
            how = " (differing in indentation or spacing)"
            if len(hits) > MAX_LISTED:
                break
    if not hits:
        return None, f"; its line {first_idx + 1} {probe.strip()[:60]!r} occurs nowhere in the file"
    start = hits[0] - sum(len(s) + 1 for s in search_lines[:first_idx])
    line = line_of(text, max(hits[0], 0))
    where = f"line {line}" if len(hits) == 1 else f"lines {format_lines([line_of(text, h) for h in hits])}"
    detail = f"; its line {first_idx + 1} {probe.strip()[:60]!r} occurs at {where}{how}"
    if len(hits) == 1 and start >= 0 and not how:
        detail += _first_difference(text, start, search)
    return line, detail


def _find_stripped(text: str, stripped: str) -> list[int]:
    """Offsets of lines whose stripped text equals ``stripped``."""
    out: list[int] = []
    pos = text.find(stripped)
    while pos != -1 and len(out) <= MAX_LISTED:
        line_start = text.rfind("\n", 0, pos) + 1
        line_end = text.find("\n", pos)
        line_end = len(text) if line_end == -1 else line_end
        if text[line_start:line_end].strip() == stripped:
            out.append(line_start)
        pos = text.find(stripped, max(pos + 1, line_end))
    return out


def _first_difference(text: str, offset: int, expected: str) -> str:
    """Describe the first line where ``text`` from ``offset`` differs from ``expected``."""
    if not expected:
        return ""
    actual_lines = text[offset : offset + len(expected) + 4096].split("\n")
    base = line_of(text, offset)
    for i, want in enumerate(expected.split("\n")[:-1]):
        have = actual_lines[i] if i < len(actual_lines) else None
        if have is None or (i == len(actual_lines) - 1 and offset + len(expected) > len(text)):
            return f"; the file ends before line {i + 1} of the searched text"
        if have != want:
            kind = "whitespace differs" if have.strip() == want.strip() else "text differs"
            return f"; line {base + i} of the file is {have[:80]!r} where the block has {want[:80]!r} ({kind})"
    return ""
