"""Concurrency: editblocks processes applying under the same root take turns on a lock."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

import editblocks
from editblocks.files.lock import LockTimeoutError, RootLock

from .helpers import sr, write_tree


def _start_apply(reply: Path, root: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "editblocks", "apply", str(reply), "--root", str(root), "--no-diff"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_two_apply_processes_serialise_on_the_lock(root: Path, tmp_path: Path) -> None:
    write_tree(root, {"a.py": "a = 1\nb = 1\n"})
    first = tmp_path / "first.md"
    second = tmp_path / "second.md"
    first.write_text(sr("a.py", "a = 1\n", "a = 2\n"))
    second.write_text(sr("a.py", "b = 1\n", "b = 2\n"))
    with RootLock(root):
        procs = [_start_apply(first, root), _start_apply(second, root)]
        # Both processes start, read nothing and write nothing while another holds the lock.
        time.sleep(1.5)
        assert [p.poll() for p in procs] == [None, None], "apply did not wait for the lock"
        assert (root / "a.py").read_text() == "a = 1\nb = 1\n"
        # The lock is on the root folder: holding it creates nothing in the project.
        assert not (root / ".editblocks").exists()
    outs = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    # Each read the file after the other had written it: both edits are there.
    assert (root / "a.py").read_text() == "a = 2\nb = 2\n"
    assert len(editblocks.undo_history(root)) == 2


def test_waiting_longer_than_the_timeout_is_a_clear_error(root: Path) -> None:
    write_tree(root, {"a.py": "a = 1\n"})
    with RootLock(root):
        with pytest.raises(LockTimeoutError, match="another editblocks process"):
            editblocks.apply_edits(sr("a.py", "a = 1\n", "a = 2\n"), root, lock_timeout=0.3)
        with pytest.raises(LockTimeoutError):
            editblocks.undo(root, lock_timeout=0.3)
        # A dry run reads only and takes no lock.
        assert editblocks.apply_edits(sr("a.py", "a = 1\n", "a = 2\n"), root, dry_run=True).ok
    assert (root / "a.py").read_text() == "a = 1\n"
    assert editblocks.apply_edits(sr("a.py", "a = 1\n", "a = 2\n"), root).ok


def test_an_apply_that_changes_nothing_leaves_nothing_behind(root: Path) -> None:
    write_tree(root, {"a.py": "a = 1\n"})
    result = editblocks.apply_edits(sr("a.py", "no such line\n", "x\n") + sr("../escape.py", "", "x\n"), root)
    assert [r.status.value for r in result.results] == ["failed", "failed"]
    assert sorted(p.name for p in root.iterdir()) == ["a.py"]
    assert (root / "a.py").read_text() == "a = 1\n"
