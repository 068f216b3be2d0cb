"""Drift: the file on disk is not the version the model saw.

Blocks still apply where their location is certain, with a note; otherwise, or with
``refuse_drift``, they fail and say why.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

import editblocks
from editblocks import EditStatus

from .helpers import read_tree, sr, write_tree

SEEN = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"
NOW = "import os\n\n" + SEEN + "\n\ndef h():\n    return 3\n"  # the user added lines since


def test_unchanged_file_gets_no_drift_note(root: Path) -> None:
    write_tree(root, {"m.py": SEEN})
    result = editblocks.apply_edits(sr("m.py", "    return 1\n", "    return 10\n"), root, base={"m.py": SEEN})
    assert result.ok and result.results[0].notes == []


@pytest.mark.parametrize(
    "seen",
    [
        SEEN,
        SEEN.replace("\n", "\r\n"),
        SEEN.encode(),
        hashlib.sha256(SEEN.encode()).hexdigest(),
        "sha256:" + hashlib.sha256(SEEN.encode()).hexdigest().upper(),
    ],
    ids=["text", "crlf-text", "bytes", "sha256", "sha256-prefixed"],
)
def test_drifted_file_still_applies_where_certain_and_says_so(root: Path, seen: object) -> None:
    write_tree(root, {"m.py": NOW})
    result = editblocks.apply_edits(
        sr("m.py", "def g():\n    return 2\n", "def g():\n    return 20\n"), root, base={"m.py": seen}
    )
    res = result.results[0]
    assert res.status is EditStatus.APPLIED
    assert any("changed since the model saw it" in n for n in res.notes), res.notes
    assert (root / "m.py").read_text() == NOW.replace("return 2\n", "return 20\n")


def test_drifted_file_block_that_is_not_certain_fails(root: Path) -> None:
    # The model saw one "return 1"; the file now has two, so an exact-once location is gone.
    now = SEEN + "\n\ndef k():\n    return 1\n"
    write_tree(root, {"m.py": now})
    result = editblocks.apply_edits(sr("m.py", "    return 1\n", "    return 10\n"), root, base={"m.py": SEEN})
    res = result.results[0]
    assert res.status is EditStatus.FAILED
    assert "ambiguous" in (res.reason or "")
    assert any("changed since the model saw it" in n for n in res.notes), res.notes
    assert (root / "m.py").read_text() == now


def test_drifted_file_block_that_only_matches_approximately_fails(root: Path) -> None:
    now = SEEN.replace("    return 2\n", "    return 2   \n")
    write_tree(root, {"m.py": now})
    reply = sr("m.py", "def g():\n    return 2\n", "def g():\n    return 20\n")
    # Without drift information the tolerant matching places it despite the trailing spaces...
    assert editblocks.apply_edits(reply, root, dry_run=True).ok
    # ...with it, the file has drifted, and only an exact location is certain.
    result = editblocks.apply_edits(reply, root, base={"m.py": SEEN})
    assert result.results[0].status is EditStatus.FAILED
    assert "not certain" in (result.results[0].reason or "")
    assert (root / "m.py").read_text() == now


def test_refuse_drift_fails_every_block_of_a_drifted_file_only(root: Path) -> None:
    write_tree(root, {"m.py": NOW, "same.py": "x = 1\n"})
    reply = sr("m.py", "def g():\n    return 2\n", "def g():\n    return 20\n") + sr("same.py", "x = 1\n", "x = 2\n")
    result = editblocks.apply_edits(reply, root, base={"m.py": SEEN, "same.py": "x = 1\n"}, refuse_drift=True)
    assert [r.status for r in result.results] == [EditStatus.FAILED, EditStatus.APPLIED]
    assert "refused" in (result.results[0].reason or "") and "changed since the model saw it" in (
        result.results[0].reason or ""
    )
    assert read_tree(root) == {"m.py": NOW.encode(), "same.py": b"x = 2\n"}


def test_later_blocks_of_a_refused_file_are_skipped_and_the_file_untouched(root: Path) -> None:
    write_tree(root, {"m.py": NOW})
    reply = sr("m.py", "import os\n", "import sys\n") + sr("m.py", "    return 3\n", "    return 30\n")
    result = editblocks.apply_edits(reply, root, base={"m.py": SEEN}, refuse_drift=True)
    assert [r.status for r in result.results] == [EditStatus.FAILED, EditStatus.SKIPPED]
    assert (root / "m.py").read_text() == NOW


def test_file_the_model_saw_as_absent_but_exists_is_drift(root: Path) -> None:
    write_tree(root, {"new.py": ""})
    result = editblocks.apply_edits(sr("new.py", "", "x = 1\n"), root, base={"new.py": None}, refuse_drift=True)
    assert result.results[0].status is EditStatus.FAILED
    assert "saw no such file" in (result.results[0].reason or "")


def test_bad_base_paths_are_refused() -> None:
    with pytest.raises(ValueError, match="base"):
        editblocks.apply_edits(sr("a.py", "x\n", "y\n"), ".", base={"../a.py": "x\n"}, dry_run=True)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "editblocks", *args], capture_output=True, text=True, timeout=60)


def test_cli_base_dir_notes_drift_and_refuse_drift_fails(root: Path, tmp_path: Path) -> None:
    base = tmp_path / "seen"
    base.mkdir()
    write_tree(base, {"m.py": SEEN})
    write_tree(root, {"m.py": NOW})
    reply = tmp_path / "reply.md"
    reply.write_text(sr("m.py", "def g():\n    return 2\n", "def g():\n    return 20\n"))

    refused = _cli("apply", str(reply), "--root", str(root), "--base-dir", str(base), "--refuse-drift", "--json")
    assert refused.returncode == 1
    assert "changed since the model saw it" in refused.stdout
    assert (root / "m.py").read_text() == NOW

    applied = _cli("apply", str(reply), "--root", str(root), "--base-dir", str(base), "--json")
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert "had changed since the model saw it" in applied.stdout
    assert (root / "m.py").read_text() == NOW.replace("return 2\n", "return 20\n")

    alone = _cli("apply", str(reply), "--root", str(root), "--refuse-drift")
    assert alone.returncode == 2 and "--base-dir" in alone.stderr


def test_cli_base_dir_works_on_a_piped_reply(root: Path, tmp_path: Path) -> None:
    base = tmp_path / "seen"
    base.mkdir()
    write_tree(base, {"m.py": SEEN})
    write_tree(root, {"m.py": NOW})
    text = sr("m.py", "def g():\n    return 2\n", "def g():\n    return 20\n")
    args = [sys.executable, "-m", "editblocks", "apply", "-", "--root", str(root), "--base-dir", str(base), "--json"]

    refused = subprocess.run([*args, "--refuse-drift"], input=text, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 1
    assert "changed since the model saw it" in refused.stdout
    assert (root / "m.py").read_text() == NOW

    applied = subprocess.run(args, input=text, capture_output=True, text=True, timeout=60)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert "had changed since the model saw it" in applied.stdout
    assert (root / "m.py").read_text() == NOW.replace("return 2\n", "return 20\n")


def test_folder_base_reads_only_the_files_blocks_need(root: Path, tmp_path: Path) -> None:
    from editblocks.files.drift import FolderBase

    base = tmp_path / "seen"
    base.mkdir()
    write_tree(base, {"m.py": SEEN, "other.py": "x = 1\n"})
    write_tree(root, {"m.py": NOW, "new.py": "y = 1\n"})
    folder = FolderBase(base)
    with editblocks.ApplyStream(root, base=folder, refuse_drift=True, dry_run=True) as stream:
        stream.feed(sr("m.py", "    return 1\n", "    return 10\n") + sr("new.py", "y = 1\n", "y = 2\n"))
        stream.close()
        result = stream.write()
    drifted, unseen = result.results
    assert drifted.status is EditStatus.FAILED and "changed since the model saw it" in str(drifted.reason)
    assert unseen.status is EditStatus.APPLIED  # not in the folder: not checked for drift
    assert set(folder._read) == {"m.py", "new.py"}  # other.py was never read
    assert dict(folder) == {"m.py": SEEN.encode(), "other.py": b"x = 1\n"}
