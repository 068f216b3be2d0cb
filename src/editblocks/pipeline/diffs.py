"""Unified diffs of whole files, fast on large files with scattered edits.

Lines that occur exactly once in both texts and in the same order anchor the comparison (the
"patience" idea); only the gaps between anchors are compared line by line with difflib. A
100,000-line file with a few hundred edits is diffed in a fraction of a second, where running
difflib over the whole file takes seconds.
"""

from __future__ import annotations

from collections import Counter
from difflib import SequenceMatcher

from editblocks.files.textfile import increasing_run

Opcode = tuple[str, int, int, int, int]


def _unique_common(a: list[str], b: list[str]) -> list[tuple[int, int]]:
    """Pairs (i, j) of lines unique in both texts and equal, longest increasing run in both."""
    ca, cb = Counter(a), Counter(b)
    pos_b = {line: j for j, line in enumerate(b) if cb[line] == 1}
    pairs = [(i, pos_b[line]) for i, line in enumerate(a) if ca[line] == 1 and line in pos_b]
    # The longest run increasing in j too (the pairs are ordered by i).
    return [(i, j) for j, i in increasing_run([(j, i) for i, j in pairs])]


def opcodes(a: list[str], b: list[str]) -> list[Opcode]:
    """difflib-style opcodes turning ``a`` into ``b``."""
    ops: list[Opcode] = []

    def gap(i1: int, i2: int, j1: int, j2: int) -> None:
        if i1 == i2 and j1 == j2:
            return
        if i2 - i1 == j2 - j1 and a[i1:i2] == b[j1:j2]:
            ops.append(("equal", i1, i2, j1, j2))
            return
        for tag, x1, x2, y1, y2 in SequenceMatcher(None, a[i1:i2], b[j1:j2], autojunk=False).get_opcodes():
            ops.append((tag, i1 + x1, i1 + x2, j1 + y1, j1 + y2))

    i = j = 0
    for ai, bj in _unique_common(a, b):
        gap(i, ai, j, bj)
        ops.append(("equal", ai, ai + 1, bj, bj + 1))
        i, j = ai + 1, bj + 1
    gap(i, len(a), j, len(b))
    merged: list[Opcode] = []
    for op in ops:
        if merged and merged[-1][0] == op[0] == "equal":
            t, i1, _, j1, _ = merged[-1]
            merged[-1] = (t, i1, op[2], j1, op[4])
        else:
            merged.append(op)
    return merged


def _grouped(ops: list[Opcode], n: int = 3) -> list[list[Opcode]]:
    """Opcodes in hunks with ``n`` lines of context (as difflib's get_grouped_opcodes)."""
    matcher: SequenceMatcher[str] = SequenceMatcher(None, [], [])
    matcher.opcodes = ops or [("equal", 0, 1, 0, 1)]  # type: ignore[attr-defined]
    return list(matcher.get_grouped_opcodes(n))


def _range(start: int, stop: int) -> str:
    length = stop - start
    first = start + 1
    if length == 1:
        return f"{first}"
    if length == 0:
        first -= 1
    return f"{first},{length}"


def unified_diff(before: str, after: str, path: str, *, context: int = 3) -> str:
    """A ``git diff``-style unified diff of one file ("" when nothing changed)."""
    if before == after:
        return ""
    a = _split(before)
    b = _split(after)
    out = [f"--- {'a/' + path if before else '/dev/null'}\n", f"+++ b/{path}\n"]
    for group in _grouped(opcodes(a, b), context):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(f"@@ -{_range(i1, i2)} +{_range(j1, j2)} @@\n")
        for tag, x1, x2, y1, y2 in group:
            if tag == "equal":
                out.extend(_lines(" ", a[x1:x2]))
                continue
            out.extend(_lines("-", a[x1:x2]))
            out.extend(_lines("+", b[y1:y2]))
    return "".join(out)


def _split(text: str) -> list[str]:
    """Lines with their ``\\n`` endings (only ``\\n`` ends a line)."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _lines(prefix: str, lines: list[str]) -> list[str]:
    out = []
    for line in lines:
        if line.endswith("\n"):
            out.append(prefix + line)
        else:
            out.append(prefix + line + "\n\\ No newline at end of file\n")
    return out
