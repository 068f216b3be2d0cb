"""Files under a root folder: safe path resolution, faithful reading and atomic writing.

Knows nothing of edit formats or matching.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import subprocess
import tempfile
import unicodedata
from pathlib import Path

from . import textfile
from .textfile import TextFile, UnwritableTextError, dominant_newline

DEFAULT_MAX_FILE_BYTES = 20 * 1024 * 1024
DEFAULT_MAX_REPLY_BYTES = 50 * 1024 * 1024
MAX_NAME_BYTES = 255
MAX_PATH_BYTES = 4000

STATE_DIR = ".editblocks"
"""The folder under the root where editblocks keeps its lock and undo journal."""

_DRIVE = re.compile(r"^[A-Za-z]:")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_SKIP_DIRS = frozenset({".git", ".hg", ".svn", STATE_DIR, "node_modules", "__pycache__", ".venv", "venv", ".tox", ".mypy_cache", ".pytest_cache"})
_INTERNAL = {
    ".git": "editing inside .git is not allowed (git's own files)",
    "git~1": "editing inside .git is not allowed (git's own files, by their short name)",
    ".hg": "editing inside .hg is not allowed (Mercurial's own files)",
    ".svn": "editing inside .svn is not allowed (Subversion's own files)",
    STATE_DIR: f"editing inside {STATE_DIR} is not allowed (editblocks' own lock and undo journal)",
}
_LOOKALIKE_SEPARATORS = frozenset("\u2215\u2044\uff0f\uff3c\u29f8\u29f9\u2216\ufe68\u2571\u2572\u01c0\u02f8\uff0e\u2024\u2025\u2026")
_BAD_CATEGORIES = {
    "Cf": "an invisible formatting character",
    "Co": "a private-use character",
    "Cs": "an unpaired surrogate",
    "Cn": "an unassigned character",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
    "Zs": "a space other than the ordinary space",
}

__all__ = [
    "ABSENT",
    "DEFAULT_MAX_FILE_BYTES",
    "DEFAULT_MAX_REPLY_BYTES",
    "STATE_DIR",
    "BinaryFileError",
    "ConflictError",
    "FileMissingError",
    "PathError",
    "TextFile",
    "TooLargeError",
    "UnwritableTextError",
    "Workspace",
    "WorkspaceError",
    "atomic_write",
    "check_reply_size",
    "decode",
    "dominant_newline",
]


class WorkspaceError(Exception):
    """A path or file that cannot be used; the message says why."""


class PathError(WorkspaceError):
    """A path that is not allowed (outside the root, absolute, into .git, ...)."""


class FileMissingError(WorkspaceError):
    """The file does not exist."""


class BinaryFileError(WorkspaceError):
    """The file is binary or not decodable text."""


class TooLargeError(WorkspaceError):
    """A reply or file larger than the configured limit."""


class ConflictError(WorkspaceError):
    """The file on disk is not what it was expected to be (it changed since it was read)."""


def decode(data: bytes, path: str = "") -> tuple[str, str, bytes]:
    """(text, encoding, bom) of file bytes; raises :class:`BinaryFileError` for binary data."""
    try:
        return textfile.decode(data, path)
    except textfile.BinaryFileError as exc:
        raise BinaryFileError(str(exc)) from None


def check_reply_size(text: str, limit: int = DEFAULT_MAX_REPLY_BYTES) -> None:
    """Raise :class:`TooLargeError` when ``text`` is larger than ``limit`` bytes as UTF-8."""
    if len(text) > limit or (len(text) * 4 > limit and len(text.encode("utf-8", "surrogatepass")) > limit):
        raise TooLargeError(f"reply is too large ({_size(len(text.encode('utf-8', 'surrogatepass')))}; the limit is {_size(limit)})")


def _size(n: int) -> str:
    if n >= 1024 * 1024:
        return f"{n / (1024 * 1024):.1f} MB"
    return f"{n:,} bytes"


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


ABSENT = _Absent()
"""``expected`` for :meth:`Workspace.write_bytes`: the file must not exist."""


class Workspace:
    """The folder edits may touch. Every path is checked to stay inside it."""

    def __init__(self, root: str | os.PathLike[str] = ".", *, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> None:
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise WorkspaceError(f"root folder does not exist: {root}")
        self.max_file_bytes = max_file_bytes
        self._index: list[str] | None = None

    # -- paths -----------------------------------------------------------------

    def normalize(self, path: str) -> str:
        """``path`` as a clean relative POSIX path under the root; raises :class:`PathError`."""
        if not isinstance(path, str) or not path or not path.strip():
            raise PathError("empty file path")
        if "\x00" in path:
            raise PathError(f"file path contains a NUL character: {path!r}")
        if _CONTROL.search(path):
            raise PathError(f"file path contains control characters: {path!r}")
        _check_unicode(path)
        if "\\" in path:
            raise PathError(f"file path uses backslashes (a Windows path); write it relative to the root with '/': {path}")
        if path.startswith("/"):
            raise PathError(f"absolute file paths are not allowed; use a path relative to the root: {path}")
        if _DRIVE.match(path):
            raise PathError(f"Windows drive paths are not allowed; use a path relative to the root: {path}")
        if path.startswith("~"):
            raise PathError(f"home-folder paths ('~') are not allowed; use a path relative to the root: {path}")
        if path.endswith("/") or path.endswith("/."):
            raise PathError(f"file path names a folder, not a file: {path}")
        parts = [p for p in path.split("/") if p not in ("", ".")]
        if not parts:
            raise PathError(f"not a file path: {path!r}")
        if ".." in parts:
            raise PathError(f"file path contains '..'; paths may not leave the root folder: {path}")
        for part in parts:
            if part != part.strip():
                raise PathError(f"file or folder name starts or ends with white space: {part!r} in {path!r}")
            if len(part.encode("utf-8")) > MAX_NAME_BYTES:
                raise PathError(f"file or folder name is longer than {MAX_NAME_BYTES} bytes: {part[:40]}... in {path[:80]}")
            _check_internal(part, path)
        rel = "/".join(parts)
        if len(str(self.root).encode("utf-8")) + len(rel.encode("utf-8")) > MAX_PATH_BYTES:
            raise PathError(f"file path is too long ({len(rel)} characters): {rel[:80]}...")
        return rel

    def resolve(self, path: str) -> tuple[str, Path]:
        """(relative path, real absolute path) for ``path``, refusing anything that leaves the root.

        Symbolic links are followed and must end inside the root; the absolute path returned is
        where the file really is, so writing it keeps the link.
        """
        rel = self.normalize(path)
        full = self.root.joinpath(*rel.split("/"))
        try:
            os.stat(full)
        except FileNotFoundError:
            pass
        except NotADirectoryError:
            raise PathError(f"a folder on the path is a file, not a folder: {rel}") from None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise PathError(f"file path goes through a loop of symbolic links: {rel}") from None
            if exc.errno == errno.ENAMETOOLONG:
                raise PathError(f"file path is too long: {rel[:80]}") from None
            raise WorkspaceError(f"{rel}: {exc.strerror or exc}") from None
        real = Path(os.path.realpath(full))
        if real == self.root:
            raise PathError(f"file path leads to the root folder itself (through a symbolic link): {rel}")
        if self.root not in real.parents:
            raise PathError(f"file path leads outside the root folder (through a symbolic link): {rel}")
        real_rel = real.relative_to(self.root).as_posix()
        if real_rel != rel:
            for part in real_rel.split("/"):
                _check_internal(part, f"{rel} (a symbolic link to {real_rel})")
        return rel, real

    def exists(self, path: str) -> bool:
        _, full = self.resolve(path)
        return full.is_file()

    def similar_paths(self, path: str) -> list[str]:
        """Existing files the model may have meant by a path that does not exist.

        First the files equal to ``path`` up to letter case; if none, the files with the same
        file name anywhere under the root.
        """
        files = self.files()
        wanted = path.lower()
        same_case = [f for f in files if f.lower() == wanted]
        if same_case:
            return same_case
        name = path.rsplit("/", 1)[-1]
        return [f for f in files if f.rsplit("/", 1)[-1] == name]

    def files(self) -> list[str]:
        """Every file under the root, relative and sorted, without version-control, tool and
        cache folders (indexed once, at most about 200,000)."""
        if self._index is None:
            found: list[str] = []
            for dirpath, dirnames, filenames in os.walk(self.root):
                dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
                rel_dir = Path(dirpath).relative_to(self.root).as_posix()
                for name in sorted(filenames):
                    found.append(name if rel_dir == "." else f"{rel_dir}/{name}")
                if len(found) > 200_000:
                    break
            self._index = found
        return self._index

    # -- reading and writing ------------------------------------------------------

    def read_bytes(self, path: str) -> tuple[str, bytes, int]:
        """(relative path, bytes, mode bits) of a regular file under the root.

        Raises a :class:`WorkspaceError` saying why it cannot be read (missing, a folder, a
        device or pipe, larger than the limit, unreadable).
        """
        rel, full = self.resolve(path)
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
        try:
            fd = os.open(full, flags)
        except FileNotFoundError:
            raise FileMissingError(f"file not found: {rel}") from None
        except IsADirectoryError:
            raise WorkspaceError(f"{rel} is a folder, not a file") from None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise PathError(f"{rel} changed into a symbolic link while being read") from None
            if exc.errno in (errno.ENXIO, errno.ENODEV):
                raise WorkspaceError(f"{rel} is not a regular file (a socket or device)") from None
            raise WorkspaceError(f"cannot read {rel}: {exc.strerror or exc}") from None
        try:
            st = os.fstat(fd)
            if stat.S_ISDIR(st.st_mode):
                raise WorkspaceError(f"{rel} is a folder, not a file")
            if not stat.S_ISREG(st.st_mode):
                raise WorkspaceError(f"{rel} is not a regular file ({_kind(st.st_mode)})")
            if st.st_size > self.max_file_bytes:
                raise TooLargeError(
                    f"{rel} is too large to edit ({_size(st.st_size)}; the limit is {_size(self.max_file_bytes)})"
                )
            chunks = []
            remaining = self.max_file_bytes + 1
            while remaining > 0:
                chunk = os.read(fd, min(remaining, 1 << 20))
                if not chunk:
                    break
                chunks.append(chunk)
                remaining -= len(chunk)
            data = b"".join(chunks)
        except OSError as exc:
            raise WorkspaceError(f"cannot read {rel}: {exc.strerror or exc}") from None
        finally:
            os.close(fd)
        if len(data) > self.max_file_bytes:
            raise TooLargeError(f"{rel} is too large to edit (over {_size(self.max_file_bytes)}, the limit)")
        return rel, data, stat.S_IMODE(st.st_mode)

    def read(self, path: str) -> TextFile:
        """Read a text file under the root; raises a :class:`WorkspaceError` saying why it cannot."""
        rel, data, mode = self.read_bytes(path)
        try:
            return TextFile.from_bytes(rel, data, mode)
        except textfile.BinaryFileError as exc:
            raise BinaryFileError(str(exc)) from None

    def write(self, file: TextFile, text: str) -> None:
        """Write ``text`` to ``file`` atomically: a temporary file beside it, fsync, rename."""
        try:
            data = file.encode(text)
        except UnwritableTextError as exc:
            raise WorkspaceError(str(exc)) from None
        self.write_bytes(file.path, data, file.mode)

    def missing_folders(self, path: str) -> list[str]:
        """The folders (relative, outermost first) that writing ``path`` would create."""
        rel, full = self.resolve(path)
        missing: list[str] = []
        folder = full.parent
        while folder != self.root and not folder.exists():
            missing.append(folder.relative_to(self.root).as_posix())
            folder = folder.parent
        return missing[::-1]

    def write_bytes(self, path: str, data: bytes, mode: int | None = None, *, expected: object = None) -> list[str]:
        """Replace the file at ``path`` with ``data`` atomically; returns the folders it created.

        ``expected`` guards against overwriting a change made by someone else: the bytes the file
        must still hold, or :data:`ABSENT` when it must not exist. A mismatch raises
        :class:`ConflictError` and writes nothing.
        """
        rel, full = self.resolve(path)
        try:
            st = os.lstat(full)
        except FileNotFoundError:
            st = None
        if st is not None:
            if stat.S_ISDIR(st.st_mode):
                raise WorkspaceError(f"{rel} is a folder, not a file")
            if not stat.S_ISREG(st.st_mode):
                raise WorkspaceError(f"{rel} is not a regular file ({_kind(st.st_mode)})")
            if not st.st_mode & 0o222:
                raise WorkspaceError(f"{rel} is read-only; make it writable to edit it")
        if expected is ABSENT and st is not None:
            raise ConflictError(f"{rel} was created by something else while the edits were being applied")
        if isinstance(expected, bytes):
            if st is None:
                raise ConflictError(f"{rel} was deleted by something else while the edits were being applied")
            if self.read_bytes(rel)[1] != expected:
                raise ConflictError(f"{rel} was changed by something else while the edits were being applied")
        created = self._make_folders(rel, full)
        if mode is None:
            mode = stat.S_IMODE(st.st_mode) if st is not None else _new_file_mode()
        _remove_stale_temporaries(full)
        atomic_write(full, data, mode)
        return created

    def _make_folders(self, rel: str, full: Path) -> list[str]:
        created: list[str] = []
        for folder_rel in self.missing_folders(rel):
            folder = self.root / folder_rel
            try:
                os.mkdir(folder)
            except FileExistsError:
                if not folder.is_dir():
                    raise WorkspaceError(f"cannot create folder {folder_rel} for {rel}: a file of that name exists") from None
                continue
            except OSError as exc:
                raise WorkspaceError(f"cannot create folder {folder_rel} for {rel}: {exc.strerror or exc}") from None
            created.append(folder_rel)
        # Re-check after creating folders: a folder on the way may have become a link out of the root.
        real_parent = Path(os.path.realpath(full.parent))
        if real_parent != self.root and self.root not in real_parent.parents:
            raise PathError(f"file path leads outside the root folder (through a symbolic link): {rel}")
        return created

    def delete(self, path: str, *, expected: bytes | None = None) -> None:
        """Delete the file at ``path``; with ``expected``, only if it still holds those bytes."""
        rel, full = self.resolve(path)
        if expected is not None and self.read_bytes(rel)[1] != expected:
            raise ConflictError(f"{rel} was changed by something else; not deleted")
        try:
            os.unlink(full)
        except FileNotFoundError:
            return
        except OSError as exc:
            raise WorkspaceError(f"cannot delete {rel}: {exc.strerror or exc}") from None
        _fsync_dir(full.parent)

    def remove_empty_folders(self, folders: list[str]) -> list[str]:
        """Remove those of ``folders`` (relative) that are empty, innermost first; returns the removed ones."""
        removed = []
        for folder_rel in sorted(folders, key=lambda f: f.count("/"), reverse=True):
            try:
                rel, full = self.resolve(folder_rel)
                os.rmdir(full)
            except (OSError, WorkspaceError):
                continue
            removed.append(rel)
        return removed

    # -- git ----------------------------------------------------------------------

    def in_git_worktree(self) -> bool:
        try:
            out = subprocess.run(
                ["git", "rev-parse", "--is-inside-work-tree"],
                cwd=self.root,
                capture_output=True,
                text=True,
                timeout=30,
            )
        except (OSError, subprocess.TimeoutExpired):
            return False
        return out.returncode == 0 and out.stdout.strip() == "true"

    def git_add(self, paths: list[str]) -> str | None:
        """Stage ``paths`` with ``git add``; returns an error message, or None on success."""
        if not paths:
            return None
        if not self.in_git_worktree():
            return "not a git work tree; nothing staged"
        out = subprocess.run(["git", "add", "--", *paths], cwd=self.root, capture_output=True, text=True, timeout=60)
        return None if out.returncode == 0 else (out.stderr.strip() or "git add failed")


def _check_unicode(path: str) -> None:
    if path.isascii():
        return
    for ch in path:
        if ch in _LOOKALIKE_SEPARATORS:
            raise PathError(
                f"file path contains {unicodedata.name(ch, 'a character')} (U+{ord(ch):04X}), which looks like "
                f"a path separator or dot: {path!r}"
            )
        what = _BAD_CATEGORIES.get(unicodedata.category(ch))
        if what and ch != " ":
            name = unicodedata.name(ch, "")
            raise PathError(f"file path contains {what} (U+{ord(ch):04X}{' ' + name if name else ''}): {path!r}")


def _check_internal(part: str, path: str) -> None:
    key = part.casefold().split(":", 1)[0].rstrip(" .")
    reason = _INTERNAL.get(key)
    if reason:
        raise PathError(f"{reason}: {path}")


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "not a file"


_TMP_SUFFIX = ".editblocks-tmp"


def _remove_stale_temporaries(full: Path) -> None:
    """Delete temporary files a killed editblocks process left beside ``full``.

    Callers hold the root's lock, so no other editblocks process is writing them.
    """
    try:
        names = os.listdir(full.parent)
    except OSError:
        return
    prefix = f".{full.name[:200]}."
    for name in names:
        if name.startswith(prefix) and name.endswith(_TMP_SUFFIX):
            stale = full.parent / name
            try:
                if stat.S_ISREG(os.lstat(stale).st_mode):
                    os.unlink(stale)
            except OSError:
                pass


def atomic_write(full: Path, data: bytes, mode: int) -> None:
    """Write ``data`` to ``full``: a temporary file in the same folder, fsync, rename over it.

    A crash at any instant leaves ``full`` either as it was or entirely new.
    """
    fd, tmp = tempfile.mkstemp(prefix=f".{full.name[:200]}.", suffix=_TMP_SUFFIX, dir=full.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, full)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _fsync_dir(full.parent)


def _new_file_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
