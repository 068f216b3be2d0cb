"""Atomic writes and all-or-nothing applies.

A process killed at any instant of a multi-file apply leaves every file entirely old or entirely
new; with ``atomic=True`` / ``--atomic`` no file is written unless every block applied.
"""

from __future__ import annotations

import builtins
import io
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import editblocks
from editblocks import EditBlock, EditStatus

from .helpers import read_tree, sr, write_tree

FILES = {
    "a.py": "".join(f"a_{i} = {i}\n" for i in range(30_000)),
    "pkg/b.py": "".join(f"b_{i} = {i}\r\n" for i in range(30_000)),
    "c.txt": "".join(f"c {i}\n" for i in range(30_000)),
}
REPLY = (
    sr("a.py", "a_10 = 10\n", "a_10 = 'ten'\n")
    + sr("pkg/b.py", "b_20000 = 20000\n", "b_20000 = 'twenty thousand'\n")
    + sr("c.txt", "c 5\n", "c five\n")
    + sr("pkg/new.py", "", "created = True\n")
)


def _old_and_new(tmp_path: Path) -> tuple[dict[str, bytes], dict[str, bytes]]:
    ref = tmp_path / "reference"
    ref.mkdir()
    write_tree(ref, FILES)
    old = read_tree(ref)
    result = editblocks.apply_edits(REPLY, ref)
    assert result.ok
    new = read_tree(ref)
    assert set(new) == set(old) | {"pkg/new.py"}
    assert all(new[p] != old[p] for p in old)
    return old, new


def _check_old_or_new(root: Path, old: dict[str, bytes], new: dict[str, bytes], where: str) -> int:
    """Every file entirely old or entirely new; returns how many are new."""
    tree = read_tree(root)
    debris = [p for p in tree if p not in new]
    assert all(Path(p).name.endswith(".editblocks-tmp") for p in debris), f"{where}: unexpected files {debris}"
    changed = 0
    for path, data in new.items():
        now = tree.get(path)
        if path in old:
            assert now in (old[path], data), f"{where}: {path} is neither its old nor its new content"
        else:
            assert now in (None, data), f"{where}: {path} was created with partial content"
        changed += now is not None and now != old.get(path)
    return changed


class _HalfWrites:
    """A file whose every write lands in two halves, with a pause point between them."""

    def __init__(self, fh, between) -> None:  # type: ignore[no-untyped-def]
        self._fh = fh
        self._between = between

    def write(self, data):  # type: ignore[no-untyped-def]
        half = len(data) // 2
        written = self._fh.write(data[:half])
        self._fh.flush()
        self._between()
        return written + self._fh.write(data[half:])

    def __getattr__(self, name):  # type: ignore[no-untyped-def]
        return getattr(self._fh, name)

    def __enter__(self):  # type: ignore[no-untyped-def]
        return self

    def __exit__(self, *exc):  # type: ignore[no-untyped-def]
        return self._fh.__exit__(*exc)


def _fork_apply(root: Path, pause_at: int | None) -> tuple[int, int]:
    """Apply REPLY in a forked child; with ``pause_at``, the child stops before its Nth file-system
    step (fsync, chmod, rename, unlink, mkdir, or half-way through writing a file's bytes) and
    waits to be killed.

    Returns (child pid, read end of a pipe that gets b"P" on pausing, b"D" when done).
    """
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        try:
            os.close(read_end)
            if pause_at is not None:
                count = [0]

                def pausing(fn):  # type: ignore[no-untyped-def]
                    def step(*args, **kwargs):  # type: ignore[no-untyped-def]
                        count[0] += 1
                        if count[0] == pause_at:
                            os.write(write_end, b"P")
                            time.sleep(120)
                        return fn(*args, **kwargs)

                    return step

                for name in ("fsync", "chmod", "fchmod", "replace", "rename", "link", "unlink", "mkdir", "rmdir"):
                    setattr(os, name, pausing(getattr(os, name)))
                halfway = pausing(lambda: None)
                real_open = io.open

                def opening(file, mode="r", *args, **kwargs):  # type: ignore[no-untyped-def]
                    fh = real_open(file, mode, *args, **kwargs)
                    return _HalfWrites(fh, halfway) if any(c in mode for c in "wax+") else fh

                io.open = builtins.open = opening
            editblocks.apply_edits(REPLY, root)
            os.write(write_end, b"D")
        finally:
            os._exit(0)
    os.close(write_end)
    return pid, read_end


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_killed_at_every_step_every_file_is_old_or_new_and_undo_restores(tmp_path: Path) -> None:
    old, new = _old_and_new(tmp_path)
    steps = 0
    outcomes = set()
    cleared = False
    for pause_at in range(1, 200):
        root = tmp_path / f"step{pause_at}"
        root.mkdir()
        write_tree(root, FILES)
        pid, pipe = _fork_apply(root, pause_at)
        signal_byte = os.read(pipe, 1)
        os.close(pipe)
        _kill(pid)
        changed = _check_old_or_new(root, old, new, f"killed before step {pause_at}")
        outcomes.add(changed)
        left = any(p.endswith(".editblocks-tmp") for p in read_tree(root))
        # Whatever was written, undo brings every file back, and the temporary files go.
        if editblocks.undo_history(root):
            editblocks.undo(root)
        tree = read_tree(root)
        assert {p: tree[p] for p in old} == old, f"step {pause_at}: undo did not restore everything"
        assert "pkg/new.py" not in tree
        assert not any(p.endswith(".editblocks-tmp") for p in tree), f"step {pause_at}: temporary files left"
        if left and not cleared:
            assert editblocks.apply_edits(REPLY, root).ok
            assert read_tree(root) == new
            cleared = True
        shutil.rmtree(root)
        if signal_byte == b"D":
            break
        steps += 1
    assert steps > 20, "the apply should pass through many file-system steps"
    assert {0, len(new)} <= outcomes and len(outcomes) > 2, f"kills should land before, during and after: {outcomes}"
    assert cleared, "some kill should have left a temporary file for the next apply to clear"
    print(f"\nkilled a 4-file apply at each of its {steps} file-system steps")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_killed_at_random_instants_every_file_is_old_or_new(tmp_path: Path) -> None:
    old, new = _old_and_new(tmp_path)
    root = tmp_path / "timing"
    root.mkdir()
    write_tree(root, FILES)
    started = time.monotonic()
    pid, pipe = _fork_apply(root, None)
    assert os.read(pipe, 1) == b"D"
    full = time.monotonic() - started
    os.waitpid(pid, 0)
    os.close(pipe)
    rng = random.Random(4)
    runs = 25
    for run in range(runs):
        root = tmp_path / f"run{run}"
        root.mkdir()
        write_tree(root, FILES)
        pid, pipe = _fork_apply(root, None)
        time.sleep(rng.uniform(0, full * 1.1))
        _kill(pid)
        os.close(pipe)
        _check_old_or_new(root, old, new, f"run {run}")
        shutil.rmtree(root)


# -- all or nothing --------------------------------------------------------------------------------


def test_atomic_writes_nothing_when_one_block_fails(root: Path) -> None:
    write_tree(root, {"a.py": "a = 1\n", "b.py": "b = 1\n"})
    before = read_tree(root)
    reply = sr("a.py", "a = 1\n", "a = 2\n") + sr("b.py", "no such line\n", "b = 2\n") + sr("c.py", "", "c = 1\n")
    result = editblocks.apply_edits(reply, root, atomic=True)
    assert read_tree(root) == before
    assert result.files_modified == []
    assert [r.status for r in result.results] == [EditStatus.SKIPPED, EditStatus.FAILED, EditStatus.SKIPPED]
    assert "all-or-nothing" in (result.results[0].reason or "")
    assert "#2 (b.py, failed)" in (result.results[0].reason or "")
    assert editblocks.undo_history(root) == []


def test_without_atomic_the_blocks_that_apply_are_written(root: Path) -> None:
    write_tree(root, {"a.py": "a = 1\n", "b.py": "b = 1\n"})
    reply = sr("a.py", "a = 1\n", "a = 2\n") + sr("b.py", "no such line\n", "b = 2\n")
    result = editblocks.apply_edits(reply, root)
    assert [r.status for r in result.results] == [EditStatus.APPLIED, EditStatus.FAILED]
    assert read_tree(root) == {"a.py": b"a = 2\n", "b.py": b"b = 1\n"}


def test_atomic_puts_back_written_files_when_a_later_write_fails(root: Path) -> None:
    write_tree(root, {"a.py": "a = 1\n", "b.py": "b = 1\n"})
    os.chmod(root / "b.py", 0o444)
    before = read_tree(root)
    reply = sr("a.py", "a = 1\n", "a = 2\n") + sr("b.py", "b = 1\n", "b = 2\n") + sr("new/c.py", "", "c = 1\n")
    result = editblocks.apply_edits(reply, root, atomic=True)
    assert read_tree(root) == before
    assert not (root / "new").exists()
    assert result.files_modified == []
    statuses = {r.file_path: r.status for r in result.results}
    assert statuses == {"a.py": EditStatus.SKIPPED, "b.py": EditStatus.FAILED, "new/c.py": EditStatus.SKIPPED}
    assert "read-only" in (result.results[1].reason or "")
    assert editblocks.undo_history(root) == []


def test_cli_atomic_exits_1_and_writes_nothing(root: Path) -> None:
    write_tree(root, {"a.py": "a = 1\n"})
    reply = sr("a.py", "a = 1\n", "a = 2\n") + sr("a.py", "missing\n", "x\n")
    (root.parent / "reply.md").write_text(reply)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "editblocks",
            "apply",
            str(root.parent / "reply.md"),
            "--root",
            str(root),
            "--atomic",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 1, out.stderr
    assert (root / "a.py").read_bytes() == b"a = 1\n"
    assert '"status": "skipped"' in out.stdout and "all-or-nothing" in out.stdout


def test_an_already_applied_block_does_not_hold_back_an_atomic_apply(tmp_path: Path) -> None:
    # Re-sending an applied block beside a new one: the new one is written, all or nothing.
    (tmp_path / "app.py").write_text("a = 1\nb = 2\nc = 3\n")
    blocks = [EditBlock("app.py", "a = 0\n", "a = 1\n"), EditBlock("app.py", "b = 2\n", "b = 22\n")]
    result = editblocks.apply_edits(blocks, tmp_path, atomic=True)
    assert [r.status for r in result.results] == [EditStatus.ALREADY_APPLIED, EditStatus.APPLIED]
    assert result.ok and (tmp_path / "app.py").read_text() == "a = 1\nb = 22\nc = 3\n"
