"""A reply applied again: the blocks its last apply made are already applied when the files it
wrote are unchanged since, even where a later block rewrote the lines an earlier one wrote
(judged on the text alone, the earlier block would be found and made a second time)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import editblocks
from editblocks import EditBlock, EditStatus

from .helpers import sr

ORIGINAL = "def wrap(cb):\n    def inner():\n        cb()\n    return inner\n"
# The second block rewrites the line the first one inserts.
REPLY = sr("f.py", "    def inner():\n        cb()\n", "    def inner():\n        cb()\n        log(cb)\n") + sr(
    "f.py", "        log(cb)\n", '        log(cb, "sync")\n'
)
MEANT = 'def wrap(cb):\n    def inner():\n        cb()\n        log(cb, "sync")\n    return inner\n'


def _project(tmp_path: Path) -> Path:
    (tmp_path / "f.py").write_text(ORIGINAL)
    return tmp_path


def test_a_reply_applied_twice_changes_nothing_the_second_time(tmp_path: Path) -> None:
    root = _project(tmp_path)
    first = editblocks.apply_edits(REPLY, root)
    assert [r.status for r in first.results] == [EditStatus.APPLIED, EditStatus.APPLIED]
    assert (root / "f.py").read_text() == MEANT
    for dry_run in (True, False):
        again = editblocks.apply_edits(REPLY, root, dry_run=dry_run)
        assert [r.status for r in again.results] == [EditStatus.ALREADY_APPLIED] * 2
        # The first block's SEARCH is in the file again: the journal says it was made, as it
        # does for the second (whose REPLACE stands where its SEARCH is not, line 4).
        assert all("last apply" in (r.reason or "") and r.strategy == "journal" for r in again.results)
        assert again.results[0].estimated_line is None  # its REPLACE text no longer stands as written
        assert again.results[1].estimated_line == 4
        assert not again.files_modified
        assert (root / "f.py").read_text() == MEANT


def test_without_the_journal_the_text_decides(tmp_path: Path) -> None:
    """What the journal prevents: judged on the text, the first block is found again."""
    root = _project(tmp_path)
    editblocks.apply_edits(REPLY, root, journal=False)
    again = editblocks.apply_edits(REPLY, root, journal=False)
    assert again.results[0].status is EditStatus.APPLIED
    assert (root / "f.py").read_text().count("log(cb") == 2


def test_a_file_changed_since_is_judged_on_its_text(tmp_path: Path) -> None:
    root = _project(tmp_path)
    editblocks.apply_edits(REPLY, root)
    (root / "f.py").write_text(MEANT + "# edited by hand\n")
    again = editblocks.apply_edits(REPLY, root, dry_run=True)
    assert not any("last apply" in (r.reason or "") for r in again.results)


def test_after_undo_the_reply_applies_again(tmp_path: Path) -> None:
    root = _project(tmp_path)
    editblocks.apply_edits(REPLY, root)
    editblocks.undo(root)
    assert (root / "f.py").read_text() == ORIGINAL
    again = editblocks.apply_edits(REPLY, root)
    assert [r.status for r in again.results] == [EditStatus.APPLIED, EditStatus.APPLIED]
    assert (root / "f.py").read_text() == MEANT


def test_only_the_blocks_made_last_time_are_taken_as_made(tmp_path: Path) -> None:
    """A block that failed last time is placed on the text again, as any block is."""
    root = _project(tmp_path)
    reply = REPLY + sr("f.py", "    nowhere()\n", "    somewhere()\n")
    first = editblocks.apply_edits(reply, root, continue_after_failure=True)
    assert [r.status for r in first.results] == [EditStatus.APPLIED, EditStatus.APPLIED, EditStatus.FAILED]
    again = editblocks.apply_edits(reply, root, continue_after_failure=True)
    assert [r.status for r in again.results] == [EditStatus.ALREADY_APPLIED] * 2 + [EditStatus.FAILED]
    assert (root / "f.py").read_text() == MEANT


def test_another_reply_since_on_the_same_file_ends_the_evidence(tmp_path: Path) -> None:
    root = _project(tmp_path)
    editblocks.apply_edits(REPLY, root)
    editblocks.apply_edits(sr("f.py", "    return inner\n", "    return inner  # kept\n"), root)
    again = editblocks.apply_edits(REPLY, root, dry_run=True)
    assert not any("last apply" in (r.reason or "") for r in again.results)


def test_a_block_found_applied_in_a_file_not_written_is_judged_again(tmp_path: Path) -> None:
    """The journal vouches only for files the apply wrote: another file may have changed since."""
    root = _project(tmp_path)
    (root / "g.py").write_text("x = 2\n")
    reply = REPLY + sr("g.py", "x = 1\n", "x = 2\n")  # g.py holds the edit already
    first = editblocks.apply_edits(reply, root)
    assert first.results[2].status is EditStatus.ALREADY_APPLIED
    (root / "g.py").write_text("x = 1\n")  # the edit taken back by hand
    again = editblocks.apply_edits(reply, root)
    assert [r.status for r in again.results] == [EditStatus.ALREADY_APPLIED] * 2 + [EditStatus.APPLIED]
    assert (root / "g.py").read_text() == "x = 2\n" and (root / "f.py").read_text() == MEANT


def test_a_file_out_of_reach_now_fails_as_before_and_nothing_raises(tmp_path: Path) -> None:
    """The journal vouches for a file's content, not for reaching it: a folder swapped for a link
    out of the root since the last apply fails the block as any apply would."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "d").mkdir(parents=True)
    outside.mkdir()
    (root / "d" / "f.py").write_text(ORIGINAL)
    reply = REPLY.replace("f.py", "d/f.py")
    assert editblocks.apply_edits(reply, root).results[0].status is EditStatus.APPLIED
    (outside / "f.py").write_text((root / "d" / "f.py").read_text())
    (root / "d" / "f.py").unlink()
    (root / "d").rmdir()
    (root / "d").symlink_to(outside, target_is_directory=True)
    again = editblocks.apply_edits(reply, root)
    assert again.results[0].status is EditStatus.FAILED
    assert "outside the root" in (again.results[0].reason or "")
    assert (outside / "f.py").read_text() == MEANT


def test_a_move_whose_new_file_cannot_be_written_keeps_the_old_one(tmp_path: Path) -> None:
    """The new file of a move fails to be written (a file size limit, like a full disk): the old
    file is not deleted, and the reply applied again is not called applied."""
    import subprocess
    import sys
    import textwrap

    source = Path(textwrap.__file__).read_text(encoding="utf-8")
    (tmp_path / "textwrap.py").write_text(source, encoding="utf-8")
    added = "".join(f"+EXTRA_{i} = {i}\n" for i in range(2000))
    last = source.rstrip("\n").split("\n")[-1]
    patch = (
        f"*** Begin Patch\n*** Update File: textwrap.py\n*** Move to: wrapped.py\n@@\n {last}\n{added}*** End Patch\n"
    )
    (tmp_path / "reply.patch").write_text(patch, encoding="utf-8")
    code = (
        "import resource, signal, sys, editblocks\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        f"resource.setrlimit(resource.RLIMIT_FSIZE, ({len(source) + 1000}, {len(source) + 1000}))\n"
        "r = editblocks.apply_edits(open('reply.patch').read(), '.')\n"
        "print(r.results[0].status.value, r.results[0].reason)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.stdout.startswith("failed"), out.stdout + out.stderr
    assert (tmp_path / "textwrap.py").read_text(encoding="utf-8") == source
    assert not (tmp_path / "wrapped.py").exists()
    again = editblocks.apply_edits(patch, tmp_path, dry_run=True)
    assert again.results[0].status is not EditStatus.ALREADY_APPLIED


def test_a_block_found_applied_through_another_path_is_judged_again(tmp_path: Path) -> None:
    """A block for ``mod.py``, found applied in ``pkg/mod.py`` (the only file of that name), and a
    block creating ``mod.py``: the journal vouches for ``mod.py`` only, so once ``pkg/mod.py``
    loses the edit the first block is judged on its text again."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text("NAMES = ['a', 'b']  # public\n")
    reply = sr("mod.py", "NAMES = ['a', 'b']\n", "NAMES = ['a', 'b']  # public\n") + sr(
        "mod.py", "", "from pkg.mod import *\n"
    )
    first = editblocks.apply_edits(reply, tmp_path)
    assert first.results[0].status is EditStatus.ALREADY_APPLIED and first.results[0].file_path == "pkg/mod.py"
    (tmp_path / "pkg" / "mod.py").write_text("NAMES = ['a', 'b']\n")
    again = editblocks.apply_edits(reply, tmp_path, dry_run=True)
    assert again.results[0].strategy != "journal" and again.results[0].status is not EditStatus.ALREADY_APPLIED


def test_a_damaged_journal_entry_is_ignored(tmp_path: Path) -> None:
    import json

    root = _project(tmp_path)
    editblocks.apply_edits(REPLY, root)
    (entry,) = (root / ".editblocks" / "journal").glob("*.json")
    for done in (["0"], "0", {"0": 1}, [[0, None]], [[0]], None):
        data = json.loads(entry.read_text())
        data["done"] = done
        entry.write_text(json.dumps(data))
        again = editblocks.apply_edits(REPLY, root, dry_run=True)  # judged on the text, never raises
        assert again.results[0].strategy != "journal"
        assert (root / "f.py").read_text() == MEANT


def test_a_block_whose_path_now_names_another_file_is_judged_again(tmp_path: Path) -> None:
    """Last time ``a.py`` was found only as ``src/a.py``; a file ``a.py`` made since is what the
    block now names: the journal vouches for ``src/a.py``, not for it."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x = 1\n")
    reply = sr("a.py", "x = 1\n", "x = 2\n")
    first = editblocks.apply_edits(reply, tmp_path)
    assert first.results[0].status is EditStatus.APPLIED and (tmp_path / "src" / "a.py").read_text() == "x = 2\n"
    (tmp_path / "a.py").write_text("x = 1\n")
    again = editblocks.apply_edits(reply, tmp_path)
    assert again.results[0].strategy != "journal"
    assert again.results[0].status is EditStatus.APPLIED and (tmp_path / "a.py").read_text() == "x = 2\n"


def test_an_apply_patch_reply_applied_again_is_already_applied(tmp_path: Path) -> None:
    """A chunk of an apply_patch file operation (a group of blocks that apply all or none)."""
    (tmp_path / "a.py").write_text("def f():\n    return 1\n")
    reply = "*** Begin Patch\n*** Update File: a.py\n@@ def f():\n-    return 1\n+    return 2\n*** End Patch\n"
    assert editblocks.apply_edits(reply, tmp_path).results[0].status is EditStatus.APPLIED
    for dry_run in (True, False):
        again = editblocks.apply_edits(reply, tmp_path, dry_run=dry_run)
        assert [(r.status, r.strategy) for r in again.results] == [(EditStatus.ALREADY_APPLIED, "journal")]
    assert (tmp_path / "a.py").read_text() == "def f():\n    return 2\n"


def test_a_file_an_earlier_block_changes_now_is_judged_on_its_text(tmp_path: Path) -> None:
    """Block 1 failed last time and block 2 applied; now block 1 applies and rewrites what block 2
    wrote: the journal vouched for the file as block 2 left it, not as it is now."""
    (tmp_path / "c.py").write_text("a = 0\nx = 1\nb = 0\n")
    reply = sr("c.py", "x = 2\n", "x = 3\n") + sr("c.py", "x = 1\n", "x = 2\n")
    first = editblocks.apply_edits(reply, tmp_path, continue_after_failure=True)
    assert [r.status for r in first.results] == [EditStatus.FAILED, EditStatus.APPLIED]
    again = editblocks.apply_edits(reply, tmp_path, continue_after_failure=True)
    assert again.results[0].status is EditStatus.APPLIED
    assert again.results[1].strategy != "journal" and again.results[1].status is EditStatus.FAILED


def test_a_file_rewritten_after_the_journal_check_is_judged_on_what_was_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another program puts the old text back between the journal's check and the apply's read."""
    from editblocks.files import journal

    (tmp_path / "a.py").write_text("def f():\n    return 1\n")
    blocks = [EditBlock("a.py", "    return 1\n", "    return 2\n")]
    editblocks.apply_edits(blocks, tmp_path)
    checked = journal.Journal.unchanged_since

    def racing(self: journal.Journal, *args: Any, **kwargs: Any) -> Any:
        entry = checked(self, *args, **kwargs)
        (tmp_path / "a.py").write_text("def f():\n    return 1\n")
        return entry

    monkeypatch.setattr(journal.Journal, "unchanged_since", racing)
    again = editblocks.apply_edits(blocks, tmp_path)
    assert again.results[0].status is EditStatus.APPLIED and again.results[0].strategy != "journal"
    assert (tmp_path / "a.py").read_text() == "def f():\n    return 2\n"


def test_a_delete_and_a_move_applied_again_are_already_applied(tmp_path: Path) -> None:
    (tmp_path / "gone.py").write_text("x = 1\n")
    (tmp_path / "old.py").write_text("y = 1\n")
    reply = (
        "*** Begin Patch\n*** Delete File: gone.py\n*** Update File: old.py\n*** Move to: new.py\n"
        "@@\n-y = 1\n+y = 2\n*** End Patch\n"
    )
    first = editblocks.apply_edits(reply, tmp_path)
    assert [r.status for r in first.results] == [EditStatus.APPLIED, EditStatus.APPLIED]
    again = editblocks.apply_edits(reply, tmp_path)
    assert [(r.status, r.strategy) for r in again.results] == [(EditStatus.ALREADY_APPLIED, "journal")] * 2
    assert not again.files_modified and (tmp_path / "new.py").read_text() == "y = 2\n"
    # A file made since at a path the reply deletes or moves from is judged on its text.
    (tmp_path / "gone.py").write_text("x = 3\n")
    (tmp_path / "old.py").write_text("y = 1\n")
    third = editblocks.apply_edits(reply, tmp_path, dry_run=True)
    assert all(r.strategy != "journal" for r in third.results)
