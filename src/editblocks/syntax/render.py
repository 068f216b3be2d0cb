"""Showing chosen lines of a file with the rest elided, in the marks of the summaries.

Shown lines start with ``│`` (``█`` for lines of interest); every run of hidden lines becomes
one ``⋮`` line.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

ELISION = "⋮"
SHOWN = "│"
INTEREST = "█"
MAX_LINE_CHARS = 200
"""Longer lines are cut (and end in ``…``): a minified line is no outline."""


def close_gaps(rows: Iterable[int], gap: int = 1) -> set[int]:
    """``rows`` with every hole of at most ``gap`` lines filled: a ``⋮`` would hide no more."""
    shown = set(rows)
    ordered = sorted(shown)
    for a, b in zip(ordered, ordered[1:]):
        if 1 < b - a <= gap + 1:
            shown.update(range(a + 1, b))
    return shown


def render(
    lines: list[str] | dict[int, str],
    rows: Iterable[int],
    total: int,
    *,
    interest: Collection[int] = (),
    line_numbers: bool = False,
    cut: int | None = MAX_LINE_CHARS,
) -> str:
    """The ``rows`` (0-based) of a file of ``total`` lines, hidden runs shown as ``⋮``.

    ``lines`` holds the file's lines (a list, or the shown rows only). The result ends with a
    newline; it is empty when no row is shown.
    """
    shown = sorted(r for r in set(rows) if 0 <= r < total)
    if not shown:
        return ""
    width = len(str(total))
    out: list[str] = []
    if shown[0] > 0:
        out.append(ELISION)
    previous = None
    for r in shown:
        if previous is not None and r > previous + 1:
            out.append(ELISION)
        line = lines[r]
        if cut is not None and len(line) > cut:
            line = line[:cut].rstrip() + " …"
        mark = INTEREST if r in interest else SHOWN
        out.append(f"{r + 1:>{width}}{mark}{line}" if line_numbers else f"{mark}{line}")
        previous = r
    if shown[-1] < total - 1:
        out.append(ELISION)
    return "\n".join(out) + "\n"


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` without their line breaks (no empty last line for a final newline)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines
