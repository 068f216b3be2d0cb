"""apply_patch: a file operation applies all its chunks or none, and chunks are read as Codex's
own parser reads them (markers with white space around them, bare add-only chunks)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import editblocks
from editblocks import EditStatus

TEXT = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"


def _patch(body: str) -> str:
    return f"*** Begin Patch\n*** Update File: m.py\n{body}*** End Patch\n"


def test_a_chunk_that_cannot_be_placed_takes_back_the_others(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(TEXT)
    reply = _patch("@@\n def a():\n-    return 1\n+    return 10\n@@\n def c():\n-    return 3\n+    return 30\n")
    result = editblocks.apply_edits(reply, tmp_path)
    assert [r.status for r in result.results] == [EditStatus.FAILED, EditStatus.FAILED]
    assert "all or none" in (result.results[0].reason or "")
    assert (tmp_path / "m.py").read_text() == TEXT and not result.ok


def test_a_chunk_that_cannot_be_read_takes_back_the_others(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(TEXT)
    reply = _patch("@@\n def a():\n-    return 1\n+    return 10\n@@\n def b():\nreturn 2\n+    x = 1\n")
    result = editblocks.apply_edits(reply, tmp_path)
    assert all(r.status is EditStatus.FAILED for r in result.results)
    assert (tmp_path / "m.py").read_text() == TEXT
    run = subprocess.run([sys.executable, "-m", "editblocks", "apply", "-"], cwd=tmp_path, input=reply, capture_output=True, text=True)
    assert run.returncode == 1 and (tmp_path / "m.py").read_text() == TEXT


def test_other_files_of_the_patch_still_apply(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(TEXT)
    (tmp_path / "n.py").write_text("x = 1\n")
    reply = (
        "*** Begin Patch\n*** Update File: n.py\n@@\n-x = 1\n+x = 2\n"
        "*** Update File: m.py\n@@\n def a():\n-    return 1\n+    return 10\n@@\n def zzz():\n-    pass\n+    pass\n*** End Patch\n"
    )
    editblocks.apply_edits(reply, tmp_path)
    assert (tmp_path / "n.py").read_text() == "x = 2\n" and (tmp_path / "m.py").read_text() == TEXT


def test_markers_with_white_space_around_them_are_markers(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(TEXT)
    reply = " *** Begin Patch\n  *** Update File: m.py\n@@\n def a():\n-    return 1\n+    return 10\n *** End Patch \n"
    result = editblocks.apply_edits(reply, tmp_path, format="patch")
    assert result.ok, [(r.reason) for r in result.results] + [w.message for w in result.warnings]
    assert (tmp_path / "m.py").read_text() == TEXT.replace("return 1\n", "return 10\n")


def test_a_bare_add_only_chunk_is_appended_as_codex_does(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(TEXT)
    result = editblocks.apply_edits(_patch("@@\n+\n+\n+def c():\n+    return 3\n"), tmp_path)
    assert result.ok and (tmp_path / "m.py").read_text() == TEXT + "\n\ndef c():\n    return 3\n"
