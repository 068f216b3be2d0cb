"""The undo journal: every apply that writes can be undone, and undo never loses a later change."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import editblocks
from editblocks.files.journal import KEEP_ENTRIES

from .helpers import read_tree, sr, write_tree


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "editblocks", *args], capture_output=True, text=True, timeout=60, cwd=cwd
    )


def test_undo_restores_changed_files_byte_for_byte_and_deletes_created_ones(root: Path) -> None:
    write_tree(root, {"a.py": b"a = 1\r\nb = 2\r\n", "docs/readme.txt": b"caf\xe9\n"})
    os.chmod(root / "a.py", 0o640)
    before = read_tree(root)
    reply = (
        sr("a.py", "a = 1\n", "a = 10\n")
        + sr("docs/readme.txt", "caf\u00e9\n", "caf\u00e9 au lait\n")
        + sr("new/deep/mod.py", "", "x = 1\n")
    )
    result = editblocks.apply_edits(reply, root)
    assert result.ok
    assert read_tree(root) != before

    done = editblocks.undo(root)
    assert sorted(done.restored) == ["a.py", "docs/readme.txt"]
    assert done.deleted == ["new/deep/mod.py"]
    assert read_tree(root) == before
    assert not (root / "new").exists(), "folders the apply created are removed"
    assert stat.S_IMODE((root / "a.py").stat().st_mode) == 0o640


def test_history_lists_applies_newest_first_and_marks_undone(root: Path) -> None:
    write_tree(root, {"a.py": "v = 0\n"})
    editblocks.apply_edits(sr("a.py", "v = 0\n", "v = 1\n"), root)
    editblocks.apply_edits(sr("a.py", "v = 1\n", "v = 2\n") + sr("b.py", "", "new\n"), root)
    entries = editblocks.undo_history(root)
    assert [e.id for e in entries] == [2, 1]
    assert [(f.path, f.created) for f in entries[0].files] == [("a.py", False), ("b.py", True)]
    editblocks.undo(root)
    assert [e.state for e in editblocks.undo_history(root)] == ["undone", "applied"]


def test_undo_walks_back_one_apply_at_a_time(root: Path) -> None:
    write_tree(root, {"a.py": "v = 0\n"})
    for i in range(3):
        assert editblocks.apply_edits(sr("a.py", f"v = {i}\n", f"v = {i + 1}\n"), root).ok
    for expected in ("v = 2\n", "v = 1\n", "v = 0\n"):
        editblocks.undo(root)
        assert (root / "a.py").read_text() == expected
    with pytest.raises(editblocks.UndoError, match="nothing to undo"):
        editblocks.undo(root)


def test_undo_refuses_when_a_file_changed_since_the_apply_and_restores_nothing(root: Path) -> None:
    write_tree(root, {"a.py": "a = 1\n", "b.py": "b = 1\n"})
    editblocks.apply_edits(sr("a.py", "a = 1\n", "a = 2\n") + sr("b.py", "b = 1\n", "b = 2\n"), root)
    (root / "b.py").write_text("b = 2\n# the user's own later work\n")
    with pytest.raises(editblocks.UndoError) as err:
        editblocks.undo(root)
    message = str(err.value)
    assert "b.py" in message and "changed since apply #1" in message and "nothing was restored" in message
    assert "a.py" not in message.split("\n", 1)[1]
    assert (root / "a.py").read_text() == "a = 2\n"
    assert (root / "b.py").read_text() == "b = 2\n# the user's own later work\n"
    assert editblocks.undo_history(root)[0].state == "applied"


def test_undo_refuses_when_a_created_file_was_edited_or_a_file_deleted(root: Path) -> None:
    write_tree(root, {"a.py": "a = 1\n"})
    editblocks.apply_edits(sr("new.py", "", "n = 1\n"), root)
    (root / "new.py").write_text("n = 1\nmore = 2\n")
    with pytest.raises(editblocks.UndoError, match="new.py: changed"):
        editblocks.undo(root)
    assert (root / "new.py").exists()

    root2 = root.parent / "other"
    root2.mkdir()
    write_tree(root2, {"a.py": "a = 1\n"})
    editblocks.apply_edits(sr("a.py", "a = 1\n", "a = 2\n"), root2)
    (root2 / "a.py").unlink()
    with pytest.raises(editblocks.UndoError, match="a.py: deleted"):
        editblocks.undo(root2)
    assert not (root2 / "a.py").exists()


def test_a_file_already_put_back_by_hand_is_left_alone(root: Path) -> None:
    write_tree(root, {"a.py": "a = 1\n", "b.py": "b = 1\n"})
    editblocks.apply_edits(sr("a.py", "a = 1\n", "a = 2\n") + sr("b.py", "b = 1\n", "b = 2\n"), root)
    (root / "a.py").write_text("a = 1\n")
    done = editblocks.undo(root)
    assert done.unchanged == ["a.py"] and done.restored == ["b.py"]
    assert read_tree(root) == {"a.py": b"a = 1\n", "b.py": b"b = 1\n"}


def test_nothing_is_recorded_for_dry_runs_failed_applies_or_journal_false(root: Path) -> None:
    write_tree(root, {"a.py": "a = 1\n"})
    editblocks.apply_edits(sr("a.py", "a = 1\n", "a = 2\n"), root, dry_run=True)
    editblocks.apply_edits(sr("a.py", "missing\n", "a = 2\n"), root)
    editblocks.apply_edits(sr("a.py", "a = 1\n", "a = 3\n"), root, journal=False)
    assert (root / "a.py").read_text() == "a = 3\n"
    assert editblocks.undo_history(root) == []
    with pytest.raises(editblocks.UndoError, match="no apply has been recorded"):
        editblocks.undo(root)


def test_journal_keeps_the_last_entries_and_only_their_saved_contents(root: Path) -> None:
    write_tree(root, {"a.py": "v = 0\n"})
    total = KEEP_ENTRIES + 3
    for i in range(total):
        editblocks.apply_edits(sr("a.py", f"v = {i}\n", f"v = {i + 1}\n"), root)
    entries = editblocks.undo_history(root)
    assert len(entries) == KEEP_ENTRIES and entries[0].id == total
    objects = os.listdir(root / ".editblocks" / "objects")
    assert len(objects) == KEEP_ENTRIES
    editblocks.undo(root)
    assert (root / "a.py").read_text() == f"v = {total - 1}\n"


def test_journal_folder_is_ignored_by_git(root: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    write_tree(root, {"a.py": "a = 1\n"})
    editblocks.apply_edits(sr("a.py", "a = 1\n", "a = 2\n"), root, git_add=True)
    assert (root / ".editblocks" / ".gitignore").read_text().splitlines()[-1] == "*"
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"], cwd=root, capture_output=True, text=True, check=True
    ).stdout
    assert ".editblocks" not in status
    assert "A  a.py" in status


def test_cli_undo_and_list(root: Path) -> None:
    write_tree(root, {"a.py": "a = 1\n"})
    (root.parent / "r1.md").write_text(sr("a.py", "a = 1\n", "a = 2\n") + sr("b.py", "", "b = 1\n"))
    assert _cli("apply", str(root.parent / "r1.md"), "--root", str(root)).returncode == 0

    listed = _cli("undo", "--list", "--root", str(root))
    assert listed.returncode == 0
    assert "#1" in listed.stdout and "a.py (changed)" in listed.stdout and "b.py (created)" in listed.stdout
    as_json = json.loads(_cli("undo", "--list", "--json", "--root", str(root)).stdout)
    assert as_json[0]["state"] == "applied"

    undone = _cli("undo", "--root", str(root))
    assert undone.returncode == 0, undone.stderr
    assert "restored a.py" in undone.stdout and "deleted  b.py" in undone.stdout
    assert read_tree(root) == {"a.py": b"a = 1\n"}

    again = _cli("undo", "--root", str(root))
    assert again.returncode == 1
    assert "nothing to undo" in again.stderr


def test_cli_undo_refusal_exits_1_with_the_reason(root: Path) -> None:
    write_tree(root, {"a.py": "a = 1\n"})
    (root.parent / "r.md").write_text(sr("a.py", "a = 1\n", "a = 2\n"))
    assert _cli("apply", str(root.parent / "r.md"), "--root", str(root)).returncode == 0
    (root / "a.py").write_text("a = 2  # edited later\n")
    out = _cli("undo", "--root", str(root))
    assert out.returncode == 1
    assert "a.py: changed since apply #1" in out.stderr
    assert (root / "a.py").read_text() == "a = 2  # edited later\n"


def test_undo_uses_the_current_folder_by_default(root: Path) -> None:
    write_tree(root, {"a.py": "a = 1\n"})
    editblocks.apply_edits(sr("a.py", "a = 1\n", "a = 2\n"), root)
    out = _cli("undo", cwd=root)
    assert out.returncode == 0, out.stderr
    assert (root / "a.py").read_text() == "a = 1\n"


def test_state_folder_that_is_a_link_out_of_the_root_is_refused(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (root / ".editblocks").symlink_to(outside, target_is_directory=True)
    write_tree(root, {"a.py": "a = 1\n"})
    result = editblocks.apply_edits(sr("a.py", "a = 1\n", "a = 2\n"), root)
    r = result.results[0]
    assert r.status is editblocks.EditStatus.FAILED
    assert "symbolic link" in (r.reason or "")
    assert result.files_modified == []
    assert os.listdir(outside) == []
    assert (root / "a.py").read_text() == "a = 1\n"
