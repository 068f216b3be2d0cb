"""Writing edits from the review page, and undoing them.

Writes go through :func:`editblocks.apply_edits`, which records every apply in the undo journal
(:mod:`editblocks.files.journal`); Undo is :func:`editblocks.undo`, so ``editblocks undo`` and the
page's Undo button undo page applies alike.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from editblocks.files.workspace import Workspace, WorkspaceError
from editblocks.models import ApplyResult, EditBlock
from editblocks.pipeline.api import apply_with_options
from editblocks.pipeline.placer import ApplyOptions

try:  # the undo journal
    from editblocks.files import journal as _journal
except ImportError:  # pragma: no cover - a build without the journal
    _journal = None  # type: ignore[assignment]


def journal_available() -> bool:
    return _journal is not None and hasattr(_journal, "undo")


def last_entry_id(root: str | os.PathLike[str]) -> int:
    """Id of the newest journal entry under ``root`` (0 when there is none)."""
    if not journal_available():
        return 0
    try:
        entries = _journal.Journal(Workspace(root).root).entries()
    except (OSError, WorkspaceError):
        return 0
    return max((e.id for e in entries), default=0)


def undone_entries(root: str | os.PathLike[str]) -> set[int]:
    """Ids of the journal entries under ``root`` that have been undone (by the page or ``editblocks undo``)."""
    if not journal_available():
        return set()
    try:
        entries = _journal.Journal(Workspace(root).root).entries()
    except (OSError, WorkspaceError):
        return set()
    return {e.id for e in entries if e.state == _journal.UNDONE}


def undo_status(root: str | os.PathLike[str]) -> dict[str, Any]:
    """Whether an apply can be undone under ``root``, and which one."""
    if not journal_available():
        return {"available": False, "entry": None, "description": None}
    try:
        entries = _journal.history(root)
    except (OSError, WorkspaceError):
        return {"available": False, "entry": None, "description": None}
    for entry in entries:
        if entry.state != _journal.UNDONE:
            return {
                "available": True,
                "entry": entry.id,
                "description": entry.describe(),
                "files": [f.path for f in entry.files],
            }
    return {"available": False, "entry": None, "description": None}


def apply_recorded(
    blocks: Sequence[EditBlock],
    root: str | os.PathLike[str],
    options: ApplyOptions,
) -> tuple[ApplyResult, int | None]:
    """Apply ``blocks`` for real with ``options``; returns the result and the id of its journal
    entry (None: not recorded)."""
    last = last_entry_id(root)
    result = apply_with_options(list(blocks), root, replace(options, dry_run=False))
    if not result.files_modified:
        return result, None
    return result, _entry_for(root, last, set(result.files_modified))


def _entry_for(root: str | os.PathLike[str], after: int, files: set[str]) -> int | None:
    """The newest journal entry after ``after`` that wrote exactly ``files`` (this apply's record)."""
    if not journal_available():
        return None
    try:
        entries = _journal.Journal(Workspace(root).root).entries()
    except (OSError, WorkspaceError):
        return None
    mine = [e.id for e in entries if e.id > after and {f.path for f in e.files} == files]
    return max(mine, default=None)


@dataclass
class Undone:
    entry: int
    restored: list[str]
    deleted: list[str]
    unchanged: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {"entry": self.entry, "restored": self.restored, "deleted": self.deleted, "unchanged": self.unchanged}


class UndoUnavailable(WorkspaceError):
    """Undo is not possible (no journal, nothing to undo, or files changed since)."""


def undo_last(root: str | os.PathLike[str]) -> Undone:
    """Undo the last apply under ``root`` recorded in the journal."""
    if not journal_available():
        raise UndoUnavailable("undo is not available in this build of editblocks")
    try:
        done = _journal.undo(Path(root))
    except WorkspaceError as exc:
        raise UndoUnavailable(str(exc)) from None
    return Undone(done.entry.id, list(done.restored), list(done.deleted), list(done.unchanged))
