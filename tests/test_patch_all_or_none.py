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
    run = subprocess.run(
        [sys.executable, "-m", "editblocks", "apply", "-"], cwd=tmp_path, input=reply, capture_output=True, text=True
    )
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


# -- a refused chunk never takes back what later operations did --------------------------------

FILE = "a\nb\nc\nd\ne\nz\n"
REFUSED_FIRST = "*** Update File: f.txt\n@@\n-a\n+A\n@@\n c\nd\n-e\n+E\n"
"""An update whose second chunk has a context line without its leading space: refused."""


def _envelope(*ops: str) -> str:
    return "*** Begin Patch\n" + "".join(ops) + "*** End Patch\n"


def _both_ways(root: Path, reply: str, **options: object) -> list[tuple[editblocks.ApplyResult, dict[str, str]]]:
    """The reply applied as one text and as a stream of 5-character pieces, each to a fresh copy."""
    outcomes = []
    for streamed in (False, True):
        work = root / ("streamed" if streamed else "whole")
        work.mkdir(parents=True)
        (work / "f.txt").write_text(FILE)
        source = (reply[i : i + 5] for i in range(0, len(reply), 5)) if streamed else reply
        result = editblocks.apply_edits(source, work, **options)  # type: ignore[arg-type]
        files = {p.name: p.read_text() for p in sorted(work.iterdir()) if p.is_file()}
        outcomes.append((result, files))
    return outcomes


def test_a_later_move_of_the_file_is_not_undone_by_the_refused_operation(tmp_path: Path) -> None:
    reply = _envelope(REFUSED_FIRST, "*** Update File: f.txt\n*** Move to: g.txt\n@@\n-z\n+Z\n")
    for result, files in _both_ways(tmp_path, reply):
        # Nothing of the refused operation is written; what is reported applied is in the files.
        assert result.results[0].status is EditStatus.FAILED
        assert "A" not in "".join(files.values())
        if result.results[1].status is EditStatus.APPLIED:
            assert files == {"g.txt": FILE.replace("z", "Z")}
        else:
            assert files == {"f.txt": FILE}


def test_a_later_update_or_delete_applies_after_a_refused_operation(tmp_path: Path) -> None:
    later_update = _envelope(REFUSED_FIRST, "*** Update File: f.txt\n@@\n-z\n+Z\n")
    for result, files in _both_ways(tmp_path / "u", later_update, continue_after_failure=True):
        assert [r.status for r in result.results] == [EditStatus.FAILED, EditStatus.APPLIED]
        assert files == {"f.txt": FILE.replace("z", "Z")}
    later_delete = _envelope(REFUSED_FIRST, "*** Delete File: f.txt\n")
    for result, files in _both_ways(tmp_path / "d", later_delete, continue_after_failure=True):
        assert [r.status for r in result.results] == [EditStatus.FAILED, EditStatus.APPLIED]
        assert files == {}


def test_a_refused_chunk_fails_its_own_operation_not_an_earlier_one(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("a\nb\n")
    (tmp_path / "other.txt").write_text("one\ntwo\n")
    reply = _envelope("*** Update File: f.txt\n@@\n-a\n+A\n", "*** Update File: other.txt\n@@\n one\ntwo\n+three\n")
    result = editblocks.apply_edits(reply, tmp_path)
    assert [(r.file_path, r.status) for r in result.results] == [("f.txt", EditStatus.APPLIED)]
    assert (tmp_path / "f.txt").read_text() == "A\nb\n" and (tmp_path / "other.txt").read_text() == "one\ntwo\n"
    assert any("other.txt" in w.message for w in result.warnings) and not result.ok


def test_taking_back_an_operation_also_takes_back_later_blocks_on_its_files(tmp_path: Path) -> None:
    # Defence in depth: should a refusal come after a later block changed the same file, putting
    # the file back undoes that block too, and it is reported failed, never applied.
    from editblocks.files.workspace import Workspace
    from editblocks.models import ApplyResult, EditBlock, ParseWarning
    from editblocks.pipeline.placer import ApplyOptions, BlockApplier

    (tmp_path / "f.txt").write_text(FILE)
    (tmp_path / "h.txt").write_text("h\n")
    applier = BlockApplier(Workspace(tmp_path), ApplyResult(), ApplyOptions(continue_after_failure=True))
    chunk = applier.add(EditBlock("f.txt", "a\n", "A\n", format="patch", group=2))
    later = applier.add(EditBlock("f.txt", "z\n", "Z\n", format="patch", group=9))
    other = applier.add(EditBlock("h.txt", "h\n", "H\n", format="patch", group=12))
    assert [chunk.status, later.status, other.status] == [EditStatus.APPLIED] * 3
    applier.refuse_group(ParseWarning(5, "chunk ignored", "patch", group=2))
    result = applier.write()
    assert [chunk.status, later.status, other.status] == [EditStatus.FAILED, EditStatus.FAILED, EditStatus.APPLIED]
    assert "taken back" in (later.reason or "")
    assert (tmp_path / "f.txt").read_text() == FILE and (tmp_path / "h.txt").read_text() == "H\n"
    assert result.files_modified == ["h.txt"]
