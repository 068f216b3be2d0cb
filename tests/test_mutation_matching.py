"""The matching chain's smaller parts pinned on what ends up in the file or in the answer: the
word-level merge of one line, the hints that choose among equal places, the diagnosis of a
failed match, the syntax step, and the chain's own checks (applied before, applied elsewhere,
ambiguity)."""

from __future__ import annotations

from pathlib import Path

import pytest

from editblocks.matching import Match, MatchFailure, locate
from editblocks.matching.merge import merge_line

from .syntax_support import needs_ast

# -- merge: the file's line plus exactly the model's change ------------------------------------------


@pytest.mark.parametrize(
    "file_line, search_line, replace_line, merged",
    [
        # The file has a comment the model did not copy: the change is carried, the comment kept.
        (
            "total = compute(a, b)  # note",
            "total = compute(a, b)",
            "total = compute(a, c)",
            "total = compute(a, c)  # note",
        ),
        ("p = v(1, 2, 3) # k", "u = v(1, 2, 3)", "u = w(1, 9, 3)", "p = w(1, 9, 3) # k"),
        ("y = a + b", "x = a + b", "x = a - b", "y = a - b"),
        ("a b c d e # z", "a b c d e", "a B c D e", "a B c D e # z"),
        ("a b q c", "a b c", "a X c", "a X q c"),
        ("a Q b c", "a b c", "a b Z c", "a Q b Z c"),
        ("a Q b c", "a b c", "a X c", "a Q X c"),
        # Insertions: at the start, at the end, in the middle, where the file has more before.
        ("a b c", "a b c", "Z a b c", "Z a b c"),
        ("a b c", "a b c", "a b c d", "a b c d"),
        ("g = f(a)", "f(a)", "f(a, b)", "g = f(a, b)"),
        ("y = f(a)", "f(a)", "f.x(a)", "y = f.x(a)"),
        ("q b", "p b", "p X", "q X"),
        ("f(x, a)", "f(a)", "f(a, b)", "f(x, a, b)"),
        ("x = a+b+c", "x = a+b+c", "x = a+Q+R+c", "x = a+Q+R+c"),
        # Deletions.
        ("a b c", "a b c", "a b", "a b"),
        ("f(a)", "f(a)", "(a)", "(a)"),
        ("x = a+b+c", "x = a+b+c", "x = Q", "x = Q"),
        # White space around the line is the file's.
        ("  x = 1", "x = 1", "x = 2", "  x = 2"),
        ("x = 1  ", "x = 1", "x = 2", "x = 2  "),
    ],
)
def test_the_change_is_carried_onto_the_files_line(
    file_line: str, search_line: str, replace_line: str, merged: str
) -> None:
    assert merge_line(file_line, search_line, replace_line) == merged


@pytest.mark.parametrize(
    "file_line, search_line, replace_line",
    [
        # The word the change replaces is not the file's.
        ("x = foo(a, z)", "x = foo(a, b)", "x = foo(a, c)"),
        ("y = a + b", "x = a + b", "z = a + b"),
        # The replaced words are not side by side in the file.
        ("a b Q c d", "a b c d", "a X d"),
        # An insertion between words the file does not have side by side.
        ("f(a x)", "f(a)", "f(a, b)"),
        # A neighbour of the replaced word differs in the file (left, right, missing).
        ("x-b", "x+b", "x+X"),
        ("b-x", "b+x", "X+x"),
        ("a b", "a b c", "a X c"),
        ("a\tb", "a b", "a c"),
        ("+b", "-b", "-X"),
        ("a b Q c", "a b c", "a b X"),
        ("a Q b c", "a b c", "X b c"),
        ("a Qb", "a b", "a X"),
        # Words in another order.
        ("a b c", "c b a", "c b Z"),
        ("b a c", "a b c", "X b Y"),
    ],
)
def test_a_change_with_no_clean_place_is_not_merged(file_line: str, search_line: str, replace_line: str) -> None:
    assert merge_line(file_line, search_line, replace_line) is None


# -- hints: the end of the file, enclosing lines, a line number ----------------------------------------


def _t(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def _numbered(n: int, **special: str) -> str:
    lines = [f"l{i}" for i in range(1, n + 1)]
    for key, value in special.items():
        lines[int(key[1:]) - 1] = value
    return _t(lines)


def _applied(text: str, found: Match | MatchFailure) -> str:
    assert isinstance(found, Match), found
    return text[: found.start] + found.replacement + text[found.end :]


def test_the_end_of_the_file_chooses_the_place_before_trailing_blank_lines() -> None:
    text = "x = 1\nx = 1\n\n\n\n"
    found = locate(text, "x = 1\n", "x = 2\n", at_end=True)
    assert isinstance(found, Match) and found.line == 2
    assert found.note == "the text matches at lines 1 and 2; line 2 was chosen because it ends the file"
    assert _applied(text, found) == "x = 1\nx = 2\n\n\n\n"


def test_the_end_of_the_file_that_none_reaches_leaves_the_hint_to_decide() -> None:
    text = _t(["x = 1", "a", "x = 1", "b"])
    found = locate(text, "x = 1\n", "x = 2\n", at_end=True, hint_line=1)
    assert isinstance(found, MatchFailure) and found.kind == "ambiguous"
    assert found.reason.endswith(
        "(the block's hints did not settle it: none of them ends the file; "
        "the hinted line 1 is not clearly nearer to one of them)"
    )
    found = locate(_numbered(40, l10="x = 1", l30="x = 1"), "x = 1\n", "x = 2\n", at_end=True, hint_line=9)
    assert isinstance(found, Match) and found.line == 10


def test_blank_text_in_a_blank_file_is_ambiguous_even_at_its_end() -> None:
    found = locate("\n\n\n", "\n", "x\n", at_end=True)
    assert isinstance(found, MatchFailure) and found.kind == "ambiguous" and found.candidates == [1, 2, 3]


def test_a_hint_decides_at_exactly_the_ratio() -> None:
    # Nearest 1 line away, the next 6 = 3 * 1 + 3: chosen.
    text = _numbered(40, l10="x = 1", l17="x = 1")
    found = locate(text, "x = 1\n", "x = 2\n", hint_line=11)
    assert isinstance(found, Match) and found.line == 10
    assert found.note == (
        "the text matches at lines 10 and 17; the hinted line 11 decided for line 10 "
        "(nearest; the next is 6 lines from the hint)"
    )


def test_a_hint_at_the_edge_of_the_window_that_does_not_decide_says_so() -> None:
    found = locate(_numbered(140, l50="x = 1", l100="x = 1"), "x = 1\n", "x = 2\n", hint_line=10)
    assert isinstance(found, MatchFailure) and found.kind == "ambiguous"
    assert found.reason.endswith(
        "(the block's hints did not settle it: the hinted line 10 is not clearly nearer to one of them)"
    )


CLASSES = _t(
    ["class A:", "    def f(self):", "        return 1", "", "class B:", "    def f(self):", "        return 1"]
)


def test_nested_enclosing_lines_choose_a_place_starting_at_the_inner_line() -> None:
    found = locate(
        CLASSES,
        "    def f(self):\n        return 1\n",
        "    def f(self):\n        return 2\n",
        scope=("class B:", "def f(self):"),
    )
    assert isinstance(found, Match) and found.line == 6
    assert (
        found.note
        == "the text matches at lines 2 and 6; line 6 was chosen because it lies inside 'class B:' / 'def f(self):'"
    )
    assert _applied(CLASSES, found) == CLASSES[: CLASSES.rindex("1")] + "2\n"


@pytest.mark.parametrize(
    "scope, why",
    [
        (("class C:",), "the enclosing line 'class C:' is not in the file"),
        (("def f(self):",), "all of them lie inside 'def f(self):'"),
    ],
)
def test_enclosing_lines_that_do_not_decide_say_why(scope: tuple[str, ...], why: str) -> None:
    found = locate(CLASSES, "        return 1\n", "        return 2\n", scope=scope)
    assert isinstance(found, MatchFailure) and found.kind == "ambiguous" and found.candidates == [3, 7]
    assert found.reason.endswith(f"(the block's hints did not settle it: {why})")


def test_enclosing_lines_none_of_the_places_is_in_leave_the_hint_to_decide() -> None:
    text = _t(
        ["def f():", "    a = 1", *[f"x{i} = {i}" for i in range(20)], "def g():", "    a = 1", "def h():", "    pass"]
    )
    found = locate(text, "    a = 1\n", "    a = 2\n", scope=("def h():",), hint_line=24)
    assert isinstance(found, Match) and found.line == 24
    found = locate(text, "    a = 1\n", "    a = 2\n", scope=("def h():",))
    assert isinstance(found, MatchFailure) and found.reason.endswith("none of them lies inside 'def h():')")


@pytest.mark.parametrize(
    "scope, line",
    [
        (("class B",), 7),  # the start of a header
        (("class B", "def f"), 7),  # nested, the inner one also found earlier in another class
        (("class B", "def nope"), 7),  # an inner line not found keeps the outer region
        (("", "class B:"), 7),  # a blank enclosing line is passed over
        (("def f(self):", "return 1"), None),
    ],
)
def test_enclosing_lines_by_their_start_and_nested(scope: tuple[str, ...], line: int | None) -> None:
    found = locate(CLASSES, "        return 1\n", "        return 2\n", scope=scope)
    if line is None:
        assert isinstance(found, MatchFailure) and found.kind == "ambiguous"
    else:
        assert isinstance(found, Match) and found.line == line


@pytest.mark.parametrize(
    "lines, scope, line",
    [
        # A heading with no indented body: its region runs to the end.
        (["Intro", "x = 1", "## Usage", "text", "x = 1", "more"], "## Usage", 5),
        # A header over several lines: the ')' line continues it.
        (["def f(", "    a,", "):", "    x = 1", "def g():", "    x = 1"], "def f(", 4),
        # A line at the header's indentation ends the region, whatever letter it starts with.
        (["def f():", "    x = 1", "X = dict(", "    x = 1", ")"], "def f():", 2),
        # The scope line is the file's first line; found by its start.
        (["def f(x):", "    x = 1", "def g(x):", "    x = 1"], "def f", 2),
        (["def f(x):", "    x = 1", "def g(x):", "    x = 1"], "def g(x):", 4),
    ],
)
def test_the_region_of_an_enclosing_line(lines: list[str], scope: str, line: int) -> None:
    text = _t(lines)
    search = "x = 1\n" if "x = 1" in lines else "    x = 1\n"
    if _t([search.rstrip("\n")]) not in text:
        search = "    x = 1\n"
    found = locate(text, search, search.replace("1", "2"), scope=(scope,))
    assert isinstance(found, Match), found
    assert found.line == line


def test_a_unique_match_away_from_the_hint_gets_a_note() -> None:
    text = _numbered(120, l100="x = 1")
    for hint, note in [
        (60, None),
        (140, None),
        (100, None),
        (59, "found at line 100, 41 lines from the hinted line 59 (the text occurs only there)"),
        (141, "found at line 100, 41 lines from the hinted line 141 (the text occurs only there)"),
    ]:
        found = locate(text, "x = 1\n", "x = 2\n", hint_line=hint)
        assert isinstance(found, Match) and found.line == 100 and found.note == note, hint


FG = _t(["def f():", "    a = 1", "", "def g():", "    b = 2"])


@pytest.mark.parametrize(
    "search, hints, note",
    [
        ("    b = 2\n", {"scope": ("def g():",)}, None),
        ("    b = 2\n", {"at_end": True}, None),
        ("    b = 2\n", {"scope": ("def f():",)}, "found at line 5, outside 'def f():' (the text occurs only there)"),
        (
            "    b = 2\n",
            {"scope": ("def zz():",)},
            "the enclosing line 'def zz():' is not in the file (the text occurs only there)",
        ),
        ("    a = 1\n", {"at_end": True}, "found at line 2, not at the end of the file (the text occurs only there)"),
        (
            "    a = 1\n",
            {"at_end": True, "hint_line": 100, "scope": ("class Q:", "def g():")},
            "found at line 2, 98 lines from the hinted line 100; the enclosing line 'class Q:' is not in the file; "
            "found at line 2, not at the end of the file (the text occurs only there)",
        ),
        (
            "    a = 1\n",
            {"scope": ("def g():", "b = 2")},
            "found at line 2, outside 'def g():' / 'b = 2' (the text occurs only there)",
        ),
    ],
)
def test_a_unique_match_is_kept_with_a_note_when_away_from_the_hints(
    search: str, hints: dict[str, object], note: str | None
) -> None:
    found = locate(FG, search, search.replace("= ", "= 9"), **hints)  # type: ignore[arg-type]
    assert isinstance(found, Match) and found.note == note
    assert _applied(FG, found) == FG.replace(search, search.replace("= ", "= 9"))


FUZZY_FILE = _t(
    [
        "def f():",
        "    total = compute(alpha, beta, gamma, delta)",
        "    value = total * 2 + offset",
        "    return value",
        "",
        "def g():",
        "    other = 1",
        "    return other",
    ]
)
FUZZY_SEARCH = "    total = compute(alpha, beta, gamma, delts)\n    value = total * 2 + offset\n    return value\n"
FUZZY_REPLACE = FUZZY_SEARCH.replace("* 2", "* 3")


@pytest.mark.parametrize("scope", [("def f():",), ("def zz():",), ()])
def test_a_fuzzy_match_inside_the_scope_or_with_no_usable_scope_is_made(scope: tuple[str, ...]) -> None:
    found = locate(FUZZY_FILE, FUZZY_SEARCH, FUZZY_REPLACE, level="fuzzy", scope=scope)
    assert isinstance(found, Match) and found.strategy == "fuzzy"
    assert _applied(FUZZY_FILE, found) == FUZZY_FILE.replace("* 2", "* 3")


def test_a_fuzzy_match_outside_the_scope_is_refused() -> None:
    found = locate(FUZZY_FILE, FUZZY_SEARCH, FUZZY_REPLACE, level="fuzzy", scope=("def g():",))
    assert isinstance(found, MatchFailure) and found.kind == "not_found" and found.line == 2


@pytest.mark.parametrize(
    "lines, scope, new, after, line",
    [
        (
            ["a = 1", "def tail(x):", "    pass"],
            "def tail",
            "    y = 2\n",
            ["a = 1", "def tail(x):", "    y = 2", "    pass"],
            3,
        ),
        (["a = 1", "b = 2", "end:"], "end:", "    y = 2\n", ["a = 1", "b = 2", "end:", "    y = 2"], 4),
        (["def f():", "    pass"], "def f():", "    y = 2\n", ["def f():", "    y = 2", "    pass"], 2),
    ],
)
def test_an_insertion_goes_right_after_the_enclosing_line(
    lines: list[str], scope: str, new: str, after: list[str], line: int
) -> None:
    text = _t(lines)
    found = locate(text, "", new, scope=(scope,))
    assert isinstance(found, Match) and not found.already_applied and found.line == line
    assert _applied(text, found) == _t(after)


def test_an_insertion_already_made_after_the_enclosing_line_is_recognised() -> None:
    found = locate(_t(["def f():", "    y = 2", "    pass"]), "", "    y = 2\n", scope=("def f():",))
    assert found == Match(9, 19, "    y = 2\n", "scope", 2, already_applied=True)


def test_nothing_to_search_for_and_no_place_is_refused() -> None:
    from editblocks.matching import Narrowing

    assert Narrowing().insertion("a = 1\n", "b = 2\n") == MatchFailure(
        "nothing to search for and no place given for the lines to insert", "not_found"
    )


@pytest.mark.parametrize(
    "scope, kind",
    [(("class Z:",), "not_found"), (("   ",), "not_found"), (("class A:",), "ambiguous")],
)
def test_an_insertion_with_no_certain_enclosing_line_is_refused(scope: tuple[str, ...], kind: str) -> None:
    text = _t(["class A:", "    def f(self):", "        pass", "class A:", "    x = 1"])
    found = locate(text, "", "    y = 2\n", scope=scope)
    assert isinstance(found, MatchFailure) and found.kind == kind
    if kind == "ambiguous":
        assert found == MatchFailure(
            "the enclosing line 'class A:' occurs at lines 1 and 4, so where the lines to insert go is ambiguous; "
            "add context lines",
            "ambiguous",
            1,
            candidates=[1, 4],
        )
    else:
        missing = scope[0].strip()
        assert found.reason == (
            f"the enclosing line {missing!r} is not in the file, so the lines to insert cannot be placed; "
            "copy the line exactly, or add context lines"
        )


@pytest.mark.parametrize(
    "text, new, already, after",
    [
        ("a = 1\nb = 2\n", "c = 3\n", False, "a = 1\nb = 2\nc = 3\n"),
        ("a = 1\nb = 2\n", "b = 2\n", True, "a = 1\nb = 2\n"),
        ("a = 1\nb = 2\n", "a = 1\nb = 2\n", True, "a = 1\nb = 2\n"),
        # Ends with the new text, but not at a line's start: not made yet.
        ("a = 1\nxb = 2\n", "b = 2\n", False, "a = 1\nxb = 2\nb = 2\n"),
    ],
)
def test_an_insertion_at_the_end_of_the_file(text: str, new: str, already: bool, after: str) -> None:
    found = locate(text, "", new, at_end=True)
    assert isinstance(found, Match) and found.already_applied is already
    if not already:
        assert _applied(text, found) == after
        assert found == Match(
            len(text), len(text), new, "end", text.count("\n") + 1, note="appended at the end of the file"
        )
    else:
        start = len(text) - len(new)
        assert found == Match(start, len(text), new, "end", text.count("\n", 0, start) + 1, already_applied=True)


# -- diagnosis: what a failed match tells the model ------------------------------------------------------

ANCHORED = _t(
    ["def f():", "    a = 1", "    b = 2", "    c = 3", "    return a", "", "def g():", "    a = 1", "    pass"]
)


@pytest.mark.parametrize(
    "old, leading, trailing, kind, line, candidates, region, reason",
    [
        (
            "    b = 2\n",
            "def nothing_like_it(x, y, z):\n",
            "",
            "anchor_not_found",
            None,
            [],
            None,
            "Leading anchor not found in file; its first line 'def nothing_like_it(x, y, z):' occurs nowhere in the file",
        ),
        (
            "    b = 2\n",
            "    a = 1\n    b = 2\n    c = 3\n    return b\n",
            "",
            "anchor_not_found",
            2,
            [2, 8],
            (2, 5),
            "Leading anchor not found in file; closest match is lines 2-5 (96% similar), inside `def f`: "
            "line 5 is 'return a' where the block has 'return b'",
        ),
        (
            "    b = 2\n",
            "def f():\n    a = 1\n",
            "    c = 4\n",
            "trailing_mismatch",
            1,
            [],
            None,
            "Trailing anchor not found after old lines (anchor found at line 1); "
            "line 4 of the file is '    c = 3' where the block has '    c = 4' (text differs)",
        ),
        (
            "    b = 2\n",
            "def f():\n    a = 1\n",
            "    c = 3\n    return b\n",
            "trailing_mismatch",
            1,
            [],
            None,
            "Trailing anchor not found after old lines (anchor found at line 1); "
            "line 5 of the file is '    return a' where the block has '    return b' (text differs)",
        ),
        (
            "    pass\n",
            "def g():\n    a = 1\n",
            "    more\n",
            "trailing_mismatch",
            7,
            [],
            None,
            "Trailing anchor not found after old lines (anchor found at line 7); the file ends before line 1 of the expected text",
        ),
        (
            "    a = 1\n",
            "def g():\n",
            "    pass\n    more\n",
            "trailing_mismatch",
            7,
            [],
            None,
            "Trailing anchor not found after old lines (anchor found at line 7); the file ends before line 2 of the expected text",
        ),
        (
            # The anchor is in the file twice; the old lines follow only the second.
            "    pass\n",
            "    a = 1\n",
            "    more\n",
            "trailing_mismatch",
            8,
            [],
            None,
            "Trailing anchor not found after old lines (anchor found at line 8); the file ends before line 1 of the expected text",
        ),
        (
            "    b = 7\n",
            "    a = 1\n",
            "",
            "old_mismatch",
            2,
            [2, 8],
            None,
            "Old lines don't match content after anchor (anchor found at line 2); "
            "line 3 of the file is '    b = 2' where the block has '    b = 7' (text differs)",
        ),
        (
            "     b = 2\n",
            "def f():\n    a = 1\n",
            "",
            "old_mismatch",
            1,
            [1],
            None,
            "Old lines don't match content after anchor (anchor found at line 1); "
            "line 3 of the file is '    b = 2' where the block has '     b = 2' (whitespace differs)",
        ),
        (
            "    b = 2\n",
            "    pass\n",
            "x\n",
            "old_mismatch",
            9,
            [9],
            None,
            "Old lines don't match content after anchor (anchor found at line 9); the file ends before line 1 of the expected text",
        ),
        (
            "    b = 2\n",
            "",
            "    c = 4\n",
            "anchor_not_found",
            4,
            [4, 2, 3],
            (4, 4),
            "Trailing anchor not found in file; closest match is line 4 (80% similar), inside `def f`: "
            "line 4 is 'c = 3' where the block has 'c = 4'",
        ),
        (
            "    b = 2\n",
            "",
            "    a = 1\n",
            "trailing_mismatch",
            3,
            [],
            None,
            "Trailing anchor not found after old lines (old lines found at line 3); "
            "line 4 of the file is '    c = 3' where the block has '    a = 1' (text differs)",
        ),
        (
            "    b = 2\n",
            "",
            "totally different line here\n",
            "anchor_not_found",
            None,
            [],
            None,
            "Trailing anchor not found in file; its first line 'totally different line here' occurs nowhere in the file",
        ),
        (
            "    b = 7\n",
            "",
            "    c = 3\n",
            "not_found",
            3,
            [3, 2],
            (3, 4),
            "Old lines not found in file; closest match is lines 3-4 (90% similar), inside `def f`: "
            "line 3 is 'b = 2' where the block has 'b = 7'",
        ),
    ],
)
def test_a_block_with_anchors_that_does_not_match_says_which_part_failed(
    old: str,
    leading: str,
    trailing: str,
    kind: str,
    line: int | None,
    candidates: list[int],
    region: tuple[int, int] | None,
    reason: str,
) -> None:
    found = locate(ANCHORED, old, old.replace("= ", "= 9"), leading=leading, trailing=trailing)
    assert isinstance(found, MatchFailure)
    assert (found.kind, found.line, found.candidates, found.region) == (kind, line, candidates, region)
    assert found.reason == reason
    if region is not None:
        assert found.region_text == "".join(x + "\n" for x in ANCHORED.splitlines()[region[0] - 1 : region[1]])
        assert found.score is not None and found.scope == "def f"


@needs_ast
def test_a_failed_anchor_names_the_definition_from_the_syntax_tree() -> None:
    found = locate(ANCHORED, "    b = 2\n", "    b = 9\n", trailing="    c = 4\n", language="python")
    assert isinstance(found, MatchFailure) and found.kind == "anchor_not_found" and found.scope == "f"
    assert "inside `f` at lines 1-5" in found.reason
    found = locate(
        ANCHORED,
        "    b = 2\n",
        "    b = 9\n",
        leading="    a = 1\n    b = 2\n    c = 3\n    return b\n",
        language="python",
    )
    assert isinstance(found, MatchFailure) and found.kind == "anchor_not_found" and found.scope == "f"


PARSER = [
    "class Parser:",
    "    def a(self):",
    "        x = 1",
    "",
    "        y = 2",
    "    def feed(self, data):",
    "        for c in data:",
    "            self.buf += c",
    "",
    "",
    "",
    "",
    "",
    "        return data",
    "    z = 3",
    "def tail():",
    "    pass",
]


@needs_ast
@pytest.mark.parametrize(
    "index, last, language, scope",
    [
        (7, None, None, "def feed"),
        (7, None, "python", ("Parser.feed", 6, 14)),
        (6, 13, "python", ("Parser.feed", 6, 14)),
        (2, 7, "python", ("Parser", 1, 15)),
        (5, None, "python", ("Parser.feed", 6, 14)),
        (0, None, None, "class Parser"),
        (len(PARSER) - 1, None, None, "def tail"),
        (len(PARSER), None, None, None),
        (-1, None, None, None),
        (3, None, None, "def a"),  # a blank line: the next line with text says how deep it is
        (8, None, None, None),  # five blank lines after it: too far to look
        (9, None, None, "def feed"),
        (14, None, None, "class Parser"),
        (5, None, None, "def feed"),  # on the header itself
    ],
)
def test_the_definition_around_a_region(
    index: int, last: int | None, language: str | None, scope: str | tuple[str, int, int] | None
) -> None:
    from editblocks.matching.diagnosis import enclosing_scope

    found = enclosing_scope(PARSER, index, last=last, language=language)
    if scope is None or isinstance(scope, str):
        assert (found.name if found else None) == scope
        assert found is None or (found.first, found.last) == (None, None)
    else:
        assert found is not None and tuple(found) == scope


@pytest.mark.parametrize(
    "lines, index, scope",
    [
        (["class K:", "    def a(self):", "        pass", "    x = 1"], 3, "class K"),
        (["class K:", "    def a(self):", "        pass", "    x = 1"], 1, "def a"),
        (["x = 1", "if x:", "    y = 2", "def tail():"], 2, None),
        (["export default function (a) {", "  return a;", "}"], 1, "function (anonymous)"),
        (["def far():"] + [f"    x = {i}" for i in range(2000)], 1999, "def far"),
        (["def far():"] + [f"    x = {i}" for i in range(2000)], 2000, None),
        (["def f():", "    a = 1", "", "    b = 2"], 3, "def f"),
        (["def f():", "    b = 2"], 1, "def f"),
    ],
)
def test_the_definition_around_a_line_read_from_the_text(lines: list[str], index: int, scope: str | None) -> None:
    from editblocks.matching.diagnosis import enclosing_scope

    found = enclosing_scope(lines, index)
    assert (found.name if found else None) == scope


@pytest.mark.parametrize(
    "search, window, first_line, sentences",
    [
        (
            ["a = 1", "b = 2", "c = 3"],
            ["a = 1", "b = 9", "c = 3"],
            10,
            ["line 11 is 'b = 9' where the block has 'b = 2'"],
        ),
        (
            ["  a = 1", "b = 2  ", "zzz", "c = 3"],
            ["a = 1", "b = 2", "c = 3", "d = 4", "e = 5"],
            10,
            [
                "line 10 'a = 1' differs only in indentation",
                "line 11 'b = 2' differs only in trailing white space",
                "the block's line 'zzz' is not in the file there",
            ],
        ),
        (
            ["q = 1", "r = 2", "s = 3", "t = 4", "u=5"],
            ["a1", "a2", "a3", "a4", "a5"],
            1,
            [
                "the block's line 'q = 1' is not in the file there",
                "the block's line 'r = 2' is not in the file there",
                "the block's line 's = 3' is not in the file there",
            ],
        ),
        (
            ["a = 1", "x" * 100],
            ["a = 1", "y" * 100],
            1,
            [
                f"the block's line '{'x' * 70}…' is not in the file there",
                f"line 2 '{'y' * 70}…' is missing from the block",
            ],
        ),
        (
            ["value = " + "x" * 100],
            ["value = " + "x" * 99 + "y"],
            3,
            [f"line 3 is 'value = {'x' * 62}…' where the block has 'value = {'x' * 62}…'"],
        ),
        (["a = 1", "b = 2"], ["a = 1", "b = 2", "", "c = 3"], 5, ["line 8 'c = 3' is missing from the block"]),
        (
            ["a = 1", "b = 2", "c = 3"],
            ["    a = 1", "b = 2   ", "c = 3", "d = 4", "e = 5", "f = 6"],
            5,
            [
                "line 5 'a = 1' differs only in indentation",
                "line 6 'b = 2' differs only in trailing white space",
                "line 8 'd = 4' is missing from the block",
            ],
        ),
        (
            ["  a = 1  ", "b = 2"],
            ["a = 1", "b = 2", "c = 3", "d = 4", "e = 5"],
            1,
            [
                "line 1 'a = 1' differs only in indentation",
                "line 3 'c = 3' is missing from the block",
                "line 4 'd = 4' is missing from the block",
            ],
        ),
    ],
)
def test_the_differences_named_for_a_near_region(
    search: list[str], window: list[str], first_line: int, sentences: list[str]
) -> None:
    from editblocks.matching.diagnosis import describe_differences

    assert describe_differences(search, window, first_line) == sentences


def test_a_region_with_more_than_three_differences_names_three() -> None:
    from editblocks.matching.diagnosis import describe_differences

    search = ["a = 1", "b = 2", "c = 3", "d = 4", "e = 5"]
    window = ["a = 10", "b = 20", "c = 30", "d = 40", "e = 50"]
    assert describe_differences(search, window, 1) == [
        "line 1 is 'a = 10' where the block has 'a = 1'",
        "line 2 is 'b = 20' where the block has 'b = 2'",
        "line 3 is 'c = 30' where the block has 'c = 3'",
    ]


# -- the syntax step: a whole definition placed by its name ----------------------------------------------

LOADER = _t(
    [
        "import os",
        "",
        "def load(path, mode):",
        "    handle = open(path, mode)",
        "    data = handle.read()",
        "    handle.close()",
        "    return data",
        "",
        "def save(path, data):",
        '    with open(path, "w") as out:',
        "        out.write(data)",
    ]
)
# The model's copy of ``load``: a variable renamed on three lines, too different for a fuzzy match.
STALE = [
    "def load(path, mode):",
    "    fh = open(path, mode)",
    "    data = fh.read()",
    "    fh.close()",
    "    return data",
]
LOADER_AFTER = LOADER.split("def load")[0] + "def load(path, mode):\n    handle = open(path, mode)\n"


@needs_ast
@pytest.mark.parametrize(
    "replace, body",
    [
        # A changed line, carried onto the file's line.
        (
            STALE[:4] + ["    return data.strip()"],
            ["    data = handle.read()", "    handle.close()", "    return data.strip()"],
        ),
        # A line changed where the model's copy differs from the file: the change is merged.
        (
            STALE[:2] + ["    data = fh.read(1)"] + STALE[3:],
            ["    data = handle.read(1)", "    handle.close()", "    return data"],
        ),
        # New lines, placed between lines the file has.
        (
            STALE[:3] + ["    check(data)"] + STALE[3:],
            ["    data = handle.read()", "    check(data)", "    handle.close()", "    return data"],
        ),
        (
            STALE[:4] + ["    log(data)"] + STALE[4:],
            ["    data = handle.read()", "    handle.close()", "    log(data)", "    return data"],
        ),
    ],
)
def test_a_stale_copy_of_a_definition_is_placed_by_its_name(replace: list[str], body: list[str]) -> None:
    found = locate(LOADER, _t(STALE), _t(replace), level="ast", language="python")
    assert isinstance(found, Match) and found.strategy == "ast" and found.line == 3
    assert found.score is not None and 0.85 < found.score < 0.9
    assert _applied(LOADER, found) == LOADER_AFTER + _t(body) + LOADER[LOADER.index("\ndef save") :]


@needs_ast
def test_a_blank_line_of_the_stale_copy_replaced_by_a_statement() -> None:
    search = STALE[:3] + [""] + STALE[3:]
    found = locate(LOADER, _t(search), _t(STALE[:3] + ["    x = 1"] + STALE[3:]), level="ast", language="python")
    assert isinstance(found, Match)
    assert (
        _applied(LOADER, found)
        == LOADER_AFTER
        + _t(["    data = handle.read()", "    x = 1", "    handle.close()", "    return data"])
        + LOADER[LOADER.index("\ndef save") :]
    )


@needs_ast
@pytest.mark.parametrize(
    "search, replace",
    [
        (STALE[:3] + ["    log(path)"] + STALE[3:], STALE[:3] + ["    log(path, 1)"] + STALE[3:]),
        # A blank line before the changed line is passed over, not a reason to stop checking.
        (STALE[:2] + ["", "    log(path)"] + STALE[2:], STALE[:2] + ["    y = 0", "    log(path, 1)"] + STALE[2:]),
    ],
)
def test_a_definition_placed_by_its_name_without_the_changed_line_is_refused(
    search: list[str], replace: list[str]
) -> None:
    found = locate(LOADER, _t(search), _t(replace), level="ast", language="python")
    assert isinstance(found, MatchFailure) and found.kind == "not_found"
    assert found.reason == (
        "SEARCH stands for the function `load` (lines 3-7) by its name, but that definition does not contain "
        "the line 'log(path)' that the edit changes; copy it exactly from the file"
    )
    assert (found.line, found.region) == (3, (3, 7))
    assert found.region_text == _t(LOADER.splitlines()[2:7])
    assert found.score is not None and 0.8 < found.score < 0.9


def test_a_removed_line_the_definition_has_otherwise_is_refused() -> None:
    found = locate(LOADER, _t(STALE), _t(STALE[:3] + STALE[4:]), level="ast", language="python")
    assert isinstance(found, MatchFailure) and found.kind == "not_found" and found.line == 3


@pytest.mark.parametrize(
    "language, why",
    [(None, "the file's language is not known"), ("cobol", "no syntax support for cobol")],
)
def test_the_syntax_step_says_why_it_could_not_place_a_block(language: str | None, why: str) -> None:
    found = locate(LOADER, _t(STALE), _t(STALE[:4] + ["    return 1"]), level="ast", language=language)
    assert isinstance(found, MatchFailure) and found.kind == "not_found"
    assert found.reason.endswith(f" (the syntax step did not place it: {why})")
    assert found.reason.startswith(
        "SEARCH text not found in file; closest match is lines 3-7 (89% similar), inside `def load`"
    )
    assert (found.line, found.region, found.scope) == (3, (3, 7), "def load")


@needs_ast
def test_a_definition_the_file_does_not_have_is_diagnosed_from_the_syntax_tree() -> None:
    found = locate(
        LOADER, "def nope(x):\n    return x\n", "def nope(x):\n    return 2\n", level="ast", language="python"
    )
    assert isinstance(found, MatchFailure) and found.kind == "not_found"
    assert found.reason == (
        "SEARCH text not found in file; closest match is lines 6-7 (59% similar), inside `load` at lines 3-7: "
        "the block's line 'def nope(x):' is not in the file there; line 7 is 'return data' where the block has "
        "'return x'; line 6 'handle.close()' is missing from the block "
        "(the syntax step did not place it: the file has no function or method named `nope`)"
    )
    assert found.scope == "load"


@needs_ast
def test_a_stale_definition_through_the_api(tmp_path: Path) -> None:
    from editblocks import EditStatus, apply_edits

    from .helpers import sr

    (tmp_path / "m.py").write_text(LOADER)
    reply = sr("m.py", _t(STALE), _t(STALE[:4] + ["    return data.strip()"]))
    result = apply_edits(reply, tmp_path, match="ast")
    assert result.results[0].status is EditStatus.APPLIED
    assert (tmp_path / "m.py").read_text() == LOADER.replace("    return data\n", "    return data.strip()\n")
    (tmp_path / "n.py").write_text(LOADER)
    result = apply_edits(sr("n.py", _t(STALE), _t(STALE[:4] + ["    return 1"])), tmp_path, match="fuzzy")
    assert result.results[0].status is not EditStatus.APPLIED
    assert (tmp_path / "n.py").read_text() == LOADER


# -- the chain: applied before, applied elsewhere, several places ------------------------------------------

ABC = _t(["a = 1", "b = 2", "c = 3"])


def test_an_insertion_made_before_around_the_search_text_is_already_applied() -> None:
    assert locate(ABC, "b = 2\n", "b = 2\nc = 3\n") == Match(6, 12, "b = 2\n", "exact", 2, already_applied=True)


def test_replace_text_standing_alone_is_already_applied() -> None:
    assert locate(ABC, "b = 7\n", "b = 2\n", level="tolerant") == Match(
        6, 12, "b = 2\n", "exact", 2, already_applied=True
    )


def test_dots_that_are_not_elisions_keep_the_elision_failure_when_nothing_else_matches() -> None:
    found = locate(ABC, "a = 1\n...\nc = 3\n", "a = 1\nc = 4\n", level="fuzzy")
    assert isinstance(found, MatchFailure) and found.kind == "elision"


def test_several_readings_of_a_block_are_refused() -> None:
    from editblocks.matching import choose_reading

    found = choose_reading(ABC, [("a = 1\n", "x\n"), ("b = 2\n", "y\n")])
    assert isinstance(found, MatchFailure) and (found.kind, found.line, found.candidates) == ("ambiguous", 1, [1, 2])
    assert choose_reading(ABC, [("a = 1\n", "x\n"), ("zz\n", "y\n")]) == 0
    found = choose_reading(ABC, [("q\n", "x\n")])
    assert isinstance(found, MatchFailure) and found.kind == "not_found" and found.line is None


def test_search_found_by_indentation_while_replace_stands_exactly_elsewhere_is_refused() -> None:
    text = _t(["def f():", "    x = 1", "def g():", "        y = 2", "x = 2"])
    found = locate(text, "x = 1\n", "x = 2\n", level="tolerant")
    assert isinstance(found, MatchFailure)
    assert (found.kind, found.line, found.candidates) == ("ambiguous", 2, [2, 5])


def test_two_places_equal_but_for_white_space_are_ambiguous() -> None:
    text = _t(["if a:", "    x = 1  ", "if b:", "    x = 1 ", "end"])
    found = locate(text, "    x = 1\n", "    x = 2\n", level="tolerant")
    assert isinstance(found, MatchFailure) and found.kind == "ambiguous" and found.candidates == [2, 4]


FILLER = [f"z{i} = {i}" for i in range(60)]


def test_a_tolerant_match_keeps_the_hints_note() -> None:
    text = _t(["a", "    x = 1  ", *FILLER])
    found = locate(text, "    x = 1\n", "    x = 2\n", level="tolerant", hint_line=60)
    assert isinstance(found, Match) and found.strategy == "whitespace"
    assert found.note == "found at line 2, 58 lines from the hinted line 60 (the text occurs only there)"
    two = _t(["if a:", "    x = 1  ", *FILLER[:30], "if b:", "    x = 1 ", "end"])
    found = locate(two, "    x = 1\n", "    x = 2\n", level="tolerant", hint_line=2)
    assert isinstance(found, Match) and found.line == 2
    assert _applied(two, found) == two.replace("    x = 1  \n", "    x = 2\n")


def test_a_hint_chooses_among_places_found_without_spurious_blank_lines() -> None:
    text = _t(["a = 1", "b = 2", *FILLER[:30], "a = 1", "b = 2", *FILLER[30:]])
    found = locate(text, "\na = 1\nb = 2\n\n", "\na = 1\nb = 3\n\n", level="tolerant", hint_line=1)
    assert isinstance(found, Match) and found.strategy == "blank-lines" and found.line == 1
    assert _applied(text, found) == text.replace("b = 2", "b = 3", 1)


def test_an_elision_match_keeps_the_hints_note_and_places_pieces_up_to_white_space() -> None:
    text = _t(["def f():", "    a = 1", "    b = 2", "    c = 3", *FILLER])
    found = locate(text, "def f():\n...\n    c = 3\n", "def f():\n...\n    c = 4\n", level="tolerant", hint_line=60)
    assert isinstance(found, Match) and found.strategy == "elision"
    assert found.note == "found at line 1, 59 lines from the hinted line 60 (the text occurs only there)"
    text = _t(["def f():  ", "    a = 1", "    b = 2", "    c = 3"])
    found = locate(text, "def f():\n...\n    c = 3\n", "def f():\n...\n    c = 4\n", level="tolerant")
    assert isinstance(found, Match) and _applied(text, found) == text.replace("c = 3", "c = 4")


def test_every_line_present_with_uneven_indentation_is_a_certain_fuzzy_match() -> None:
    text = _t(["def f():", "    if x:", "        y = 1", "    return y"])
    found = locate(
        text,
        "def f():\n  if x:\n      y = 1\n  return y\n",
        "def f():\n  if x:\n      y = 2\n  return y\n",
        level="fuzzy",
    )
    assert isinstance(found, Match) and found.strategy == "fuzzy" and found.score == 1.0
    assert _applied(text, found) == text.replace("y = 1", "y = 2")


def test_a_fuzzy_region_without_the_changed_line_is_refused() -> None:
    body = ["def compute(alpha, beta):", *[f"    v{i} = alpha * {i} + beta" for i in range(24)], "    return v11"]
    long_line = "    w = alpha - beta - gamma - delta - epsilon - zeta - eta - theta - iota - kappa"
    found = locate(
        _t(body), _t([*body[:6], long_line, *body[6:]]), _t([*body[:6], "    w = 0", *body[6:]]), level="fuzzy"
    )
    assert isinstance(found, MatchFailure) and (found.kind, found.line) == ("not_found", 1)
    assert "does not contain the line 'w = alpha - beta" in found.reason


# -- lazy sketches: merged when certain, refused otherwise ---------------------------------------------------

MODULE = _t(
    [
        "import os",
        "",
        "def a():",
        "    x = 1",
        "    return x",
        "",
        "def b():",
        "    y = 2",
        "    return y",
        "",
        "def c():",
        "    z = 3",
        "    return z",
    ]
)
KEEP = "# ... existing code ..."


@pytest.mark.parametrize(
    "sketch, line, start, end, after",
    [
        ([KEEP, "def b():", "    y = 20", "    return y", KEEP], 7, 6, 9, MODULE.replace("y = 2\n", "y = 20\n")),
        ([KEEP, "def c():", "    z = 30", "    return z"], 11, 10, 13, MODULE.replace("z = 3\n", "z = 30\n")),
        # No elision after the run: it ends the file, the lines after it are the sketch's to drop.
        (
            [KEEP, "def b():", "    y = 20", "    return y"],
            7,
            6,
            13,
            MODULE.split("def c")[0].rstrip("\n").replace("y = 2\n", "y = 20\n") + "\n",
        ),
    ],
)
def test_a_sketch_is_merged_around_its_elisions(sketch: list[str], line: int, start: int, end: int, after: str) -> None:
    from editblocks.matching.lazy import SketchMerge, merge_sketch

    found = merge_sketch(MODULE, _t(sketch), "m.py")
    assert isinstance(found, SketchMerge) and found.mode == "merge" and found.line == line
    assert found.text == after
    assert [(s.start, s.end) for s in found.spans] == [(start, end)]


def test_a_sketch_that_changes_nothing_changes_nothing() -> None:
    from editblocks.matching.lazy import SketchMerge, merge_sketch

    for sketch in ([KEEP, "    return x", KEEP], [KEEP, "def b():", "    y = 2", "    return y", KEEP]):
        found = merge_sketch(MODULE, _t(sketch), "m.py")
        assert isinstance(found, SketchMerge) and found.text == MODULE and found.spans == ()


@pytest.mark.parametrize(
    "sketch, line, words",
    [
        ([KEEP, "def q():", "    nothing = 1", KEEP], 2, "is not in the file"),
        (["import os", KEEP, "def b():", "    y = 20", KEEP], 5, "stands outside the block"),
        (["def a():", "    x = 10", KEEP], 1, "the sketch starts with 'def a():' without an elision comment before it"),
    ],
)
def test_a_sketch_with_no_certain_place_is_refused(sketch: list[str], line: int, words: str) -> None:
    from editblocks.matching.lazy import SketchRefusal, merge_sketch

    found = merge_sketch(MODULE, _t(sketch), "m.py")
    assert isinstance(found, SketchRefusal) and found.line == line and words in found.reason


@pytest.mark.parametrize(
    "line, path, elision",
    [
        ("// ... existing code ...", "a.js", True),
        ("# ... rest unchanged", "a.py", True),
        ("", "a.js", False),
        ("   ", "a.py", False),
        ("x = 1", "a.py", False),
    ],
)
def test_elision_comments_are_told_from_code(line: str, path: str, elision: bool) -> None:
    from editblocks.matching.lazy import is_sketch_elision

    assert is_sketch_elision(line, path) is elision


def test_elision_comments_in_a_document_count_outside_fenced_examples_only() -> None:
    from editblocks.matching.lazy import sketch_elisions

    lines = ["# Title", "```python", "# ... existing code ...", "```", "<!-- ... existing code ... -->"]
    assert sketch_elisions(lines, "README.md") == ([False, False, False, False, True], {})


@needs_ast
def test_an_elision_inside_a_string_is_uncertain_and_refused() -> None:
    from editblocks.matching.lazy import SketchRefusal, merge_sketch, sketch_elisions

    text = _t(["def a():", '    """Doc.', "    more", '    """', "    return 1"])
    sketch = ["def a():", '    """Doc.', "    # ... existing code ...", '    """', "    return 2"]
    assert sketch_elisions(sketch, "m.py") == ([False] * 5, {2: "a string"})
    found = merge_sketch(text, _t(sketch), "m.py")
    assert isinstance(found, SketchRefusal) and found.line == 3
    assert "the python grammar reads it as a string there" in found.reason


def test_a_refused_run_is_quoted_with_its_sketch_lines() -> None:
    from editblocks.matching.lazy import SketchRefusal, merge_sketch

    found = merge_sketch(MODULE, _t([KEEP, "def q():", "    nothing = 1", KEEP]), "m.py")
    assert isinstance(found, SketchRefusal)
    assert found.reason.startswith("the sketch's lines 2-3 ('def q():' / 'nothing = 1') is not in the file")
    found = merge_sketch(MODULE, _t([KEEP, "    nothing = 1", KEEP]), "m.py")
    assert isinstance(found, SketchRefusal) and found.reason.startswith("the sketch's line 2 ('nothing = 1')")


def test_blank_search_text_among_trailing_blank_lines_is_not_settled_by_the_end_of_the_file() -> None:
    found = locate("\nx\n\n\n", "\n", "y\n", at_end=True)
    assert isinstance(found, MatchFailure) and found.kind == "ambiguous" and found.candidates == [1, 3, 4]
    assert found.reason.endswith("(the block's hints did not settle it: lines 3 and 4 end the file)")


@pytest.mark.parametrize(
    "lines, scope",
    [
        # The exact line is preferred to a line that merely starts with it.
        (["def f():", "    x = 1", "def f(): pass", "    x = 1"], "def f():"),
        # Three characters are enough to name a header by its start.
        (["abc(x):", "    x = 1", "xyz(x):", "    x = 1"], "abc"),
        # A start ending in a bracket names the header whatever follows it.
        (["def f(x):", "    x = 1", "def g(x):", "    x = 1"], "def f("),
    ],
)
def test_an_enclosing_line_named_by_its_start(lines: list[str], scope: str) -> None:
    text = _t(lines)
    found = locate(text, "    x = 1\n", "    x = 2\n", scope=(scope,))
    assert isinstance(found, Match) and found.line == 2
    assert _applied(text, found) == text.replace("x = 1", "x = 2", 1)


SMALL = _t(["import os", "", "def a():", "    x = 1", "    return x", "", "def b():", "    y = 2", "    return y"])


def test_a_sketch_for_an_empty_file_creates_it() -> None:
    from editblocks.matching.lazy import SketchMerge, Span, merge_sketch

    found = merge_sketch("", "x = 1\ny = 2\n", "n.py")
    assert found == SketchMerge("x = 1\ny = 2\n", (Span(0, 0, ("x = 1", "y = 2"), ("x = 1", "y = 2")),), "create", 1)


def test_a_sketch_of_one_whole_definition_replaces_it_by_name() -> None:
    from editblocks.matching.lazy import SketchMerge, merge_sketch

    found = merge_sketch(SMALL, "def b():\n    y = 20\n    return y\n", "m.py")
    assert isinstance(found, SketchMerge) and found.mode == "definition" and found.line == 7
    assert found.text == SMALL.replace("y = 2\n", "y = 20\n")
    assert [(s.start, s.end) for s in found.spans] == [(6, 9)]


def test_a_sketch_that_is_the_whole_file_replaces_it() -> None:
    from editblocks.matching.lazy import SketchMerge, Span, merge_sketch

    new = SMALL.replace("x = 1", "x = 10")
    found = merge_sketch(SMALL, new, "m.py")
    lines = tuple(new.splitlines())
    assert found == SketchMerge(new, (Span(0, 9, lines, lines),), "whole", 1)
    assert merge_sketch(SMALL, SMALL, "m.py") == SketchMerge(SMALL, (), "whole", 1)


@pytest.mark.parametrize("path", ["x.js", "x.unknownext"])
def test_a_sketch_of_some_definitions_that_could_be_the_whole_file_is_refused(path: str) -> None:
    from editblocks.matching.lazy import SketchRefusal, merge_sketch

    text = "function a() {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n"
    found = merge_sketch(text, "function b() {\n  return 3;\n}\n", path)
    assert isinstance(found, SketchRefusal) and found.line == 1
    assert found.reason.startswith(
        "the sketch has no elision comment and holds some of the file's definitions but not a:"
    )


RUN_BODY = [
    "def run(items, limit):",
    *[f"    value_{i} = compute(items, {i}, limit)" for i in range(10)],
    "    return value_9",
]
RUN_FILE = _t(["import os", "", *RUN_BODY, "", "def other():", "    pass"])
# The model's copy: every call renamed, and one line it does not remember at all.
RUN_STALE = [line.replace("compute", "calc") for line in RUN_BODY]
RUN_STALE[4] = "    completely_other_thing()"


@needs_ast
def test_a_line_changed_one_for_one_beside_a_line_the_file_lacks_is_carried() -> None:
    replace = list(RUN_STALE)
    replace[5] = replace[5].replace("limit)", "limit, 1)")
    found = locate(RUN_FILE, _t(RUN_STALE), _t(replace), level="ast", language="python")
    assert isinstance(found, Match) and found.strategy == "ast"
    assert _applied(RUN_FILE, found) == RUN_FILE.replace("compute(items, 4, limit)", "compute(items, 4, limit, 1)")


@needs_ast
def test_a_new_line_beside_a_line_the_file_lacks_has_no_certain_place() -> None:
    replace = list(RUN_STALE)
    replace.insert(5, "    new_line()")
    found = locate(RUN_FILE, _t(RUN_STALE), _t(replace), level="ast", language="python")
    assert isinstance(found, MatchFailure) and found.kind == "not_found"
    assert "where to put 'new_line()' is uncertain" in found.reason


@needs_ast
def test_a_change_to_a_line_the_definition_lacks_is_refused_with_the_definition() -> None:
    replace = list(RUN_STALE)
    replace[4:6] = ["    a = 1", "    b = 2"]
    found = locate(RUN_FILE, _t(RUN_STALE), _t(replace), level="ast", language="python")
    assert isinstance(found, MatchFailure) and found.kind == "not_found"
    assert (found.line, found.region, found.region_text) == (3, (3, 14), _t(RUN_BODY))
    assert "does not contain the line 'completely_other_thing()'" in found.reason


LONG_BODY = ["def compute(alpha, beta):", *[f"    v{i} = alpha * {i} + beta" for i in range(24)], "    return v11"]
LONG_LINE = "    w = alpha - beta - gamma - delta - epsilon - zeta - eta - theta - iota - kappa"


def test_the_syntax_step_keeps_the_text_strategies_own_failure_and_adds_why() -> None:
    search, replace = _t([*LONG_BODY[:6], LONG_LINE, *LONG_BODY[6:]]), _t([*LONG_BODY[:6], "    w = 0", *LONG_BODY[6:]])
    found = locate(_t(LONG_BODY), search, replace, level="ast", language=None)
    assert isinstance(found, MatchFailure) and found.kind == "not_found"
    assert found.reason.startswith("the closest region (line 1, 93% similar) does not contain the line 'w = alpha")
    assert found.reason.endswith("(the syntax step did not place it: the file's language is not known)")
    found = locate(_t(LONG_BODY), search, replace, level="ast", language="cobol")
    assert isinstance(found, MatchFailure) and found.reason.startswith("the closest region (line 1, 93% similar)")
    assert found.reason.endswith("(the syntax step did not place it: no syntax support for cobol)")


@needs_ast
def test_a_long_definition_without_the_changed_line_quotes_both_cut() -> None:
    from editblocks.quoting import quote

    search, replace = _t([*LONG_BODY[:6], LONG_LINE, *LONG_BODY[6:]]), _t([*LONG_BODY[:6], "    w = 0", *LONG_BODY[6:]])
    found = locate(_t(LONG_BODY), search, replace, level="ast", language="python")
    assert isinstance(found, MatchFailure) and found.kind == "not_found"
    assert f"does not contain the line {quote(LONG_LINE.strip(), 60)} that the edit changes" in found.reason
    assert found.region == (1, 26) and found.region_text == _t(LONG_BODY[:20])


@needs_ast
def test_empty_old_lines_before_a_trailing_anchor_are_diagnosed_as_old_lines() -> None:
    found = locate(ANCHORED, "", "x\n", trailing="    c = 4\n")
    assert isinstance(found, MatchFailure) and found.kind == "not_found"
    assert found.reason.startswith("Old lines not found in file; closest match is line 4 (80% similar)")
    found = locate(ANCHORED, "    b = 7\n", "    b = 9\n", trailing="    c = 3\n", language="python")
    assert isinstance(found, MatchFailure) and found.kind == "not_found" and found.scope == "f"


def test_a_long_line_differing_in_indentation_is_quoted_cut() -> None:
    from editblocks.matching.diagnosis import describe_differences

    assert describe_differences(["  " + "v" * 80], ["v" * 80], 1) == [
        f"line 1 '{'v' * 70}…' differs only in indentation"
    ]


KLASS = _t(
    [
        "class K:",
        "    def a(self):",
        "        first = 1",
        "        return first",
        "    def b(self):",
        "        second = 2",
        "        return second",
    ]
)


@needs_ast
def test_a_closest_region_across_two_methods_is_placed_in_their_class() -> None:
    found = locate(KLASS, "        return firstt\n    def b(self):\n        second = 2\n", "x\n", language="python")
    assert isinstance(found, MatchFailure) and (found.kind, found.scope, found.region) == ("not_found", "K", (4, 6))
    assert "inside `K` at lines 1-7" in found.reason


@pytest.mark.parametrize(
    "search, reason",
    [
        ("zzz qqq\nwww\n", "SEARCH text not found in file; its first line 'zzz qqq' occurs nowhere in the file"),
        (
            "        first = 1\nnothing like it at all here\nand more unrelated text lines\n",
            "SEARCH text not found in file",
        ),
    ],
)
def test_a_search_text_like_nothing_in_the_file(search: str, reason: str) -> None:
    assert locate(KLASS, search, "x\n") == MatchFailure(reason, "not_found")


@pytest.mark.parametrize(
    "text, search, level, reason",
    [
        (
            "x = 1\ny = 2\nx = 1\n",
            "x = 1\n",
            "exact",
            "Edit location is ambiguous (matches at lines 1 and 3); include more surrounding lines so the text occurs only once",
        ),
        (
            "if a:\n    x = 1  \nif b:\n    x = 1 \n",
            "    x = 1\n",
            "tolerant",
            "Edit location is ambiguous (matches at lines 2 and 4 when whitespace differences are ignored); "
            "include more surrounding lines so the text occurs only once",
        ),
    ],
)
def test_an_ambiguous_place_says_where_and_how(text: str, search: str, level: str, reason: str) -> None:
    found = locate(text, search, "z = 0\n", level=level)
    assert isinstance(found, MatchFailure) and found.reason == reason and found.kind == "ambiguous"
    assert found.line == found.candidates[0]


@needs_ast
def test_removing_a_line_the_definition_lacks_is_refused() -> None:
    replace = [line for i, line in enumerate(RUN_STALE) if i != 4]
    found = locate(RUN_FILE, _t(RUN_STALE), _t(replace), level="ast", language="python")
    assert isinstance(found, MatchFailure) and (found.kind, found.line, found.region) == ("not_found", 3, (3, 14))
    assert "does not contain the line 'completely_other_thing()'" in found.reason


def test_a_sketch_ending_without_an_elision_may_not_drop_more_than_it_has() -> None:
    from editblocks.matching.lazy import SketchRefusal, merge_sketch

    found = merge_sketch(MODULE, _t([KEEP, "def a():", "    x = 10", "    return x"]), "m.py")
    assert isinstance(found, SketchRefusal) and found.line == 4
    assert found.reason.startswith(
        "the sketch ends with 'return x' without an elision comment after it, so it ends at the file's end, "
        "and the file's last 6 lines after it would be deleted"
    )


def test_a_new_line_after_a_runs_last_file_line_goes_right_after_it() -> None:
    from editblocks.matching.lazy import SketchMerge, merge_sketch
    from editblocks.models import SketchPart

    found = merge_sketch(MODULE, _t([KEEP, "def b():", "    y = 2", "    return y", '    print("done")', KEEP]), "m.py")
    assert isinstance(found, SketchMerge) and found.mode == "merge" and found.line == 7
    assert found.text == MODULE.replace("    return y\n", '    return y\n    print("done")\n')
    assert found.parts == (
        SketchPart("elision", 1, 1, 1, 6, False, ("import os", "", "    return x", "")),
        SketchPart("run", 2, 5, 7, 9, True, ("def b():", "    y = 2", "    return y")),
        SketchPart("elision", 6, 6, 10, 13, False, ("", "def c():", "    z = 3", "    return z")),
    )


def test_an_elision_comment_the_file_has_is_refused_when_its_two_readings_differ() -> None:
    from editblocks.matching.lazy import SketchRefusal, merge_sketch

    text = _t(["def a():", "    x = 1", "    # ... existing code ...", "    z = 0", "    y = 2"])
    found = merge_sketch(text, _t(["def a():", "    x = 10", "    # ... existing code ...", "    y = 2"]), "m.py")
    assert isinstance(found, SketchRefusal) and found.line == 3
    assert "the file has that very line" in found.reason


def test_sketch_parts_out_of_the_files_order_are_refused() -> None:
    from editblocks.matching.lazy import SketchRefusal, merge_sketch

    sketch = [KEEP, "def c():", "    z = 30", "    return z", KEEP, "def a():", "    x = 1", KEEP]
    found = merge_sketch(MODULE, _t(sketch), "m.py")
    assert found == SketchRefusal(
        "the sketch's lines 6-7 ('def a():' / 'x = 1') is out of order: the file has its lines only at lines 3 and 4, "
        "before line 14, where the sketch's earlier lines were placed. Keep the sketch's parts in the file's order",
        6,
        (3, 4),
    )


@needs_ast
def test_a_definition_name_the_file_lacks_keeps_the_similarity_failure() -> None:
    search = ["def nope(alpha, beta):", *LONG_BODY[1:6], "    w = alpha - beta", *LONG_BODY[6:]]
    replace = ["def nope(alpha, beta):", *LONG_BODY[1:6], "    w = 0", *LONG_BODY[6:]]
    found = locate(_t(LONG_BODY), _t(search), _t(replace), level="ast", language="python")
    assert isinstance(found, MatchFailure) and found.kind == "not_found"
    assert found.reason == (
        "the closest region (line 1, 98% similar) does not contain the line 'w = alpha - beta' that the edit "
        "changes; copy it exactly from the file (the syntax step did not place it: the file has no function or "
        "method named `nope`)"
    )


@needs_ast
def test_a_two_line_region_across_two_methods_is_placed_in_their_class() -> None:
    found = locate(KLASS, "        return firstt\n    def b(self):\n", "x\n", language="python")
    assert isinstance(found, MatchFailure) and (found.scope, found.region) == ("K", (4, 5))


def test_a_first_line_that_is_the_files_last_line_is_not_said_to_be_nowhere() -> None:
    search = "        return second\nnothing like it at all here\nand more unrelated text lines\n"
    assert locate(KLASS, search, "x\n") == MatchFailure("SEARCH text not found in file", "not_found")


def test_a_run_placed_by_its_third_line() -> None:
    from editblocks.matching.lazy import SketchMerge, merge_sketch

    text = _t(
        [
            "def a():",
            "    x = 1",
            "    y = 2",
            "    unrelated_call_here()",
            "",
            "def b():",
            "    x = 1",
            "    y = 2",
            "    w = 4",
        ]
    )
    found = merge_sketch(text, _t([KEEP, "    x = 1", "    y = 2", "    w = 4", '    print("v")']), "m.py")
    assert isinstance(found, SketchMerge) and found.text == text + '    print("v")\n'


def test_a_run_found_whole_in_two_places_is_refused() -> None:
    from editblocks.matching.lazy import SketchRefusal, merge_sketch

    found = merge_sketch(_t(["def a():", "    pass", "", "def b():", "    pass"]), _t([KEEP, "    pass", KEEP]), "m.py")
    assert isinstance(found, SketchRefusal) and found.line == 2 and found.candidates == (2, 5)
    assert "could go in several places of the file" in found.reason


@needs_ast
def test_a_definition_that_does_not_parse_is_not_replaced() -> None:
    from editblocks.matching.lazy import SketchRefusal, merge_sketch

    text = _t(["def a():", "    return 1", "", "def b():", "    y = (", "    return y", "", "def c():", "    return 3"])
    found = merge_sketch(text, _t(["def b():", "    y = 20", "    return y"]), "m.py")
    assert found == SketchRefusal(
        "the file's function_definition `b` (line 4) does not parse cleanly, so where it ends is not certain", 1
    )


@pytest.mark.parametrize(
    ("file_line", "search_line", "replace_line"),
    [
        # the model's copy cut short, and its change rewrites the words the unseen ones follow
        ("        if len(chunks) == 1:", "        if len(chunks) == ", "            append = components.append"),
        (
            "    # of the tail of the option string",
            "    # of the tail of the option ",
            "    # number, it was positional",
        ),
        (
            "    if (escapedstate in self.quotes and",
            "    if (escapedstate in self.quotes ",
            "    tt = lexer.get_token()",
        ),
        # the same at the line's start
        ("    not isinstance(x, type) and y", "isinstance(x, type) and y", "callable(x) and y"),
    ],
)
def test_a_change_at_the_edge_of_a_line_cut_short_is_not_merged(
    file_line: str, search_line: str, replace_line: str
) -> None:
    assert merge_line(file_line, search_line, replace_line) is None


def test_a_change_inside_a_line_cut_short_keeps_the_unseen_words() -> None:
    assert merge_line("    foo(a, b)  # note", "    foo(a, b)", "    foo(a, b, c)") == "    foo(a, b, c)  # note"
    assert merge_line("    x = total(a) + 1", "    x = total(a)", "    x = sum(a)") == "    x = sum(a) + 1"
    # the last words the model saw are the ones it removes: what the unseen ones follow changes
    assert merge_line("    x = total(a) + 1", "    x = total(a)", "    x = total") is None


@pytest.mark.parametrize(
    ("file_line", "search_line", "replace_line"),
    [
        # the change brings the word the model's copy dropped, which the file has beside it
        (
            "        that mixed-mode operations either call an implementation whose",
            "        that mixed-mode operations call an implementation whose",
            "        that mixed-mode line_7 either call an implementation whose",
        ),
        # the same with a word inserted: the file has `None` where the copy lacks it
        (
            "            if named is not None and named not in ids:",
            "            if named is not and named not in ids:",
            "            if named is not None and checked not in ids:",
        ),
        # the copy cut short, and the line rewritten: a few words kept by chance do not place the rest
        (
            "        # happen if a self.fp.read() is done (without a size) whether",
            "        # happen if a self.fp.read() is done (without a size)",
            "        token = total(size)",
        ),
    ],
)
def test_a_change_that_restates_or_rewrites_around_unseen_words_is_not_merged(
    file_line: str, search_line: str, replace_line: str
) -> None:
    assert merge_line(file_line, search_line, replace_line) is None
