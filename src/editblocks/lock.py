"""The root's state folder (``.editblocks/``) and the lock that serialises editblocks processes.

Two processes applying edits under the same root take turns: each holds an exclusive lock from
reading the files until their new contents are written and recorded. The lock is taken on the
root folder itself where the system can lock folders, so locking creates nothing in the project;
elsewhere it is the file ``.editblocks/lock``.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path
from types import TracebackType

from .workspace import STATE_DIR, WorkspaceError

DEFAULT_LOCK_TIMEOUT = 300.0
_GITIGNORE = "# editblocks' lock and undo journal; never committed.\n*\n"

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]
    import msvcrt


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
    :class:`LockTimeoutError`.
    """

    def __init__(self, root: str | os.PathLike[str], *, timeout: float = DEFAULT_LOCK_TIMEOUT) -> None:
        self.root = Path(root).resolve()
        self.timeout = timeout
        self._fd: int | None = None

    def acquire(self) -> None:
        fd, path, locked = self._open()
        if locked:
            self._fd = fd
            return
        deadline = time.monotonic() + self.timeout
        delay = 0.005
        while True:
            if _try_lock(fd):
                self._fd = fd
                return
            if time.monotonic() >= deadline:
                os.close(fd)
                raise LockTimeoutError(
                    f"another editblocks process has been applying edits under {self.root} for more than "
                    f"{self.timeout:g} s (lock on {path})"
                )
            time.sleep(delay)
            delay = min(delay * 2, 0.1)

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
