"""Elision lines in REPLACE only: ``# ... existing code ...`` standing for SEARCH lines kept.

A model that writes an elision line in REPLACE, with none in SEARCH, means "the SEARCH lines
here stay as they are" (as in Cursor-style lazy edits). Written literally, the marker would land
in the file and the lines it stands for would be deleted. Here each such line is replaced by the
SEARCH lines it stands for, when that reading is certain: SEARCH and REPLACE are compared line
by line; the elision must fall in one changed stretch, the REPLACE lines beside it in that
stretch must each be similar to the SEARCH line in their place (a changed line, not a new
one), and it must stand for at least one line. Otherwise the edit is refused.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from difflib import SequenceMatcher

from editblocks.matching.result import MatchFailure
from editblocks.matching.strategies import is_elision
from editblocks.quoting import quote

SIMILAR = 0.6
"""Least similarity for a REPLACE line beside an elision to be read as the change of the SEARCH
line in its place (rather than as a new line)."""


_FENCE = re.compile(r"^\s*(?:`{3,}|~{3,})")


def expand_replace_elisions(
    file_text: str | Callable[[], str],
    search: str,
    replace: str,
    *,
    ellipsis_is_code: bool = False,
    document: bool = False,
) -> str | MatchFailure:
    """``replace`` with its elision lines (those SEARCH and the file do not have) replaced by the
    SEARCH lines they stand for; ``replace`` unchanged when it has none; a failure when the
    reading is not certain. With ``ellipsis_is_code`` (Python), a line of only ``...`` that
    cannot be read as an elision is kept as code; in a ``document`` (Markdown, reStructuredText),
    lines inside fenced code examples are the example's content. ``file_text`` may be a function
    giving the text, called only for a REPLACE with an elision line."""
    s_lines = search.split("\n")[:-1]
    r_lines = replace.split("\n")[:-1]
    if any(is_elision(x) for x in s_lines):
        return replace  # elisions on both sides: the matching chain's own elision strategy
    have: set[str] | None = None
    marks: set[int] = set()
    fenced = False
    for i, line in enumerate(r_lines):
        if document and _FENCE.match(line):
            fenced = not fenced
        if fenced or not is_elision(line):
            continue
        if have is None:
            text = file_text() if callable(file_text) else file_text
            have = {x.strip() for x in text.split("\n")}
        if line.strip() not in have:  # the file has this very line: it is content
            marks.add(i)
    if not marks:
        return replace
    keys_s = [x.strip() for x in s_lines]
    keys_r = [f"\0elision{i}" if i in marks else x.strip() for i, x in enumerate(r_lines)]
    out: list[str] = []
    for _tag, i1, i2, j1, j2 in SequenceMatcher(None, keys_s, keys_r, autojunk=False).get_opcodes():
        inside = [j for j in range(j1, j2) if j in marks]
        if not inside:
            out.extend(r_lines[j1:j2])
            continue
        e = inside[0]
        before, after = r_lines[j1:e], r_lines[e + 1 : j2]
        kept = i2 - i1 - len(before) - len(after)
        certain = (
            len(inside) == 1
            and kept >= 1
            and all(_similar(r, s) for r, s in zip(before, s_lines[i1:]))
            and all(_similar(r, s) for r, s in zip(after, s_lines[i2 - len(after) : i2]))
        )
        if not certain:
            if ellipsis_is_code and all(r_lines[j].strip() in ("...", "\u2026") for j in inside):
                out.extend(r_lines[j1:j2])  # Python's Ellipsis, as written
                continue
            return MatchFailure(
                f"REPLACE has the line {quote(r_lines[e].strip(), 60)}, which stands for left-out lines, and SEARCH has no "
                "such line; which SEARCH lines it keeps is not certain. Write the lines out in REPLACE, or put the "
                "same elision line in SEARCH where those lines are",
                "elision",
            )
        out.extend(before)
        out.extend(s_lines[i1 + len(before) : i2 - len(after)])
        out.extend(after)
    if out == s_lines:
        # Read so, the block changes nothing, which no model means: in Python a line of only
        # ``...`` is then the statement (a stub's body); another elision line is not certain.
        if ellipsis_is_code and all(r_lines[j].strip() in ("...", "\u2026") for j in marks):
            return replace
        return MatchFailure(
            f"REPLACE has the line {quote(r_lines[min(marks)].strip(), 60)}, which stands for left-out lines, and SEARCH "
            "has no such line; read so, the block changes nothing. Write the lines out in REPLACE, or put the same "
            "elision line in SEARCH where those lines are",
            "elision",
        )
    return "".join(x + "\n" for x in out)


def _similar(a: str, b: str) -> bool:
    return SequenceMatcher(None, a.strip(), b.strip(), autojunk=False).ratio() >= SIMILAR
