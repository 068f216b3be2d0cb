"""``kill -9`` of an all-or-nothing apply at random moments: after the next command under the root,
every file is old or every file is new, never a mix, and no temporary file is left."""

from __future__ import annotations

import random
import subprocess
import sys
import time
from pathlib import Path

import editblocks

from .helpers import read_tree

N_FILES = 60
KILLS = 10

CHILD = r"""
import sys
import editblocks
from editblocks import EditBlock
root, n = sys.argv[1], int(sys.argv[2])
blocks = [EditBlock(f"pkg/m{i:03d}.py", f"value = {i}\n", f"value = {i} + 1\n") for i in range(n)]
blocks.append(EditBlock("new/deep/created.py", "", "created = True\n", new_file=True))
blocks.append(EditBlock("pkg/gone.py", "", "", delete=True))
print("go", flush=True)
result = editblocks.apply_edits(blocks, root, atomic=True)
assert result.ok, result
print("done", flush=True)
"""


def _setup(root: Path) -> dict[str, bytes]:
    (root / "pkg").mkdir(parents=True)
    for i in range(N_FILES):
        (root / "pkg" / f"m{i:03d}.py").write_text(f"# module {i}\nvalue = {i}\n")
    (root / "pkg" / "gone.py").write_text("gone = True\n")
    return _files(root)


def _files(root: Path) -> dict[str, bytes]:
    return {p: d for p, d in read_tree(root).items() if not p.startswith(".editblocks/")}


def _run(root: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(root), str(N_FILES)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline() == "go\n"
    return proc


def test_kill_9_during_an_atomic_apply_leaves_all_old_or_all_new(tmp_path: Path) -> None:
    root = tmp_path / "root"
    old = _setup(root)
    proc = _run(root)
    start = time.monotonic()
    assert proc.communicate(timeout=120)[0] == "done\n"
    took = time.monotonic() - start
    new = _files(root)
    assert new != old and "new/deep/created.py" in new and "pkg/gone.py" not in new
    editblocks.undo(root)
    assert _files(root) == old
    rng = random.Random(15)
    seen = {"old": 0, "new": 0, "mixed before recovery": 0}
    for kill in range(KILLS):
        proc = _run(root)
        time.sleep(rng.uniform(0, took * 0.6))
        proc.kill()
        proc.wait()
        before = _files(root)
        if before not in (old, new):
            seen["mixed before recovery"] += 1
        result = editblocks.apply_edits([], root)
        after = _files(root)
        assert after in (old, new), f"kill {kill}: a mix of old and new files after recovery"
        assert not any(p.endswith(".editblocks-tmp") for p in read_tree(root)), f"kill {kill}: temporary files left"
        if before != after:
            assert any("interrupted" in w.message for w in result.warnings), result.warnings
        if after == new:
            seen["new"] += 1
            editblocks.undo(root)
            assert _files(root) == old
        else:
            seen["old"] += 1
    print(f"\n{KILLS} kills of a {N_FILES + 2}-file atomic apply: {seen}")


def _interrupted(root: Path, renamed: list[str]) -> None:
    """The state a crash leaves mid-way through an all-or-nothing apply of a.py and b.py: the
    journal's intent record, the files in ``renamed`` already new, the others' temporary files."""
    from editblocks.files.journal import Journal, JournalFile, root_lock, sha256
    from editblocks.files.workspace import Workspace

    (root / "a.py").write_text("a = 1\n")
    (root / "b.py").write_text("b = 1\n")
    workspace = Workspace(root)
    with root_lock(workspace.root):
        Journal(workspace.root).begin(
            [
                (
                    JournalFile(p, sha256(f"{p[0]} = 1\n".encode()), sha256(f"{p[0]} = 2\n".encode()), 0o644),
                    f"{p[0]} = 1\n".encode(),
                )
                for p in ("a.py", "b.py")
            ],
            atomic=True,
        )
        for p in ("a.py", "b.py"):
            pending = workspace.prepare_write(p, f"{p[0]} = 2\n".encode(), expected=f"{p[0]} = 1\n".encode())
            if p in renamed:
                pending.commit()
            else:
                pending.park()  # and the process dies: the temporary file stays


def test_undo_after_a_crash_puts_the_interrupted_apply_back_and_says_so(tmp_path: Path) -> None:
    _interrupted(tmp_path, ["a.py"])
    assert any(p.endswith(".editblocks-tmp") for p in read_tree(tmp_path))
    result = editblocks.undo(tmp_path)
    assert _files(tmp_path) == {"a.py": b"a = 1\n", "b.py": b"b = 1\n"}
    assert result.restored == ["a.py"]
    assert "interrupted" in result.notes[0] and "put back" in result.notes[0]
    assert editblocks.undo_history(tmp_path)[0].state == "undone"


def test_an_interrupted_apply_that_had_renamed_every_file_is_completed(tmp_path: Path) -> None:
    _interrupted(tmp_path, ["a.py", "b.py"])
    result = editblocks.apply_edits([], tmp_path)
    assert any("recorded as applied" in w.message for w in result.warnings), result.warnings
    assert _files(tmp_path) == {"a.py": b"a = 2\n", "b.py": b"b = 2\n"}
    editblocks.undo(tmp_path)
    assert _files(tmp_path) == {"a.py": b"a = 1\n", "b.py": b"b = 1\n"}
