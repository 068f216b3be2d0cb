"""Applying: inputs accepted, dry runs and diffs, line alignment, path safety, result fields."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import editblocks
from editblocks import EditBlock, EditStatus, parse_reply

from .helpers import apply_to, read_tree, sr, v2, write_tree


def test_accepts_text_parsed_response_and_block_list(root: Path) -> None:
    reply = sr("a.py", "x = 1\n", "x = 2\n")
    for source in (reply, parse_reply(reply), parse_reply(reply).blocks):
        write_tree(root, {"a.py": "x = 1\n"})
        result = editblocks.apply_edits(source, root)
        assert result.ok
        assert (root / "a.py").read_text() == "x = 2\n"


def test_hand_built_block_applies(root: Path) -> None:
    write_tree(root, {"a.py": "one\ntwo\nthree\n"})
    block = EditBlock(
        file_path="a.py",
        anchor="one\n",
        old_lines="two\n",
        new_lines="2\n",
        trailing_anchor="three\n",
        format="edit-v2",
    )
    result = editblocks.apply_edits([block], root)
    assert [r.status for r in result.results] == [EditStatus.APPLIED]
    assert (root / "a.py").read_text() == "one\n2\nthree\n"


def test_dry_run_writes_nothing_and_returns_diffs(root: Path) -> None:
    write_tree(root, {"a.py": "x = 1\ny = 1\n"})
    reply = sr("a.py", "x = 1\n", "x = 2\n") + sr("pkg/new.py", "", "NEW = 1\n")
    before = read_tree(root)
    result = editblocks.apply_edits(reply, root, dry_run=True)
    assert read_tree(root) == before
    assert not (root / "pkg").exists()
    assert result.dry_run and result.ok
    assert sorted(result.files_modified) == ["a.py", "pkg/new.py"]
    assert result.diffs["a.py"] == "--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n-x = 1\n+x = 2\n y = 1\n"
    assert result.diffs["pkg/new.py"].startswith("--- /dev/null\n+++ b/pkg/new.py\n")
    assert "+NEW = 1\n" in result.diffs["pkg/new.py"]


def test_diff_marks_missing_final_newline(root: Path) -> None:
    write_tree(root, {"a.txt": "a\nb"})
    result = editblocks.apply_edits(sr("a.txt", "a\n", "A\n"), root, dry_run=True)
    assert "\\ No newline at end of file" in result.diffs["a.txt"]


def test_unchanged_result_is_not_a_modified_file(root: Path) -> None:
    write_tree(root, {"a.py": "x = 1\n"})
    result = editblocks.apply_edits(v2("a.py", "", "x = 1\n", "x = 1\n", ""), root)
    assert result.results[0].status is EditStatus.APPLIED
    assert result.files_modified == []


def test_matching_is_line_aligned(root: Path) -> None:
    # "value = 1" occurs inside line 1 and as the whole of line 2: only line 2 is a match.
    result, files = apply_to(
        root, {"a.py": "my_value = 1\nvalue = 1\n"}, v2("a.py", "", "value = 1\n", "value = 2\n", "")
    )
    assert (result.results[0].status, result.results[0].estimated_line) == (EditStatus.APPLIED, 2)
    assert files["a.py"] == "my_value = 1\nvalue = 2\n"
    # A searched line never matches the end or start of a longer file line.
    result, files = apply_to(root, {"b.py": "xb\nc\nd\n"}, v2("b.py", "", "b\nc\n", "B\nC\n", ""))
    assert result.results[0].status is EditStatus.FAILED
    assert files["b.py"] == "xb\nc\nd\n"
    result, files = apply_to(root, {"c.py": "a\nbx\n"}, v2("c.py", "", "a\nb\n", "A\nB\n", ""))
    assert result.results[0].status is EditStatus.FAILED
    assert files["c.py"] == "a\nbx\n"


def test_ambiguity_lists_every_line(root: Path) -> None:
    text = "".join("x = 0\n" if i % 7 == 0 else f"line {i}\n" for i in range(1, 100))
    lines = [i for i in range(1, 100) if i % 7 == 0]
    result, files = apply_to(root, {"a.py": text}, v2("a.py", "", "x = 0\n", "x = 1\n", ""))
    reason = result.results[0].reason or ""
    assert reason.startswith("Edit location is ambiguous (matches at lines 7, 14, 21")
    assert all(str(n) in reason for n in lines[:12])
    assert files["a.py"] == text


def test_crlf_file_new_lines_take_crlf(root: Path) -> None:
    write_tree(root, {"w.txt": "a\r\nb\r\n"})
    editblocks.apply_edits(sr("w.txt", "b\n", "b\nc\nd\n"), root)
    assert (root / "w.txt").read_bytes() == b"a\r\nb\r\nc\r\nd\r\n"


def test_create_makes_parent_folders(root: Path) -> None:
    result = editblocks.apply_edits(sr("a/b/c/d.txt", "", "deep\n"), root)
    assert result.ok and (root / "a/b/c/d.txt").read_text() == "deep\n"


def test_empty_search_on_an_existing_file_appends_as_aider_does(root: Path) -> None:
    """In aider's formats a SEARCH of blank lines on a file with content appends REPLACE, never overwrites."""
    result, files = apply_to(root, {"a.py": "keep = 1\n"}, sr("a.py", "\n\n", "new = 2\n"))
    assert result.results[0].status is EditStatus.APPLIED and result.results[0].strategy == "append"
    assert files["a.py"] == "keep = 1\nnew = 2\n"
    again = editblocks.apply_edits(sr("a.py", "", "new = 2\n"), root)
    assert again.results[0].already_applied and (root / "a.py").read_text() == "keep = 1\nnew = 2\n"


def test_empty_search_repeating_the_file_is_a_new_file_over_an_existing_one(root: Path) -> None:
    text = "import os\n\n\ndef main():\n    print(os.getcwd())\n"
    rewritten = "import os\n\n\ndef main():\n    print(os.getcwd())\n    return 0\n"
    result, files = apply_to(root, {"a.py": text}, sr("a.py", "", rewritten))
    assert result.results[0].status is EditStatus.FAILED and "exists" in (result.results[0].reason or "")
    assert files["a.py"] == text


def test_empty_search_outside_aider_formats_is_still_a_create(root: Path) -> None:
    """Other formats keep their rule: nothing to search for on a file with content fails."""
    reply = "a.py\n<<<<<<< EDIT\n-------\n=======\nnew\n-------\n>>>>>>>\n"
    result, files = apply_to(root, {"a.py": "keep = 1\n"}, reply, format="edit-v2")
    assert result.results[0].status is EditStatus.FAILED
    assert files["a.py"] == "keep = 1\n"


# -- path safety -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "../x.txt",
        "../../x.txt",
        "a/../../x.txt",
        "/tmp/editblocks-absolute-test.txt",
        ".git/config",
        ".git/hooks/post-checkout",
        "sub/.git/HEAD",
        "~/x.txt",
    ],
)
def test_paths_leaving_the_root_are_refused(root: Path, path: str) -> None:
    outside_before = sorted(p.name for p in root.parent.parent.iterdir())
    result = editblocks.apply_edits(sr(path, "", "owned\n"), root)
    assert result.results[0].status is EditStatus.FAILED
    assert result.results[0].reason
    assert result.files_modified == []
    assert read_tree(root) == {}
    assert sorted(p.name for p in root.parent.parent.iterdir()) == outside_before
    assert [p.name for p in root.parent.iterdir()] == ["project"]
    assert not Path("/tmp/editblocks-absolute-test.txt").exists()


def test_existing_git_config_is_never_edited(root: Path) -> None:
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n\tbare = false\n")
    result = editblocks.apply_edits(sr(".git/config", "\tbare = false\n", "\tbare = true\n"), root)
    assert result.results[0].status is EditStatus.FAILED
    assert ".git" in (result.results[0].reason or "")
    assert (root / ".git" / "config").read_text() == "[core]\n\tbare = false\n"


def test_symlinked_folder_leading_outside_is_refused(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "target.txt").write_text("outside\n")
    os.symlink(outside, root / "link")
    for reply in (sr("link/target.txt", "outside\n", "owned\n"), sr("link/new.txt", "", "owned\n")):
        result = editblocks.apply_edits(reply, root)
        assert result.results[0].status is EditStatus.FAILED
        assert "root" in (result.results[0].reason or "")
    assert sorted(p.name for p in outside.iterdir()) == ["target.txt"]
    assert (outside / "target.txt").read_text() == "outside\n"


def test_symlinked_file_leading_outside_is_refused(root: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("token = 1\n")
    os.symlink(secret, root / "innocent.txt")
    result = editblocks.apply_edits(sr("innocent.txt", "token = 1\n", "token = 2\n"), root)
    assert result.results[0].status is EditStatus.FAILED
    assert secret.read_text() == "token = 1\n"


def test_symlink_inside_the_root_is_followed(root: Path) -> None:
    write_tree(root, {"real/a.txt": "a\n"})
    os.symlink(root / "real", root / "alias")
    result = editblocks.apply_edits(sr("alias/a.txt", "a\n", "b\n"), root)
    assert result.ok
    assert (root / "real/a.txt").read_text() == "b\n"


def test_failed_path_does_not_stop_other_blocks(root: Path) -> None:
    result, files = apply_to(root, {"ok.txt": "a\n"}, sr("../bad.txt", "", "x\n") + sr("ok.txt", "a\n", "b\n"))
    assert [r.status for r in result.results] == [EditStatus.FAILED, EditStatus.APPLIED]
    assert files == {"ok.txt": "b\n"}


def test_missing_root_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="root"):
        editblocks.apply_edits(sr("a.txt", "", "x\n"), tmp_path / "does-not-exist")
    assert not (tmp_path / "does-not-exist").exists()


# -- result fields -----------------------------------------------------------------------------


def test_result_to_dict_is_json_ready(root: Path) -> None:
    result, _ = apply_to(
        root,
        {"a.py": "x\n"},
        "Run `git rm old.py`.\n\n" + sr("a.py", "x\n", "y\n") + sr("a.py", "zzz_nowhere\n", "q\n"),
    )
    data = json.loads(json.dumps(result.to_dict()))
    assert data["format"] == "diff"
    assert data["files_modified"] == ["a.py"]
    assert data["shell_suggestions"] == ["git rm old.py"]
    assert isinstance(data["warnings"], list)
    rows = data["results"]
    assert [r["status"] for r in rows] == ["applied", "failed"]
    for row in rows:
        assert {"file_path", "status", "reason", "strategy", "estimated_line", "reply_line"} <= set(row)
    assert rows[0]["strategy"] == "exact" and rows[0]["reason"] is None and rows[0]["reply_line"] == 5
    assert rows[1]["reason"] and rows[1]["reply_line"] == 13


def test_status_values_and_str() -> None:
    assert [s.value for s in EditStatus] == ["applied", "failed", "skipped", "already_applied"]
    assert str(EditStatus.SKIPPED) == "skipped"


def test_ok_is_false_without_blocks(root: Path) -> None:
    result = editblocks.apply_edits("No edits in this reply.", root)
    assert result.results == [] and not result.ok


def test_inserting_a_blank_line_is_applied_not_reported_as_already_applied(root: Path) -> None:
    """The newline ending the previous line is not an inserted blank line that is already there."""
    result, files = apply_to(
        root, {"g.py": "def f():\n    return 1\n"}, sr("g.py", "    return 1\n", "\n    return 1\n")
    )
    assert result.results[0].status is EditStatus.APPLIED, result.results[0].reason
    assert files["g.py"] == "def f():\n\n    return 1\n"


def test_reapplying_an_insertion_does_not_duplicate_it(root: Path) -> None:
    reply = sr("g.py", "import os\n", "import os\nimport sys\n")
    write_tree(root, {"g.py": "import os\n\nprint(os.sep)\n"})
    first = editblocks.apply_edits(reply, root)
    assert first.results[0].status is EditStatus.APPLIED
    second = editblocks.apply_edits(reply, root)
    assert second.results[0].status is not EditStatus.APPLIED
    assert second.files_modified == []
    assert (root / "g.py").read_text() == "import os\nimport sys\n\nprint(os.sep)\n"


def test_a_reply_applied_twice_is_already_applied_not_skipped(root: Path) -> None:
    write_tree(root, {"a.py": "x = 1\n", "b.py": "y = 1\n"})
    reply = sr("a.py", "x = 1\n", "x = 2\n") + sr("b.py", "nope\n", "y = 2\n") + sr("b.py", "y = 1\n", "y = 3\n")
    editblocks.apply_edits(reply, root)
    again = editblocks.apply_edits(reply, root)
    statuses = [r.status for r in again.results]
    # The first block's edit is in the file; the third is not tried after the second failed.
    assert statuses == [EditStatus.ALREADY_APPLIED, EditStatus.FAILED, EditStatus.SKIPPED]
    assert again.already_applied == [again.results[0]] and again.skipped == [again.results[2]]
    assert again.results[0].already_applied and not again.results[2].already_applied
    assert [r["status"] for r in again.to_dict()["results"]] == ["already_applied", "failed", "skipped"]
    assert (root / "a.py").read_text() == "x = 2\n" and (root / "b.py").read_text() == "y = 1\n"


def test_apply_with_options_applies_as_apply_edits_does_with_the_same_options(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def f():\n    return 1  \n")
    reply = "a.py\n```\n<<<<<<< SEARCH\ndef f():\n    return 1\n=======\ndef f():\n    return 2\n>>>>>>> REPLACE\n```\n"
    exact = editblocks.apply_with_options(reply, tmp_path, editblocks.ApplyOptions(match="exact"))
    assert exact.results[0].status is EditStatus.FAILED
    dry = editblocks.apply_with_options(reply, tmp_path, editblocks.ApplyOptions(dry_run=True))
    assert dry.results[0].status is EditStatus.APPLIED and dry.after["a.py"] == "def f():\n    return 2\n"
    assert (tmp_path / "a.py").read_text() == "def f():\n    return 1  \n"
