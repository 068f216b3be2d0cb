"""A local process swapping a folder inside the root for a link to outside, while editblocks
edits, creates, deletes, moves and undoes: nothing outside the root ever changes, and each
failure is a clean refusal, never a traceback."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import editblocks
from editblocks import EditBlock
from editblocks.files.journal import UndoError

from .race_helpers import snapshot, start_swapper

SECONDS = 2.0


@pytest.fixture
def arena(tmp_path: Path) -> tuple[Path, Path]:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "root"
    root.mkdir()
    inside = root / "d"
    inside.mkdir()
    for folder in (outside, inside):
        (folder / "x.txt").write_text("x = 1\n")
        (folder / "a.txt").write_text("a = 1\n")
        (folder / "gone.txt").write_text("g = 1\n")
    (root / "evil").symlink_to(outside, target_is_directory=True)
    return root, outside


def _race(root: Path, outside: Path, step) -> int:
    """Run ``step(i)`` while the folder ``d`` and the link ``evil`` trade places; returns the steps run."""
    before = snapshot(outside)
    APPLIED.clear()
    swapper = start_swapper(root / "d", root / "evil", SECONDS)
    runs = 0
    try:
        end = time.monotonic() + SECONDS
        while time.monotonic() < end:
            step(runs)
            runs += 1
            assert snapshot(outside) == before, f"a file outside the root changed at step {runs}"
    finally:
        swapper.kill()
        swapper.wait()
    assert snapshot(outside) == before
    assert APPLIED, "nothing applied at all during the race"
    return runs


APPLIED: list[str] = []


def _apply(root: Path, *blocks: EditBlock) -> editblocks.ApplyResult:
    result = editblocks.apply_edits(list(blocks), root, continue_after_failure=True)
    APPLIED.extend(r.file_path for r in result.results if r.status is editblocks.EditStatus.APPLIED)
    return result


def test_edit_and_undo_race_never_touch_outside(arena: tuple[Path, Path]) -> None:
    root, outside = arena

    def step(i: int) -> None:
        _apply(root, EditBlock("d/x.txt", "x = 1\n", "x = 1\ny = 1\n"))
        try:
            editblocks.undo(root)
        except UndoError:
            pass

    assert _race(root, outside, step) > 5


def test_create_in_new_folders_race_never_touch_outside(arena: tuple[Path, Path]) -> None:
    root, outside = arena

    def step(i: int) -> None:
        _apply(
            root,
            EditBlock(f"d/new{i}.txt", "", "n = 1\n", new_file=True),
            EditBlock(f"d/f{i}/g/h.txt", "", "h\n", new_file=True),
        )

    assert _race(root, outside, step) > 5


def test_delete_and_move_race_never_touch_outside(arena: tuple[Path, Path]) -> None:
    root, outside = arena

    def step(i: int) -> None:
        _apply(root, EditBlock("d/gone.txt", "", "", delete=True))
        _apply(root, EditBlock("d/gone.txt", "", "g = 1\n", new_file=True))
        _apply(root, EditBlock("d/a.txt", "", "", move_to=f"d/b{i}.txt"))
        _apply(root, EditBlock(f"d/b{i}.txt", "", "", move_to="d/a.txt"))

    assert _race(root, outside, step) > 5
