"""What a block may say about its place besides its text (a line hint, enclosing lines, the end of the
file) only chooses among equal places, when the choice is clear, and never makes a match."""

from __future__ import annotations

import pytest

from editblocks.matching import Match, MatchFailure, locate
from editblocks.matching.narrowing import HINT_RATIO, HINT_SLACK, HINT_WINDOW, Narrowing, scope_regions
from editblocks.matching.strategies import FileView


def numbered(n: int, **special: str) -> str:
    """``n`` distinct lines, with the given 1-based lines replaced (``l5="x = 1"``)."""
    lines = [f"line {i}" for i in range(1, n + 1)]
    for key, value in special.items():
        lines[int(key[1:]) - 1] = value
    return "".join(line + "\n" for line in lines)


TWO = numbered(200, l50="x = 1", l120="x = 1")


def test_without_hints_equal_places_are_ambiguous() -> None:
    found = locate(TWO, "x = 1\n", "x = 2\n")
    assert isinstance(found, MatchFailure) and found.kind == "ambiguous" and found.candidates == [50, 120]


@pytest.mark.parametrize("hint, line", [(50, 50), (45, 50), (120, 120), (125, 120), (60, 50)])
def test_hint_chooses_the_nearest_of_equal_places(hint: int, line: int) -> None:
    found = locate(TWO, "x = 1\n", "x = 2\n", hint_line=hint)
    assert isinstance(found, Match) and found.line == line
    assert found.note is not None and f"hinted line {hint} decided for line {line}" in found.note
    assert "lines 50 and 120" in found.note


@pytest.mark.parametrize("hint", [85, 84, 1, 500])
def test_hint_that_does_not_single_out_one_place_is_refused(hint: int) -> None:
    found = locate(TWO, "x = 1\n", "x = 2\n", hint_line=hint)
    assert isinstance(found, MatchFailure) and found.kind == "ambiguous"
    assert "did not settle it" in found.reason and f"hinted line {hint}" in found.reason


def test_hint_window() -> None:
    text = numbered(600, l50="x = 1", l500="x = 1")
    found = locate(text, "x = 1\n", "x = 2\n", hint_line=50 + HINT_WINDOW)
    assert isinstance(found, Match) and found.line == 50
    found = locate(text, "x = 1\n", "x = 2\n", hint_line=50 + HINT_WINDOW + 1)
    assert isinstance(found, MatchFailure) and f"more than {HINT_WINDOW} lines from all of them" in found.reason


def test_hint_ratio_between_close_places() -> None:
    text = numbered(40, l10="x = 1", l20="x = 1")
    # Nearest at distance d, the other at 10 - d: chosen only when 10 - d >= RATIO * d + SLACK.
    for d in range(6):
        found = locate(text, "x = 1\n", "x = 2\n", hint_line=10 + d)
        chosen = 20 - 10 - d >= HINT_RATIO * d + HINT_SLACK
        assert isinstance(found, Match) == chosen, d


def test_hint_never_makes_a_match() -> None:
    found = locate(TWO, "y = 1\n", "y = 2\n", hint_line=50)
    assert isinstance(found, MatchFailure) and found.kind != "ambiguous"


def test_a_unique_match_far_from_the_hint_applies_with_a_note() -> None:
    found = locate(TWO, "line 7\n", "line seven\n", hint_line=150)
    assert isinstance(found, Match) and found.line == 7
    assert found.note and "143 lines from the hinted line 150" in found.note
    near = locate(TWO, "line 7\n", "line seven\n", hint_line=9)
    assert isinstance(near, Match) and near.note is None


def test_hint_chooses_among_tolerant_candidates_too() -> None:
    text = numbered(200, l50="    x = 1", l120="    x = 1")
    found = locate(text, "x = 1\n", "x = 2\n", level="tolerant", hint_line=118)
    assert isinstance(found, Match) and found.line == 120 and found.strategy == "indentation"
    assert found.replacement == "    x = 2\n"
    assert isinstance(locate(text, "x = 1\n", "x = 2\n", level="tolerant", hint_line=85), MatchFailure)


# -- scope -----------------------------------------------------------------------------------------

PY = """class A:
    def f(self):
        return 1

    def g(self):
        return 1


class B:
    def f(self):
        return 1
"""

JS = """function a() {
  if (x) {
    return 1;
  }
}

function b() {
  return 1;
}
"""


def test_scope_regions_follow_indentation() -> None:
    view = FileView(PY)
    regions, missing = scope_regions(view, ("class A:",))
    assert missing is None and regions == [(0, 8)]
    regions, _ = scope_regions(view, ("class B:", "def f(self):"))
    assert regions == [(9, 11)]
    regions, _ = scope_regions(view, ("def f(self):",))
    assert regions == [(1, 4), (9, 11)]
    # A closing brace belongs to its block.
    regions, _ = scope_regions(FileView(JS), ("function a() {",))
    assert regions == [(0, 5)]
    # "class B" names "class B:" but not "class Bee:".
    assert scope_regions(FileView("class Bee:\n    x = 1\n"), ("class B",)) == (None, "class B")


@pytest.mark.parametrize(
    "scope, line",
    [(("class B:",), 11), (("class A:", "def g(self):"), 6), (("def g(self):",), 6), (("class A:", "def f(self):"), 3)],
)
def test_scope_chooses_among_equal_places(scope: tuple[str, ...], line: int) -> None:
    found = locate(PY, "        return 1\n", "        return 2\n", scope=scope)
    assert isinstance(found, Match) and found.line == line, found
    assert found.note and "was chosen because it lies inside" in found.note


def test_scope_that_does_not_narrow_stays_ambiguous() -> None:
    found = locate(PY, "        return 1\n", "        return 2\n", scope=("class A:",))
    assert isinstance(found, MatchFailure) and found.candidates == [3, 6, 11]
    assert "lines 3 and 6 lie inside 'class A:'" in found.reason
    found = locate(PY, "        return 1\n", "        return 2\n", scope=("class C:",))
    assert isinstance(found, MatchFailure) and "'class C:' is not in the file" in found.reason


def test_fuzzy_match_outside_the_scope_is_refused() -> None:
    text = "def a():\n    pass\n\n\ndef b():\n    value = compute(1, 2, 3)\n    return value\n"
    found = locate(
        text,
        "    value = compute(1, 2, 3)\n    return value;\n",
        "    value = compute(1, 2, 5)\n    return value;\n",
        level="fuzzy",
    )
    assert isinstance(found, Match) and found.strategy == "fuzzy"
    refused = locate(
        text,
        "    value = compute(1, 2, 3)\n    return value;\n",
        "    value = compute(1, 2, 5)\n    return value;\n",
        level="fuzzy",
        scope=("def a():",),
    )
    assert isinstance(refused, MatchFailure) and "outside" in refused.reason


# -- insertions with nothing to search for ------------------------------------------------------------


def test_insertion_goes_right_after_its_scope_line() -> None:
    found = locate(PY, "", "        # B.f\n", scope=("class B:", "def f(self):"))
    assert isinstance(found, Match) and found.strategy == "scope" and found.line == 11
    assert PY[: found.start].endswith("class B:\n    def f(self):\n")
    twice = locate(PY, "", "        # f\n", scope=("def f(self):",))
    assert isinstance(twice, MatchFailure) and twice.kind == "ambiguous" and twice.candidates == [2, 10]
    missing = locate(PY, "", "x\n", scope=("def h():",))
    assert isinstance(missing, MatchFailure) and "not in the file" in missing.reason


def test_insertion_at_the_end_and_applied_before() -> None:
    found = locate("a\nb\n", "", "c\n", at_end=True)
    assert isinstance(found, Match) and (found.start, found.end, found.strategy) == (4, 4, "end")
    again = locate("a\nb\nc\n", "", "c\n", at_end=True)
    assert isinstance(again, Match) and again.already_applied
    inserted = locate(PY, "", "    def f(self):\n", scope=("class B:",))
    assert isinstance(inserted, Match) and inserted.already_applied


def test_at_end_chooses_the_place_that_ends_the_file() -> None:
    text = "x = 1\ny = 2\nx = 1\n\n"
    found = locate(text, "x = 1\n", "x = 3\n", at_end=True)
    assert isinstance(found, Match) and found.line == 3 and "ends the file" in (found.note or "")


def test_narrowing_is_false_without_hints() -> None:
    assert not Narrowing() and Narrowing(hint_line=1) and Narrowing(scope=("a",)) and Narrowing(at_end=True)


# -- the hints arrive through apply_edits ------------------------------------------------------------


def test_apply_reports_what_the_hint_decided(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import editblocks

    (tmp_path / "m.py").write_text(TWO)
    reply = "m.py\n<<<<<<< SEARCH\n:start_line:121\n-------\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n"
    result = editblocks.apply_edits(reply, tmp_path)
    (res,) = result.results
    assert res.status.value == "applied" and res.estimated_line == 120
    assert any("hinted line 121 decided for line 120" in n for n in res.notes)
    assert (tmp_path / "m.py").read_text() == TWO.replace("line 119\nx = 1\n", "line 119\nx = 2\n")


def test_an_exact_match_far_from_the_hint_is_refused_when_the_hint_matches_but_for_indentation() -> None:
    """textwrap-like: a one-line udiff hunk hinted at line 3 whose text occurs exactly only at line
    60, and at line 3 with other indentation: the model may have got the indentation wrong."""
    text = (
        "def a():\n    if x:\n        return text\n"
        + "".join(f"v{k} = {k}\n" for k in range(55))
        + "def b():\n    return text\n"
    )
    found = locate(text, "    return text\n", "    return text.rstrip()\n", hint_line=3)
    assert isinstance(found, MatchFailure) and found.kind == "ambiguous" and found.candidates == [3, 60]
    near = locate(text, "    return text\n", "    return text.rstrip()\n", hint_line=58)
    assert isinstance(near, Match) and near.line == 60
