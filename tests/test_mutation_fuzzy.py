"""Similarity search pinned where its answer changes an outcome.

Which regions are scored, whether that set is known to be complete (only then may a similar
region be edited), how SEARCH lines are paired with file lines (which decides what an edit
changes), and the closest region a failure points the model to.
"""

from __future__ import annotations

from pathlib import Path

import editblocks
from editblocks import EditStatus
from editblocks.matching import Match, MatchFailure, locate
from editblocks.matching.fuzzy import line_similarity, map_lines, ranked_regions, similar_regions
from editblocks.matching.strategies import FileView

from .helpers import sr

FILLER = [f"filler_{k} = compute_{k}(alpha_{k}, beta_{k})\n" for k in range(40)]
REGION = [f"    step_{k}_value = transform_{k}(input_{k}, option_{k})" for k in range(8)]


def _text(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def _view(lines: list[str]) -> FileView:
    return FileView(_text(lines))


# -- whether every place that could match was scored ------------------------------------------------


def test_lines_too_common_to_vote_leave_the_search_incomplete_only_when_they_dominate() -> None:
    """A line found more than 200 times does not vote; when such lines make up most of SEARCH,
    a region sharing only them could pass for a match, so the search is not complete."""
    view = _view(["q", "}", *["}"] * 200])  # '}' 201 times, 'q' once
    regions, complete = ranked_regions(view, ["q", "}"])
    assert complete is True  # half of SEARCH's characters are common: below the limit
    assert regions[0].start == 0 and regions[0].score == 1.0
    _, complete = ranked_regions(view, ["q", "}", "}"])
    assert complete is False  # two thirds are common: at the limit or above


def test_a_line_found_exactly_200_times_still_votes() -> None:
    """200 hits is not yet too common: the line votes, and with more than 40 places to score the
    search is known to be incomplete."""
    _, complete = ranked_regions(_view(["q", "}", *["}"] * 199]), ["q", "}"])
    assert complete is False
    _, complete = ranked_regions(_view(["q", "}", *["}"] * 200]), ["q", "}"])
    assert complete is True


def test_forty_places_are_all_scored_and_a_forty_first_makes_the_search_incomplete() -> None:
    _, complete = ranked_regions(_view(["q", *["}"] * 40]), ["q", "}"])
    assert complete is True
    _, complete = ranked_regions(_view(["q", *["}"] * 41]), ["q", "}"])
    assert complete is False


def test_a_blank_search_line_does_not_stop_the_vote() -> None:
    """The line after the blank one places SEARCH, whose first line has a typo."""
    view = _view(
        [*(f.rstrip("\n") for f in FILLER[:10]), REGION[0], "", REGION[1], *(f.rstrip("\n") for f in FILLER[10:20])]
    )
    regions, complete = ranked_regions(view, [_typo(REGION[0]), "", REGION[1]])
    assert complete is True
    assert (regions[0].start, regions[0].length) == (10, 3)


def test_nothing_to_search_or_nothing_to_search_in_is_never_complete() -> None:
    assert ranked_regions(FileView(""), ["x = 1"]) == ([], False)
    assert ranked_regions(_view(["x = 1"]), []) == ([], False)


def _typo(line: str) -> str:
    """The line with one letter changed (no line of the file is like it verbatim)."""
    k = line.index("=") + 3
    return line[:k] + ("Q" if line[k] != "Q" else "R") + line[k + 1 :]


def test_a_search_with_no_line_verbatim_in_the_file_is_never_edited(tmp_path: Path) -> None:
    """Every line has a typo: the region is very similar, but with no line to place it by it
    cannot be shown to be the only one, so it is refused and the failure points at it."""
    text = "".join(FILLER[:20]) + _text(REGION) + "".join(FILLER[20:30])
    search = [_typo(line) for line in REGION]
    _, complete = ranked_regions(FileView(text), search)
    assert complete is False
    replace = search[:-1] + ["    step_7_value = None"]
    found = locate(text, _text(search), _text(replace), level="fuzzy")
    assert isinstance(found, MatchFailure)
    assert found.region == (21, 28)
    (tmp_path / "m.py").write_text(text)
    result = editblocks.apply_edits(sr("m.py", _text(search), _text(replace)), tmp_path, match="fuzzy")
    assert result.results[0].status is EditStatus.FAILED
    assert (tmp_path / "m.py").read_text() == text


def test_the_closest_region_is_found_from_the_longest_lines_when_none_is_verbatim() -> None:
    """With no line verbatim, the three longest SEARCH lines (wherever they stand) are looked up by
    similarity; short lines that resemble nothing do not hide the region."""
    text = "".join(FILLER[:20]) + _text(["    a = 1", "    b = 2", *REGION[:4]]) + "".join(FILLER[20:30])
    search = ["    qq", "    zz", "    ww", *(_typo(line) for line in REGION[:4])]
    found = locate(
        text, _text(search), _text(["    qq", "    zz", "    ww", *REGION[:3], "    gone = 1"]), level="fuzzy"
    )
    assert isinstance(found, MatchFailure)
    assert found.region is not None and found.region[0] in (20, 21, 22, 23)
    assert found.region[1] == 26
    assert REGION[3] in (found.region_text or "")


def test_a_one_line_failure_points_at_that_one_line() -> None:
    text = (
        "".join(FILLER[:10])
        + "    total_amount = compute_total(invoice_items, tax_rate, discount)\n"
        + "".join(FILLER[10:20])
    )
    found = locate(
        text,
        "    total_amount = compute_total(invoice_itms, tax_rate, discount)\n",
        "    total_amount = compute_total(invoice_items, tax_rate, discount, rounding)\n",
        level="fuzzy",
    )
    assert isinstance(found, MatchFailure)
    assert found.region == (11, 11)
    assert found.region_text == "    total_amount = compute_total(invoice_items, tax_rate, discount)\n"


# -- which regions are scored ------------------------------------------------------------------------


def _with_extra_lines(extra: int) -> str:
    lines = REGION[:4] + [f"    extra_{k} = {k}" for k in range(extra)] + REGION[4:]
    return "".join(FILLER[:10]) + _text(lines) + "".join(FILLER[10:20])


def test_a_region_two_lines_longer_than_search_is_edited_at_its_last_line() -> None:
    """The file has two lines SEARCH leaves out: the region is still found whole, so the change
    to SEARCH's last line lands on the file's last line of it, the two lines kept."""
    text = _with_extra_lines(2)
    new_last = "    step_7_value = transform_7(input_7, option_7, strict=True)"
    found = locate(text, _text(REGION), _text([*REGION[:-1], new_last]), level="fuzzy")
    assert isinstance(found, Match), found
    assert text[: found.start] + found.replacement + text[found.end :] == text.replace(REGION[-1], new_last)


def test_a_region_three_lines_longer_than_search_is_not_edited() -> None:
    text = _with_extra_lines(3)
    new_last = "    step_7_value = transform_7(input_7, option_7, strict=True)"
    found = locate(text, _text(REGION), _text([*REGION[:-1], new_last]), level="fuzzy")
    assert isinstance(found, MatchFailure)


def test_a_search_running_past_the_end_of_the_file_never_edits_past_it(tmp_path: Path) -> None:
    """SEARCH ends with a line the file (which ends there) does not have: no region may run past
    the file's end; the edit is refused and the file left as it was."""
    text = "".join(FILLER[:10]) + _text(REGION)
    extra = "    step_8_value = transform_8(input_8, option_8)"
    search = _text([*REGION, extra])
    replace = _text([*REGION[:-1], "    step_7_value = changed()", extra])
    found = locate(text, search, replace, level="fuzzy")
    assert isinstance(found, MatchFailure)
    # A change inside the region is carried over, the region ending where the file does.
    middle = _text([*REGION[:3], "    step_3_value = None", *REGION[4:], extra])
    found = locate(text, search, middle, level="fuzzy")
    assert isinstance(found, Match), found
    assert text[: found.start] + found.replacement + text[found.end :] == text.replace(
        REGION[3], "    step_3_value = None"
    )
    (tmp_path / "m.py").write_text(text)
    result = editblocks.apply_edits(sr("m.py", search, replace), tmp_path, match="fuzzy")
    assert result.results[0].status is EditStatus.FAILED
    assert (tmp_path / "m.py").read_text() == text


def _near_copies(gap: int, first: str = "inpub_2", second: str = "inpuc_2") -> tuple[str, list[str]]:
    """A file with two regions that differ from SEARCH in one word each, ``gap`` lines apart."""
    a = [*REGION[:5]]
    b = [*REGION[:5]]
    a[2] = a[2].replace("input_2", first)
    b[2] = b[2].replace("input_2", second)
    text = "".join(FILLER[:10]) + _text(a) + "".join(FILLER[10 : 10 + gap]) + _text(b) + "".join(FILLER[20:30])
    return text, REGION[:5]


def _refused_as_ambiguous(tmp_path: Path, text: str, search: list[str], candidates: list[int]) -> None:
    replace = [*search[:4], "    step_4_value = None"]
    found = locate(text, _text(search), _text(replace), level="fuzzy")
    assert isinstance(found, MatchFailure) and found.kind == "ambiguous", found
    assert found.candidates == candidates
    (tmp_path / "m.py").write_text(text)
    result = editblocks.apply_edits(sr("m.py", _text(search), _text(replace)), tmp_path, match="fuzzy")
    assert result.results[0].status is EditStatus.FAILED
    assert (tmp_path / "m.py").read_text() == text


def test_two_equally_similar_regions_are_ambiguous_apart_or_side_by_side(tmp_path: Path) -> None:
    for gap in (0, 4):
        text, search = _near_copies(gap)
        _refused_as_ambiguous(tmp_path, text, search, [11, 16 + gap])


def test_a_better_region_right_after_a_close_one_is_still_ambiguous(tmp_path: Path) -> None:
    text, search = _near_copies(0, first="inpXY_2", second="inpuc_2")
    _refused_as_ambiguous(tmp_path, text, search, [16, 11])


def test_a_second_region_within_the_margin_counts_even_below_the_first_ones_shifted_windows(tmp_path: Path) -> None:
    """The second region (91% similar) scores below windows that overlap the best one (99.6%),
    but is within the margin of it: the edit is ambiguous."""
    a = [*REGION[:5]]
    a[2] = a[2].replace("input_2", "inpub_2")
    b = [REGION[0], *(line[: len(line) - 14] + ")" for line in REGION[1:4]), REGION[4]]
    text = "".join(FILLER[:10]) + _text(a) + "".join(FILLER[10:14]) + _text(b) + "".join(FILLER[20:30])
    regions = similar_regions(FileView(text), REGION[:5], limit=2)
    assert [r.start for r in regions] == [10, 19]
    assert regions[1].score is not None and 0.9 < regions[1].score < 0.92
    _refused_as_ambiguous(tmp_path, text, REGION[:5], [11, 20])


def test_with_many_places_the_one_with_the_rarest_line_is_named_closest() -> None:
    """SEARCH is not in the file; its last line is in 60 places, its first in one (near the end
    of the file). The failure names that place, not one of the 60."""
    lines: list[str] = []
    for k in range(60):
        lines += [f"    plain_step_{k}(value)", "    common_tail(value)"]
    lines += ["    target_line = special_transform(value, 1)", "    common_tail(value)"]
    search = ["    target_line = special_transform(value, 1)", "    missing_line_here = 3", "    common_tail(value)"]
    found = locate(_text(lines), _text(search), _text(search).replace("= 3", "= 4"), level="fuzzy")
    assert isinstance(found, MatchFailure)
    assert found.region is not None and found.region[0] == 121


def test_the_number_of_regions_asked_for_is_the_number_given() -> None:
    blocks = [[f"    item_{k} = make(kind_{k}, size)", "    register(item)", "    log(item)"] for k in range(8)]
    view = _view([line for block in blocks for line in (*block, "    # --")])
    search = ["    item_x = make(kind_x, size)", "    register(item)", "    log(item)"]
    assert len(similar_regions(view, search)) == 5
    assert len(similar_regions(view, search, limit=2)) == 2
    assert len(ranked_regions(view, search)[0]) == 5


# -- pairing SEARCH lines with file lines ----------------------------------------------------------------


def test_a_changed_line_is_paired_with_the_most_similar_file_line_not_the_first() -> None:
    search = ["a_line = 1", "chnged_line = 2", "z_line = 3"]
    window = ["a_line = 1", "unrelated stuff here", "changed_line = 2", "qq", "z_line = 3"]
    assert map_lines(search, window) == [0, 2, 4]


def test_among_equally_similar_file_lines_the_first_is_taken() -> None:
    assert map_lines(
        ["a_line = 1", "chnged = 2", "z_line = 3"], ["a_line = 1", "changed = 2", "changed = 2", "z_line = 3"]
    ) == [0, 1, 3]


def test_pairing_needs_half_similarity_and_goes_on_after_an_unpaired_line() -> None:
    assert map_lines(["x_line", "ab", "y_line"], ["x_line", "ac", "y_line"]) == [0, 1, 2]  # exactly 50%
    assert map_lines(["x_line", "ab", "y_line"], ["x_line", "cd", "y_line"]) == [0, None, 2]
    search = ["a_line = 1", "totally different words", "chnged = 2", "z_line = 3"]
    assert map_lines(search, ["a_line = 1", "changed = 2", "z_line = 3"]) == [0, None, 1, 2]


def test_pairing_keeps_file_order_and_leaves_room_for_the_lines_after() -> None:
    # The first changed line is most like the second file line, but taking it would leave no file
    # line for the second changed line: it takes the first.
    search = ["head = 0", "value_alpha = 10", "value_alpha = 20", "tail = 9"]
    window = ["head = 0", "value_alpha = 1x", "value_alpha = 10;", "tail = 9"]
    assert map_lines(search, window) == [0, 1, 2, 3]
    # With one file line to spare, the first changed line takes its best, the next one follows it.
    search = ["head = 0", "alpha_setting = 11", "alpha_setting = 2", "tail = 9"]
    window = ["head = 0", "completely unrelated", "alpha_setting = 1", "beta_setting = 2", "tail = 9"]
    assert map_lines(search, window) == [0, 2, 3, 4]


def test_line_similarity_is_a_fraction_of_one() -> None:
    assert line_similarity("  abcde", "abcxy  ") == 0.6
    assert line_similarity("same", "same") == 1.0
