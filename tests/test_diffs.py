"""Unified diffs: applying the diff to the old text gives the new text, and large files are handled."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from editblocks.pipeline.diffs import unified_diff

_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def _split(text: str) -> list[str]:
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def patch(old: str, diff: str) -> str:
    """Apply a unified diff of one file, strictly: context and removed lines must match."""
    a = _split(old)
    out: list[str] = []
    i = 0
    lines = diff.split("\n")
    k = 2
    while k < len(lines):
        m = _HUNK.match(lines[k])
        if not m:
            k += 1
            continue
        start, count = int(m.group(1)), int(m.group(2) or 1)
        begin = start - 1 if count else start
        out.extend(a[i:begin])
        i = begin
        k += 1
        while k < len(lines) and not lines[k].startswith("@@"):
            line = lines[k]
            no_newline = k + 1 < len(lines) and lines[k + 1].startswith("\\")
            if line.startswith(" ") or line.startswith("-"):
                assert a[i].rstrip("\n") == line[1:], (a[i], line)
                if line.startswith(" "):
                    out.append(a[i])
                i += 1
            elif line.startswith("+"):
                out.append(line[1:] + ("" if no_newline else "\n"))
            k += 1
    out.extend(a[i:])
    return "".join(out)


texts = st.lists(st.sampled_from(["a", "b", "c", "", "x = 1", "}"]), max_size=40)


@settings(max_examples=300, deadline=None)
@given(texts, texts, st.booleans(), st.booleans())
def test_diff_reproduces_new_text(a: list[str], b: list[str], cut_a: bool, cut_b: bool) -> None:
    old = "".join(x + "\n" for x in a)
    new = "".join(x + "\n" for x in b)
    if cut_a and old:
        old = old[:-1]
    if cut_b and new:
        new = new[:-1]
    diff = unified_diff(old, new, "f.txt")
    if old == new:
        assert diff == ""
    else:
        assert patch(old, diff) == new


def test_new_file_diff_is_against_dev_null() -> None:
    diff = unified_diff("", "hello\n", "new.txt")
    assert diff.startswith("--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hello\n")


def test_missing_final_newline_is_marked() -> None:
    diff = unified_diff("a\nb\n", "a\nc", "f")
    assert "+c\n\\ No newline at end of file\n" in diff


def test_large_file_with_scattered_edits() -> None:
    old_lines = [f"line {i}" for i in range(100_000)]
    new_lines = list(old_lines)
    for k in range(0, 100_000, 500):
        new_lines[k] = f"changed {k}"
    old = "\n".join(old_lines) + "\n"
    new = "\n".join(new_lines) + "\n"
    diff = unified_diff(old, new, "big.txt")
    assert diff.count("\n+changed ") == 200
    assert patch(old, diff) == new
