"""Placing blocks in files, pinned on outcomes through :func:`editblocks.apply_edits`: an edit
applied before is skipped (and only then), empty SEARCH appends, drifted files keep only certain
blocks, a file operation's chunks apply all or none, and what a result reports about its place."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import editblocks
from editblocks import EditStatus

from .helpers import read_tree, sr, v2, v3, write_tree

BODY = "".join(f"def step_{k}(value):\n    return transform_{k}(value)\n\n\n" for k in range(6))


def _lines(*lines: str) -> str:
    return "".join(line + "\n" for line in lines)


# -- an edit applied before ---------------------------------------------------------------------------


def test_a_reply_applied_twice_is_already_applied_the_second_time(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(BODY)
    reply = sr(
        "m.py",
        "def step_3(value):\n    return transform_3(value)\n",
        "def step_3(value):\n    return transform_3(value) + 1\n",
    )
    assert editblocks.apply_edits(reply, tmp_path).results[0].status is EditStatus.APPLIED
    after = (tmp_path / "m.py").read_text()
    second = editblocks.apply_edits(reply, tmp_path).results[0]
    assert second.status is EditStatus.ALREADY_APPLIED and second.already_applied
    assert second.estimated_line == 13
    assert (tmp_path / "m.py").read_text() == after
    assert after.count("transform_3(value) + 1") == 1


def test_search_found_tolerantly_while_replace_stands_exactly_elsewhere_is_refused(tmp_path: Path) -> None:
    """REPLACE occurs once exactly, and SEARCH is in the file only up to trailing spaces: the edit
    may be made already (a reply applied again, with a copy of the code nearby) or meant at the
    tolerant place; neither "applied" nor "already applied" is certain."""
    text = (
        BODY
        + "def copy(value):\n    return transform_9(value) + 1\n"
        + "def orig(value):\n    return transform_9(value)   \n"
    )
    (tmp_path / "m.py").write_text(text)
    reply = sr("m.py", "    return transform_9(value)\n", "    return transform_9(value) + 1\n")
    res = editblocks.apply_edits(reply, tmp_path, match="tolerant").results[0]
    assert res.status is EditStatus.FAILED and len(res.candidates) == 2
    assert (tmp_path / "m.py").read_text() == text


def test_search_found_with_other_indentation_while_replace_stands_exactly_elsewhere_is_refused(tmp_path: Path) -> None:
    text = (
        BODY
        + "def copy(value):\n    total = transform_9(value) + 1\n"
        + "class K:\n    def orig(value):\n        total = transform_9(value)\n"
    )
    (tmp_path / "m.py").write_text(text)
    reply = sr("m.py", "    total = transform_9(value)\n", "    total = transform_9(value) + 1\n")
    res = editblocks.apply_edits(reply, tmp_path, match="tolerant").results[0]
    assert res.status is EditStatus.FAILED and len(res.candidates) == 2
    assert (tmp_path / "m.py").read_text() == text


def test_search_found_through_lookalikes_while_replace_stands_exactly_elsewhere_is_refused(tmp_path: Path) -> None:
    text = BODY + 'def copy():\n    say("hi there") + 1\n' + "def orig():\n    say(\u201chi there\u201d)\n"
    (tmp_path / "m.py").write_text(text)
    reply = sr("m.py", '    say("hi there")\n', '    say("hi there") + 1\n')
    res = editblocks.apply_edits(reply, tmp_path, match="tolerant").results[0]
    assert res.status is EditStatus.FAILED and len(res.candidates) == 2
    assert (tmp_path / "m.py").read_text() == text


def test_at_the_exact_level_replace_found_once_is_applied_before(tmp_path: Path) -> None:
    text = BODY + "def f():\n    value = 2\n"
    (tmp_path / "m.py").write_text(text)
    reply = "m.py\n««« EDIT\ndef f():\n    value = 1\n═══════ REPL\ndef f():\n    value = 2\n»»» EDIT END\n"
    res = editblocks.apply_edits(reply, tmp_path, format="edit-v3").results[0]
    assert res.status is EditStatus.ALREADY_APPLIED and res.already_applied
    assert res.estimated_line == BODY.count("\n") + 1 and res.strategy == "exact"
    assert (tmp_path / "m.py").read_text() == text


# -- empty SEARCH -----------------------------------------------------------------------------------


def test_empty_search_appends_and_a_second_time_is_already_applied(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(BODY)
    reply = sr("m.py", "", "def extra():\n    return 0\n")
    res = editblocks.apply_edits(reply, tmp_path).results[0]
    assert res.status is EditStatus.APPLIED and res.strategy == "append"
    assert res.estimated_line == BODY.count("\n") + 1
    assert (tmp_path / "m.py").read_text() == BODY + "def extra():\n    return 0\n"
    again = editblocks.apply_edits(reply, tmp_path).results[0]
    assert again.status is EditStatus.ALREADY_APPLIED and again.already_applied and again.strategy == "append"
    assert (tmp_path / "m.py").read_text() == BODY + "def extra():\n    return 0\n"


def test_empty_search_whose_replace_repeats_half_the_file_is_refused(tmp_path: Path) -> None:
    text = _lines("alpha = 1", "beta = 2", "gamma = 3", "x", "y")
    (tmp_path / "m.py").write_text(text)
    # Two of the four lines longer than three characters are in the file already: a new file
    # written over this one, not lines to append.
    half = editblocks.apply_edits(
        sr("m.py", "", _lines("alpha = 1", "beta = 2", "delta = 4", "epsilon = 5", "x", "y")), tmp_path
    )
    assert half.results[0].status is EditStatus.FAILED
    assert (tmp_path / "m.py").read_text() == text
    # One of three: appended (short lines such as "x" do not count).
    third = editblocks.apply_edits(sr("m.py", "", _lines("alpha = 1", "delta = 4", "epsilon = 5", "x", "y")), tmp_path)
    assert third.results[0].status is EditStatus.APPLIED
    assert (tmp_path / "m.py").read_text() == text + _lines("alpha = 1", "delta = 4", "epsilon = 5", "x", "y")


def test_empty_search_with_three_character_lines_only_is_appended(tmp_path: Path) -> None:
    text = _lines("abc", "def", "ghij")
    (tmp_path / "m.txt").write_text(text)
    result = editblocks.apply_edits(sr("m.txt", "", _lines("abc", "def", "wxyz")), tmp_path)
    assert result.results[0].status is EditStatus.APPLIED
    assert (tmp_path / "m.txt").read_text() == text + _lines("abc", "def", "wxyz")


def test_appended_text_that_ends_the_file_only_as_part_of_a_line_is_appended(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("value = 1\nreturn_x = 2\n")
    result = editblocks.apply_edits(sr("m.py", "", "x = 2\n"), tmp_path)
    assert result.results[0].status is EditStatus.APPLIED
    assert (tmp_path / "m.py").read_text() == "value = 1\nreturn_x = 2\nx = 2\n"


# -- drift -----------------------------------------------------------------------------------------------

SEEN = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"
NOW = "import os\n\n" + SEEN


def test_an_edit_applied_before_in_a_drifted_file_is_already_applied(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": NOW.replace("return 2", "return 20")})
    result = editblocks.apply_edits(sr("m.py", "    return 2\n", "    return 20\n"), tmp_path, base={"m.py": SEEN})
    assert result.results[0].status is EditStatus.ALREADY_APPLIED and result.results[0].already_applied


def test_a_drifted_file_is_judged_as_the_earlier_blocks_left_it(tmp_path: Path) -> None:
    """The file changed since the model saw it, and has the text twice; the first block removes
    one copy, so the second block's text occurs once where it applies: both are kept."""
    now = NOW + "\n\ndef h():\n    return 2\n"
    write_tree(tmp_path, {"m.py": now})
    reply = sr("m.py", "def h():\n    return 2\n", "def h():\n    return 3\n") + sr(
        "m.py", "    return 2\n", "    return 22\n"
    )
    result = editblocks.apply_edits(reply, tmp_path, base={"m.py": SEEN})
    assert [r.status for r in result.results] == [EditStatus.APPLIED, EditStatus.APPLIED]
    assert (tmp_path / "m.py").read_text() == NOW.replace("return 2", "return 22") + "\n\ndef h():\n    return 3\n"


def test_a_drifted_file_is_not_moved(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": NOW})
    reply = "*** Begin Patch\n*** Update File: m.py\n*** Move to: n.py\n@@\n def g():\n-    return 2\n+    return 3\n*** End Patch\n"
    result = editblocks.apply_edits(reply, tmp_path, base={"m.py": SEEN})
    res = result.results[0]
    assert res.status is EditStatus.FAILED and res.moved_to is None
    assert "not moved" in (res.reason or "")
    assert (tmp_path / "m.py").read_text() == NOW and not (tmp_path / "n.py").exists()


def test_a_drifted_file_is_not_replaced_as_a_whole(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": NOW})
    reply = "*** Begin Patch\n*** Delete File: m.py\n*** Add File: m.py\n+x = 1\n*** End Patch\n"
    result = editblocks.apply_edits(reply, tmp_path, base={"m.py": SEEN})
    assert not result.ok
    assert (tmp_path / "m.py").read_text() == NOW


# -- a file operation's chunks: all or none ----------------------------------------------------------------


def test_a_failed_operation_is_taken_back_and_later_ones_on_the_same_file_skipped(tmp_path: Path) -> None:
    text = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"
    (tmp_path / "m.py").write_text(text)
    reply = (
        "*** Begin Patch\n*** Update File: m.py\n@@\n def a():\n-    return 1\n+    return 10\n@@\n def zzz():\n-    pass\n+    pass\n"
        "*** Update File: m.py\n@@\n def b():\n-    return 2\n+    return 20\n*** End Patch\n"
    )
    result = editblocks.apply_edits(reply, tmp_path)
    statuses = [r.status for r in result.results]
    assert statuses == [EditStatus.FAILED, EditStatus.FAILED, EditStatus.SKIPPED]
    assert not any(r.already_applied for r in result.results)
    assert (tmp_path / "m.py").read_text() == text
    assert result.files_modified == []


def test_a_failed_operation_on_a_new_file_leaves_no_file(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("x = 1\n")
    reply = "*** Begin Patch\n*** Update File: m.py\n*** Move to: n.py\n@@\n-x = 1\n+x = 2\n@@\n-nothing here\n+y\n*** End Patch\n"
    result = editblocks.apply_edits(reply, tmp_path)
    assert all(r.status is EditStatus.FAILED and r.moved_to is None for r in result.results)
    assert (tmp_path / "m.py").read_text() == "x = 1\n" and not (tmp_path / "n.py").exists()


# -- what a result reports -------------------------------------------------------------------------------------


def test_a_tolerant_match_reports_the_whole_file_lines_it_matched(tmp_path: Path) -> None:
    text = "a = 1\n    b = 2   \n    c = 3\nd = 4\n"
    (tmp_path / "m.py").write_text(text)
    res = editblocks.apply_edits(
        sr("m.py", "    b = 2\n    c = 3\n", "    b = 20\n    c = 3\n"), tmp_path, match="tolerant"
    ).results[0]
    assert res.status is EditStatus.APPLIED
    assert res.matched_text == "    b = 2   \n    c = 3\n"


def test_a_tolerant_match_of_the_first_and_last_lines_reports_them_whole(tmp_path: Path) -> None:
    text = "a = 1   \nb = 2\n"
    (tmp_path / "m.py").write_text(text)
    res = editblocks.apply_edits(sr("m.py", "a = 1\nb = 2\n", "a = 1\nb = 3\n"), tmp_path, match="tolerant").results[0]
    assert res.matched_text == "a = 1   \nb = 2\n"


def test_an_ambiguous_block_shows_each_candidate_numbered_with_a_line_around(tmp_path: Path) -> None:
    text = "x = 0\nvalue = 1\ny = 0\nz = 0\nvalue = 1\n"
    (tmp_path / "m.py").write_text(text)
    res = editblocks.apply_edits(sr("m.py", "value = 1\n", "value = 2\n"), tmp_path).results[0]
    assert res.status is EditStatus.FAILED and res.candidates == [2, 5]
    assert res.candidate_texts == ["1 | x = 0\n2 | value = 1\n3 | y = 0\n", "4 | z = 0\n5 | value = 1\n"]


# -- the end of the file ----------------------------------------------------------------------------------------


def test_an_edit_at_the_end_keeps_a_file_without_final_newline_so(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_bytes(b"a = 1\nb = 2")
    result = editblocks.apply_edits(sr("m.py", "b = 2\n", "b = 3\n"), tmp_path)
    assert result.results[0].status is EditStatus.APPLIED
    assert (tmp_path / "m.py").read_bytes() == b"a = 1\nb = 3"


def test_a_unified_diff_that_marks_no_newline_on_the_old_side_adds_one(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_bytes(b"a = 1\nb = 2")
    reply = (
        "```diff\n--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n a = 1\n-b = 2\n\\ No newline at end of file\n+b = 3\n```\n"
    )
    result = editblocks.apply_edits(reply, tmp_path)
    assert result.results[0].status is EditStatus.APPLIED, result.results[0].reason
    assert (tmp_path / "m.py").read_bytes() == b"a = 1\nb = 3\n"


def test_edit_v3_at_the_end_gives_the_file_a_final_newline(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_bytes(b"a = 1\nb = 2")
    reply = "m.py\n««« EDIT\nb = 2\n═══════ REPL\nb = 3\n»»» EDIT END\n"
    result = editblocks.apply_edits(reply, tmp_path, format="edit-v3")
    assert result.results[0].status is EditStatus.APPLIED, result.results[0].reason
    assert (tmp_path / "m.py").read_bytes() == b"a = 1\nb = 3\n"


def test_an_edit_away_from_the_end_leaves_the_missing_final_newline_missing(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_bytes(b"a = 1\nb = 2\nc = 3")
    reply = "m.py\n««« EDIT\na = 1\n═══════ REPL\na = 0\n»»» EDIT END\n"
    result = editblocks.apply_edits(reply, tmp_path, format="edit-v3")
    assert result.results[0].status is EditStatus.APPLIED
    assert (tmp_path / "m.py").read_bytes() == b"a = 0\nb = 2\nc = 3"


# -- stray dividers ---------------------------------------------------------------------------------------------


def test_a_doubled_divider_is_not_text(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("a = 1\nb = 2\n")
    reply = "m.py\n```\n<<<<<<< SEARCH\na = 1\n=======\n=======\na = 10\n>>>>>>> REPLACE\n```\n"
    result = editblocks.apply_edits(reply, tmp_path)
    assert result.results[0].status is EditStatus.APPLIED
    assert (tmp_path / "m.py").read_text() == "a = 10\nb = 2\n"


def test_a_divider_left_at_the_end_of_replace_is_not_text(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("a = 1\nb = 2\n")
    reply = "m.py\n```\n<<<<<<< SEARCH\na = 1\n=======\na = 10\nb = 20\n=======\n>>>>>>> REPLACE\n```\n"
    result = editblocks.apply_edits(reply, tmp_path)
    assert result.results[0].status is EditStatus.APPLIED
    assert (tmp_path / "m.py").read_text() == "a = 10\nb = 20\nb = 2\n"


def test_a_doubled_divider_in_a_file_with_divider_lines_is_refused(tmp_path: Path) -> None:
    text = '"""Doc\n=======\n"""\nsome = 1\n'
    (tmp_path / "d.py").write_text(text)
    reply = "d.py\n```\n<<<<<<< SEARCH\nsome = 1\n=======\n=======\nother = 2\n>>>>>>> REPLACE\n```\n"
    result = editblocks.apply_edits(reply, tmp_path)
    assert result.results[0].status is EditStatus.FAILED
    assert (tmp_path / "d.py").read_text() == text


# -- a new file over an existing one, and files that are not there --------------------------------------------


def test_a_new_file_over_an_existing_one_is_refused_with_the_formats_own_way_to_change_it(tmp_path: Path) -> None:
    cases = [
        (
            "*** Begin Patch\n*** Add File: m.py\n+y = 2\n*** End Patch\n",
            None,
            "to change it use *** Update File with context lines around the change",
        ),
        (
            "```diff\n--- /dev/null\n+++ b/m.py\n@@ -0,0 +1 @@\n+y = 2\n```\n",
            None,
            "to change it write a hunk (--- a/path, +++ b/path) with context lines around the change",
        ),
        (v3("m.py", "", "y = 2\n"), "edit-v3", "use an edit with an anchor to change it"),
        (v2("m.py", "", "", "y = 2\n", ""), "edit-v2", "use an edit with an anchor to change it"),
        (
            "<replace_in_file>\n<path>m.py</path>\n<diff>\n------- SEARCH\n=======\ny = 2\n+++++++ REPLACE\n</diff>\n"
            "</replace_in_file>\n",
            None,
            "to change it put the lines to change in SEARCH (an empty SEARCH creates a new file)",
        ),
    ]
    (tmp_path / "m.py").write_text("x = 1\n")
    for reply, fmt, how in cases:
        res = editblocks.apply_edits(reply, tmp_path, format=fmt).results[0]
        assert res.status is EditStatus.FAILED
        assert res.reason == f"file exists: m.py; {how}"
        assert (tmp_path / "m.py").read_text() == "x = 1\n"


def _not_found_reason(tmp_path: Path, folders: int) -> str | None:
    tmp_path.mkdir()
    for k in range(folders):
        write_tree(tmp_path, {f"d{k}/u.py": "x\n"})
    res = editblocks.apply_edits(sr("c/u.py", "x\n", "y\n"), tmp_path).results[0]
    assert res.status is EditStatus.FAILED
    assert all((tmp_path / f"d{k}/u.py").read_text() == "x\n" for k in range(folders))
    return res.reason


def test_a_missing_file_suggests_the_files_of_its_name_elsewhere_without_applying(tmp_path: Path) -> None:
    assert _not_found_reason(tmp_path / "none", 0) == "File not found: c/u.py"
    assert _not_found_reason(tmp_path / "one", 1) == "File not found: c/u.py; did you mean d0/u.py?"
    assert _not_found_reason(tmp_path / "two", 2) == "File not found: c/u.py; did you mean one of d0/u.py, d1/u.py?"
    five = "d0/u.py, d1/u.py, d2/u.py, d3/u.py, d4/u.py"
    assert _not_found_reason(tmp_path / "five", 5) == f"File not found: c/u.py; did you mean one of {five}?"
    assert _not_found_reason(tmp_path / "six", 6) == f"File not found: c/u.py; did you mean one of {five}, ...?"


# -- moves -------------------------------------------------------------------------------------------------------


def test_a_file_moved_onto_a_path_an_earlier_block_deleted_takes_its_place(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.py": "x = 1\n", "b.py": "old = 1\n"})
    reply = (
        "*** Begin Patch\n*** Delete File: b.py\n*** Update File: a.py\n*** Move to: b.py\n@@\n-x = 1\n+x = 2\n"
        "*** End Patch\n"
    )
    result = editblocks.apply_edits(reply, tmp_path)
    assert [r.status for r in result.results] == [EditStatus.APPLIED, EditStatus.APPLIED]
    assert result.results[1].moved_to == "b.py" and "moved to b.py" in result.results[1].notes
    assert read_tree(tmp_path) == {"b.py": b"x = 2\n"}


def test_a_moved_file_keeps_its_line_endings_and_its_diff_shows_a_new_file(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.py": b"x = 1\r\ny = 2\r\n"})
    reply = "*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n@@\n-x = 1\n+x = 2\n*** End Patch\n"
    dry = editblocks.apply_edits(reply, tmp_path, dry_run=True)
    assert dry.diffs["b.py"] == "--- /dev/null\n+++ b/b.py\n@@ -0,0 +1,2 @@\n+x = 2\n+y = 2\n"
    assert dry.diffs["a.py"] == "--- a/a.py\n+++ b/a.py\n@@ -1,2 +0,0 @@\n-x = 1\n-y = 2\n"
    assert read_tree(tmp_path) == {"a.py": b"x = 1\r\ny = 2\r\n"}
    result = editblocks.apply_edits(reply, tmp_path)
    assert result.results[0].status is EditStatus.APPLIED and result.results[0].moved_to == "b.py"
    assert read_tree(tmp_path) == {"b.py": b"x = 2\r\ny = 2\r\n"}


# -- empty SEARCH, more ---------------------------------------------------------------------------------------------


def test_empty_search_drops_one_trailing_blank_line_of_replace_as_aider_does(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("a = 1\n")
    res = editblocks.apply_edits(sr("m.py", "", "extra_line = 0\n\n"), tmp_path).results[0]
    assert res.status is EditStatus.APPLIED
    assert res.notes == ["SEARCH is empty: the lines are appended at the end of m.py"]
    assert (tmp_path / "m.py").read_text() == "a = 1\nextra_line = 0\n"


def test_an_empty_search_block_given_as_a_block_appends_replace_as_it_is(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("a = 1\n")
    block = editblocks.EditBlock("m.py", "", "extra_line = 0\n\n")
    res = editblocks.apply_edits([block], tmp_path).results[0]
    assert res.status is EditStatus.APPLIED
    assert (tmp_path / "m.py").read_text() == "a = 1\nextra_line = 0\n\n"


def test_empty_search_and_blank_replace_is_refused(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("a = 1\n")
    res = editblocks.apply_edits(sr("m.py", "", "\n  \n"), tmp_path).results[0]
    assert res.status is EditStatus.FAILED
    assert res.reason == "the block for m.py has nothing to search for and nothing to add"
    assert (tmp_path / "m.py").read_text() == "a = 1\n"


def test_lines_to_append_that_end_the_file_twice_over_are_not_called_applied(tmp_path: Path) -> None:
    text = "x = 11\ny = 22\nx = 11\ny = 22\n"
    (tmp_path / "m.py").write_text(text)
    res = editblocks.apply_edits(sr("m.py", "", "x = 11\ny = 22\n"), tmp_path).results[0]
    assert res.status is EditStatus.FAILED and not res.already_applied
    assert (res.reason or "").startswith("the lines to append already end m.py, but ")
    assert "more than once" in (res.reason or "")
    assert (tmp_path / "m.py").read_text() == text


def test_four_character_lines_count_as_repeated_and_three_character_ones_do_not(tmp_path: Path) -> None:
    # "abcd" is in the file: one of the one line longer than three characters is repeated.
    (tmp_path / "m.txt").write_text("abcd\nefgh\n")
    res = editblocks.apply_edits(sr("m.txt", "", "abcd\nxyz\nuvw\n"), tmp_path).results[0]
    assert res.status is EditStatus.FAILED
    assert (res.reason or "").endswith(
        "reads as a new file written over it; to change it, put the lines to replace in SEARCH"
    )
    assert "repeats 1 of its lines" in (res.reason or "")
    assert (tmp_path / "m.txt").read_text() == "abcd\nefgh\n"
    # Two of three four-character lines are the file's: refused too.
    res = editblocks.apply_edits(sr("m.txt", "", "abcd\nefgh\nijkl\n"), tmp_path).results[0]
    assert res.status is EditStatus.FAILED
    assert (tmp_path / "m.txt").read_text() == "abcd\nefgh\n"


def test_appending_an_elision_line_the_file_lacks_is_refused_and_one_it_has_is_not(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("def f():\n    return 1\n")
    reply = sr("m.py", "", "def g():\n    # ... existing code ...\n    return 2\n")
    res = editblocks.apply_edits(reply, tmp_path).results[0]
    assert res.status is EditStatus.FAILED and "# ... existing code ..." in (res.reason or "")
    assert (res.reason or "").startswith("the edit would write the line")
    assert (tmp_path / "m.py").read_text() == "def f():\n    return 1\n"
    own = "def f():\n    # ... existing code ...\n    return 1\n"
    (tmp_path / "m.py").write_text(own)
    res = editblocks.apply_edits(reply, tmp_path).results[0]
    assert res.status is EditStatus.APPLIED
    assert (tmp_path / "m.py").read_text() == own + "def g():\n    # ... existing code ...\n    return 2\n"


def test_an_appending_block_converts_to_an_edit_of_the_last_line(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("a = 1\nb = 2\n")
    done = editblocks.convert_reply(sr("m.py", "", "extra_line = 0\n"), "edit-v3", root=tmp_path)
    assert done.problems == []
    assert done.text == v3("m.py", "b = 2\n", "b = 2\nextra_line = 0\n")
    patch = editblocks.convert_reply(sr("m.py", "", "extra_line = 0\n"), "udiff", root=tmp_path)
    assert patch.text == "```diff\n--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,3 @@\n a = 1\n b = 2\n+extra_line = 0\n```\n"


# -- the end of the file, through the tolerant search --------------------------------------------------------------

UDIFF_END = "```diff\n--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n a = 1\n-b = 2\n{old_mark}+b = 3\n{new_mark}```\n"
NO_NEWLINE = "\\ No newline at end of file\n"


def test_a_unified_diff_keeps_or_sets_the_final_newline_as_it_marks_it(tmp_path: Path) -> None:
    cases = [
        # (file, old side marked, new side marked, file after)
        (b"a = 1\nb = 2", False, False, b"a = 1\nb = 3"),
        (b"a = 1\nb = 2   ", False, False, b"a = 1\nb = 3"),
        (b"a = 1\nb = 2   ", True, False, b"a = 1\nb = 3\n"),
        (b"a = 1\nb = 2   \n", False, True, b"a = 1\nb = 3"),
        (b"a = 1\nb = 2\n", False, True, b"a = 1\nb = 3"),
        (b"a = 1\nb = 2   \n", False, False, b"a = 1\nb = 3\n"),
    ]
    for k, (before, old_mark, new_mark, after) in enumerate(cases):
        root = tmp_path / str(k)
        write_tree(root, {"m.py": before})
        reply = UDIFF_END.format(old_mark=NO_NEWLINE if old_mark else "", new_mark=NO_NEWLINE if new_mark else "")
        res = editblocks.apply_edits(reply, root).results[0]
        assert res.status is EditStatus.APPLIED, (k, res.reason)
        assert (root / "m.py").read_bytes() == after, k


# -- what a tolerant match reports ---------------------------------------------------------------------------------


def test_a_tolerant_match_further_down_reports_its_own_lines(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("x = 0\ny = 0\na = 1\n    b = 2   \n    c = 3\nd = 4\n")
    res = editblocks.apply_edits(
        sr("m.py", "    b = 2\n    c = 3\n", "    b = 20\n    c = 3\n"), tmp_path, match="tolerant"
    ).results[0]
    assert res.status is EditStatus.APPLIED and res.estimated_line == 4
    assert res.matched_text == "    b = 2   \n    c = 3\n"
    assert (tmp_path / "m.py").read_text() == "x = 0\ny = 0\na = 1\n    b = 20\n    c = 3\nd = 4\n"


def test_a_tolerant_match_after_a_blank_first_line_reports_its_own_lines(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("\n    b = 2   \n    c = 3\nd = 4\n")
    res = editblocks.apply_edits(
        sr("m.py", "    b = 2\n    c = 3\n", "    b = 20\n    c = 3\n"), tmp_path, match="tolerant"
    ).results[0]
    assert res.status is EditStatus.APPLIED and res.estimated_line == 2
    assert res.matched_text == "    b = 2   \n    c = 3\n"


# -- deleting a file by its lines ------------------------------------------------------------------------------------

UDIFF_DELETE = "```diff\n--- a/m.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n{lines}```\n"


def test_a_diff_deleting_a_file_must_remove_its_lines_up_to_trailing_white_space(tmp_path: Path) -> None:
    cases = [
        ("x = 1   \ny = 2\n\n", "-x = 1\n-y = 2\n", True),
        ("x = 1\ny = 2\n", "-x = 1\n-y = 2   \n", True),
        ("x = 1\ny = 2\n", "-x = 1\n-    y = 2\n", False),
        ("x = 1\n    y = 2\n", "-x = 1\n-y = 2\n", False),
        ("x = 1\ny = 3\n", "-x = 1\n-y = 2\n", False),
        ("x = 1\ny = 2\nz = 3\n", "-x = 1\n-y = 2\n", False),
    ]
    for k, (text, lines, deleted) in enumerate(cases):
        root = tmp_path / str(k)
        write_tree(root, {"m.py": text})
        res = editblocks.apply_edits(UDIFF_DELETE.format(lines=lines), root).results[0]
        if deleted:
            assert res.status is EditStatus.APPLIED and res.strategy == "delete", k
            assert not (root / "m.py").exists()
        else:
            assert res.status is EditStatus.FAILED, k
            assert (res.reason or "").startswith("the block deletes m.py, but the file's content differs"), k
            assert (root / "m.py").read_text() == text


# -- moving onto a file ------------------------------------------------------------------------------------------------


def test_a_file_is_not_moved_onto_one_an_earlier_block_created(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.py": "x = 1\n"})
    reply = (
        "*** Begin Patch\n*** Add File: c.py\n+made = 1\n*** Update File: a.py\n*** Move to: c.py\n@@\n-x = 1\n+x = 2\n"
        "*** End Patch\n"
    )
    result = editblocks.apply_edits(reply, tmp_path)
    assert [r.status for r in result.results] == [EditStatus.APPLIED, EditStatus.FAILED]
    assert result.results[1].reason == "cannot move a.py to c.py: that file exists (moving never overwrites a file)"
    assert read_tree(tmp_path) == {"a.py": b"x = 1\n", "c.py": b"made = 1\n"}


def test_a_file_is_not_moved_onto_an_existing_one_or_itself(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.py": "x = 1\n", "c.py": "other = 1\n"})
    onto = "*** Begin Patch\n*** Update File: a.py\n*** Move to: c.py\n@@\n-x = 1\n+x = 2\n*** End Patch\n"
    res = editblocks.apply_edits(onto, tmp_path).results[0]
    assert res.status is EditStatus.FAILED
    assert res.reason == "cannot move a.py to c.py: that path exists (moving never overwrites a file)"
    itself = "*** Begin Patch\n*** Update File: a.py\n*** Move to: a.py\n@@\n-x = 1\n+x = 2\n*** End Patch\n"
    res = editblocks.apply_edits(itself, tmp_path).results[0]
    assert res.status is EditStatus.FAILED and res.reason == "cannot move a.py onto itself"
    outside = "*** Begin Patch\n*** Update File: a.py\n*** Move to: ../out.py\n@@\n-x = 1\n+x = 2\n*** End Patch\n"
    res = editblocks.apply_edits(outside, tmp_path).results[0]
    assert res.status is EditStatus.FAILED and (res.reason or "").startswith("cannot move a.py: ")
    assert read_tree(tmp_path) == {"a.py": b"x = 1\n", "c.py": b"other = 1\n"}


# -- an edit applied before, found through the line index -----------------------------------------------------------


def test_an_edit_applied_before_reports_its_place_and_the_exact_strategy(tmp_path: Path) -> None:
    text = "alpha = compute_alpha()\nbeta = 22\ngamma = 3\n"
    (tmp_path / "m.py").write_text(text)
    res = editblocks.apply_edits(sr("m.py", "beta = 2\n", "beta = 22\n"), tmp_path).results[0]
    assert res.status is EditStatus.ALREADY_APPLIED and res.reason == "already applied"
    assert res.strategy == "exact" and res.estimated_line == 2
    assert (tmp_path / "m.py").read_text() == text


# -- a marker line written by an exact edit ----------------------------------------------------------------------------


def test_an_exact_edit_writing_a_conflict_marker_is_refused_and_leaves_the_file_for_later_blocks(
    tmp_path: Path,
) -> None:
    text = "def f():\n    a = 1\n    b = 2\n    return a + b\n"
    (tmp_path / "m.py").write_text(text)
    blocks = [
        editblocks.EditBlock("m.py", "    a = 1\n", "    a = 10\n<<<<<<< HEAD\n"),
        editblocks.EditBlock("m.py", "    return a + b\n", "    return a * b\n"),
    ]
    result = editblocks.apply_edits(blocks, tmp_path, continue_after_failure=True)
    first, second = result.results
    assert first.status is EditStatus.FAILED and first.estimated_line == 2
    assert (first.reason or "").startswith("the edit would write the line '<<<<<<< HEAD' into m.py")
    assert second.status is EditStatus.APPLIED
    assert (tmp_path / "m.py").read_text() == text.replace("a + b", "a * b")


def test_an_exact_edit_may_write_a_marker_line_like_those_the_file_has(tmp_path: Path) -> None:
    text = 'def f():\n    a = 1\n    return a\n\n\nSAMPLE = """\n<<<<<<< HEAD\n"""\n'
    (tmp_path / "m.py").write_text(text)
    blocks = [editblocks.EditBlock("m.py", "    a = 1\n", "    a = 10\n<<<<<<< HEAD\n")]
    res = editblocks.apply_edits(blocks, tmp_path).results[0]
    assert res.status is EditStatus.APPLIED, res.reason
    assert (tmp_path / "m.py").read_text() == text.replace("    a = 1\n", "    a = 10\n<<<<<<< HEAD\n")


def test_an_exact_edit_converts_with_its_place(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("a = 1\nb = 2\nc = 3\n")
    done = editblocks.convert_reply(sr("m.py", "b = 2\n", "b = 20\n"), "edit-v3", root=tmp_path)
    assert done.problems == [] and done.text == v3("m.py", "b = 2\n", "b = 20\n")
    patch = editblocks.convert_reply(sr("m.py", "b = 2\n", "b = 20\n"), "udiff", root=tmp_path)
    assert patch.text == "```diff\n--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@\n a = 1\n-b = 2\n+b = 20\n c = 3\n```\n"


def test_a_tolerant_edit_converts_with_the_files_own_lines(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("a = 1\nb = 2   \nc = 3\n")
    done = editblocks.convert_reply(sr("m.py", "b = 2\n", "b = 20\n"), "edit-v3", root=tmp_path, match="tolerant")
    assert done.problems == [] and done.text == v3("m.py", "b = 2   \n", "b = 20\n")


# -- sketches (the lazy format) ----------------------------------------------------------------------------------------

MODULE = "import os\n\n\ndef f():\n    a = 1\n    b = 2\n    return a + b\n\n\ndef g():\n    return 0\n\n\ndef h():\n    return 9\n"
ELIDED = "# ... existing code ...\n"


def _sketch(root: Path, sketch: str, path: str = "a.py") -> editblocks.EditResult:
    (res,) = editblocks.apply_edits(f"{path}\n```\n{sketch}```\n", root, format="lazy").results
    return res


def test_a_sketch_merges_its_part_and_reports_the_lines_it_changed(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(MODULE)
    res = _sketch(tmp_path, ELIDED + "def g():\n    return 1\n\n\ndef h():\n    return 9\n")
    assert res.status is EditStatus.APPLIED and res.strategy == "sketch" and res.estimated_line == 10
    assert res.span == (60, 106)
    assert res.replaced == "def g():\n    return 0\n\n\ndef h():\n    return 9\n"
    assert res.replacement == "def g():\n    return 1\n\n\ndef h():\n    return 9\n"
    assert [p.kind for p in res.sketch_parts] == ["elision", "run"]
    assert (tmp_path / "a.py").read_text() == MODULE.replace("return 0", "return 1")


def test_a_sketch_of_two_parts_reports_one_span_from_the_first_to_the_last(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(MODULE)
    sketch = ELIDED + "def f():\n    a = 1\n    b = 3\n    return a + b\n" + ELIDED + "def h():\n    return 10\n"
    res = _sketch(tmp_path, sketch)
    assert res.status is EditStatus.APPLIED and res.estimated_line == 4
    after = MODULE.replace("b = 2", "b = 3").replace("return 9", "return 10")
    assert res.span == (12, len(MODULE))
    assert res.replaced == MODULE[12:] and res.replacement == after[12:]
    assert [p.kind for p in res.sketch_parts] == ["elision", "run", "elision", "run"]
    assert (tmp_path / "a.py").read_text() == after


def test_a_sketch_keeps_the_line_endings_of_the_lines_it_keeps(tmp_path: Path) -> None:
    mixed = MODULE.replace("\n", "\r\n").replace("def h():\r\n", "def h():\n")
    write_tree(tmp_path, {"a.py": mixed})
    sketch = ELIDED + "def f():\n    a = 1\n    b = 3\n    return a + b\n" + ELIDED + "def h():\n    return 10\n"
    assert _sketch(tmp_path, sketch).status is EditStatus.APPLIED
    assert (tmp_path / "a.py").read_bytes() == mixed.replace("b = 2", "b = 3").replace("return 9", "return 10").encode()


def test_a_sketch_the_file_already_shows_is_already_applied(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(MODULE)
    res = _sketch(tmp_path, ELIDED + "def g():\n    return 0\n\n\ndef h():\n    return 9\n")
    assert res.status is EditStatus.ALREADY_APPLIED and res.reason == "already applied" and res.strategy == "sketch"
    assert (tmp_path / "a.py").read_text() == MODULE


def test_a_sketch_of_one_definition_replaces_it_and_says_so(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(MODULE)
    res = _sketch(tmp_path, "def g():\n    return 5\n")
    assert res.status is EditStatus.APPLIED and res.strategy == "definition" and res.estimated_line == 10
    assert res.notes == ["the sketch replaced the definition of `g`"]
    assert res.span == (60, 82) and res.replacement == "def g():\n    return 5\n"
    assert (tmp_path / "a.py").read_text() == MODULE.replace("return 0", "return 5")


def test_a_sketch_without_elision_holding_the_whole_file_replaces_it_and_says_so(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(MODULE)
    res = _sketch(tmp_path, MODULE.replace("return 0", "return 7"))
    assert res.status is EditStatus.APPLIED and res.strategy == "whole"
    assert res.notes == [
        "the sketch has no elision comment and holds the file's definitions: it replaced the whole file"
    ]
    assert res.span == (0, len(MODULE)) and res.replaced == MODULE
    assert (tmp_path / "a.py").read_text() == MODULE.replace("return 0", "return 7")


def test_a_sketch_that_fits_several_places_is_refused_with_them(tmp_path: Path) -> None:
    text = MODULE + "\ndef k():\n    return 0\n"
    (tmp_path / "a.py").write_text(text)
    res = _sketch(tmp_path, ELIDED + "    return 0\n    # new\n" + ELIDED)
    assert res.status is EditStatus.FAILED and res.candidates == [11, 18] and res.estimated_line == 11
    assert (res.reason or "").startswith("the sketch for a.py is not merged: ")
    assert (tmp_path / "a.py").read_text() == text


def test_a_sketch_that_would_break_a_parsing_file_is_refused_but_a_broken_file_takes_it(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(MODULE)
    sketch = ELIDED + "def g():\n    return (1\n\n\ndef h():\n    return 9\n"
    res = _sketch(tmp_path, sketch)
    assert res.status is EditStatus.FAILED
    assert "the file parses now and would not after it" in (res.reason or "")
    assert (res.reason or "").endswith(
        "Check the sketch's indentation and brackets, and that each elision comment stands for whole definitions "
        "or statements"
    )
    assert (tmp_path / "a.py").read_text() == MODULE
    broken = MODULE.replace("import os", "import os(")
    (tmp_path / "a.py").write_text(broken)
    res = _sketch(tmp_path, sketch)
    assert res.status is EditStatus.APPLIED, res.reason
    assert (tmp_path / "a.py").read_text() == broken.replace("return 0", "return (1")


def test_a_sketch_keeps_a_missing_final_newline_missing(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.py": MODULE.rstrip("\n")})
    res = _sketch(tmp_path, ELIDED + "def g():\n    return 1\n\n\ndef h():\n    return 9\n")
    assert res.status is EditStatus.APPLIED
    assert (tmp_path / "a.py").read_bytes() == MODULE.replace("return 0", "return 1").rstrip("\n").encode()


def test_a_sketch_into_an_empty_file_writes_it_with_a_final_newline(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.py": ""})
    res = _sketch(tmp_path, "def f():\n    return 1\n")
    assert res.status is EditStatus.APPLIED and res.strategy == "create"
    assert res.span == (0, 0) and res.replaced == "" and res.replacement == "def f():\n    return 1\n"
    assert (tmp_path / "a.py").read_bytes() == b"def f():\n    return 1\n"


def test_an_empty_sketch_of_a_blank_file_is_refused(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.py": "\n"})
    res = _sketch(tmp_path, "\n")
    assert res.status is EditStatus.FAILED and res.reason == "the sketch for a.py is empty. Write the lines of the file"
    assert (tmp_path / "a.py").read_bytes() == b"\n"


# -- converting with the files at hand -------------------------------------------------------------------------------------


def test_an_edit_converts_to_a_sketch_that_merges_only_where_it_belongs(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(MODULE)
    done = editblocks.convert_reply(sr("a.py", "    return 0\n", "    return 1\n"), "lazy", root=tmp_path)
    assert done.problems == []
    assert done.text == "a.py\n```\n" + ELIDED + "\n\ndef g():\n    return 1\n\n\ndef h():\n" + ELIDED + "```\n"


def test_edits_convert_to_the_whole_file_they_leave(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(MODULE)
    reply = sr("a.py", "    return 0\n", "    return 1\n") + sr("a.py", "    b = 2\n", "    b = 3\n")
    done = editblocks.convert_reply(reply, "whole", root=tmp_path)
    assert done.problems == []
    assert done.text == "a.py\n```\n" + MODULE.replace("return 0", "return 1").replace("b = 2", "b = 3") + "```\n"


def test_an_edit_of_the_last_line_of_a_file_without_final_newline_does_not_convert_to_edit_v3(tmp_path: Path) -> None:
    write_tree(tmp_path, {"b.py": b"x = 1\ny = 2"})
    done = editblocks.convert_reply(sr("b.py", "y = 2\n", "y = 3\n"), "edit-v3", root=tmp_path)
    assert done.text == "" and len(done.problems) == 1
    assert "without a final newline, and edit-v3 would add one" in done.problems[0]
    done = editblocks.convert_reply(sr("b.py", "x = 1\n", "x = 3\n"), "edit-v3", root=tmp_path)
    assert done.problems == [] and done.text == v3("b.py", "x = 1\n", "x = 3\n")


# -- line numbers copied from a numbered listing ------------------------------------------------------------------------

NUMBERED = "a = 1\nb = 2\nc = 3\n"


def test_line_numbers_of_each_listing_shape_are_not_text(tmp_path: Path) -> None:
    shapes = [("12 | ", "13 | "), ("12: ", "13: "), ("L12 ", "L13 "), ("12\t", "13\t")]
    for k, (one, two) in enumerate(shapes):
        root = tmp_path / str(k)
        write_tree(root, {"m.py": NUMBERED})
        reply = sr("m.py", f"{one}a = 1\n{two}b = 2\n", f"{one}a = 1\n{two}b = 20\n")
        res = editblocks.apply_edits(reply, root).results[0]
        assert res.status is EditStatus.APPLIED and res.strategy == "exact", (k, res.reason)
        assert (root / "m.py").read_text() == "a = 1\nb = 20\nc = 3\n", k


def test_numbers_that_do_not_rise_on_every_line_are_left_as_written(tmp_path: Path) -> None:
    cases = [
        ("13 | a = 1\n12 | b = 2\n", "13 | a = 1\n12 | b = 20\n"),
        ("12 | a = 1\n12 | b = 2\n", "12 | a = 1\n12 | b = 20\n"),
        ("1 | a = 1\n3 | b = 2\n2 | c = 3\n", "1 | a = 1\n3 | b = 20\n2 | c = 3\n"),
        ("12 | a = 1\nb = 2\n", "12 | a = 1\nb = 20\n"),
    ]
    for k, (search, replace) in enumerate(cases):
        root = tmp_path / str(k)
        write_tree(root, {"m.py": NUMBERED})
        res = editblocks.apply_edits(sr("m.py", search, replace), root).results[0]
        assert res.status is EditStatus.FAILED and (res.reason or "").startswith("SEARCH text not found"), k
        assert (root / "m.py").read_text() == NUMBERED


def test_numbered_lines_around_a_blank_line_and_an_unnumbered_replace(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": "a = 1\n\nb = 2\n"})
    reply = sr("m.py", "12 | a = 1\n\n14 | b = 2\n", "12 | a = 1\n\n14 | b = 20\n")
    assert editblocks.apply_edits(reply, tmp_path).results[0].status is EditStatus.APPLIED
    assert (tmp_path / "m.py").read_text() == "a = 1\n\nb = 20\n"
    reply = sr("m.py", "12 | a = 1\n\n14 | b = 20\n", "a = 10\n\nb = 20\n")
    assert editblocks.apply_edits(reply, tmp_path).results[0].status is EditStatus.APPLIED
    assert (tmp_path / "m.py").read_text() == "a = 10\n\nb = 20\n"


def test_a_replace_numbered_only_in_part_is_refused(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": NUMBERED})
    res = editblocks.apply_edits(sr("m.py", "12 | a = 1\n13 | b = 2\n", "a = 1\n13 | b = 20\n"), tmp_path).results[0]
    assert res.status is EditStatus.FAILED
    assert res.reason == (
        "SEARCH's lines start with line numbers copied from a numbered listing, and only some REPLACE lines do; "
        "write the lines without their numbers"
    )
    assert (tmp_path / "m.py").read_text() == NUMBERED


def test_numbers_the_file_itself_has_are_kept(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.txt": "12 | a = 1\n13 | b = 2\n"})
    res = editblocks.apply_edits(sr("m.txt", "12 | a = 1\n13 | b = 2\n", "12 | a = 1\n13 | b = 20\n"), tmp_path)
    assert res.results[0].status is EditStatus.APPLIED
    assert (tmp_path / "m.txt").read_text() == "12 | a = 1\n13 | b = 20\n"


# -- aider's reading of a trailing empty line ---------------------------------------------------------------------------


def test_a_replace_of_one_empty_line_puts_that_empty_line_in_place_of_the_search_lines(tmp_path: Path) -> None:
    """The empty line is all REPLACE writes, and the file holds SEARCH: it is read as written."""
    write_tree(tmp_path, {"m.py": NUMBERED})
    res = editblocks.apply_edits(sr("m.py", "b = 2\n", "\n"), tmp_path).results[0]
    assert res.status is EditStatus.APPLIED
    assert (tmp_path / "m.py").read_text() == "a = 1\n\nc = 3\n"


# -- drift, more -------------------------------------------------------------------------------------------------------


def test_a_drifted_file_is_not_replaced_by_a_whole_file_block_nor_merged_from_a_sketch(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": NOW})
    why = "m.py has changed since the model saw it (its content differs from what the model saw)"
    whole = editblocks.apply_edits("m.py\n```python\nx = 1\n```\n", tmp_path, format="whole", base={"m.py": SEEN})
    assert whole.results[0].status is EditStatus.FAILED
    assert whole.results[0].reason == f"{why}; a file that changed is not replaced as a whole"
    sketch = "m.py\n```\n# ... existing code ...\ndef g():\n    return 3\n```\n"
    lazy = editblocks.apply_edits(sketch, tmp_path, format="lazy", base={"m.py": SEEN})
    assert lazy.results[0].status is EditStatus.FAILED
    assert lazy.results[0].reason == f"{why}; a file that changed is not merged from a sketch"
    assert (tmp_path / "m.py").read_text() == NOW


def test_a_file_the_model_saw_absent_is_created(tmp_path: Path) -> None:
    result = editblocks.apply_edits(sr("new.py", "", "x = 1\n"), tmp_path, base={"new.py": None})
    assert result.results[0].status is EditStatus.APPLIED and result.results[0].notes == []
    assert (tmp_path / "new.py").read_text() == "x = 1\n"


def test_an_uncertain_block_in_a_drifted_file_is_taken_back_alone(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": NOW + "\nz = 1\n"})
    reply = sr("m.py", "    return 1\n", "    return 10\n") + sr("m.py", "z = 1   \n", "z = 2\n")
    result = editblocks.apply_edits(reply, tmp_path, base={"m.py": SEEN + "\nz = 1\n"}, continue_after_failure=True)
    first, second = result.results
    assert first.status is EditStatus.APPLIED
    assert first.notes == [
        "m.py had changed since the model saw it (its content differs from what the model saw); "
        "the block's text occurs exactly once there"
    ]
    assert second.status is EditStatus.FAILED
    assert (second.reason or "").endswith(
        "the block's text does not occur exactly once in the file as it is now, so where it goes is not certain"
    )
    assert (tmp_path / "m.py").read_text() == NOW.replace("return 1", "return 10") + "\nz = 1\n"


def test_refuse_drift_fails_a_certain_block_and_a_failed_block_notes_the_drift(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": NOW})
    certain = sr("m.py", "    return 1\n", "    return 10\n")
    res = editblocks.apply_edits(certain, tmp_path, base={"m.py": SEEN}, refuse_drift=True).results[0]
    assert res.status is EditStatus.FAILED
    assert res.reason == (
        "m.py has changed since the model saw it (its content differs from what the model saw); refused (refuse drift)"
    )
    missing = sr("m.py", "    return 99\n", "    return 100\n")
    res = editblocks.apply_edits(missing, tmp_path, base={"m.py": SEEN}).results[0]
    assert res.status is EditStatus.FAILED
    assert "m.py had changed since the model saw it (its content differs from what the model saw)" in res.notes
    assert (tmp_path / "m.py").read_text() == NOW


# -- a file operation's chunks, continuing after a failure ---------------------------------------------------------------


def test_after_a_chunk_fails_the_later_chunks_of_its_operation_fail_too_even_when_continuing(tmp_path: Path) -> None:
    text = "a = 1\nb = 2\nc = 3\nd = 4\n"
    write_tree(tmp_path, {"m.py": text})
    reply = (
        "*** Begin Patch\n*** Update File: m.py\n@@\n-a = 1\n+a = 10\n@@\n-zz = 1\n+zz = 2\n@@\n-d = 4\n+d = 40\n"
        "*** End Patch\n"
    )
    result = editblocks.apply_edits(reply, tmp_path, continue_after_failure=True)
    assert [r.status for r in result.results] == [EditStatus.FAILED] * 3
    assert (result.results[0].reason or "").startswith("not applied: the chunk at reply line 6 failed: ")
    assert result.results[2].reason == (
        "another chunk of the same file operation (reply line 2) failed; a file's chunks apply all or none"
    )
    assert (tmp_path / "m.py").read_text() == text


def _block(path: str, body: str) -> str:
    return f"{path}\n```\n<<<<<<< SEARCH\n{body}>>>>>>> REPLACE\n```\n"


def test_a_divider_ending_replace_that_could_underline_a_title_is_refused_in_markdown(tmp_path: Path) -> None:
    refusal = (
        "REPLACE starts or ends with a '=======' line, and it could be text (a title's underline, or the file "
        "has such lines) as well as a doubled divider, so the block is not read either way; write one divider "
        "between SEARCH and REPLACE"
    )
    write_tree(tmp_path, {"a.md": "x = 1\n", "b.md": "x = 1\n", "a.py": "x = 1\n"})
    for body in ("x = 1\n=======\nx = 2\nTitle\n=======\n", "x = 1\n=======\nTitle\n=======\n"):
        res = editblocks.apply_edits(_block("a.md", body), tmp_path).results[0]
        assert res.status is EditStatus.FAILED and res.reason == refusal
    assert (tmp_path / "a.md").read_text() == "x = 1\n"
    # In Python the same lines are no title: the stray divider is left out.
    res = editblocks.apply_edits(_block("a.py", "x = 1\n=======\nx = 2\nTitle\n=======\n"), tmp_path).results[0]
    assert res.status is EditStatus.APPLIED
    assert (tmp_path / "a.py").read_text() == "x = 2\nTitle\n"


def test_a_markdown_title_underline_in_the_file_is_no_divider_of_its_own(tmp_path: Path) -> None:
    text = "T\n=======\n\nx = 1\n"
    write_tree(tmp_path, {"a.md": text})
    res = editblocks.apply_edits(_block("a.md", "x = 1\n=======\n=======\nx = 2\n"), tmp_path).results[0]
    assert res.status is EditStatus.APPLIED, res.reason
    assert (tmp_path / "a.md").read_text() == "T\n=======\n\nx = 2\n"


# -- which file a block goes to ---------------------------------------------------------------------------------------------


def test_a_path_missing_its_leading_folders_is_resolved_and_said_so(tmp_path: Path) -> None:
    write_tree(tmp_path, {"src/pkg/m.py": "x = 1\n"})
    res = editblocks.apply_edits(sr("pkg/m.py", "x = 1\n", "x = 2\n"), tmp_path).results[0]
    assert res.status is EditStatus.APPLIED
    assert res.file_path == "src/pkg/m.py" and res.requested_path == "pkg/m.py"
    assert res.notes == ["path 'pkg/m.py' does not exist; resolved to 'src/pkg/m.py'"]
    assert read_tree(tmp_path) == {"src/pkg/m.py": b"x = 2\n"}


def test_a_path_several_files_could_end_is_refused_with_them(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a/pkg/m.py": "x = 1\n", "b/pkg/m.py": "x = 1\n"})
    res = editblocks.apply_edits(sr("pkg/m.py", "x = 1\n", "x = 2\n"), tmp_path).results[0]
    assert res.status is EditStatus.FAILED
    assert (
        res.reason
        == "file not found: pkg/m.py; several files could be meant: a/pkg/m.py, b/pkg/m.py. Use the full path"
    )
    assert read_tree(tmp_path) == {"a/pkg/m.py": b"x = 1\n", "b/pkg/m.py": b"x = 1\n"}


def test_after_a_failed_block_the_files_later_blocks_are_skipped(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": "x = 1\ny = 2\n"})
    result = editblocks.apply_edits(sr("m.py", "zz\n", "x = 2\n") + sr("m.py", "y = 2\n", "y = 3\n"), tmp_path)
    assert [r.status for r in result.results] == [EditStatus.FAILED, EditStatus.SKIPPED]
    assert result.results[1].reason == "previous edit to this file failed"
    assert (tmp_path / "m.py").read_text() == "x = 1\ny = 2\n"


def test_a_binary_file_is_not_edited(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.bin": b"\x00\x01\x02abc\n"})
    res = editblocks.apply_edits(sr("m.bin", "abc\n", "def\n"), tmp_path).results[0]
    assert res.status is EditStatus.FAILED and (res.reason or "").startswith("Binary file: ")
    assert (tmp_path / "m.bin").read_bytes() == b"\x00\x01\x02abc\n"


# -- deletes, moves and whole files ----------------------------------------------------------------------------------------------


def test_a_file_deleted_earlier_in_the_reply_is_not_edited(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": "x = 1\n"})
    reply = "*** Begin Patch\n*** Delete File: m.py\n*** Update File: m.py\n@@\n-x = 1\n+x = 2\n*** End Patch\n"
    result = editblocks.apply_edits(reply, tmp_path, continue_after_failure=True)
    assert [r.status for r in result.results] == [EditStatus.APPLIED, EditStatus.FAILED]
    assert result.results[1].reason == "m.py was deleted or moved away by an earlier block of this reply"
    assert read_tree(tmp_path) == {}


def test_a_file_deleted_and_added_again_holds_the_new_lines(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": "x = 1\n"})
    reply = "*** Begin Patch\n*** Delete File: m.py\n*** Add File: m.py\n+y = 1\n*** End Patch\n"
    result = editblocks.apply_edits(reply, tmp_path)
    assert [(r.status, r.strategy) for r in result.results] == [
        (EditStatus.APPLIED, "delete"),
        (EditStatus.APPLIED, "create"),
    ]
    assert read_tree(tmp_path) == {"m.py": b"y = 1\n"}


def test_without_deletes_no_file_is_deleted_or_moved(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": "x = 1\n"})
    delete = "*** Begin Patch\n*** Delete File: m.py\n*** End Patch\n"
    res = editblocks.apply_edits(delete, tmp_path, allow_delete=False).results[0]
    assert res.status is EditStatus.FAILED
    assert res.reason == "deleting files is not allowed in this apply (no-delete); m.py is left where it is"
    move = "*** Begin Patch\n*** Update File: m.py\n*** Move to: n.py\n@@\n-x = 1\n+x = 2\n*** End Patch\n"
    res = editblocks.apply_edits(move, tmp_path, allow_delete=False).results[0]
    assert res.status is EditStatus.FAILED
    assert res.reason == "moving files is not allowed in this apply (no-delete); m.py is left where it is"
    assert read_tree(tmp_path) == {"m.py": b"x = 1\n"}


def test_a_file_is_deleted_only_by_its_exact_path_and_never_through_a_link(tmp_path: Path) -> None:
    write_tree(tmp_path, {"src/m.py": "x = 1\n", "real.py": "y = 1\n"})
    (tmp_path / "link.py").symlink_to("real.py")
    res = editblocks.apply_edits("*** Begin Patch\n*** Delete File: m.py\n*** End Patch\n", tmp_path).results[0]
    assert res.status is EditStatus.FAILED
    assert res.reason == "deleting a file needs its exact path: 'm.py' does not exist (did you mean 'src/m.py'?)"
    res = editblocks.apply_edits("*** Begin Patch\n*** Delete File: link.py\n*** End Patch\n", tmp_path).results[0]
    assert res.status is EditStatus.FAILED
    assert (
        res.reason == "link.py is a symbolic link; deleting it is left to you (it would act on the file it points to)"
    )
    assert (tmp_path / "src/m.py").exists() and (tmp_path / "link.py").is_symlink()


def test_whole_file_blocks_empty_same_or_partial(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": "x = 1\n"})
    res = editblocks.apply_edits("m.py\n```python\n```\n", tmp_path, format="whole").results[0]
    assert res.status is EditStatus.FAILED
    assert (
        res.reason
        == "the block for m.py is empty; it would empty the whole file. Write out the file's complete content"
    )
    res = editblocks.apply_edits("m.py\n```python\nx = 1\n```\n", tmp_path, format="whole").results[0]
    assert res.status is EditStatus.ALREADY_APPLIED and res.strategy == "whole" and res.reason == "already applied"
    body = "".join(f"def f{i}():\n    return {i}\n\n\n" for i in range(20))
    write_tree(tmp_path, {"p.py": body})
    partial = "p.py\n```python\ndef f1():\n    return 100\n# ... rest unchanged ...\n```\n"
    res = editblocks.apply_edits(partial, tmp_path, format="whole").results[0]
    assert res.status is EditStatus.FAILED and (res.reason or "").startswith("the block for p.py looks partial: ")
    assert read_tree(tmp_path) == {"m.py": b"x = 1\n", "p.py": body.encode()}


def test_a_whole_file_block_keeps_a_missing_final_newline_missing_and_a_new_file_gets_one(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": b"x = 1"})
    res = editblocks.apply_edits("m.py\n```python\nx = 2\n```\n", tmp_path, format="whole").results[0]
    assert res.status is EditStatus.APPLIED and res.strategy == "whole" and res.estimated_line == 1
    assert (tmp_path / "m.py").read_bytes() == b"x = 2"
    res = editblocks.apply_edits("n.py\n```python\ny = 2\n```\n", tmp_path, format="whole").results[0]
    assert res.status is EditStatus.APPLIED
    assert (tmp_path / "n.py").read_bytes() == b"y = 2\n"


# -- new files ----------------------------------------------------------------------------------------------------------------


def test_a_new_file_the_project_already_has_as_written_is_already_applied(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": "x = 1\n"})
    res = editblocks.apply_edits("*** Begin Patch\n*** Add File: m.py\n+x = 1\n*** End Patch\n", tmp_path).results[0]
    assert res.status is EditStatus.ALREADY_APPLIED and res.strategy == "create" and res.reason == "already applied"
    assert read_tree(tmp_path) == {"m.py": b"x = 1\n"}


def test_a_new_file_is_created_as_marked_and_never_with_marker_lines(tmp_path: Path) -> None:
    res = editblocks.apply_edits("*** Begin Patch\n*** Add File: d/m.py\n+x = 1\n*** End Patch\n", tmp_path).results[0]
    assert res.status is EditStatus.APPLIED and res.strategy == "create" and res.estimated_line == 1
    no_newline = "```diff\n--- /dev/null\n+++ b/n.py\n@@ -0,0 +1 @@\n+x = 1\n\\ No newline at end of file\n```\n"
    assert editblocks.apply_edits(no_newline, tmp_path).results[0].status is EditStatus.APPLIED
    marked = editblocks.EditBlock("o.py", "", "x = 1\n<<<<<<< HEAD\n", new_file=True)
    res = editblocks.apply_edits([marked], tmp_path).results[0]
    assert res.status is EditStatus.FAILED and (res.reason or "").startswith(
        "the edit would write the line '<<<<<<< HEAD'"
    )
    assert read_tree(tmp_path) == {"d/m.py": b"x = 1\n", "n.py": b"x = 1"}


# -- syntax as a second opinion ------------------------------------------------------------------------------------------------

PARSES = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"
UNCLOSED = "line 2: '(' was never closed"


def test_an_edit_that_breaks_the_syntax_is_written_with_a_note(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": PARSES})
    result = editblocks.apply_edits(sr("m.py", "    return 1\n", "    return (1\n"), tmp_path)
    message = f"m.py parsed before this reply and no longer does after its blocks ({UNCLOSED})"
    assert result.results[0].status is EditStatus.APPLIED and result.results[0].notes == [message]
    assert result.syntax_problems == {"m.py": message} and result.files_modified == ["m.py"]
    assert (tmp_path / "m.py").read_text() == PARSES.replace("return 1", "return (1")


def test_with_verify_syntax_every_block_of_a_file_that_stops_parsing_fails_and_nothing_is_written(
    tmp_path: Path,
) -> None:
    write_tree(tmp_path, {"m.py": PARSES})
    reply = sr("m.py", "    return 1\n", "    return (1\n") + sr("m.py", "    return 2\n", "    return 3\n")
    result = editblocks.apply_edits(reply, tmp_path, verify_syntax=True)
    reason = (
        f"m.py parsed before this reply and no longer does after its blocks ({UNCLOSED}); the file is left untouched "
        "(verify syntax). Fix the edit so the file still parses"
    )
    assert [(r.status, r.reason) for r in result.results] == [(EditStatus.FAILED, reason)] * 2
    assert result.files_modified == [] and not result.ok
    assert (tmp_path / "m.py").read_text() == PARSES


def test_a_file_that_did_not_parse_before_is_not_judged_by_its_syntax(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": PARSES + "(\n"})
    result = editblocks.apply_edits(sr("m.py", "    return 1\n", "    return (1\n"), tmp_path, verify_syntax=True)
    assert result.results[0].status is EditStatus.APPLIED and result.results[0].notes == []
    assert result.syntax_problems == {}
    assert (tmp_path / "m.py").read_text() == PARSES.replace("return 1", "return (1") + "(\n"


def test_a_new_file_that_does_not_parse_is_created_with_a_note_even_with_verify_syntax(tmp_path: Path) -> None:
    for verify in (False, True):
        root = tmp_path / str(verify)
        root.mkdir()
        result = editblocks.apply_edits(sr("n.py", "", "x = (\n"), root, verify_syntax=verify)
        message = "n.py as created does not parse (line 1: '(' was never closed)"
        assert result.results[0].status is EditStatus.APPLIED and result.results[0].notes == [message]
        assert result.syntax_problems == {"n.py": message}
        assert (root / "n.py").read_text() == "x = (\n"


def test_a_file_over_a_million_characters_is_checked_only_with_verify_syntax(tmp_path: Path) -> None:
    big = PARSES + "".join(f"value_{k} = '{'x' * 2000}'\n" for k in range(500))
    assert len(big) > 1_000_000
    write_tree(tmp_path, {"m.py": big})
    reply = sr("m.py", "    return 1\n", "    return (1\n")
    result = editblocks.apply_edits(reply, tmp_path)
    assert result.results[0].status is EditStatus.APPLIED and result.syntax_problems == {}
    write_tree(tmp_path, {"m.py": big})
    result = editblocks.apply_edits(reply, tmp_path, verify_syntax=True)
    assert result.results[0].status is EditStatus.FAILED and "m.py" in result.syntax_problems
    assert (tmp_path / "m.py").read_text() == big


# -- what an applied or failed block reports --------------------------------------------------------------------------------------


def test_replace_elision_lines_read_as_search_lines_are_said_so(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": "def f():\n    a = 1\n    b = 2\n    return a\n"})
    reply = sr("m.py", "def f():\n    a = 1\n    b = 2\n", "def f():\n    # ... existing code ...\n    b = 3\n")
    res = editblocks.apply_edits(reply, tmp_path).results[0]
    assert res.status is EditStatus.APPLIED
    assert res.notes == ["REPLACE's elision lines were read as the SEARCH lines they stand for"]
    assert (tmp_path / "m.py").read_text() == "def f():\n    a = 1\n    b = 3\n    return a\n"


def test_a_file_moved_with_its_edit_already_made_is_moved_as_it_is(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.py": "x = 2\ny = 1\n"})
    reply = "*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n@@\n-x = 1\n+x = 2\n y = 1\n*** End Patch\n"
    res = editblocks.apply_edits(reply, tmp_path).results[0]
    assert res.status is EditStatus.APPLIED and res.moved_to == "b.py"
    assert read_tree(tmp_path) == {"b.py": b"x = 2\ny = 1\n"}


def test_a_block_not_found_reports_the_closest_lines(tmp_path: Path) -> None:
    text = "a = 1\nb = 2\nvalue = compute(1)\nc = 3\n"
    write_tree(tmp_path, {"m.py": text})
    res = editblocks.apply_edits(sr("m.py", "value = compute(2)\nc = 4\n", "value = 0\n"), tmp_path).results[0]
    assert res.status is EditStatus.FAILED and (res.reason or "").startswith("SEARCH text not found in file")
    assert res.estimated_line == 3 and res.closest_region == (3, 4)
    assert res.closest_text == "value = compute(1)\nc = 3\n"
    assert (tmp_path / "m.py").read_text() == text


# -- git add and undo ------------------------------------------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("git") is None, reason="needs the git command")
def test_undo_after_git_add_puts_the_index_back(tmp_path: Path) -> None:
    def git(*args: str) -> str:
        config = ["-c", "user.name=T", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
        run = subprocess.run(["git", *config, *args], cwd=tmp_path, capture_output=True, text=True, check=True)
        return run.stdout

    write_tree(tmp_path, {"m.py": "x = 1\n"})
    git("init", "-q")
    git("add", "m.py")
    git("commit", "-qm", "start")
    index_before = git("ls-files", "-s")
    result = editblocks.apply_edits(sr("m.py", "x = 1\n", "x = 2\n"), tmp_path, git_add=True)
    assert result.ok and git("diff", "--cached", "--name-only").split() == ["m.py"]
    done = editblocks.undo(tmp_path)
    assert any("git index restored" in note for note in done.notes)
    assert git("ls-files", "-s") == index_before and (tmp_path / "m.py").read_text() == "x = 1\n"


# -- several dividers, and files the blocks leave as they were --------------------------------------------------------------------


def test_with_several_dividers_the_file_shows_which_one_separates(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.txt": "x\n=======\ny\n"})
    res = editblocks.apply_edits(_block("a.txt", "x\n=======\ny\n=======\nx\n=======\nz\n"), tmp_path).results[0]
    assert res.status is EditStatus.APPLIED
    assert res.notes == [
        "the block has several '=======' lines; the file shows which one separates SEARCH from REPLACE"
    ]
    assert (tmp_path / "a.txt").read_text() == "x\n=======\nz\n"


def test_blocks_that_leave_a_file_as_it_was_write_nothing(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": "x = 1\ny = 1\n"})
    result = editblocks.apply_edits(sr("m.py", "x = 1\n", "x = 2\n") + sr("m.py", "x = 2\n", "x = 1\n"), tmp_path)
    assert [r.status for r in result.results] == [EditStatus.APPLIED, EditStatus.APPLIED]
    assert result.files_modified == [] and result.diffs == {}
    dry = editblocks.apply_edits(sr("m.py", "x = 1\n", "x = 2\n"), tmp_path, dry_run=True)
    assert dry.dry_run and dry.files_modified == ["m.py"]
    assert dry.diffs["m.py"] == "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n-x = 1\n+x = 2\n y = 1\n"
    assert (tmp_path / "m.py").read_text() == "x = 1\ny = 1\n"


# -- where a block says it goes: a scope, the end of the file, a line ------------------------------------------------------------

CLASSES = "class A:\n    def f(self):\n        return 1\n\n\nclass B:\n    def g(self):\n        return 2\n"


def test_a_block_found_only_outside_its_scope_says_so(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": CLASSES})
    reply = (
        "*** Begin Patch\n*** Update File: m.py\n@@ class A:\n-        return 2\n+        return 20\n*** End Patch\n"
    )
    res = editblocks.apply_edits(reply, tmp_path).results[0]
    assert res.status is EditStatus.APPLIED and res.estimated_line == 8
    assert res.notes == ["found at line 8, outside 'class A:' (the text occurs only there)"]
    assert (tmp_path / "m.py").read_text() == CLASSES.replace("return 2", "return 20")


def test_a_block_marked_for_the_end_found_elsewhere_says_so(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": "x = 1\ny = 2\nz = 3\n"})
    reply = "*** Begin Patch\n*** Update File: m.py\n@@\n-x = 1\n+x = 10\n*** End of File\n*** End Patch\n"
    res = editblocks.apply_edits(reply, tmp_path).results[0]
    assert res.status is EditStatus.APPLIED
    assert res.notes == ["found at line 1, not at the end of the file (the text occurs only there)"]
    assert (tmp_path / "m.py").read_text() == "x = 10\ny = 2\nz = 3\n"


def test_a_block_found_just_beyond_the_hint_window_says_how_far(tmp_path: Path) -> None:
    lines = "".join(f"v{k} = {k}\n" for k in range(60))
    for hint, notes in (
        (44, []),
        (45, ["found at line 4, 41 lines from the hinted line 45 (the text occurs only there)"]),
    ):
        write_tree(tmp_path, {"m.py": lines})
        reply = f"```diff\n--- a/m.py\n+++ b/m.py\n@@ -{hint},1 +{hint},1 @@\n-v3 = 3\n+v3 = 33\n```\n"
        res = editblocks.apply_edits(reply, tmp_path).results[0]
        assert res.status is EditStatus.APPLIED and res.estimated_line == 4 and res.notes == notes, hint
        assert (tmp_path / "m.py").read_text() == lines.replace("v3 = 3\n", "v3 = 33\n")


def test_a_sketch_of_three_parts_that_each_add_lines_merges_each_where_it_belongs(tmp_path: Path) -> None:
    text = "import os\n\nA = 1\n\nB = 2\n\nC = 3\n\nD = 4\n"
    (tmp_path / "a.py").write_text(text)
    res = _sketch(
        tmp_path, ELIDED + "A = 1\nA2 = 111\n" + ELIDED + "B = 2\nB2 = 222\n" + ELIDED + "C = 3\nC2 = 333\n" + ELIDED
    )
    assert res.status is EditStatus.APPLIED, res.reason
    assert res.span == (11, 31) and res.replaced == "A = 1\n\nB = 2\n\nC = 3\n"
    assert res.replacement == "A = 1\nA2 = 111\n\nB = 2\nB2 = 222\n\nC = 3\nC2 = 333\n"
    assert (
        tmp_path / "a.py"
    ).read_text() == "import os\n\nA = 1\nA2 = 111\n\nB = 2\nB2 = 222\n\nC = 3\nC2 = 333\n\nD = 4\n"


def test_numbers_up_to_a_blank_line_then_an_unnumbered_line_are_left_as_written(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": "a = 1\n\nb = 2\n"})
    res = editblocks.apply_edits(sr("m.py", "12 | a = 1\n\nb = 2\n", "12 | a = 10\n\n14 | b = 2\n"), tmp_path).results[
        0
    ]
    assert res.status is EditStatus.FAILED
    assert (tmp_path / "m.py").read_text() == "a = 1\n\nb = 2\n"


def test_a_tolerant_match_ending_in_a_blank_line_reports_it(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": "a = 1\n    b = 2   \n\nd = 4\n"})
    # aider's reading drops one trailing empty line: SEARCH and REPLACE each end with one blank line.
    reply = sr("m.py", "    b = 2\n\n\n", "    b = 20\n\n\n")
    res = editblocks.apply_edits(reply, tmp_path, match="tolerant").results[0]
    assert res.status is EditStatus.APPLIED and res.matched_text == "    b = 2   \n\n"
    assert (tmp_path / "m.py").read_text() == "a = 1\n    b = 20\n\nd = 4\n"


def test_a_line_of_three_dots_is_code_in_python_and_an_elision_elsewhere(tmp_path: Path) -> None:
    for path in ("a.py", "a.pyi", "a.txt"):
        write_tree(tmp_path, {path: "def f():\n    return 1\n"})
        res = editblocks.apply_edits(
            sr(path, "def f():\n    return 1\n", "def f():\n    ...\n    return 1\n"), tmp_path
        )
        if path == "a.txt":
            assert res.results[0].status is EditStatus.FAILED
            assert (tmp_path / path).read_text() == "def f():\n    return 1\n"
        else:
            assert res.results[0].status is EditStatus.APPLIED, path
            assert (tmp_path / path).read_text() == "def f():\n    ...\n    return 1\n"


def test_a_markdown_title_underline_may_be_appended(tmp_path: Path) -> None:
    write_tree(tmp_path, {"README.md": "Intro\n\ntext\n"})
    res = editblocks.apply_edits(sr("README.md", "", "\nUsage\n=======\n\nrun it\n"), tmp_path).results[0]
    assert res.status is EditStatus.APPLIED, res.reason
    assert (tmp_path / "README.md").read_text() == "Intro\n\ntext\n\nUsage\n=======\n\nrun it\n"


def test_a_sketch_of_one_definition_may_make_a_long_definition_short(tmp_path: Path) -> None:
    body = "".join(f"    v{k} = {k}\n" for k in range(30))
    text = f"def small():\n    return 1\n\n\ndef big():\n{body}    return v0\n\n\ndef tail():\n    return 2\n"
    (tmp_path / "a.py").write_text(text)
    res = _sketch(tmp_path, "def big():\n    return 0\n")
    assert res.status is EditStatus.APPLIED and res.strategy == "definition", res.reason
    assert (
        tmp_path / "a.py"
    ).read_text() == "def small():\n    return 1\n\n\ndef big():\n    return 0\n\n\ndef tail():\n    return 2\n"


def test_an_edit_converts_to_a_sketch_in_the_files_own_comment_syntax(tmp_path: Path) -> None:
    js = "function a() {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n\nfunction c() {\n  return 3;\n}\n"
    (tmp_path / "m.js").write_text(js)
    done = editblocks.convert_reply(sr("m.js", "  return 2;\n", "  return 20;\n"), "lazy", root=tmp_path)
    assert done.problems == []
    elided = "// ... existing code ...\n"
    assert done.text == "m.js\n```\n" + elided + "function b() {\n  return 20;\n}\n" + elided + "```\n"


def test_a_result_carries_the_replys_format_commands_and_a_git_add_that_could_not_stage(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": "x = 1\n"})
    reply = "Run this:\n```bash\npip install requests\n```\n" + sr("m.py", "x = 1\n", "x = 2\n")
    result = editblocks.apply_edits(reply, tmp_path, git_add=True)
    assert result.format == "diff" and not result.dry_run
    assert result.shell_suggestions == ["pip install requests"]
    assert [w.message for w in result.warnings] == ["git add: not a git work tree; nothing staged"]
    assert result.files_modified == ["m.py"] and (tmp_path / "m.py").read_text() == "x = 2\n"
    dry = editblocks.apply_edits(sr("m.py", "x = 2\n", "x = 3\n"), tmp_path, dry_run=True, git_add=True)
    assert dry.dry_run and dry.warnings == [] and dry.files_modified == ["m.py"]
    assert (tmp_path / "m.py").read_text() == "x = 2\n"


def test_numbers_are_stripped_even_when_the_file_has_a_line_of_just_the_first_number(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.txt": "a = 1\nb = 2\n1\n"})
    res = editblocks.apply_edits(sr("m.txt", "1 | a = 1\n2 | b = 2\n", "1 | a = 10\n2 | b = 2\n"), tmp_path).results[0]
    assert res.status is EditStatus.APPLIED, res.reason
    assert (tmp_path / "m.txt").read_text() == "a = 10\nb = 2\n1\n"


def test_a_sketch_into_a_blank_file_is_written_whole_with_a_final_newline(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.py": b"  "})
    assert _sketch(tmp_path, "def f():\n    return 1\n").status is EditStatus.APPLIED
    assert (tmp_path / "a.py").read_bytes() == b"def f():\n    return 1\n"
    # An empty file has no syntax to keep: a sketch that does not parse is written, with a note.
    write_tree(tmp_path, {"b.py": b""})
    res = _sketch(tmp_path, "def f(:\n    return 1\n", path="b.py")
    assert res.status is EditStatus.APPLIED and res.strategy == "create"
    assert res.notes == ["b.py parsed before this reply and no longer does after its blocks (line 1: invalid syntax)"]
    assert (tmp_path / "b.py").read_bytes() == b"def f(:\n    return 1\n"


def test_an_edit_removing_a_long_run_of_lines_does_not_convert_to_a_sketch(tmp_path: Path) -> None:
    body = "".join(f"    v{k} = {k}\n" for k in range(30))
    text = (
        f"def a():\n    return 1\n\n\ndef big():\n    start = 0\n{body}    return start\n\n\ndef c():\n    return 3\n"
    )
    (tmp_path / "a.py").write_text(text)
    done = editblocks.convert_reply(sr("a.py", "    start = 0\n" + body, "    start = 0\n"), "lazy", root=tmp_path)
    assert done.text == ""
    assert done.problems == [
        "block at reply line 3 for a.py: as a sketch of the file, this edit would not merge only where it belongs"
    ]


def test_a_streamed_operation_whose_chunk_cannot_be_read_fails_every_chunk_saying_why(tmp_path: Path) -> None:
    text = "a\nb\nc\nd\ne\nz\n"
    write_tree(tmp_path, {"f.txt": text})
    reply = "*** Begin Patch\n*** Update File: f.txt\n@@\n-a\n+A\n@@\n c\nd\n-e\n+E\n*** End Patch\n"
    result = editblocks.apply_edits((reply[i : i + 5] for i in range(0, len(reply), 5)), tmp_path)
    assert [r.status for r in result.results] == [EditStatus.FAILED]
    reason = result.results[0].reason or ""
    assert reason.startswith("not applied: a chunk of this file operation could not be read (reply line 6: ")
    assert reason.endswith("; a file's chunks apply all or none")
    assert (tmp_path / "f.txt").read_text() == text


def test_a_sketch_that_would_write_a_marker_or_a_foreign_elision_line_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(MODULE)
    tail = "\n\ndef h():\n    return 9\n"
    res = _sketch(tmp_path, ELIDED + "def g():\n    return 1\n<<<<<<< HEAD\n" + tail)
    assert res.status is EditStatus.FAILED and res.estimated_line == 10
    assert (res.reason or "").startswith(
        "the sketch for a.py is not merged: the edit would write the line '<<<<<<< HEAD' into a.py"
    )
    res = _sketch(tmp_path, ELIDED + "def g():\n    return 1\n    (* ... *)\n" + tail)
    assert res.status is EditStatus.FAILED
    assert (res.reason or "").startswith(
        "the sketch for a.py is not merged: the merge would write the line '(* ... *)' into a.py"
    )
    assert (tmp_path / "a.py").read_text() == MODULE


def test_an_edit_found_tolerantly_never_writes_a_marker_line(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": "a = 1\nb = 2   \nc = 3\n"})
    block = editblocks.EditBlock("m.py", "b = 2\n", "b = 3\n<<<<<<< HEAD\n")
    res = editblocks.apply_edits([block], tmp_path, match="tolerant").results[0]
    assert res.status is EditStatus.FAILED
    assert (res.reason or "").startswith("the edit would write the line '<<<<<<< HEAD' into m.py")
    assert (tmp_path / "m.py").read_text() == "a = 1\nb = 2   \nc = 3\n"


def test_a_file_deleted_then_given_whole_holds_the_new_content(tmp_path: Path) -> None:
    write_tree(tmp_path, {"w.py": "x = 1\n"})
    blocks = [
        editblocks.EditBlock("w.py", delete=True, format="patch"),
        editblocks.EditBlock("w.py", new_lines="y = 2\n", whole_file=True, format="whole"),
    ]
    result = editblocks.apply_edits(blocks, tmp_path)
    assert [(r.status, r.strategy) for r in result.results] == [
        (EditStatus.APPLIED, "delete"),
        (EditStatus.APPLIED, "whole"),
    ]
    assert read_tree(tmp_path) == {"w.py": b"y = 2\n"}


def test_several_dividers_with_several_readings_in_the_file_are_refused_with_the_place(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.txt": "a\n=======\nb\n"})
    res = editblocks.apply_edits(_block("a.txt", "a\n=======\n=======\n"), tmp_path).results[0]
    assert res.status is EditStatus.FAILED and res.estimated_line == 1
    assert (res.reason or "").startswith(
        "the block has several '=======' lines, so where SEARCH ends is unclear, and several readings of it are in the file"
    )
    assert (tmp_path / "a.txt").read_text() == "a\n=======\nb\n"


def test_a_chunk_after_a_failed_one_reports_its_file(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": "a = 1\nd = 4\n"})
    reply = "*** Begin Patch\n*** Update File: m.py\n@@\n-zz = 1\n+zz = 2\n@@\n-d = 4\n+d = 40\n*** End Patch\n"
    result = editblocks.apply_edits(reply, tmp_path, continue_after_failure=True)
    assert [(r.file_path, r.status) for r in result.results] == [("m.py", EditStatus.FAILED)] * 2
    assert (tmp_path / "m.py").read_text() == "a = 1\nd = 4\n"
