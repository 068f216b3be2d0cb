"""The undo journal: what each apply changed, so that :func:`undo` can put it back.

Every apply that writes files records, before writing anything, one entry under
``<root>/.editblocks/journal/``: for each file its path, the SHA-256 of its content before and
after, and its mode bits. The content before is kept under ``.editblocks/objects/`` by hash.
An apply interrupted half-way leaves its entry ``pending``; undo restores it all the same.

:func:`undo` restores the files of the last apply not yet undone (deleting the files it created),
and refuses, writing nothing, when any of them changed since that apply wrote it.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from editblocks.files.lock import DEFAULT_LOCK_TIMEOUT, RootLock, add_note, state_dir
from editblocks.files.workspace import (
    ABSENT,
    FileMissingError,
    Workspace,
    WorkspaceError,
    atomic_write,
    open_folder_beneath,
)

KEEP_ENTRIES = 50
"""How many applies the journal remembers; older entries and their saved contents are dropped."""

PENDING, APPLIED, UNDONE = "pending", "applied", "undone"


class UndoError(WorkspaceError):
    """Undo is impossible or refused; the message says why and that nothing was restored."""


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class JournalFile:
    """One file an apply wrote."""

    path: str
    before: str | None
    """SHA-256 of the content before the apply; None when the apply created the file."""
    after: str | None
    """SHA-256 of the content the apply wrote; None when the apply deleted the file."""
    mode: int | None = None
    """Mode bits before the apply."""
    created_folders: list[str] = field(default_factory=list)
    """Folders the apply created for this file (relative to the root)."""
    size: int | None = None
    """The size in bytes of the content the apply wrote (None when it deleted the file, or for
    entries written before it was recorded)."""

    @property
    def created(self) -> bool:
        return self.before is None


@dataclass
class JournalEntry:
    """One apply: when, which files, and whether it was undone."""

    id: int
    time: str
    state: str
    files: list[JournalFile]
    undone_time: str | None = None
    atomic: bool = False
    """All or nothing: an interrupted apply is put back by the next command (see :func:`recover`)."""
    git_index: dict[str, str | None] | None = None
    """With ``git add``: each staged file's index entry before (``"mode sha"``, None for none)."""
    git_commit: str | None = None
    """With ``--commit``: the commit that recorded the apply (undo removes it while it is HEAD)."""
    reply: str | None = None
    """Which reply was applied: its file name, or its first line."""
    blocks: str | None = None
    """A digest of the reply's blocks (see :func:`editblocks.pipeline.placer.blocks_digest`)."""
    done: list[Any] | None = None
    """The blocks that were applied or already applied once the writes were over: ``[index,
    [paths]]`` each, the paths the block acted on (its file, and where it moved it)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> JournalEntry:
        files = [JournalFile(**f) for f in data.get("files", [])]
        return cls(
            int(data["id"]),
            str(data["time"]),
            str(data["state"]),
            files,
            data.get("undone_time"),
            bool(data.get("atomic", False)),
            data.get("git_index"),
            data.get("git_commit"),
            data.get("reply"),
            data.get("blocks"),
            data.get("done"),
        )

    def describe(self) -> str:
        """``#3  2024-05-01 12:00:03  applied  reply.md  a.py (changed), b.py (created)``: when,
        which reply, which files (and the commit, when the apply was committed)."""
        names = ", ".join(
            f"{f.path} ({'created' if f.created else 'deleted' if f.after is None else 'changed'})"
            for f in self.files[:8]
        )
        if len(self.files) > 8:
            names += f" and {len(self.files) - 8} more"
        state = "interrupted" if self.state == PENDING else self.state
        when = self.time.replace("T", " ")[:19]
        reply = f"  {self.reply}" if self.reply else ""
        commit = f"  (commit {self.git_commit[:10]})" if self.git_commit else ""
        return f"#{self.id}  {when}  {state:<11}{reply}  {names}{commit}"


@dataclass
class UndoResult:
    """What :func:`undo` did."""

    entry: JournalEntry
    restored: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    """Files that already held their content from before the apply."""
    folders_removed: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What was found and done before the undo (an interrupted apply finished or put back)."""


def _now() -> str:
    return datetime.now().astimezone().isoformat(timespec="seconds")


class Journal:
    """The journal of one root. Callers hold the root's :class:`RootLock` while using it."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root).resolve()

    def _folder(self, name: str, *, create: bool = True) -> Path:
        folder = state_dir(self.root, create=create) / name
        try:
            st = os.lstat(folder)
        except FileNotFoundError:
            if not create:
                return folder
            parent = open_folder_beneath(self.root, folder.parent)
            try:
                os.mkdir(name, 0o700, dir_fd=parent)
            except FileExistsError:
                pass
            finally:
                os.close(parent)
            st = os.lstat(folder)
        if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
            raise WorkspaceError(f"{folder} is not a folder (it is a file or a symbolic link); remove it")
        return folder

    # -- recording ------------------------------------------------------------------

    def begin(
        self,
        files: list[tuple[JournalFile, bytes | None]],
        *,
        atomic: bool = False,
        blocks: str | None = None,
    ) -> JournalEntry:
        """Record an apply about to write ``files`` (each with its content before, or None).

        The entry stays ``pending`` until :meth:`finish`; for an ``atomic`` apply it is the intent
        record :func:`recover` acts on after a crash. Raises :class:`WorkspaceError` when the journal cannot be written; then nothing may be
        written to the files either.
        """
        try:
            objects = self._folder("objects")
            entries = self._folder("journal")
            for jf, before in files:
                if before is not None:
                    target = objects / jf.before  # type: ignore[operator]
                    if not target.exists():
                        atomic_write(target, before, 0o600, root=self.root)
            last = max((e.id for e in self.entries()), default=0)
            entry = JournalEntry(last + 1, _now(), PENDING, [jf for jf, _ in files], atomic=atomic, blocks=blocks)
            self._save(entry, entries)
        except OSError as exc:
            raise WorkspaceError(
                f"cannot record the undo journal under {self.root / '.editblocks'}: {exc.strerror or exc}"
            ) from None
        return entry

    def unchanged_since(self, blocks: str, workspace: Workspace) -> JournalEntry | None:
        """The last apply of the blocks with digest ``blocks``, when it is the last apply that
        wrote its files, was not undone, and every file it wrote still holds what it wrote (a
        file it deleted is still absent); None otherwise."""
        entries = [e for e in self.entries() if e.state == APPLIED]
        mine = next((e for e in reversed(entries) if e.blocks == blocks), None)
        if mine is None or mine.done is None:
            return None
        paths = {f.path for f in mine.files}
        if any(e.id > mine.id and paths & {f.path for f in e.files} for e in entries):
            return None
        for jf in mine.files:
            if jf.size is not None:
                try:
                    if os.stat(self.root / jf.path).st_size != jf.size:
                        return None  # changed since: known without reading it
                except OSError:
                    return None
            try:
                data: bytes | None = workspace.read_bytes(jf.path)[1]
            except FileMissingError:
                data = None
            except WorkspaceError:
                return None
            if (None if data is None else sha256(data)) != jf.after:
                return None
        return mine

    def finish(self, entry: JournalEntry, written: list[str]) -> None:
        """The apply wrote ``written``: keep those files in the entry, or drop an entry that wrote nothing."""
        keep = set(written)
        entry.files = [f for f in entry.files if f.path in keep]
        if not entry.files:
            self._remove(entry)
        else:
            entry.state = APPLIED
            self._save(entry, self._folder("journal"))
        self.prune()

    def discard(self, entry: JournalEntry) -> None:
        """Forget an entry whose files were all put back."""
        self._remove(entry)
        self.prune()

    def record_git_index(self, entry: JournalEntry, index: dict[str, str | None]) -> None:
        """Record the index entries ``git add`` is about to change, for undo."""
        entry.git_index = index
        self._save(entry, self._folder("journal"))

    def annotate(self, entry: JournalEntry, *, reply: str | None = None, git_commit: str | None = None) -> None:
        """Record which reply the apply came from, and the commit that recorded it."""
        if reply is not None:
            entry.reply = reply
        if git_commit is not None:
            entry.git_commit = git_commit
        self._save(entry, self._folder("journal"))

    def entry_for(self, written: list[str]) -> JournalEntry | None:
        """The newest entry when it wrote exactly ``written`` (the apply that just finished)."""
        entry = self.last_entry()
        if entry is not None and {f.path for f in entry.files} == set(written):
            return entry
        return None

    def mark_undone(self, entry: JournalEntry) -> None:
        entry.state = UNDONE
        entry.undone_time = _now()
        self._save(entry, self._folder("journal"))

    def _save(self, entry: JournalEntry, folder: Path) -> None:
        data = json.dumps(entry.to_dict(), separators=(",", ":")).encode("utf-8")
        atomic_write(folder / f"{entry.id:06d}.json", data, 0o600, root=self.root)

    def _remove(self, entry: JournalEntry) -> None:
        try:
            os.unlink(self._folder("journal", create=False) / f"{entry.id:06d}.json")
        except FileNotFoundError:
            pass

    # -- reading ---------------------------------------------------------------------

    def last_entry(self) -> JournalEntry | None:
        """The newest recorded apply, reading only its own record."""
        folder = self._folder("journal", create=False)
        try:
            names = sorted(n for n in os.listdir(folder) if n.endswith(".json") and n[:-5].isdigit())
        except OSError:
            return None
        for name in reversed(names):
            try:
                with open(folder / name, "rb") as fh:
                    return JournalEntry.from_dict(json.loads(fh.read()))
            except (OSError, ValueError, KeyError, TypeError):
                continue
        return None

    def entries(self) -> list[JournalEntry]:
        """Every recorded apply, oldest first."""
        folder = self._folder("journal", create=False)
        if not folder.is_dir():
            return []
        found = []
        for name in os.listdir(folder):
            if not name.endswith(".json"):
                continue
            try:
                with open(folder / name, "rb") as fh:
                    found.append(JournalEntry.from_dict(json.loads(fh.read())))
            except (OSError, ValueError, KeyError, TypeError):
                continue
        found.sort(key=lambda e: e.id)
        return found

    def load(self, digest: str) -> bytes:
        """The saved content with SHA-256 ``digest``; raises :class:`UndoError` when it is lost."""
        path = self._folder("objects", create=False) / digest
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0))
            with os.fdopen(fd, "rb") as fh:
                data = fh.read()
        except OSError:
            raise UndoError(
                f"the saved content {digest[:12]} is missing from the journal; nothing was restored"
            ) from None
        if sha256(data) != digest:
            raise UndoError(f"the saved content {digest[:12]} in the journal is damaged; nothing was restored")
        return data

    def prune(self, keep: int = KEEP_ENTRIES) -> None:
        """Drop all but the last ``keep`` entries, and saved contents no entry refers to."""
        entries = self.entries()
        for old in entries[:-keep] if len(entries) > keep else []:
            self._remove(old)
        kept = entries[-keep:]
        used = {f.before for e in kept for f in e.files if f.before}
        objects = self._folder("objects", create=False)
        if not objects.is_dir():
            return
        for name in os.listdir(objects):
            if name not in used and len(name) == 64:
                try:
                    os.unlink(objects / name)
                except OSError:
                    pass


@dataclass
class Recovery:
    """What :func:`recover` did about an apply that was interrupted (a crash, ``kill -9``)."""

    entry: JournalEntry
    rolled_back: bool
    restored: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    temporaries_removed: int = 0
    message: str = ""


def recover(workspace: Workspace) -> Recovery | None:
    """Finish an apply under the root that was interrupted: None when there is none.

    Its temporary files are removed. An all-or-nothing (``atomic``) apply is completed when all
    of its files were already written (the entry is marked applied), and otherwise rolled back:
    every file it wrote gets its content from before, files it created are deleted, and the
    entry is marked undone. The caller holds the root's lock; :class:`~editblocks.files.lock.RootLock`
    calls this on every acquire.
    """
    journal = Journal(workspace.root)
    entry = journal.last_entry()
    if entry is None or entry.state != PENDING:
        return None
    removed = sum(workspace.remove_temporaries(jf.path) for jf in entry.files)
    if not entry.atomic:
        if not removed:
            return None
        return Recovery(
            entry,
            False,
            temporaries_removed=removed,
            message=(
                f"apply #{entry.id} was interrupted; {removed} temporary file(s) it left were removed "
                "(its files are each entirely old or entirely new; 'editblocks undo' puts them back)"
            ),
        )
    current: dict[str, str | None] = {}
    for jf in entry.files:
        try:
            current[jf.path] = sha256(workspace.read_bytes(jf.path)[1])
        except FileMissingError:
            current[jf.path] = None
        except WorkspaceError:
            current[jf.path] = "unreadable"
    if all(current[jf.path] == jf.after for jf in entry.files):
        journal.finish(entry, [jf.path for jf in entry.files])
        return Recovery(
            entry,
            False,
            temporaries_removed=removed,
            message=(
                f"the all-or-nothing apply #{entry.id} was interrupted after writing all its files; it is now "
                "recorded as applied"
            ),
        )
    result = Recovery(entry, True, temporaries_removed=removed)
    lost: list[str] = []
    for jf in entry.files:
        now = current[jf.path]
        if now == jf.before:
            continue
        if now != jf.after:
            lost.append(f"{jf.path} (changed since)")
            continue
        try:
            if jf.before is None:
                workspace.delete(jf.path, expected=workspace.read_bytes(jf.path)[1])
                result.deleted.append(jf.path)
            else:
                expected: object = ABSENT if now is None else workspace.read_bytes(jf.path)[1]
                workspace.write_bytes(jf.path, journal.load(jf.before), jf.mode, expected=expected)
                result.restored.append(jf.path)
        except WorkspaceError as exc:
            lost.append(f"{jf.path} ({exc})")
    workspace.remove_empty_folders([d for jf in entry.files if jf.created for d in jf.created_folders])
    put_back = result.restored + result.deleted
    if not put_back and not lost:
        journal.discard(entry)
        result.rolled_back = False
        result.message = (
            f"the all-or-nothing apply #{entry.id} was interrupted before it wrote any file; nothing changed"
        )
        return result
    names = ", ".join(put_back[:8]) + (f" and {len(put_back) - 8} more" if len(put_back) > 8 else "")
    if lost:
        result.message = (
            f"the all-or-nothing apply #{entry.id} was interrupted; putting its files back failed for "
            f"{', '.join(lost)}; run 'editblocks undo' to finish"
        )
        return result
    journal.mark_undone(entry)
    result.message = f"the all-or-nothing apply #{entry.id} was interrupted; the files it had written were put back as they were before it ({names})"
    return result


def root_lock(root: str | os.PathLike[str], *, timeout: float = DEFAULT_LOCK_TIMEOUT) -> RootLock:
    """The root's lock for an apply or an undo: once taken, it finishes an apply a crash
    interrupted (see :func:`recover`), and notes what it did for the command to report."""
    return RootLock(root, timeout=timeout, on_acquire=_finish_interrupted)


def _finish_interrupted(lock: RootLock) -> None:
    try:
        recovery = recover(Workspace(lock.root))
    except (OSError, WorkspaceError) as exc:
        add_note(lock.root, f"could not check the undo journal for an interrupted apply: {exc}")
        return
    if recovery is not None:
        lock.recoveries.append(recovery)
        add_note(lock.root, recovery.message)


def history(root: str | os.PathLike[str] = ".", *, existing: bool = False) -> list[JournalEntry]:
    """The recorded applies under ``root``, newest first; with ``existing``, without the applies
    whose files are all gone (every file it wrote has since been deleted: nothing to undo)."""
    workspace = Workspace(root)
    entries = Journal(workspace.root).entries()[::-1]
    if existing:
        entries = [e for e in entries if any(f.after is None or (workspace.root / f.path).exists() for f in e.files)]
    return entries


def undo(root: str | os.PathLike[str] = ".", *, lock_timeout: float = DEFAULT_LOCK_TIMEOUT) -> UndoResult:
    """Restore the files of the last apply under ``root`` that was not undone yet.

    Files the apply created are deleted, and folders it created are removed when empty. Raises
    :class:`UndoError`, restoring nothing, when there is nothing to undo or when any of the
    files changed since that apply wrote it.
    """
    workspace = Workspace(root)
    with root_lock(workspace.root, timeout=lock_timeout) as lock:
        journal = Journal(workspace.root)
        for recovery in lock.recoveries:
            if recovery.rolled_back and recovery.entry.state == UNDONE:
                # The interrupted apply was just put back: that is the undo asked for.
                return UndoResult(recovery.entry, recovery.restored, recovery.deleted, notes=[recovery.message])
        entries = journal.entries()
        candidates = [e for e in entries if e.state != UNDONE]
        if not candidates:
            if entries:
                raise UndoError(f"nothing to undo: every recorded apply under {workspace.root} has been undone")
            raise UndoError(f"nothing to undo: no apply has been recorded under {workspace.root}")
        entry = candidates[-1]
        result = UndoResult(entry)
        plan: list[tuple[JournalFile, bytes | None, bytes | None]] = []
        conflicts: list[str] = []
        for jf in entry.files:
            try:
                current: bytes | None = workspace.read_bytes(jf.path)[1]
            except FileMissingError:
                current = None
            except WorkspaceError as exc:
                conflicts.append(f"{jf.path}: {exc}")
                continue
            digest = None if current is None else sha256(current)
            if digest == jf.after:
                plan.append((jf, current, None if jf.before is None else journal.load(jf.before)))
            elif digest == jf.before:
                result.unchanged.append(jf.path)
            elif current is None:
                conflicts.append(f"{jf.path}: deleted since apply #{entry.id} wrote it")
            else:
                conflicts.append(f"{jf.path}: changed since apply #{entry.id} wrote it")
        if conflicts:
            listed = "\n  ".join(conflicts)
            raise UndoError(
                f"undo of apply #{entry.id} refused; nothing was restored, because these files are not what "
                f"that apply wrote and restoring them would lose those changes:\n  {listed}"
            )
        if entry.git_commit:
            problem = workspace.git_uncommit(entry.git_commit)
            if problem:
                raise UndoError(f"undo of apply #{entry.id} refused; nothing was restored: {problem}")
            result.notes.append(f"commit {entry.git_commit[:10]} removed (git reset --soft HEAD~1)")
        for jf, current, before in plan:
            try:
                if before is None:
                    workspace.delete(jf.path, expected=current)
                    result.deleted.append(jf.path)
                else:
                    # A file the apply deleted must still be absent; any other must hold what the apply wrote.
                    workspace.write_bytes(jf.path, before, jf.mode, expected=ABSENT if current is None else current)
                    result.restored.append(jf.path)
            except WorkspaceError as exc:
                done = ", ".join(result.restored + result.deleted) or "none"
                raise UndoError(
                    f"undo of apply #{entry.id} stopped at {jf.path}: {exc}. Files restored so far: {done}; "
                    "run undo again to finish"
                ) from None
        folders = [d for jf in entry.files if jf.created for d in jf.created_folders]
        result.folders_removed = workspace.remove_empty_folders(folders)
        if entry.git_index:
            error = workspace.git_restore_index(entry.git_index)
            result.notes.append(
                f"git index not restored: {error}" if error else "git index restored as it was before the apply"
            )
        journal.mark_undone(entry)
        result.notes[:0] = [r.message for r in lock.recoveries]
        return result
