"""Deleting and moving files (``patch``, ``udiff``): inside the root, in reply order, journaled for undo,
refusable, all or nothing with the rest of the apply."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

import editblocks
from editblocks import EditBlock, EditStatus, apply_edits, undo
from editblocks.cli import main

from .helpers import read_tree, write_tree

FILES = {"src/a.py": "a = 1\n", "src/b.py": "b = 1\r\nc = 2\r\n", "keep.txt": "keep\n"}

DELETE_AND_MOVE = """*** Begin Patch
*** Delete File: src/a.py
*** Update File: src/b.py
*** Move to: lib/deep/b2.py
@@
-b = 1
+b = 10
*** End Patch
"""


def test_delete_and_move_then_undo(root: Path) -> None:
    write_tree(root, FILES)
    os.chmod(root / "src" / "b.py", 0o640)
    result = apply_edits(DELETE_AND_MOVE, root)
    assert result.ok, [r.reason for r in result.results]
    assert [r.block.kind for r in result.results] == ["delete", "move"]
    assert result.results[1].moved_to == "lib/deep/b2.py"
    assert sorted(result.files_modified) == ["lib/deep/b2.py", "src/a.py", "src/b.py"]
    assert sorted(result.files_deleted) == ["src/a.py", "src/b.py"]
    tree = read_tree(root)
    # The moved file keeps its line endings and mode bits, and carries the edit.
    assert tree == {"keep.txt": b"keep\n", "lib/deep/b2.py": b"b = 10\r\nc = 2\r\n"}
    assert oct(os.stat(root / "lib" / "deep" / "b2.py").st_mode & 0o777) == oct(0o640)
    assert result.diffs["src/a.py"].count("\n-a = 1") == 1
    entry = editblocks.undo_history(root)[0]
    assert "src/a.py (deleted)" in entry.describe() and "lib/deep/b2.py (created)" in entry.describe()

    done = undo(root)
    assert sorted(done.restored) == ["src/a.py", "src/b.py"] and done.deleted == ["lib/deep/b2.py"]
    assert read_tree(root) == {k: v.encode() for k, v in FILES.items()}
    assert not (root / "lib").exists()  # the folders the move created are gone again
    assert oct(os.stat(root / "src" / "b.py").st_mode & 0o777) == oct(0o640)


def test_undo_refuses_when_a_deleted_file_came_back(root: Path) -> None:
    write_tree(root, FILES)
    assert apply_edits("*** Begin Patch\n*** Delete File: src/a.py\n*** End Patch\n", root).ok
    (root / "src" / "a.py").write_text("someone else's\n")
    with pytest.raises(editblocks.UndoError):
        undo(root)
    assert (root / "src" / "a.py").read_text() == "someone else's\n"


def test_dry_run_deletes_nothing(root: Path) -> None:
    write_tree(root, FILES)
    result = apply_edits(DELETE_AND_MOVE, root, dry_run=True)
    assert result.ok and sorted(result.files_deleted) == ["src/a.py", "src/b.py"]
    assert result.after["src/a.py"] == "" and result.after["lib/deep/b2.py"] == "b = 10\nc = 2\n"
    assert read_tree(root) == {k: v.encode() for k, v in FILES.items()}


def test_no_delete_refuses_deletes_and_moves(root: Path) -> None:
    write_tree(root, FILES)
    result = apply_edits(DELETE_AND_MOVE, root, allow_delete=False)
    assert [r.status for r in result.results] == [EditStatus.FAILED, EditStatus.FAILED]
    assert all("not allowed" in (r.reason or "") for r in result.results)
    assert read_tree(root) == {k: v.encode() for k, v in FILES.items()}
    # The move's edit is not applied either: the block is refused before anything changes.
    assert result.files_modified == []


def test_atomic_apply_holds_back_deletes(root: Path) -> None:
    write_tree(root, FILES)
    reply = DELETE_AND_MOVE.replace("*** End Patch", "*** Update File: keep.txt\n@@\n-not there\n+x\n*** End Patch")
    result = apply_edits(reply, root, atomic=True)
    assert result.results[-1].status is EditStatus.FAILED
    assert read_tree(root) == {k: v.encode() for k, v in FILES.items()}


def test_delete_refuses_a_path_resolved_by_name_and_a_missing_file(root: Path) -> None:
    write_tree(root, FILES)
    result = apply_edits("*** Begin Patch\n*** Delete File: a.py\n*** Delete File: nope.py\n*** End Patch\n", root)
    first, second = result.results
    assert first.status is EditStatus.FAILED and "exact path" in (first.reason or "")
    assert second.status is EditStatus.FAILED and "not found" in (second.reason or "").lower()
    assert (root / "src" / "a.py").exists()


def test_delete_of_a_changed_file_is_refused_under_drift(root: Path) -> None:
    write_tree(root, FILES)
    result = apply_edits(
        "*** Begin Patch\n*** Delete File: src/a.py\n*** End Patch\n", root, base={"src/a.py": "a = 0\n"}
    )
    (res,) = result.results
    assert res.status is EditStatus.FAILED and "not deleted" in (res.reason or "")
    assert (root / "src" / "a.py").exists()
    moved = apply_edits(
        "*** Begin Patch\n*** Update File: src/a.py\n*** Move to: src/z.py\n*** End Patch\n",
        root,
        base={"src/a.py": "a = 0\n"},
    )
    assert moved.results[0].status is EditStatus.FAILED and not (root / "src" / "z.py").exists()
    assert moved.files_modified == []


def test_streamed_reply_deletes_and_moves_the_same(root: Path) -> None:
    write_tree(root, FILES)
    chunks = [DELETE_AND_MOVE[i : i + 5] for i in range(0, len(DELETE_AND_MOVE), 5)]
    result = apply_edits(iter(chunks), root)
    assert result.ok and sorted(result.files_deleted) == ["src/a.py", "src/b.py"]
    assert sorted(read_tree(root)) == ["keep.txt", "lib/deep/b2.py"]


def test_blocks_as_objects(root: Path) -> None:
    write_tree(root, FILES)
    blocks = [
        EditBlock("keep.txt", move_to="moved/keep.txt"),
        EditBlock("moved/keep.txt", old_lines="keep\n", new_lines="kept\n"),
    ]
    result = apply_edits(blocks, root)
    assert result.ok and (root / "moved" / "keep.txt").read_text() == "kept\n"


def test_move_into_git_folder_or_out_of_the_root_is_refused(root: Path) -> None:
    write_tree(root, FILES)
    for target in (".git/config", "../escape.py", "/tmp/abs.py", ".editblocks/x"):
        result = apply_edits([EditBlock("keep.txt", move_to=target)], root)
        assert result.results[0].status is EditStatus.FAILED, target
    assert read_tree(root.parent) == {f"project/{k}": v.encode() for k, v in FILES.items()}


def test_cli_no_delete_and_json(root: Path, tmp_path: Path) -> None:
    write_tree(root, FILES)
    reply = tmp_path / "reply.md"
    reply.write_text(DELETE_AND_MOVE)
    runner = CliRunner()
    refused = runner.invoke(main, ["apply", str(reply), "--root", str(root), "--no-delete", "--json"])
    assert refused.exit_code == 1
    data = json.loads(refused.output)
    assert [r["status"] for r in data["results"]] == ["failed", "failed"]
    assert [r["kind"] for r in data["results"]] == ["delete", "move"]
    done = runner.invoke(main, ["apply", str(reply), "--root", str(root), "--json"])
    assert done.exit_code == 0, done.output
    data = json.loads(done.output)
    assert sorted(data["files_deleted"]) == ["src/a.py", "src/b.py"]
    assert data["results"][1]["moved_to"] == "lib/deep/b2.py"
    listed = runner.invoke(main, ["undo", "--root", str(root), "--list"])
    assert "src/a.py (deleted)" in " ".join(listed.output.split())  # the terminal may wrap the line
    undone = runner.invoke(main, ["undo", "--root", str(root)])
    assert undone.exit_code == 0 and (root / "src" / "a.py").exists()


def test_cli_check_shows_kinds(tmp_path: Path) -> None:
    reply = tmp_path / "reply.md"
    reply.write_text(DELETE_AND_MOVE)
    out = CliRunner().invoke(main, ["check", str(reply), "--json"])
    assert [b["kind"] for b in json.loads(out.output)["blocks"]] == ["delete", "move"]


def test_links_are_not_deleted_or_moved(root: Path) -> None:
    write_tree(root, FILES)
    os.symlink("keep.txt", root / "link.txt")
    for reply in (
        "*** Begin Patch\n*** Delete File: link.txt\n*** End Patch\n",
        "*** Begin Patch\n*** Update File: link.txt\n*** Move to: moved.txt\n*** End Patch\n",
    ):
        (res,) = apply_edits(reply, root).results
        assert res.status is EditStatus.FAILED and "symbolic link" in (res.reason or "")
    assert (root / "link.txt").is_symlink() and (root / "keep.txt").read_text() == "keep\n"
