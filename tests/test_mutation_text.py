"""Text primitives pinned where they decide an outcome: every occurrence of a SEARCH found (so
ambiguity is seen), line numbers, and the indentation style new lines are written in."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

import editblocks
from editblocks import EditStatus
from editblocks.matching import Match, MatchFailure, locate
from editblocks.matching.text import (
    IndentStyle,
    detect_style,
    find_all,
    find_lines,
    line_of,
    remember_line,
    split_lines,
)

from .helpers import sr

# -- occurrences -------------------------------------------------------------------------------------


def test_every_occurrence_is_found_even_overlapping_ones() -> None:
    assert find_all("\n\n\n", "\n") == [0, 1, 2]
    assert find_all("a\na\na\n", "a\na\n") == [0, 2]
    assert find_all("xa\na\n", "a\n") == [3]  # only at line starts


def test_the_limit_is_the_number_of_occurrences_returned() -> None:
    assert find_all("a\na\na\na\n", "a\n", limit=2) == [0, 2]
    assert find_all("b\na\na\na\n", "a\n", limit=2) == [2, 4]


def test_a_blank_search_line_between_two_blank_lines_is_ambiguous() -> None:
    found = locate("x = 1\n\n\ny = 2\n", "\n", "z = 3\n")
    assert isinstance(found, MatchFailure) and found.kind == "ambiguous"
    assert found.candidates == [2, 3]


def test_find_lines_gives_line_indexes_of_whole_line_runs() -> None:
    assert find_lines(["a", "b"], ["b"]) == [1]
    assert find_lines(["", "a", "b"], ["b"]) == [2]
    assert find_lines(["a", "b", "c", "a", "b"], ["a", "b"]) == [0, 3]
    assert find_lines(["ab", "b"], ["b"]) == [1]
    assert find_lines(["a", "b"], []) == []


# -- line numbers ---------------------------------------------------------------------------------------


def test_a_remembered_position_is_used_only_for_positions_after_it() -> None:
    text = "".join(f"line {k}\n" for k in range(1, 40))
    offset = text.index("line 20\n")
    remember_line(text, offset, 20)
    assert line_of(text, text.index("line 30\n")) == 30
    assert line_of(text, text.index("line 5\n")) == 5
    assert line_of(text, text.index("line 20\n")) == 20


def test_line_numbers_in_a_fresh_thread(tmp_path: Path) -> None:
    found: list[Match | MatchFailure] = []
    text = "a = 1\nb = 2\nc = 3\n"
    worker = threading.Thread(target=lambda: found.append(locate(text, "c = 3\n", "c = 4\n")))
    worker.start()
    worker.join()
    assert isinstance(found[0], Match) and found[0].line == 3


def test_split_lines_keeps_a_last_line_without_newline() -> None:
    assert split_lines("x = 1\ny z") == ["x = 1", "y z"]
    assert split_lines("x = 1\ny z\n") == ["x = 1", "y z"]
    assert split_lines("") == []


# -- indentation style ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (["x", "", "  a", "    b", "      c", "        d"], IndentStyle(False, 2)),  # blank and flush lines skipped
        (["    a", "    b", "    c", "    d", "  e"], IndentStyle(False, 4)),  # exactly 80% by 4
        (["    a", "    b", "    c", "  d", "  e"], IndentStyle(False, 2)),  # 60% by 4
        (["    a", "        b"], IndentStyle(False, 4)),
        (["  a", "      b"], IndentStyle(False, 2)),
        (["   a", "      b"], IndentStyle(False, 3)),
        (["     a", "       b"], IndentStyle(False, 1)),  # no usual width
        (["    \ta", "    b"], IndentStyle(False, 4)),  # width counts the spaces only
        (["\ta", "    b"], IndentStyle(False, 4)),  # as many tab as space lines: spaces
        (["\ta", "\tb", "\tc", "    d", "    e"], IndentStyle(True, 4)),
        (["\ta", "\tb", "    c", "    d", "    e"], IndentStyle(False, 4)),
        (["\ta", "\tb"], IndentStyle(True, 4)),
        (["a", ""], IndentStyle(False, 4)),
    ],
)
def test_indent_style_detected(lines: list[str], expected: IndentStyle) -> None:
    assert detect_style(lines) == expected


def test_indent_style_falls_back_when_the_lines_cannot_tell() -> None:
    assert detect_style(["a", "b"], fallback=IndentStyle(False, 2)) == IndentStyle(False, 2)
    assert detect_style(["a", "b"], fallback=IndentStyle(True, 8)) == IndentStyle(True, 8)
    # Tabs, with the fallback's width for spaces when it has one.
    assert detect_style(["\ta"], fallback=IndentStyle(False, 2)) == IndentStyle(True, 2)
    assert detect_style(["\ta"], fallback=IndentStyle(True, 8)) == IndentStyle(True, 4)


@pytest.mark.parametrize(
    ("style", "indent", "expected"),
    [
        (IndentStyle(True, 4), "\t\t  ", (2, 2)),
        (IndentStyle(True, 4), "\t \t", (1, 5)),
        (IndentStyle(True, 4), "    ", (0, 4)),
        (IndentStyle(False, 4), "\t    ", (2, 0)),
        (IndentStyle(False, 2), "\t\t ", (2, 1)),
        (IndentStyle(False, 4), "\t", (1, 0)),
        (IndentStyle(False, 4), "      ", (1, 2)),
        (IndentStyle(False, 4), " \t", (1, 1)),
    ],
)
def test_indent_levels(style: IndentStyle, indent: str, expected: tuple[int, int]) -> None:
    assert style.level(indent) == expected


def test_indent_made_in_the_style() -> None:
    assert IndentStyle(True, 4).make(2, 1) == "\t\t "
    assert IndentStyle(False, 2).make(3, 0) == "      "
    assert IndentStyle(False, 4).make(-1, 2) == "  "


def _apply(tmp_path: Path, text: str, search: str, replace: str) -> tuple[EditStatus, str]:
    (tmp_path / "m.py").write_text(text)
    result = editblocks.apply_edits(sr("m.py", search, replace), tmp_path, match="tolerant")
    return result.results[0].status, (tmp_path / "m.py").read_text()


def test_lines_added_in_spaces_to_a_tab_indented_file_are_written_with_tabs(tmp_path: Path) -> None:
    text = "def f(x):\n\tif x:\n\t\treturn 1\n\treturn 2\n"
    status, after = _apply(
        tmp_path, text, "    if x:\n        return 1\n", "    if x:\n        log(x)\n        return 1\n"
    )
    assert status is EditStatus.APPLIED
    assert after == "def f(x):\n\tif x:\n\t\tlog(x)\n\t\treturn 1\n\treturn 2\n"


def test_lines_added_in_tabs_to_a_space_indented_file_are_written_with_spaces(tmp_path: Path) -> None:
    text = "def f(x):\n  if x:\n    return 1\n  return 2\n"
    status, after = _apply(tmp_path, text, "\tif x:\n\t\treturn 1\n", "\tif x:\n\t\tlog(x)\n\t\treturn 1\n")
    assert status is EditStatus.APPLIED
    assert after == "def f(x):\n  if x:\n    log(x)\n    return 1\n  return 2\n"
