"""The last step of an apply: writing every changed file, all or nothing when asked, with undo.

Each file is written atomically (see :func:`editblocks.files.workspace.atomic_write`) and only if it
still holds what was read. Before the first write the apply is recorded in the undo journal. With
``atomic`` nothing is written unless every block applied, and a write that fails puts back the
files already written.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from editblocks.files.journal import Journal, JournalEntry, JournalFile, sha256
from editblocks.files.lock import take_notes
from editblocks.files.textfile import TextFile, UnwritableTextError, align_lines
from editblocks.files.workspace import ABSENT, FolderSync, PendingWrite, Workspace, WorkspaceError
from editblocks.models import ApplyResult, EditResult, EditStatus, ParseWarning


@dataclass
class Change:
    """One file an apply changes."""

    path: str
    file: TextFile
    existed: bool
    before: str
    """Text before (LF endings; "" for a new file)."""
    after: str
    """Text to write (LF endings)."""
    owners: list[EditResult] = field(default_factory=list)
    """The applied blocks that changed it."""
    data: bytes = b""
    created_folders: list[str] = field(default_factory=list)
    delete: bool = False
    """The apply deletes the file (a delete, or the old path of a move); ``after`` is ""."""


def _why(exc: Exception) -> str:
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)


def _close_journal(
    book: Journal | None, entry: JournalEntry | None, written: list[Change], result: ApplyResult
) -> None:
    """Keep the files written in the journal entry (an entry that wrote nothing is dropped), and
    which blocks were done once the writes are over, with the paths each acted on."""
    if book is not None and entry is not None:
        if entry.blocks is not None:
            entry.done = [
                [i, [p for p in (r.file_path, r.moved_to) if p]] for i, r in enumerate(result.results) if r.status.done
            ]
        try:
            book.finish(entry, [c.path for c in written])
        except (OSError, WorkspaceError) as exc:
            result.warnings.append(ParseWarning(0, f"the undo journal could not be completed: {exc}"))


def _fail(change: Change, reason: str) -> None:
    for res in change.owners:
        res.status = EditStatus.FAILED
        res.reason = reason


def _hold_back(result: ApplyResult, why: str) -> None:
    """All-or-nothing: every applied block is reported as not written."""
    for res in result.results:
        if res.status is EditStatus.APPLIED:
            res.status = EditStatus.SKIPPED
            res.reason = f"not written: all-or-nothing apply (atomic), and {why}"


"""Outcomes an all-or-nothing apply counts as done: a block already applied needs no write."""


def _blockers(result: ApplyResult) -> str:
    bad = [(i, r) for i, r in enumerate(result.results, start=1) if not r.status.done]
    shown = ", ".join(f"#{i} ({r.file_path}, {r.status.value})" for i, r in bad[:5])
    more = f" and {len(bad) - 5} more" if len(bad) > 5 else ""
    return f"block{'s' if len(bad) > 1 else ''} {shown}{more} did not apply"


def commit(
    workspace: Workspace,
    changes: list[Change],
    result: ApplyResult,
    *,
    atomic: bool = False,
    dry_run: bool = False,
    journal: bool = True,
    blocks: str | None = None,
) -> None:
    """Write ``changes`` and fill ``result.files_modified``, ``before`` and ``after``.

    Blocks whose file cannot be written are turned into failures that say why. ``blocks``: the
    digest of the reply's blocks, recorded in the journal with the indexes of those done.
    """
    for note in take_notes(workspace.root):
        result.warnings.append(ParseWarning(0, note))
    if atomic and any(not r.status.done for r in result.results):
        _hold_back(result, _blockers(result))
        return
    if atomic and result.reply_problems:
        first = result.reply_problems[0]
        _hold_back(result, f"the reply has a block that could not be read (reply line {first.line}: {first.message})")
        return
    ready = _prepare(workspace, changes)
    # Deletions last: a move writes its new file before it removes the old one.
    ready.sort(key=lambda c: c.delete)
    if atomic and len(ready) < len(changes):
        _hold_back(result, _blockers(result))
        return
    if dry_run:
        for change in ready:
            _record(result, change)
        return
    entry: JournalEntry | None = None
    book = Journal(workspace.root) if journal and ready else None
    if book is not None:
        try:
            entry = book.begin(
                [(_journal_file(workspace, c), c.file.data if c.existed else None) for c in ready],
                atomic=atomic,
                blocks=blocks,
            )
        except WorkspaceError as exc:
            for change in ready:
                _fail(change, f"not written: {exc}")
            return
    folders = FolderSync()
    try:
        if atomic and not dry_run:
            _commit_all(workspace, ready, result, book, entry, folders)
            return
        written: list[Change] = []
        for change in ready:
            try:
                if change.delete:
                    if any(r.status is EditStatus.FAILED for r in change.owners):
                        # A move whose new file could not be written keeps its old one.
                        continue
                    workspace.delete(change.path, expected=change.file.data, folders=folders)
                    written.append(change)
                    _record(result, change)
                    continue
                change.created_folders = workspace.write_bytes(
                    change.path,
                    change.data,
                    change.file.mode,
                    expected=change.file.data if change.existed else ABSENT,
                    folders=folders,
                )
            except (OSError, WorkspaceError) as exc:
                _fail(change, f"could not write {change.path}: {_why(exc)}")
                if atomic:
                    folders.flush()
                    _roll_back(workspace, written, result, book, entry, change.path)
                    return
                continue
            written.append(change)
            _record(result, change)
        folders.flush()  # every rename durable before the journal says the files were written
        _close_journal(book, entry, written, result)
    finally:
        folders.flush()


def _commit_all(
    workspace: Workspace,
    ready: list[Change],
    result: ApplyResult,
    book: Journal | None,
    entry: JournalEntry | None,
    folders: FolderSync,
) -> None:
    """All or nothing, across crashes too: every new file complete and synced in a temporary file
    first (the journal entry, written before, is the intent record), then the renames in one go.

    A crash before the last rename leaves the entry pending; the next editblocks command under
    the root puts the files back (see :func:`editblocks.files.journal.recover`).
    """
    pending: dict[int, PendingWrite] = {}
    for i, change in enumerate(ready):
        if change.delete:
            continue
        try:
            pending[i] = workspace.prepare_write(
                change.path, change.data, change.file.mode, expected=change.file.data if change.existed else ABSENT
            )
            change.created_folders = pending[i].created
            pending[i].park()
        except (OSError, WorkspaceError) as exc:
            _fail(change, f"could not write {change.path}: {_why(exc)}")
            for other in pending.values():
                other.abort()
            workspace.remove_empty_folders([d for c in ready for d in c.created_folders])
            _roll_back(workspace, [], result, book, entry, change.path)
            return
    written: list[Change] = []
    for i, change in enumerate(ready):
        try:
            if change.delete:
                workspace.delete(change.path, expected=change.file.data, folders=folders)
            else:
                pending.pop(i).commit(folders)
        except (OSError, WorkspaceError) as exc:
            _fail(change, f"could not write {change.path}: {_why(exc)}")
            for other in pending.values():
                other.abort()
            folders.flush()
            _roll_back(workspace, written, result, book, entry, change.path)
            return
        written.append(change)
        _record(result, change)
    folders.flush()
    _close_journal(book, entry, written, result)


ORIGIN_BUDGET = 200_000_000
"""Characters copied at most to follow a file's lines through its blocks (see :func:`line_origin`)."""


def line_origin(before: str, owners: list[EditResult], after: str) -> list[int] | None:
    """For each line of ``after``, the line of ``before`` it is (-1 for a line a block wrote),
    followed through the spans the blocks recorded, in order; None when the recorded spans do not
    lead from ``before`` to ``after`` (the caller then aligns the texts instead).

    A line outside every span is the line it was, even where equal lines stand next to it:
    that is what keeps each untouched line's own ending in a file with mixed line endings.
    """
    text = before + "\n" if before and not before.endswith("\n") else before
    if len(owners) * (len(text) + 1) > ORIGIN_BUDGET:
        return None
    origin = list(range(text.count("\n")))
    for res in owners:
        if res.span is None or res.replaced is None or res.replacement is None or res.moved_to is not None:
            return None
        start, end = res.span
        if not 0 <= start <= end <= len(text) or text[start:end] != res.replaced:
            return None
        first_at = text.rfind("\n", 0, start) + 1
        if end == first_at or text[end - 1] == "\n":
            last_at = end
        else:
            last_at = text.find("\n", end) + 1 or len(text)
        old_lines = _lines(text[first_at:last_at])
        new_lines = _lines(text[first_at:start] + res.replacement + text[end:last_at])
        first = text.count("\n", 0, first_at)
        kept = origin[first : first + len(old_lines)]
        origin[first : first + len(old_lines)] = [kept[k] if k >= 0 else -1 for k in align_lines(old_lines, new_lines)]
        text = text[:start] + res.replacement + text[end:]
    if text != after and text != after + "\n":
        return None
    return origin if len(origin) == text.count("\n") else None


def _lines(region: str) -> list[str]:
    lines = region.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _prepare(workspace: Workspace, changes: list[Change]) -> list[Change]:
    """Encode each change, and refuse two names for one file; returns the changes fit to write."""
    ready: list[Change] = []
    for change in changes:
        if change.delete:
            ready.append(change)
            continue
        try:
            origin = (
                line_origin(change.before, change.owners, change.after) if change.file.endings is not None else None
            )
            change.data = change.file.encode(change.after, origin)
        except UnwritableTextError as exc:
            _fail(change, str(exc))
            continue
        ready.append(change)
    by_identity: dict[object, list[Change]] = {}
    for change in ready:
        try:
            key: object = workspace.identity(change.path)
        except WorkspaceError:
            key = change.path
        by_identity.setdefault(key, []).append(change)
    same = [group for group in by_identity.values() if len(group) > 1]
    for group in same:
        names = " and ".join(c.path for c in group)
        for change in group:
            _fail(change, f"{names} are the same file (through a link or letter case); edit it under one name")
            ready.remove(change)
    return ready


def _journal_file(workspace: Workspace, change: Change) -> JournalFile:
    return JournalFile(
        path=change.path,
        before=sha256(change.file.data) if change.existed and change.file.data is not None else None,
        after=None if change.delete else sha256(change.data),
        size=None if change.delete else len(change.data),
        mode=change.file.mode,
        created_folders=[] if change.existed else workspace.missing_folders(change.path),
    )


def _record(result: ApplyResult, change: Change) -> None:
    if change.delete:
        result.files_deleted.append(change.path)
    result.files_modified.append(change.path)
    result.before[change.path] = change.before if change.existed else ""
    result.after[change.path] = change.after


def _roll_back(
    workspace: Workspace,
    written: list[Change],
    result: ApplyResult,
    book: Journal | None,
    entry: JournalEntry | None,
    failed_path: str,
) -> None:
    """All-or-nothing after a failed write: put back the files already written."""
    lost: list[Change] = []
    for change in reversed(written):
        try:
            if change.delete and change.file.data is not None:
                workspace.write_bytes(change.path, change.file.data, change.file.mode, expected=ABSENT)
            elif change.existed and change.file.data is not None:
                workspace.write_bytes(change.path, change.file.data, change.file.mode, expected=change.data)
            else:
                workspace.delete(change.path, expected=change.data)
                workspace.remove_empty_folders(change.created_folders)
        except (OSError, WorkspaceError):
            lost.append(change)
    for path in result.files_modified:
        result.before.pop(path, None)
        result.after.pop(path, None)
    result.files_modified.clear()
    result.files_deleted.clear()
    _hold_back(result, f"writing {failed_path} failed; the files already written were put back")
    if lost:
        listed = ", ".join(c.path for c in lost)
        result.warnings.append(
            ParseWarning(0, f"could not put back {listed} after a failed write; run 'editblocks undo' to restore them")
        )
        for change in lost:
            _record(result, change)
            for res in change.owners:
                res.status = EditStatus.APPLIED
                res.reason = None
                res.notes.append("written, and could not be put back after another file failed to write")
        if book is not None and entry is not None:
            book.finish(entry, [c.path for c in lost])
    elif book is not None and entry is not None:
        book.discard(entry)
