"""An apply syncs each folder it wrote files in once, however many files it wrote there."""

from __future__ import annotations

import os
import stat
from collections import Counter
from pathlib import Path

import pytest

import editblocks


def _block(path: str, old: str, new: str) -> str:
    return f"{path}\n```\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n```\n"


@pytest.mark.parametrize("atomic", [False, True])
def test_one_folder_sync_per_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, atomic: bool) -> None:
    (tmp_path / "pkg").mkdir()
    for name in ("a", "b", "c"):
        (tmp_path / "pkg" / f"{name}.py").write_text(f"{name} = 1\n")
    (tmp_path / "top.py").write_text("top = 1\n")
    reply = "".join(_block(f"pkg/{n}.py", f"{n} = 1", f"{n} = 2") for n in "abc") + _block(
        "top.py", "top = 1", "top = 2"
    )
    synced: Counter[int] = Counter()
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            synced[st.st_ino] += 1
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    result = editblocks.apply_edits(reply, tmp_path, atomic=atomic)
    assert result.ok and (tmp_path / "pkg" / "c.py").read_text() == "c = 2\n"
    assert synced[(tmp_path / "pkg").stat().st_ino] == 1
    assert synced[tmp_path.stat().st_ino] >= 1
