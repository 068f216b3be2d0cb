"""The tolerant strategies pinned where they decide an outcome: the file's first and last lines,
look-alike characters on either side, and which blank lines a SEARCH may drop."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import editblocks
from editblocks import EditStatus
from editblocks.matching import Match, locate
from editblocks.matching.strategies import FileView, trim_blank_lines, whitespace

from .helpers import sr


def _apply(tmp_path: Path, text: str, search: str, replace: str) -> tuple[EditStatus, str]:
    (tmp_path / "m.py").write_text(text)
    result = editblocks.apply_edits(sr("m.py", search, replace), tmp_path, match="tolerant")
    return result.results[0].status, (tmp_path / "m.py").read_text()


def test_trailing_space_drift_on_the_files_last_line(tmp_path: Path) -> None:
    text = "first = 1\nsecond = 2\nlast = 3   \n"
    status, after = _apply(tmp_path, text, "second = 2\nlast = 3\n", "second = 2\nlast = 4\n")
    assert status is EditStatus.APPLIED
    assert after == "first = 1\nsecond = 2\nlast = 4\n"


def test_a_file_starting_with_a_blank_line_places_tolerant_matches_on_the_right_line(tmp_path: Path) -> None:
    text = "\nfirst = 1   \nsecond = 2\nthird = 3\n"
    status, after = _apply(tmp_path, text, "second = 2\nthird = 3\n", "second = 20\nthird = 3\n")
    assert status is EditStatus.APPLIED
    assert after == "\nfirst = 1   \nsecond = 20\nthird = 3\n"
    status, after = _apply(tmp_path, text, "    first = 1\n    second = 2\n", "    first = 1\n    second = 22\n")
    assert status is EditStatus.APPLIED
    assert after == "\nfirst = 1   \nsecond = 22\nthird = 3\n"


def test_curly_quotes_in_search_find_the_files_plain_quotes(tmp_path: Path) -> None:
    text = 'def greet():\n    say("hello")\n    return 1\n'
    status, after = _apply(
        tmp_path, text, "    say(\u201chello\u201d)\n    return 1\n", "    say(\u201chello\u201d)\n    return 2\n"
    )
    assert status is EditStatus.APPLIED
    assert after == 'def greet():\n    say("hello")\n    return 2\n'


def test_a_view_is_made_in_any_thread() -> None:
    """Each apply runs in its own thread: a thread's first view must be made, not looked up."""
    found: list[object] = []
    worker = threading.Thread(
        target=lambda: found.append(locate("a = 1   \nb = 2\n", "a = 1\n", "a = 9\n", level="tolerant"))
    )
    worker.start()
    worker.join()
    assert isinstance(found[0], Match) and found[0].replacement == "a = 9\n"
    assert FileView.of("x\n").lines == ["x"]


def test_whitespace_candidates_are_line_indexes() -> None:
    view = FileView("\n\na = 1 \nb = 2\n")
    assert [c.start for c in whitespace(view, ["a = 1", "b = 2"], ["a = 1", "b = 3"])] == [2]


@pytest.mark.parametrize(
    ("search", "replace", "expected"),
    [
        (["", "", "a", "b", "", ""], ["", "", "a", "c", "", ""], (["a", "b"], ["a", "c"])),
        (["", "a"], ["", "", "a"], (["a"], ["", "a"])),  # REPLACE keeps its extra blank line
        (["", "a", ""], ["a", "x"], None),  # REPLACE turns SEARCH's last blank line into code
        (["", "a", ""], ["", ""], (["a"], [])),
        (["a", ""], ["a", "", ""], (["a"], ["a", ""])),
        (["", "a", "", ""], ["", "b", ""], (["a"], ["b"])),
        (["a", "", ""], ["b", "c", "", ""], (["a"], ["b", "c"])),  # code right after SEARCH's last line
        # Code among SEARCH's edge blank lines: they may stand for file lines the model did not copy.
        (["a", "", ""], ["b", "", "c", ""], None),
        (["", "", "a"], ["", "b", "", ""], None),
        (["", "", "", "a"], ["", "x", "", "", "a"], None),
        (["", "", "a"], ["", "", "x", "a"], (["a"], ["x", "a"])),  # right before SEARCH's first line
        (["", ""], ["x"], None),  # nothing but blank lines
        (["a"], ["b"], None),  # no blank line to drop
        (["a", "", "b"], ["a", "b"], None),  # inner blank lines stay
    ],
)
def test_blank_lines_dropped_from_search_and_the_same_from_replace(
    search: list[str], replace: list[str], expected: tuple[list[str], list[str]] | None
) -> None:
    assert trim_blank_lines(search, replace) == expected


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["", "a", "b", "return x", "}", "c"]), max_size=40), st.integers(min_value=3, max_value=5)
)
def test_line_positions_list_every_place_of_every_line(lines: list[str], asks: int) -> None:
    # A similarity search of several blocks looks lines up in this index: a place left out is
    # a region never scored, a place too many one scored in error.
    view = FileView("".join(x + "\n" for x in lines))
    for _ in range(asks - 1):
        view.positions()
    found = view.positions()
    assert found is not None
    for line in {*lines, "absent"}:
        places = [i for i, x in enumerate(lines) if x.strip() == line]
        assert (line in found) is bool(places)
        assert found.get(line) == (places or None)
