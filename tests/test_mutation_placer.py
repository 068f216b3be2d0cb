"""Placing blocks in files, pinned on outcomes through :func:`editblocks.apply_edits`: an edit
applied before is skipped (and only then), empty SEARCH appends, drifted files keep only certain
blocks, a file operation's chunks apply all or none, and what a result reports about its place."""

from __future__ import annotations

from pathlib import Path

import editblocks
from editblocks import EditStatus

from .helpers import sr, write_tree

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
