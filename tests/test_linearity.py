"""Parsing time stays linear in the size of the reply, even for hostile input."""

from __future__ import annotations

import time

import pytest

from editblocks import parse_reply

# These ceilings are deliberately far above the expected time (well under a few seconds on any
# machine): they only exist to catch a quadratic blow-up, which would take minutes on 1 MB.
# They are not a performance benchmark; see benchmarks/ for real measurements.
CEILING_SECONDS = 20.0
ONE_MB = 1_000_000


def _fill(lines: list[str]) -> str:
    unit = "\n".join(lines) + "\n"
    return unit * (ONE_MB // len(unit.encode("utf-8")) + 1)


@pytest.mark.parametrize(
    "lines",
    [
        # Every marker of every format, one after the other.
        [
            "<<<<<<< SEARCH",
            "=======",
            ">>>>>>> REPLACE",
            "<<<<<<< EDIT",
            "-------",
            ">>>>>>>",
            "««« EDIT",
            "═══════ REPL",
            "»»» EDIT END",
            "<<<<<<< NEW_FILE",
            ">>>>>>> NEW_FILE",
            "```",
        ],
        # A path and a block start, again and again: every block is abandoned for the next one.
        ["a.py", "<<<<<<< SEARCH"],
        # Nothing but fences: the path look-back sees a fence on every line.
        ["```"],
    ],
    ids=["all-markers", "path-search", "fences"],
)
def test_one_megabyte_of_marker_lines_parses_in_linear_time(lines: list[str]) -> None:
    text = _fill(lines)
    assert len(text.encode("utf-8")) >= ONE_MB
    start = time.perf_counter()
    parsed = parse_reply(text)
    elapsed = time.perf_counter() - start
    assert elapsed < CEILING_SECONDS, f"{elapsed:.1f} s for 1 MB of {lines!r}: parsing is not linear"
    # However malformed, the input is reported rather than silently dropped.
    if any("SEARCH" in line or "EDIT" in line for line in lines):
        assert parsed.warnings or parsed.blocks


def test_many_complete_blocks_parse_in_linear_time() -> None:
    block = "src/file_{i}.py\n```python\n<<<<<<< SEARCH\nold = {i}\n=======\nnew = {i}\n>>>>>>> REPLACE\n```\n\n"
    text = "".join(block.format(i=i) for i in range(5_000))
    start = time.perf_counter()
    parsed = parse_reply(text)
    elapsed = time.perf_counter() - start
    assert elapsed < CEILING_SECONDS
    assert len(parsed.blocks) == 5_000
    assert parsed.blocks[-1].file_path == "src/file_4999.py"
    assert parsed.warnings == []


def test_one_huge_line_parses_in_linear_time() -> None:
    text = "a.py\n```\n<<<<<<< SEARCH\n" + "=" * ONE_MB + "\n=======\nx\n>>>>>>> REPLACE\n```\n"
    start = time.perf_counter()
    parsed = parse_reply(text)
    assert time.perf_counter() - start < CEILING_SECONDS
    assert len(parsed.blocks) == 1 and len(parsed.blocks[0].old_lines) == ONE_MB + 1
