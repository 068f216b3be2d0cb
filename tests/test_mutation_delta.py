"""Carrying an edit onto a tolerantly matched region, pinned on what ends up in the file: lines
the model left alone keep the file's text, new and changed lines take the file's indentation
(spaces or tabs, even when the model's SEARCH is unevenly indented), a change is merged onto the
file's version of a line, and a change with no certain place is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

import editblocks
from editblocks import EditStatus
from editblocks.matching import Match, MatchFailure, locate

from .helpers import sr


def _t(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def _edit(text: str, search: list[str], replace: list[str], level: str) -> str | MatchFailure:
    """The file's text after the edit, or the failure."""
    found = locate(text, _t(search), _t(replace), level=level)
    if isinstance(found, MatchFailure):
        return found
    assert not found.already_applied
    return text[: found.start] + found.replacement + text[found.end :]


CLASS = [
    "class K:",
    "    def run(self):",
    "        a = 1",
    "        if a:",
    "            b = 2",
    "        c = 3",
    "        return a",
    "",
    "def other():",
    "    pass",
]


# -- spaces ------------------------------------------------------------------------------------------


def test_new_block_blank_line_and_changed_line_take_the_files_indentation() -> None:
    search = ["a = 1", "if a:", "    b = 2", "c = 3", "return a"]
    replace = ["a = 1", "if a:", "    b = 2", "", "    if b:", "        X_d = 4", "c = 3", "return b"]
    after = _edit(_t(CLASS), search, replace, "tolerant")
    expected = [
        *CLASS[:5],
        "",
        "            if b:",
        "                X_d = 4",
        "        c = 3",
        "        return b",
        *CLASS[7:],
    ]
    assert after == _t(expected)


def test_lines_moved_out_a_level_stay_out_a_level() -> None:
    search = ["if a:", "    b = 2", "c = 3"]
    replace = ["if a:", "    b = 2", "    e = 5", "f = 6", "c = 3"]
    after = _edit(_t(CLASS), search, replace, "tolerant")
    assert after == _t([*CLASS[:5], "            e = 5", "        f = 6", *CLASS[5:]])


def test_a_deleted_line_is_deleted_and_the_rest_kept(tmp_path: Path) -> None:
    text = _t(["def f():", "    a = 1   ", "    b = 2", "    c = 3", "    return a"])
    (tmp_path / "m.py").write_text(text)
    reply = sr("m.py", _t(["    a = 1", "    b = 2", "    c = 3"]), _t(["    a = 1", "    c = 3"]))
    result = editblocks.apply_edits(reply, tmp_path, match="tolerant")
    assert result.results[0].status is EditStatus.APPLIED
    assert (tmp_path / "m.py").read_text() == _t(["def f():", "    a = 1   ", "    c = 3", "    return a"])


def test_lines_replaced_in_the_middle_keep_the_lines_around_them() -> None:
    text = _t(["def f():", "    a = 1   ", "    b = 2", "    c = 3", "    d = 4", "    return a"])
    after = _edit(
        text,
        ["    a = 1", "    b = 2", "    c = 3", "    d = 4"],
        ["    a = 1", "    x = 8", "    y = 9", "    d = 4"],
        "tolerant",
    )
    assert after == _t(["def f():", "    a = 1   ", "    x = 8", "    y = 9", "    d = 4", "    return a"])


def test_an_insertion_after_a_leading_blank_line_is_reindented() -> None:
    text = _t(["class K:", "    def run(self):", "", "        a = 1", "        return a"])
    after = _edit(text, ["", "a = 1", "return a"], ["", "a = 1", "log(a)", "return a"], "tolerant")
    assert after == _t(["class K:", "    def run(self):", "", "        a = 1", "        log(a)", "        return a"])


def test_a_whitespace_match_keeps_the_models_lines_as_written() -> None:
    text = _t(["def f():", "    a = 1   ", "    return a"])
    after = _edit(text, ["    a = 1", "    return a"], ["    a = 1", "    ", "    return a"], "tolerant")
    assert after == _t(["def f():", "    a = 1   ", "    ", "    return a"])


def test_uneven_indentation_is_not_an_indentation_match_but_a_certain_fuzzy_one() -> None:
    """Each new line is placed relative to the file line its nearest SEARCH line stands for."""
    search = ["a = 1", "    if a:", "        b = 2", "c = 3", "return a"]
    replace = ["a = 1", "    if a:", "        b = 20", "        log(b)", "    trace()", "c = 3", "return a"]
    assert isinstance(_edit(_t(CLASS), search, replace, "tolerant"), MatchFailure)
    after = _edit(_t(CLASS), search, replace, "fuzzy")
    assert after == _t([*CLASS[:4], "            b = 20", "            log(b)", "        trace()", *CLASS[5:]])


def test_uneven_indentation_each_replaced_line_follows_its_own_file_line() -> None:
    search = ["a = 1", "    if a:", "        b = 2", "c = 3"]
    replace = ["a = 10", "    if a > 1:", "        b = 20", "c = 30"]
    after = _edit(_t(CLASS), search, replace, "fuzzy")
    assert after == _t(
        [*CLASS[:2], "        a = 10", "        if a > 1:", "            b = 20", "        c = 30", *CLASS[6:]]
    )


def test_uneven_indentation_a_longer_replacement_follows_the_last_replaced_line() -> None:
    search = ["a = 1", "    if a:", "        b = 2", "c = 3"]
    replace = ["a = 1", "    if a:", "        b = 20", "        b += 1", "c = 3"]
    after = _edit(_t(CLASS), search, replace, "fuzzy")
    assert after == _t([*CLASS[:4], "            b = 20", "            b += 1", *CLASS[5:]])


def test_uneven_indentation_an_insertion_before_the_first_line_follows_it() -> None:
    search = ["    a = 1", "if a:", "    b = 2"]
    replace = ["    setup()", "    a = 1", "if a:", "    b = 2"]
    after = _edit(_t(CLASS), search, replace, "fuzzy")
    assert after == _t([*CLASS[:2], "        setup()", *CLASS[2:]])


def test_a_blank_search_line_inside_an_indentation_match() -> None:
    text = _t(["class K:", "    def run(self):", "        a = 1", "", "        b = 2", "        return b"])
    after = _edit(text, ["a = 1", "", "b = 2"], ["a = 1", "", "b = 3"], "tolerant")
    assert after == _t(["class K:", "    def run(self):", "        a = 1", "", "        b = 3", "        return b"])


# -- tabs -----------------------------------------------------------------------------------------------

TABS = ["def f(x):", "\tif x:", "\t\ty = compute(x,", "\t\t          1)", "\t\treturn y", "\treturn 0"]


def test_spaces_onto_tabs_new_and_changed_lines_get_tabs() -> None:
    text = _t(["def f(x):", "\tif x:", "\t\ty = compute(x, 1)", "\t\treturn y", "\treturn 0"])
    search = ["    if x:", "        y = compute(x, 1)", "        return y"]
    replace = [
        "    if x:",
        "        y = compute(x, 2)",
        "        if y:",
        "            log(y)",
        "        return y",
        "    log(x)",
    ]
    after = _edit(text, search, replace, "tolerant")
    assert after == _t(
        [
            "def f(x):",
            "\tif x:",
            "\t\ty = compute(x, 2)",
            "\t\tif y:",
            "\t\t\tlog(y)",
            "\t\treturn y",
            "\tlog(x)",
            "\treturn 0",
        ]
    )


def test_spaces_onto_tabs_at_uneven_levels_is_not_an_indentation_match() -> None:
    search = ["    if x:", "            y = compute(x,", "                      1)", "        return y"]
    replace = ["    if x:", "            y = compute(x,", "                      2)", "        return y"]
    assert isinstance(_edit(_t(TABS), search, replace, "tolerant"), MatchFailure)


def test_spaces_onto_tabs_with_other_alignment_spaces_is_not_an_indentation_match() -> None:
    search = ["    if x:", "        y = compute(x,", "                1)", "        return y"]
    replace = ["    if x:", "        y = compute(x,", "                2)", "        return y"]
    assert isinstance(_edit(_t(TABS), search, replace, "tolerant"), MatchFailure)


def test_tabs_onto_tabs_shifted_a_level() -> None:
    search = ["if x:", "\ty = compute(x,", "\t          1)", "\treturn y"]
    replace = ["if x:", "\ty = compute(x,", "\t          2)", "\treturn y"]
    after = _edit(_t(TABS), search, replace, "tolerant")
    assert after == _t([*TABS[:3], "\t\t          2)", *TABS[4:]])


def test_tabs_onto_spaces_new_lines_get_spaces() -> None:
    text = _t(["def f(x):", "    if x:", "        y = 1", "    return 0"])
    after = _edit(
        text, ["\tif x:", "\t\ty = 1"], ["\tif x:", "\t\ty = 1", "\t\tif y:", "\t\t\tlog(y)", "\tlog(x)"], "tolerant"
    )
    assert after == _t(
        ["def f(x):", "    if x:", "        y = 1", "        if y:", "            log(y)", "    log(x)", "    return 0"]
    )


# -- merging a change onto the file's version of a line ------------------------------------------------

REGION = [f"    step_{k}_value = transform_{k}(input_{k}, option_{k})" for k in range(8)]
FILLER = [f"filler_{k} = compute_{k}(alpha_{k}, beta_{k})" for k in range(20)]


def _in_file(region: list[str]) -> str:
    return _t(FILLER[:8] + region + FILLER[8:16])


def test_a_change_is_merged_onto_the_files_version_of_the_line() -> None:
    """The file's line has a comment the model left out: the change is made, the comment kept."""
    region = [*REGION]
    region[3] += "  # tuned"
    region[5] += "  # kept"
    replace = [*REGION]
    replace[3] = REGION[3].replace("option_3", "option_3, fast=True")
    replace[5] = REGION[5].replace("option_5", "option_5, fast=True")
    after = _edit(_in_file(region), REGION, replace, "fuzzy")
    merged = [*region]
    merged[3] = region[3].replace("option_3", "option_3, fast=True")
    merged[5] = region[5].replace("option_5", "option_5, fast=True")
    assert after == _in_file(merged)


def test_the_second_line_of_a_changed_pair_is_merged_too() -> None:
    region = [*REGION]
    region[4] += "  # kept"
    replace = [*REGION]
    replace[3] = REGION[3].replace("input_3", "source_3")
    replace[4] = REGION[4].replace("input_4", "source_4")
    after = _edit(_in_file(region), REGION, replace, "fuzzy")
    merged = [*region]
    merged[3] = region[3].replace("input_3", "source_3")
    merged[4] = region[4].replace("input_4", "source_4")
    assert after == _in_file(merged)


def test_a_line_the_model_misremembers_but_leaves_alone_keeps_the_files_text() -> None:
    search = [*REGION]
    search[1] = REGION[1].replace("option_1", "optoin_1")
    replace = [*search]
    replace[5] = REGION[5].replace("input_5", "source_5")
    after = _edit(_in_file(REGION), search, replace, "fuzzy")
    merged = [*REGION]
    merged[5] = REGION[5].replace("input_5", "source_5")
    assert after == _in_file(merged)


def test_deleting_a_line_the_file_has_otherwise_is_refused(tmp_path: Path) -> None:
    region = [*REGION]
    region[4] = REGION[4].replace("option_4", "option_4, force=True")
    text = _in_file(region)
    replace = REGION[:4] + REGION[5:]
    assert isinstance(_edit(text, REGION, replace, "fuzzy"), MatchFailure)
    (tmp_path / "m.py").write_text(text)
    result = editblocks.apply_edits(sr("m.py", _t(REGION), _t(replace)), tmp_path, match="fuzzy")
    assert result.results[0].status is EditStatus.FAILED
    assert (tmp_path / "m.py").read_text() == text


def test_a_changed_line_the_file_has_otherwise_that_cannot_be_merged_is_refused() -> None:
    region = [*REGION]
    region[4] = "    step_4_value = transform_4(source_4)"
    search = [*REGION]
    search[4] = "    step_4_value = transform_4(input_4)"
    replace = [*search]
    replace[4] = "    step_4_value = transform_4(input_4, extra)"
    assert isinstance(_edit(_in_file(region), search, replace, "fuzzy"), MatchFailure)


# -- where new lines go: only where certain --------------------------------------------------------------


@pytest.mark.parametrize(
    ("where", "certain"),
    [
        (3, False),  # in the gap where the file has the line SEARCH leaves out
        (2, True),  # a line before it
        (6, True),
        (0, True),
    ],
)
def test_a_new_line_beside_a_file_line_search_leaves_out_is_refused(where: int, certain: bool) -> None:
    region = [*REGION[:3], "    hidden = 1", *REGION[3:]]
    replace = [*REGION[:where], "    inserted = 1", *REGION[where:]]
    after = _edit(_in_file(region), REGION, replace, "fuzzy")
    if certain:
        k = where if where <= 2 else where + 1
        assert after == _in_file([*region[:k], "    inserted = 1", *region[k:]])
    else:
        assert isinstance(after, MatchFailure)


@pytest.mark.parametrize(("where", "certain"), [(4, False), (3, False), (7, True)])
def test_a_new_line_beside_a_line_the_model_invented_is_refused(where: int, certain: bool) -> None:
    search = [*REGION[:3], "    invented = 1", *REGION[3:]]
    replace = [*search[:where], "    inserted = 1", *search[where:]]
    after = _edit(_in_file(REGION), search, replace, "fuzzy")
    if certain:
        k = where - 1
        assert after == _in_file([*REGION[:k], "    inserted = 1", *REGION[k:]])
    else:
        assert isinstance(after, MatchFailure)


def test_a_change_after_an_invented_first_line_is_refused() -> None:
    search = ["    invented = 1", *REGION]
    replace = ["    invented = 1", REGION[0].replace("option_0", "option_0, x"), *REGION[1:]]
    assert isinstance(_edit(_in_file(REGION), search, replace, "fuzzy"), MatchFailure)


def test_a_replaced_line_next_to_a_left_out_file_line_is_refused() -> None:
    region = [*REGION[:3], "    hidden = 1", *REGION[3:]]
    replace = [*REGION]
    replace[3] = REGION[3].replace("option_3", "option_3, x")
    assert isinstance(_edit(_in_file(region), REGION, replace, "fuzzy"), MatchFailure)
    replace = [*REGION]
    replace[6] = REGION[6].replace("option_6", "option_6, x")
    after = _edit(_in_file(region), REGION, replace, "fuzzy")
    assert isinstance(after, str) and "option_6, x" in after and "hidden = 1" in after


def test_an_exact_locate_is_a_match() -> None:
    assert isinstance(locate(_t(CLASS), "        a = 1\n", "        a = 2\n"), Match)


def test_uneven_indentation_lines_added_after_a_replaced_line_follow_it_not_the_line_before() -> None:
    search = ["a = 1", "    if a:", "        b = 2", "c = 3"]
    replace = ["a = 1", "    if a:", "        b = 2", "c = 30", "c += 1"]
    after = _edit(_t(CLASS), search, replace, "fuzzy")
    assert after == _t([*CLASS[:5], "        c = 30", "        c += 1", *CLASS[6:]])


def test_uneven_indentation_an_insertion_follows_the_line_just_before_it() -> None:
    search = ["a = 1", "    if a:", "        b = 2", "c = 3", "return a"]
    replace = ["a = 1", "    if a:", "        b = 2", "c = 3", "new()", "return a"]
    after = _edit(_t(CLASS), search, replace, "fuzzy")
    assert after == _t([*CLASS[:6], "        new()", *CLASS[6:]])


def test_a_line_added_left_of_the_region_start_is_written_at_column_zero() -> None:
    text = _t(["def f():", "    a = 1", "    b = 2", "c = 3"])
    after = _edit(
        text, ["        a = 1", "        b = 2"], ["        a = 1", "        b = 2", "    c_new = 0"], "tolerant"
    )
    assert after == _t(["def f():", "    a = 1", "    b = 2", "c_new = 0", "c = 3"])


TABS2 = ["def f(x):", "\tif x:", "\t\ty = compute(x, 1)", "\t\treturn y", "\treturn 0"]


def test_spaces_onto_tabs_uneven_without_alignment_is_not_an_indentation_match() -> None:
    search = ["    if x:", "            y = compute(x, 1)", "        return y"]
    replace = ["    if x:", "            y = compute(x, 2)", "        return y"]
    assert isinstance(_edit(_t(TABS2), search, replace, "tolerant"), MatchFailure)


PLAIN = [f"z{k} = y + {k}" for k in range(10)]
ALIGNED = [
    "def f(x):",
    "\tif x:",
    "\t\ty = compute(x,",
    "\t\t   1,",
    "\t\t   2)",
    *("\t\t" + z for z in PLAIN),
    "\treturn 0",
]


def test_spaces_onto_tabs_alignment_spaces_must_agree() -> None:
    # The model indents by 4 (most of its lines say so) and aligns continuation lines by 3 spaces.
    search = ["    if x:", "        y = compute(x,", "           1,", "           2)", *("        " + z for z in PLAIN)]
    replace = [*search[:4], "          3)", *search[4:]]
    after = _edit(_t(ALIGNED), search, replace, "tolerant")
    assert after == _t([*ALIGNED[:5], "\t\t  3)", *ALIGNED[5:]])
    # Aligned by 2 where the file has 3: not the same lines moved by whole levels.
    other = ["    if x:", "        y = compute(x,", "          1,", "          2)", *("        " + z for z in PLAIN)]
    assert isinstance(_edit(_t(ALIGNED), other, other[:3] + ["          3)"] + other[4:], "tolerant"), MatchFailure)
    # ... also when a blank line comes first.
    text = _t([*ALIGNED[:2], "", *ALIGNED[2:]])
    other = [other[0], "", *other[1:]]
    assert isinstance(_edit(text, other, other[:4] + ["          3)"] + other[5:], "tolerant"), MatchFailure)


def test_a_replaced_line_followed_by_a_left_out_file_line_is_refused() -> None:
    region = [*REGION[:3], "    hidden = 1", *REGION[3:]]
    replace = [*REGION]
    replace[2] = REGION[2].replace("option_2", "option_2, x")
    assert isinstance(_edit(_in_file(region), REGION, replace, "fuzzy"), MatchFailure)


def test_a_blank_line_the_model_added_does_not_make_the_place_uncertain() -> None:
    search = [*REGION[:3], "", *REGION[3:]]
    replace = [*REGION[:3], "", "    inserted = 1", *REGION[3:]]
    after = _edit(_in_file(REGION), search, replace, "fuzzy")
    assert after == _in_file([*REGION[:3], "    inserted = 1", *REGION[3:]])


def test_deleting_a_blank_line_the_file_lacks_and_the_line_after_it() -> None:
    search = [*REGION[:3], "", *REGION[3:]]
    replace = [*REGION[:3], *REGION[4:]]
    after = _edit(_in_file(REGION), search, replace, "fuzzy")
    assert after == _in_file([*REGION[:3], *REGION[4:]])


def test_an_invented_line_left_alone_does_not_stop_a_change_further_on() -> None:
    search = [*REGION[:3], "    invented = 1", *REGION[3:]]
    replace = [*search]
    replace[7] = REGION[6].replace("option_6", "option_6, x")
    after = _edit(_in_file(REGION), search, replace, "fuzzy")
    assert after == _in_file([*REGION[:6], replace[7], REGION[7]])


def test_a_misremembered_line_before_an_insertion_and_a_change() -> None:
    search = [*REGION]
    search[1] = REGION[1].replace("option_1", "optoin_1")
    replace = [*search[:3], "    inserted = 1", *search[3:]]
    replace[7] = REGION[6].replace("input_6", "source_6")
    after = _edit(_in_file(REGION), search, replace, "fuzzy")
    assert after == _in_file([*REGION[:3], "    inserted = 1", *REGION[3:6], replace[7], REGION[7]])


def test_a_line_the_file_has_otherwise_changed_into_two_lines_is_refused() -> None:
    region = [*REGION]
    region[4] += "  # kept"
    replace = [*REGION[:4], REGION[4].replace("option_4", "option_4, a"), "    step_4_more = 1", *REGION[5:]]
    assert isinstance(_edit(_in_file(region), REGION, replace, "fuzzy"), MatchFailure)


def test_uneven_indentation_lines_added_after_a_replaced_pair_follow_its_last_line() -> None:
    search = ["a = 1", "    if a:", "        b = 2", "c = 3"]
    replace = ["a = 1", "    if a:", "        b = 20", "c = 30", "c += 1"]
    after = _edit(_t(CLASS), search, replace, "fuzzy")
    assert after == _t([*CLASS[:4], "            b = 20", "        c = 30", "        c += 1", *CLASS[6:]])
