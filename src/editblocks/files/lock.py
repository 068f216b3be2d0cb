"""The root's state folder (``.editblocks/``) and the lock that serialises editblocks processes.

Two processes applying edits under the same root take turns: each holds an exclusive lock from
reading the files until their new contents are written and recorded. The lock is taken on the
root folder itself where the system can lock folders, so locking creates nothing in the project;
elsewhere it is the file ``.editblocks/lock``. A shared lock on every folder above the root makes
nested roots (``/r`` and ``/r/sub``) take turns too. Taking the lock first finishes an apply a
crash interrupted (see :func:`editblocks.files.journal.recover`).
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from editblocks.files.workspace import STATE_DIR, WorkspaceError

if TYPE_CHECKING:
    from editblocks.files.journal import Recovery

DEFAULT_LOCK_TIMEOUT = 300.0
_GITIGNORE = "# editblocks' lock and undo journal; never committed.\n*\n"

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]
    import msvcrt


_NOTES: dict[str, list[str]] = {}
_NOTES_LOCK = threading.Lock()


def add_note(root: Path, note: str) -> None:
    with _NOTES_LOCK:
        _NOTES.setdefault(str(root), []).append(note)


def take_notes(root: str | os.PathLike[str]) -> list[str]:
    """The notes the lock left for whoever writes under ``root`` next in this process (an
    interrupted apply it finished or put back), each given once."""
    with _NOTES_LOCK:
        return _NOTES.pop(str(Path(root)), [])


class LockTimeoutError(WorkspaceError):
    """Another editblocks process kept the root locked for longer than the timeout."""


def state_dir(root: Path, *, create: bool = True) -> Path:
    """``root/.editblocks``, created with a ``.gitignore`` that keeps it out of git.

    Refuses a state folder that is a symbolic link or not a folder, so nothing editblocks
    records can land outside the root.
    """
    folder = root / STATE_DIR
    try:
        st = os.lstat(folder)
    except FileNotFoundError:
        if not create:
            return folder
        try:
            os.mkdir(folder)
        except FileExistsError:
            pass
        except OSError as exc:
            raise WorkspaceError(f"cannot create {folder}: {exc.strerror or exc}") from None
        st = os.lstat(folder)
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        raise WorkspaceError(f"{folder} is not a folder (it is a file or a symbolic link); remove it")
    ignore = folder / ".gitignore"
    if create and not os.path.lexists(ignore):
        try:
            ignore.write_text(_GITIGNORE, encoding="utf-8")
        except OSError:
            pass
    return folder


class RootLock:
    """An exclusive lock on the root folder (or ``root/.editblocks/lock``), held as a context manager.

    Waits up to ``timeout`` seconds for another process to release it, then raises
    :class:`LockTimeoutError`. ``on_acquire`` runs once the lock is held: the journal's lock
    (:func:`editblocks.files.journal.root_lock`) finishes there an apply a crash interrupted.
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        timeout: float = DEFAULT_LOCK_TIMEOUT,
        on_acquire: Callable[[RootLock], None] | None = None,
    ) -> None:
        self.root = Path(root).resolve()
        self.timeout = timeout
        self._fd: int | None = None
        self._ancestors: list[int] = []
        self._on_acquire = on_acquire
        self.recoveries: list[Recovery] = []
        """What taking the lock found and did about an interrupted apply (see :func:`editblocks.files.journal.recover`)."""

    def acquire(self) -> None:
        """Take the lock (waiting up to the timeout), then run ``on_acquire``."""
        deadline = time.monotonic() + self.timeout
        self._take_ancestors(deadline)
        try:
            self._take_root(deadline)
        except BaseException:
            self._release_ancestors()
            raise
        if self._on_acquire is not None:
            self._on_acquire(self)

    def _take_root(self, deadline: float) -> None:
        fd, path, locked = self._open()
        if locked:
            self._fd = fd
            return
        delay = 0.005
        while True:
            if _try_lock(fd):
                self._fd = fd
                return
            if time.monotonic() >= deadline:
                os.close(fd)
                raise self._timeout(path)
            time.sleep(delay)
            delay = min(delay * 2, 0.1)

    def _timeout(self, path: Path) -> LockTimeoutError:
        return LockTimeoutError(
            f"another editblocks process has been applying edits under {self.root} for more than "
            f"{self.timeout:g} s (lock on {path})"
        )

    def _take_ancestors(self, deadline: float) -> None:
        """A shared lock on every folder above the root, outermost first, so that an apply under
        an enclosing root (which locks its own root exclusively) and this one take turns."""
        if fcntl is None:  # pragma: no cover - Windows
            return
        for folder in reversed(self.root.parents):
            try:
                fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
            except OSError:
                continue
            delay = 0.005
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        os.close(fd)
                        self._release_ancestors()
                        raise self._timeout(folder) from None
                    time.sleep(delay)
                    delay = min(delay * 2, 0.1)
                    continue
                except OSError:
                    os.close(fd)
                    fd = -1
                break
            if fd >= 0:
                self._ancestors.append(fd)

    def _release_ancestors(self) -> None:
        for fd in reversed(self._ancestors):
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            except OSError:
                pass
            os.close(fd)
        self._ancestors.clear()

    def _open(self) -> tuple[int, Path, bool]:
        """The descriptor to lock, what it is, and whether the first attempt already locked it."""
        if fcntl is not None:
            try:
                fd = os.open(self.root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
            except OSError:
                pass
            else:
                try:
                    return fd, self.root, _try_lock(fd)
                except OSError:
                    # This file system cannot lock folders: use the lock file.
                    os.close(fd)
        path = state_dir(self.root) / "lock"
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(path, flags, 0o644)
        except OSError as exc:
            raise WorkspaceError(f"cannot open the lock file {path}: {exc.strerror or exc}") from None
        return fd, path, False

    def release(self) -> None:
        if self._fd is not None:
            _unlock(self._fd)
            os.close(self._fd)
            self._fd = None
        self._release_ancestors()

    def __enter__(self) -> RootLock:
        self.acquire()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


def _try_lock(fd: int) -> bool:
    if fcntl is not None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True
    try:  # pragma: no cover - Windows
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    except OSError:
        return False
    return True


def _unlock(fd: int) -> None:
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return
    try:  # pragma: no cover - Windows
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
    except OSError:
        pass
