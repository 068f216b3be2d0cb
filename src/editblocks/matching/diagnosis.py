"""Explaining a failed match: the closest region, what differs, and where it sits in the code."""

from __future__ import annotations

import re
from typing import NamedTuple

from editblocks.matching.fuzzy import map_lines, similar_regions
from editblocks.matching.result import MatchFailure
from editblocks.matching.strategies import FileView
from editblocks.matching.text import find_all, format_lines, indent_of, line_of, split_lines
from editblocks.quoting import percent, quote

MAX_QUOTED_LINES = 20
MAX_DIFFERENCES = 3

_SCOPE = re.compile(
    r"^\s*(?:export\s+)?(?:default\s+)?(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?"
    r"(def|class|function|func|fn|interface|struct|impl|enum|trait|module|namespace)\b\s*([\w.$<>]*)"
)


class Scope(NamedTuple):
    """The definition around a region: its name, and its lines when the syntax tree gave them."""

    name: str
    first: int | None = None
    last: int | None = None

    def __str__(self) -> str:
        return self.name


def enclosing_scope(
    lines: list[str], index: int, *, last: int | None = None, language: str | None = None
) -> Scope | None:
    """The definition around lines ``index``..``last`` (0-based).

    With ``language`` and the ``ast`` extra installed, the innermost definition holding those
    lines in the syntax tree (``Parser.feed``, with its lines). Otherwise, or when no tree can be
    had, the nearest ``def``/``class``/``function``... header above line ``index`` that is
    indented less (``def feed``).
    """
    if not 0 <= index < len(lines):
        return None
    if language is not None:
        from editblocks.syntax import SyntaxUnavailable, enclosing_definition

        try:
            found = enclosing_definition(
                "".join(line + "\n" for line in lines), index, index if last is None else last, language
            )
        except SyntaxUnavailable:
            pass
        else:
            return None if found is None else Scope(found.qualname, *found.lines)
    target = next((lines[i] for i in range(index, min(index + 5, len(lines))) if lines[i].strip()), lines[index])
    width = len(indent_of(target))
    for i in range(index, max(-1, index - 2000), -1):
        line = lines[i]
        if not line.strip():
            continue
        m = _SCOPE.match(line)
        if m and (len(indent_of(line)) < width or i == index):
            name = m.group(2).split("(")[0] or "(anonymous)"
            return Scope(f"{m.group(1)} {name}")
        if len(indent_of(line)) < width:
            width = len(indent_of(line))
    return None


def describe_differences(search: list[str], window: list[str], first_line: int = 1) -> list[str]:
    """Up to three sentences naming a line of the file and how the block's copy of it differs.

    ``first_line`` is the file's line number of ``window[0]``.
    """
    mapping = map_lines(search, window)
    out: list[str] = []
    used: set[int] = set()
    for i, w in enumerate(mapping):
        if w is None:
            if search[i].strip():
                out.append(f"the block's line {quote(search[i].strip(), 70)} is not in the file there")
        else:
            used.add(w)
            have, want = window[w], search[i]
            if have == want:
                continue
            if have.strip() == want.strip():
                kind = "indentation" if have.rstrip() != want.rstrip() else "trailing white space"
                out.append(f"line {first_line + w} {quote(have.strip(), 70)} differs only in {kind}")
            else:
                out.append(
                    f"line {first_line + w} is {quote(have.strip(), 70)} where the block has {quote(want.strip(), 70)}"
                )
        if len(out) >= MAX_DIFFERENCES:
            return out
    for w, line in enumerate(window):
        if w not in used and line.strip() and len(out) < MAX_DIFFERENCES:
            out.append(f"line {first_line + w} {quote(line.strip(), 70)} is missing from the block")
    return out


def not_found(
    view: FileView, search: list[str], *, what: str = "SEARCH text", language: str | None = None
) -> MatchFailure:
    """A failure for a search text found nowhere, pointing at the closest region of the file
    (and at the definition around it: from the syntax tree when ``language`` is given)."""
    regions = similar_regions(view, search, limit=3)
    if not regions or regions[0].score is None or regions[0].score < 0.5:
        first = next((s.strip() for s in search if s.strip()), "")
        hint = (
            f"; its first line {quote(first, 70)} occurs nowhere in the file"
            if first and not find_all("\n".join(view.stripped) + "\n", first + "\n", 1)
            else ""
        )
        return MatchFailure(f"{what} not found in file{hint}", "not_found")
    best = regions[0]
    window = view.lines[best.start : best.start + best.length]
    first_line, last_line = best.start + 1, best.start + best.length
    diffs = describe_differences(search, window, first_line)
    scope = enclosing_scope(view.lines, best.start, last=best.start + best.length - 1, language=language)
    where = f"lines {first_line}-{last_line}" if last_line > first_line else f"line {first_line}"
    reason = f"{what} not found in file; closest match is {where} ({percent(best.score)} similar)"
    if scope:
        reason += f", inside `{scope.name}`" + (
            f" at lines {scope.first}-{scope.last}" if scope.first is not None else ""
        )
    if diffs:
        reason += ": " + "; ".join(diffs)
    shown = window[:MAX_QUOTED_LINES]
    return MatchFailure(
        reason,
        "not_found",
        first_line,
        candidates=[r.start + 1 for r in regions],
        region=(first_line, last_line),
        region_text="".join(line + "\n" for line in shown),
        score=best.score,
        scope=scope.name if scope else None,
    )


def ambiguous(view: FileView, starts: list[int], length: int, strategy: str) -> MatchFailure:
    lines = [s + 1 for s in starts]
    how = "" if strategy == "exact" else f" when {strategy} differences are ignored"
    return MatchFailure(
        f"Edit location is ambiguous (matches at lines {format_lines(lines)}{how}); "
        "include more surrounding lines so the text occurs only once",
        "ambiguous",
        lines[0],
        candidates=lines,
    )


def anchored(
    text: str, view: FileView, old: str, leading: str, trailing: str, language: str | None = None
) -> MatchFailure:
    """The anchor-by-anchor diagnosis for blocks with a leading or trailing anchor."""
    if leading:
        anchors = find_all(text, leading)
        if not anchors:
            base = not_found(view, split_lines(leading), what="Leading anchor", language=language)
            return _with_kind(base, "anchor_not_found")
        with_old = [a for a in anchors if text.startswith(old, a + len(leading))]
        if not with_old:
            at = anchors[0] + len(leading)
            anchor_line = line_of(text, anchors[0])
            detail = _first_difference(text, at, old)
            return MatchFailure(
                f"Old lines don't match content after anchor (anchor found at line {anchor_line}){detail}",
                "old_mismatch",
                anchor_line,
                candidates=[line_of(text, a) for a in anchors],
            )
        anchor_line = line_of(text, with_old[0])
        detail = _first_difference(text, with_old[0] + len(leading) + len(old), trailing)
        return MatchFailure(
            f"Trailing anchor not found after old lines (anchor found at line {anchor_line}){detail}",
            "trailing_mismatch",
            anchor_line,
        )
    hits = find_all(text, old) if old else []
    if hits and trailing:
        if not find_all(text, trailing):
            return _with_kind(
                not_found(view, split_lines(trailing), what="Trailing anchor", language=language), "anchor_not_found"
            )
        line = line_of(text, hits[0])
        return MatchFailure(
            f"Trailing anchor not found after old lines (old lines found at line {line})"
            + _first_difference(text, hits[0] + len(old), trailing),
            "trailing_mismatch",
            line,
        )
    return not_found(
        view, split_lines(old + trailing), what="Old lines" if trailing else "SEARCH text", language=language
    )


def _with_kind(f: MatchFailure, kind: str) -> MatchFailure:
    return MatchFailure(f.reason, kind, f.line, f.candidates, f.region, f.region_text, f.score, f.scope)


def _first_difference(text: str, offset: int, expected: str) -> str:
    """Describe the first line where ``text`` from ``offset`` differs from ``expected``."""
    if not expected:
        return ""
    actual = text[offset : offset + len(expected) + 4096].split("\n")
    base = line_of(text, offset)
    for i, want in enumerate(expected.split("\n")[:-1]):
        if i >= len(actual) - 1 and offset + sum(len(a) + 1 for a in actual[:i]) >= len(text):
            return f"; the file ends before line {i + 1} of the expected text"
        have = actual[i]
        if have != want:
            kind = "whitespace differs" if have.strip() == want.strip() else "text differs"
            return f"; line {base + i} of the file is {quote(have, 80)} where the block has {quote(want, 80)} ({kind})"
    return ""
