"""The lines of interest of a file with their enclosing scopes, the rest elided.

What grep-ast's ``TreeContext`` does: each line of interest is shown with a
line of padding either side, the headers of the definitions around it (class, then method),
and, when the line starts a definition, that definition's members. Hidden runs become ``⋮``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from editblocks.syntax.languages import SPECS, language_for
from editblocks.syntax.render import close_gaps, render, split_lines
from editblocks.syntax.tree import Definition, SyntaxUnavailable, analyze

DEFAULT_PAD = 1
"""Lines shown either side of a line of interest."""
SMALL_DEFINITION = 5
"""A definition starting on a line of interest is shown whole when it has fewer lines than this."""
MAX_CHILD_LINES = 25
"""Most lines of member headers shown for a definition that starts on a line of interest."""


@dataclass
class Context:
    """What :func:`file_context` found."""

    path: str
    language: str | None
    text: str
    """The lines shown, ``│``/``█`` marked, hidden runs as ``⋮`` (empty when nothing matched)."""
    lines_of_interest: list[int] = field(default_factory=list)
    """1-based."""
    scopes: list[str] = field(default_factory=list)
    """For each line of interest that is inside a definition: ``Parser.feed (lines 120-134)``."""
    notes: list[str] = field(default_factory=list)
    """Why the context is plain text, when it is."""

    def render(self) -> str:
        """The path line, then the shown lines (the summaries' layout)."""
        return f"{self.path}:\n{self.text}" if self.text else ""

    def to_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "language": self.language,
            "lines_of_interest": list(self.lines_of_interest),
            "scopes": list(self.scopes),
            "notes": list(self.notes),
            "text": self.text,
        }


def grep_lines(lines: list[str], pattern: str, ignore_case: bool = False) -> list[int]:
    """0-based rows whose text matches the regular expression ``pattern``; raises ``re.error``."""
    regex = re.compile(pattern, re.IGNORECASE if ignore_case else 0)
    return [i for i, line in enumerate(lines) if regex.search(line)]


def file_context(
    text: str,
    path: str,
    *,
    lines: list[int] | tuple[int, ...] = (),
    grep: str | None = None,
    ignore_case: bool = False,
    pad: int = DEFAULT_PAD,
    line_numbers: bool = False,
    language: str | None = None,
) -> Context:
    """The context of lines ``lines`` (1-based) and of the lines matching ``grep`` in ``text``.

    Without the ``ast`` extra, or for a language without syntax support, the lines are shown
    with their padding only, and :attr:`Context.notes` says why.
    """
    text = text.replace("\r\n", "\n")
    all_lines = split_lines(text)
    total = len(all_lines)
    interest = {n - 1 for n in lines if 1 <= n <= total}
    if grep is not None:
        interest.update(grep_lines(all_lines, grep, ignore_case))
    language = language or language_for(path, text)
    result = Context(path, language, "", sorted(n + 1 for n in interest))
    if not interest:
        return result
    shown: set[int] = set()
    for row in interest:
        shown.update(range(max(0, row - pad), min(total, row + pad + 1)))
    definitions: list[Definition] | None = None
    if language is None or language not in SPECS:
        result.notes.append(f"no syntax support for {language or 'this kind of file'}; showing plain lines")
    else:
        try:
            definitions = analyze(text, language).definitions
        except SyntaxUnavailable as exc:
            result.notes.append(f"{exc}; showing plain lines")
    if definitions:
        _add_scopes(definitions, interest, shown, result)
    result.text = render(all_lines, close_gaps(shown), total, interest=interest, line_numbers=line_numbers, cut=None)
    return result


def _add_scopes(definitions: list[Definition], interest: set[int], shown: set[int], result: Context) -> None:
    for row in sorted(interest):
        around = [d for d in definitions if d.outer_first <= row <= d.outer_last]
        for d in around:
            shown.update(range(d.header[0], d.header[1] + 1))
        if around:
            inner = around[-1]
            first, last = inner.lines
            scope = f"{inner.qualname} (lines {first}-{last})"
            if scope not in result.scopes:
                result.scopes.append(scope)
        starting = [d for d in definitions if row in (d.outer_first, d.first, d.header[0])]
        for d in starting:
            if d.outer_last - d.outer_first + 1 < SMALL_DEFINITION:
                shown.update(range(d.outer_first, d.outer_last + 1))
                continue
            budget = MAX_CHILD_LINES
            for child in d.children:
                rows = range(child.header[0], child.header[1] + 1)
                if len(rows) > budget:
                    break
                shown.update(rows)
                budget -= len(rows)
