"""Files under a root folder: safe path resolution, faithful reading and atomic writing.

Knows nothing of edit formats or matching.
"""

from __future__ import annotations

import errno
import os
import re
import signal
import stat
import time
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

from editblocks.errors import BinaryFileError, ConflictError, FileMissingError, PathError, TooLargeError, WorkspaceError
from editblocks.files import textfile
from editblocks.files.textfile import TextFile, UnwritableTextError, dominant_newline

if TYPE_CHECKING:
    import subprocess

DEFAULT_MAX_FILE_BYTES = 20 * 1024 * 1024
DEFAULT_MAX_REPLY_BYTES = 50 * 1024 * 1024
MAX_NAME_BYTES = 255
MAX_PATH_BYTES = 4000

STATE_DIR = ".editblocks"
"""The folder under the root where editblocks keeps its lock and undo journal."""

_DRIVE = re.compile(r"^[A-Za-z]:")
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+:/")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        STATE_DIR,
        "node_modules",
        "__pycache__",
        ".venv",
        "venv",
        ".tox",
        ".mypy_cache",
        ".pytest_cache",
    }
)
_INTERNAL = {
    ".git": "editing inside .git is not allowed (git's own files)",
    "git~1": "editing inside .git is not allowed (git's own files, by their short name)",
    ".hg": "editing inside .hg is not allowed (Mercurial's own files)",
    ".svn": "editing inside .svn is not allowed (Subversion's own files)",
    STATE_DIR: f"editing inside {STATE_DIR} is not allowed (editblocks' own lock and undo journal)",
}
_LOOKALIKE_SEPARATORS = frozenset(
    "\u2215\u2044\uff0f\uff3c\u29f8\u29f9\u2216\ufe68\u2571\u2572\u01c0\u02f8\uff0e\u2024\u2025\u2026"
)
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
    "PendingWrite",
    "Spot",
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


def decode(data: bytes, path: str = "") -> tuple[str, str, bytes]:
    """(text, encoding, bom) of file bytes; raises :class:`BinaryFileError` for binary data."""
    try:
        return textfile.decode(data, path)
    except BinaryFileError:
        raise


def check_reply_size(text: str, limit: int = DEFAULT_MAX_REPLY_BYTES) -> None:
    """Raise :class:`TooLargeError` when ``text`` is larger than ``limit`` bytes as UTF-8."""
    if len(text) > limit or (len(text) * 4 > limit and len(text.encode("utf-8", "surrogatepass")) > limit):
        raise TooLargeError(
            f"reply is too large ({_size(len(text.encode('utf-8', 'surrogatepass')))}; the limit is {_size(limit)})"
        )


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
        if path.startswith("\\\\"):
            raise PathError(
                f"absolute file paths are not allowed (a Windows network path, with backslashes); use a path relative to the root: {path}"
            )
        if path.startswith("//") or _URL.match(path):
            raise PathError(
                f"absolute file paths are not allowed (a network path or a URL); use a path relative to the root: {path}"
            )
        if "\\" in path:
            raise PathError(
                f"file path uses backslashes (a Windows path); write it relative to the root with '/': {path}"
            )
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
                raise PathError(
                    f"file or folder name is longer than {MAX_NAME_BYTES} bytes: {part[:40]}... in {path[:80]}"
                )
            _check_internal(part, path)
        rel = "/".join(parts)
        if len(str(self.root).encode("utf-8")) + len(rel.encode("utf-8")) > MAX_PATH_BYTES:
            raise PathError(f"file path is too long ({len(rel)} characters): {rel[:80]}...")
        return rel

    def resolve(self, path: str) -> tuple[str, Path]:
        """(relative path, real absolute path) for ``path``, refusing anything that leaves the root.

        Symbolic links are followed and must end inside the root; the absolute path returned is
        where the file really is, so writing it keeps the link. Each folder is opened in turn
        from the root without following links outside it (see :meth:`locate`).
        """
        rel = self.normalize(path)
        spot = self.locate(rel)
        spot.close()
        return spot.asked, self.root.joinpath(*spot.real.split("/"))

    def locate(self, path: str, *, make_folders: bool = False) -> Spot:
        """Where ``path`` really is: its folder opened from the root's descriptor and its name there.

        Every folder on the way is opened relative to the one before with ``O_NOFOLLOW``; a
        symbolic link is read and followed only as long as it stays inside the root, so no later
        step re-walks a path string that something else could have swapped. Names are matched
        to existing ones after Unicode normalisation (NFC). With ``make_folders`` missing folders
        are created (listed in :attr:`Spot.created`). The caller closes the :class:`Spot`.
        """
        rel = self.normalize(path)
        try:
            return self._walk(rel, make_folders)
        except WorkspaceError:
            raise
        except OSError as exc:
            raise _os_error(exc, rel) from None

    def _walk(self, rel: str, make_folders: bool) -> Spot:
        parts = rel.split("/")
        asked = list(parts)
        created: list[str] = []
        hops = 0
        while True:
            fd = os.open(self.root, _DIR_FLAGS)
            real: list[str] = []
            restart: list[str] | None = None
            try:
                missing = False
                for index, part in enumerate(parts):
                    last = index == len(parts) - 1
                    if missing:
                        real.append(part)
                        continue
                    st = _lstat(fd, part)
                    if st is None or not part.isascii():
                        alike = _existing_name(fd, part, rel)
                        if alike != part:
                            part = alike
                            st = _lstat(fd, part)
                    if hops == 0:
                        asked[index] = part
                    if st is not None and stat.S_ISLNK(st.st_mode):
                        hops += 1
                        if hops > _MAX_LINKS:
                            raise PathError(f"file path goes through a loop of symbolic links: {rel}")
                        target = os.readlink(part, dir_fd=fd)
                        restart = self._follow(real, target, parts[index + 1 :], rel)
                        break
                    if last:
                        real.append(part)
                        break
                    if st is None:
                        if not make_folders:
                            missing = True
                            real.append(part)
                            continue
                        try:
                            os.mkdir(part, 0o777, dir_fd=fd)
                            created.append("/".join([*real, part]))
                            _fsync_fd(fd)
                        except FileExistsError:
                            pass
                    elif not stat.S_ISDIR(st.st_mode):
                        raise PathError(f"a folder on the path is a file, not a folder: {rel}")
                    try:
                        nfd = os.open(part, _DIR_FLAGS, dir_fd=fd)
                    except OSError as exc:
                        if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.ENOENT):
                            # It changed since it was looked at: look again from the root.
                            hops += 1
                            if hops > _MAX_LINKS:
                                raise PathError(
                                    f"a folder on the path keeps changing while it is opened: {rel}"
                                ) from None
                            restart = parts
                            break
                        raise
                    os.close(fd)
                    fd = nfd
                    real.append(part)
            except BaseException:
                os.close(fd)
                raise
            if restart is not None:
                os.close(fd)
                parts = restart
                continue
            break
        real_rel = "/".join(real)
        if not real_rel:
            os.close(fd)
            raise PathError(f"file path leads to the root folder itself (through a symbolic link): {rel}")
        if real_rel != rel:
            for part in real:
                try:
                    _check_internal(part, f"{rel} (a symbolic link to {real_rel})")
                except PathError:
                    os.close(fd)
                    raise
        spot = Spot(None if missing else fd, real[-1], real_rel, "/".join(asked), created)
        if missing:
            os.close(fd)
        return spot

    def _follow(self, real: list[str], target: str, rest: list[str], rel: str) -> list[str]:
        """The parts under the root that a link named in folder ``real`` and pointing to ``target`` leads to."""
        if target.startswith("/"):
            root = str(self.root)
            if target == root or target.startswith(root + "/"):
                base: list[str] = []
                target = target[len(root) :]
            else:
                # A link through some other path back into the root (e.g. a folder linked elsewhere).
                resolved = os.path.realpath(target)
                if resolved != root and not resolved.startswith(root.rstrip("/") + "/"):
                    raise PathError(f"file path leads outside the root folder (through a symbolic link): {rel}")
                base, target = [], resolved[len(root) :]
        else:
            base = list(real)
        for piece in [*target.split("/"), *rest]:
            if piece in ("", "."):
                continue
            if piece == "..":
                if not base:
                    raise PathError(f"file path leads outside the root folder (through a symbolic link): {rel}")
                base.pop()
                continue
            base.append(piece)
        if not base:
            raise PathError(f"file path leads to the root folder itself (through a symbolic link): {rel}")
        return base

    def identity(self, path: str) -> object:
        """What ``path`` names, to tell two names of one file apart: (device, inode) of an
        existing file, else where it would be (relative, links followed, letter case folded)."""
        spot = self.locate(path)
        try:
            st = _lstat_at(spot) if spot.dir_fd is not None else None
        except OSError:
            st = None
        finally:
            spot.close()
        return (st.st_dev, st.st_ino) if st is not None else os.path.normcase(spot.real)

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
        spot = self.locate(path)
        try:
            rel, data, st = self._read_at(spot)
        finally:
            spot.close()
        return rel, data, stat.S_IMODE(st.st_mode)

    def _read_at(self, spot: Spot) -> tuple[str, bytes, os.stat_result]:
        rel = spot.asked
        if spot.dir_fd is None:
            raise FileMissingError(f"file not found: {rel}")
        fd = _open_file(spot, rel)
        try:
            st, data = self._read_fd(fd, rel)
        finally:
            os.close(fd)
        return rel, data, st

    def _read_fd(self, fd: int, rel: str) -> tuple[os.stat_result, bytes]:
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
            offset = 0
            while remaining > 0:
                chunk = os.pread(fd, min(remaining, 1 << 20), offset)
                if not chunk:
                    break
                chunks.append(chunk)
                remaining -= len(chunk)
                offset += len(chunk)
            data = b"".join(chunks)
        except OSError as exc:
            raise WorkspaceError(f"cannot read {rel}: {exc.strerror or exc}") from None
        if len(data) > self.max_file_bytes:
            raise TooLargeError(f"{rel} is too large to edit (over {_size(self.max_file_bytes)}, the limit)")
        return st, data

    def read(self, path: str) -> TextFile:
        """Read a text file under the root; raises a :class:`WorkspaceError` saying why it cannot."""
        rel, data, mode = self.read_bytes(path)
        try:
            return TextFile.from_bytes(rel, data, mode)
        except BinaryFileError:
            raise

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

    def write_bytes(
        self,
        path: str,
        data: bytes,
        mode: int | None = None,
        *,
        expected: object = None,
        folders: FolderSync | None = None,
    ) -> list[str]:
        """Replace the file at ``path`` with ``data`` atomically; returns the folders it created.

        ``expected`` guards against overwriting a change made by someone else: the bytes the file
        must still hold, or :data:`ABSENT` when it must not exist. A mismatch raises
        :class:`ConflictError` and writes nothing. With ``folders``, the file's folder is synced
        when they are flushed rather than at once.
        """
        pending = self.prepare_write(path, data, mode, expected=expected)
        pending.commit(folders)
        return pending.created

    def prepare_write(
        self, path: str, data: bytes, mode: int | None = None, *, expected: object = None
    ) -> PendingWrite:
        """Write ``data`` to a synced temporary file beside ``path``; :meth:`PendingWrite.commit`
        then checks ``expected`` and renames it into place at once (see :meth:`write_bytes`).

        The owner and group of the file replaced are kept where permitted; setuid and setgid
        bits are dropped when they could not be. Call ``commit`` or ``abort``.
        """
        spot = self.locate(path, make_folders=True)
        rel = spot.asked
        try:
            if spot.dir_fd is None:  # pragma: no cover - make_folders opens every folder
                raise WorkspaceError(f"cannot create the folders for {rel}")
            st = _lstat_at(spot)
            if st is not None:
                if stat.S_ISDIR(st.st_mode):
                    raise WorkspaceError(f"{rel} is a folder, not a file")
                if not stat.S_ISREG(st.st_mode):
                    raise WorkspaceError(f"{rel} is not a regular file ({_kind(st.st_mode)})")
                if not st.st_mode & 0o222:
                    raise WorkspaceError(f"{rel} is read-only; make it writable to edit it")
            if expected is ABSENT and st is not None:
                raise ConflictError(f"{rel} was created by something else while the edits were being applied")
            if isinstance(expected, bytes) and st is None:
                raise ConflictError(f"{rel} was deleted by something else while the edits were being applied")
            if mode is None:
                mode = stat.S_IMODE(st.st_mode) if st is not None else _new_file_mode()
            owner = (st.st_uid, st.st_gid) if st is not None else None
            _remove_stale_temporaries(spot.dir_fd, spot.name)
            tmp = _write_temporary(spot.dir_fd, spot.name, data, mode, owner)
        except WorkspaceError:
            spot.close()
            raise
        except OSError as exc:
            spot.close()
            raise _os_error(exc, rel) from None
        return PendingWrite(self, spot, tmp, data, expected)

    def delete(self, path: str, *, expected: bytes | None = None, folders: FolderSync | None = None) -> None:
        """Delete the file at ``path``; with ``expected``, only if it still holds those bytes
        (``folders``: as for :meth:`write_bytes`)."""
        spot = self.locate(path)
        rel = spot.asked
        try:
            if spot.dir_fd is None:
                return
            if expected is not None:
                try:
                    fd = _open_file(spot, rel)
                except FileMissingError:
                    raise ConflictError(f"{rel} was deleted by something else; not deleted") from None
                try:
                    st, current = self._read_fd(fd, rel)
                    if current != expected:
                        raise ConflictError(f"{rel} was changed by something else; not deleted")
                    _same_file_still(spot, st, f"{rel} was changed by something else; not deleted")
                finally:
                    os.close(fd)
            try:
                os.unlink(spot.name, dir_fd=spot.dir_fd)
            except FileNotFoundError:
                return
            except OSError as exc:
                raise WorkspaceError(f"cannot delete {rel}: {exc.strerror or exc}") from None
            _sync_folder(spot.dir_fd, folders)
        finally:
            spot.close()

    def remove_temporaries(self, path: str) -> int:
        """Delete the temporary files a killed editblocks process left beside ``path``; how many.

        Only for callers holding the root's lock.
        """
        try:
            spot = self.locate(path)
        except WorkspaceError:
            return 0
        try:
            return 0 if spot.dir_fd is None else _remove_stale_temporaries(spot.dir_fd, spot.name)
        finally:
            spot.close()

    def remove_empty_folders(self, folders: list[str]) -> list[str]:
        """Remove those of ``folders`` (relative) that are empty, innermost first; returns the removed ones."""
        removed = []
        for folder_rel in sorted(folders, key=lambda f: f.count("/"), reverse=True):
            try:
                spot = self.locate(folder_rel)
            except (OSError, WorkspaceError):
                continue
            try:
                if spot.dir_fd is None:
                    continue
                os.rmdir(spot.name, dir_fd=spot.dir_fd)
            except OSError:
                continue
            finally:
                spot.close()
            removed.append(spot.asked)
        return removed

    # -- git ----------------------------------------------------------------------

    def in_git_worktree(self) -> bool:
        import subprocess

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

    def git_index(self, paths: list[str]) -> dict[str, str | None] | None:
        """Each path's entry in the git index (``"mode sha"``, None when it has none), or None
        when the root is not in a git work tree: what undo puts back after ``git add``."""
        import subprocess

        if not paths or not self.in_git_worktree():
            return None
        out = subprocess.run(
            ["git", "ls-files", "-s", "-z", "--", *paths], cwd=self.root, capture_output=True, timeout=60
        )
        if out.returncode != 0:
            return None
        found: dict[str, str | None] = dict.fromkeys(paths)
        for record in out.stdout.split(b"\0"):
            if b"\t" not in record:
                continue
            info, name = record.split(b"\t", 1)
            mode, sha, stage = info.decode().split()
            path = os.fsdecode(name)
            if stage == "0" and path in found:
                found[path] = f"{mode} {sha}"
        return found

    def git_restore_index(self, entries: dict[str, str | None]) -> str | None:
        """Put the index entries :meth:`git_index` returned back; an error message, or None."""
        import subprocess

        prefix = subprocess.run(
            ["git", "rev-parse", "--show-prefix"], cwd=self.root, capture_output=True, text=True, timeout=60
        )
        if prefix.returncode != 0:
            return prefix.stderr.strip() or "not a git work tree"
        records = []
        for path, entry in entries.items():
            info = entry if entry is not None else "0 " + "0" * 40
            records.append(
                f"{info}\t{prefix.stdout.strip()}{path}".encode()
                if path.isascii()
                else info.encode() + b"\t" + os.fsencode(prefix.stdout.strip() + path)
            )
        out = subprocess.run(
            ["git", "update-index", "-z", "--index-info"],
            cwd=self.root,
            input=b"\0".join(records) + b"\0",
            capture_output=True,
            timeout=60,
        )
        return (
            None if out.returncode == 0 else (out.stderr.decode(errors="replace").strip() or "git update-index failed")
        )

    def _git(self, *args: str) -> subprocess.CompletedProcess[str]:
        import subprocess

        return subprocess.run(["git", *args], cwd=self.root, capture_output=True, text=True, timeout=60)

    def git_commit(self, paths: list[str], message: str) -> tuple[str | None, str | None]:
        """Commit exactly ``paths`` (added, changed or deleted) with ``message``, leaving anything
        else staged as it was: (the new commit's hash, None), or (None, an error message)."""
        if not self.in_git_worktree():
            return None, "not a git work tree; nothing committed"
        added = self._git("add", "-A", "--", *paths)
        if added.returncode != 0:
            return None, added.stderr.strip() or "git add failed"
        done = self._git("commit", "--quiet", "--no-verify", "-m", message, "--only", "--", *paths)
        if done.returncode != 0:
            return None, (done.stderr.strip() or done.stdout.strip() or "git commit failed")
        head = self._git("rev-parse", "HEAD")
        return head.stdout.strip(), None

    def git_uncommit(self, commit: str) -> str | None:
        """Remove ``commit`` when it is HEAD (``git reset --soft HEAD~1``; the files and index are
        the caller's); otherwise, or when git fails, the reason nothing was done."""
        head = self._git("rev-parse", "--verify", "--quiet", "HEAD")
        if head.returncode != 0:
            return f"the apply was committed as {commit[:10]}, and this repository has no HEAD any more"
        if head.stdout.strip() != commit:
            later = self._git("merge-base", "--is-ancestor", commit, "HEAD").returncode == 0
            if later:
                count = self._git("rev-list", "--count", f"{commit}..HEAD").stdout.strip()
                return (
                    f"the apply was committed as {commit[:10]} and {count} later commit(s) follow it; "
                    f"undo only removes the commit while it is HEAD (use 'git revert {commit[:10]}')"
                )
            return f"the apply was committed as {commit[:10]}, which is no longer on the current branch (HEAD is {head.stdout.strip()[:10]})"
        parent = self._git("rev-parse", "--verify", "--quiet", f"{commit}~1")
        reset = (
            self._git("reset", "--soft", "HEAD~1") if parent.returncode == 0 else self._git("update-ref", "-d", "HEAD")
        )
        if reset.returncode != 0:
            return reset.stderr.strip() or "git reset failed"
        return None

    def git_add(self, paths: list[str]) -> str | None:
        """Stage ``paths`` with ``git add``; returns an error message, or None on success."""
        import subprocess

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
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_FILE_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
_MAX_LINKS = 40
_LEASE_SIGNAL = int(getattr(signal, "SIGURG", 23))
"""SIGURG, ignored unless handled: the signal a lease break sends, instead of SIGIO, which would end the process."""


class Spot:
    """A file's place: its folder, open (None when a folder on the way does not exist), and its name.

    ``real`` is the path under the root where it really is (links followed), ``asked`` the path
    asked for, spelled as the existing files are, and ``created`` the folders made on the way.
    """

    __slots__ = ("asked", "created", "dir_fd", "name", "real")

    def __init__(self, dir_fd: int | None, name: str, real: str, asked: str, created: list[str]) -> None:
        self.dir_fd, self.name, self.real, self.asked, self.created = dir_fd, name, real, asked, created

    def close(self) -> None:
        if self.dir_fd is not None:
            os.close(self.dir_fd)
            self.dir_fd = None


class PendingWrite:
    """A complete, synced temporary file waiting to replace a file (see :meth:`Workspace.prepare_write`)."""

    def __init__(self, workspace: Workspace, spot: Spot, tmp: tuple[str, int], data: bytes, expected: object) -> None:
        self.workspace, self.spot, self.data, self.expected = workspace, spot, data, expected
        self.tmp: str | None = tmp[0]
        self._tmp_ino = tmp[1]
        self.created = list(spot.created)
        self.path = spot.asked

    def park(self) -> None:
        """Close the folder until :meth:`commit` (to hold few descriptors while many files wait)."""
        self.spot.close()

    def _reopen(self) -> None:
        """Open the folder again from the root, and check the temporary file is still in it."""
        if self.spot.dir_fd is not None or self.tmp is None:
            return
        spot = self.workspace.locate(self.spot.real)
        st = None if spot.dir_fd is None else _lstat(spot.dir_fd, self.tmp)
        if spot.dir_fd is None or st is None or st.st_ino != self._tmp_ino:
            spot.close()
            self.tmp = None
            raise ConflictError(
                f"the folder of {self.path} was changed by something else while the edits were being applied"
            )
        spot.asked, spot.created = self.spot.asked, self.spot.created
        self.spot = spot

    def commit(self, folders: FolderSync | None = None) -> None:
        """Check that the file still holds what it must, and rename the temporary file over it at once.

        Raises :class:`ConflictError`, replacing nothing, when the file changed; a change another
        program made at the very moment of the rename is detected afterwards, put back, and
        reported the same way. The folder is synced at once, or with ``folders`` when they are flushed.
        """
        try:
            self._reopen()
        except OSError as exc:
            raise _os_error(exc, self.path) from None
        spot, rel, expected = self.spot, self.spot.asked, self.expected
        dir_fd = spot.dir_fd
        assert dir_fd is not None and self.tmp is not None
        try:
            if isinstance(expected, bytes):
                try:
                    fd = _open_file(spot, rel)
                except FileMissingError:
                    raise ConflictError(
                        f"{rel} was deleted by something else while the edits were being applied"
                    ) from None
                leased = _take_lease(fd)
                try:
                    if leased is False:
                        raise ConflictError(
                            f"{rel} is open for writing in another program, which could go on writing to the old "
                            "file; close it there and apply again"
                        )
                    st, current = self.workspace._read_fd(fd, rel)
                    changed = f"{rel} was changed by something else while the edits were being applied"
                    if current != expected:
                        raise ConflictError(changed)
                    keep = _second_name(dir_fd, spot.name)
                    try:
                        _same_file_still(spot, st, changed)
                        os.rename(self.tmp, spot.name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
                        self.tmp = None
                        after = os.fstat(fd)
                        if (after.st_size, after.st_mtime_ns) != (st.st_size, st.st_mtime_ns) or (
                            leased and _lease_broken(fd)
                        ):
                            self._put_back(fd, rel, keep)
                    finally:
                        if keep is not None:
                            _unlink_quietly(dir_fd, keep)
                finally:
                    if leased:
                        _release_lease(fd)
                    os.close(fd)
            elif expected is ABSENT:
                try:
                    os.link(self.tmp, spot.name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd, follow_symlinks=False)
                except FileExistsError:
                    raise ConflictError(
                        f"{rel} was created by something else while the edits were being applied"
                    ) from None
                except OSError:
                    # No hard links here: check, then rename.
                    if _lstat(dir_fd, spot.name) is not None:
                        raise ConflictError(
                            f"{rel} was created by something else while the edits were being applied"
                        ) from None
                    os.rename(self.tmp, spot.name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
                    self.tmp = None
                else:
                    os.unlink(self.tmp, dir_fd=dir_fd)
                    self.tmp = None
            else:
                os.rename(self.tmp, spot.name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
                self.tmp = None
            _sync_folder(dir_fd, folders)
        except OSError as exc:
            raise _os_error(exc, rel) from None
        finally:
            self.abort()

    def _put_back(self, old_fd: int, rel: str, keep: str | None) -> None:
        """Another program wrote to the file replaced while it was renamed: put it back."""
        spot = self.spot
        assert spot.dir_fd is not None
        why = f"{rel} was changed by another program at the moment it was replaced"
        if keep is not None:
            try:
                os.rename(keep, spot.name, src_dir_fd=spot.dir_fd, dst_dir_fd=spot.dir_fd)
            except OSError as exc:
                raise ConflictError(
                    f"{why}; it could not be put back ({exc.strerror or exc}); this edit was written"
                ) from None
            raise ConflictError(f"{why}; its change was kept and this edit was not written")
        try:
            st, data = self.workspace._read_fd(old_fd, rel)
            now = _lstat(spot.dir_fd, spot.name)
            if now is None or now.st_ino != self._tmp_ino:
                raise ConflictError(f"{why}, and again after; this edit was written, check the file")
            tmp, _ = _write_temporary(spot.dir_fd, spot.name, data, stat.S_IMODE(st.st_mode), (st.st_uid, st.st_gid))
            os.rename(tmp, spot.name, src_dir_fd=spot.dir_fd, dst_dir_fd=spot.dir_fd)
        except (OSError, WorkspaceError) as exc:
            if isinstance(exc, ConflictError):
                raise
            raise ConflictError(f"{why}; its change could not be put back ({exc}); this edit was written") from None
        raise ConflictError(f"{why}; its change was kept and this edit was not written")

    def abort(self) -> None:
        """Remove the temporary file (if not renamed yet) and close the folder."""
        try:
            self._reopen()
        except (OSError, WorkspaceError):
            pass
        if self.tmp is not None and self.spot.dir_fd is not None:
            try:
                os.unlink(self.tmp, dir_fd=self.spot.dir_fd)
            except OSError:
                pass
            self.tmp = None
        self.spot.close()


def _take_lease(fd: int) -> bool | None:
    """Take a read lease on ``fd`` (Linux): True when held, False when another program has the
    file open for writing, None when leases are not available here.

    While it is held, a program opening the file for writing waits, and the lease shows it.
    """
    if fcntl is None or not hasattr(fcntl, "F_SETLEASE"):
        return None
    for delay in (0.0, 0.002, 0.005, 0.01, 0.02, 0.05):
        if delay:
            time.sleep(delay)
        try:
            fcntl.fcntl(fd, fcntl.F_SETSIG, _LEASE_SIGNAL)
            fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_RDLCK)
            return True
        except OSError as exc:
            if exc.errno != errno.EAGAIN:
                return None
    return False


def _lease_broken(fd: int) -> bool:
    """Whether a program has tried to open the leased file for writing since the lease was taken."""
    try:
        return fcntl.fcntl(fd, fcntl.F_GETLEASE) != fcntl.F_RDLCK
    except OSError:
        return True


def _release_lease(fd: int) -> None:
    try:
        fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_UNLCK)
    except OSError:
        pass


def _second_name(dir_fd: int, name: str) -> str | None:
    """A hard link to ``name`` under a temporary name, so the file can be put back; None if impossible."""
    keep = f"{_temporary_prefix(name)}{os.urandom(4).hex()}.old{_TMP_SUFFIX}"
    try:
        os.link(name, keep, src_dir_fd=dir_fd, dst_dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return None
    return keep


def _unlink_quietly(dir_fd: int, name: str) -> None:
    try:
        os.unlink(name, dir_fd=dir_fd)
    except OSError:
        pass


def _lstat(dir_fd: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _lstat_at(spot: Spot) -> os.stat_result | None:
    assert spot.dir_fd is not None
    return _lstat(spot.dir_fd, spot.name)


def _same_file_still(spot: Spot, st: os.stat_result, message: str) -> None:
    """Raise :class:`ConflictError` unless ``spot`` still names the file ``st`` describes, unchanged."""
    now = _lstat_at(spot)
    if now is None or (now.st_dev, now.st_ino, now.st_size, now.st_mtime_ns) != (
        st.st_dev,
        st.st_ino,
        st.st_size,
        st.st_mtime_ns,
    ):
        raise ConflictError(message)


def _existing_name(dir_fd: int, part: str, rel: str) -> str:
    """The existing name in the folder equal to ``part`` after Unicode normalisation (NFC), else ``part``."""
    want = unicodedata.normalize("NFC", part)
    try:
        names = os.listdir(dir_fd)
    except OSError:
        return part
    alike = [n for n in names if n == part or (not n.isascii() and unicodedata.normalize("NFC", n) == want)]
    if len(alike) > 1:
        listed = ", ".join(repr(n) for n in sorted(alike))
        raise PathError(
            f"several files have names that look the same as {part!r} ({listed}); rename one of them first: {rel}"
        )
    return alike[0] if alike else part


def _open_file(spot: Spot, rel: str) -> int:
    try:
        return os.open(spot.name, _FILE_FLAGS, dir_fd=spot.dir_fd)
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


def _os_error(exc: OSError, rel: str) -> WorkspaceError:
    """A clean :class:`WorkspaceError` for an ``OSError`` met while walking to or writing ``rel``."""
    if exc.errno == errno.ELOOP:
        return PathError(f"file path goes through a loop of symbolic links, or a folder on it changed into one: {rel}")
    if exc.errno == errno.ENAMETOOLONG:
        return PathError(f"file path is too long: {rel[:80]}")
    if exc.errno == errno.ENOTDIR:
        return PathError(f"a folder on the path is a file, not a folder: {rel}")
    return WorkspaceError(f"{rel}: {exc.strerror or exc}")


def _temporary_prefix(name: str) -> str:
    return "." + name.encode("utf-8", "surrogateescape")[:200].decode("utf-8", "ignore") + "."


def _remove_stale_temporaries(dir_fd: int, name: str) -> int:
    """Delete temporary files a killed editblocks process left beside ``name``; returns how many.

    Callers hold the root's lock, so no other editblocks process is writing them.
    """
    try:
        names = os.listdir(dir_fd)
    except OSError:
        return 0
    prefix = _temporary_prefix(name)
    ours = re.compile(re.escape(prefix) + r"[0-9a-z_]{8}(?:\.old)?" + re.escape(_TMP_SUFFIX))
    removed = 0
    for other in names:
        if other.startswith(prefix) and ours.fullmatch(other):
            st = _lstat(dir_fd, other)
            if st is not None and stat.S_ISREG(st.st_mode):
                try:
                    os.unlink(other, dir_fd=dir_fd)
                    removed += 1
                except OSError:
                    pass
    return removed


def _write_temporary(dir_fd: int, name: str, data: bytes, mode: int, owner: tuple[int, int] | None) -> tuple[str, int]:
    """A new temporary file beside ``name`` holding ``data``, synced; (its name, its inode)."""
    flags = (
        os.O_WRONLY
        | os.O_CREAT
        | os.O_EXCL
        | getattr(os, "O_NOFOLLOW", 0)
        | getattr(os, "O_CLOEXEC", 0)
        | getattr(os, "O_BINARY", 0)
    )
    prefix = _temporary_prefix(name)
    while True:
        tmp = f"{prefix}{os.urandom(4).hex()}{_TMP_SUFFIX}"
        try:
            fd = os.open(tmp, flags, 0o600, dir_fd=dir_fd)
            break
        except FileExistsError:
            continue
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if owner is not None:
                mode = _keep_owner(fd, owner, mode)
            os.fchmod(fd, mode)
            os.fsync(fd)
            ino = os.fstat(fd).st_ino
        finally:
            os.close(fd)
    except BaseException:
        _unlink_quietly(dir_fd, tmp)
        raise
    return tmp, ino


def _keep_owner(fd: int, owner: tuple[int, int], mode: int) -> int:
    """Give the temporary file ``owner`` (uid, gid) where permitted; the mode bits to set then.

    Setuid and setgid are dropped when the owner (or, for setgid, the group) could not be kept.
    """
    uid, gid = owner
    st = os.fstat(fd)
    if (st.st_uid, st.st_gid) == (uid, gid):
        return mode
    try:
        os.fchown(fd, uid, gid)
        return mode
    except OSError:
        pass
    group_kept = st.st_gid == gid
    if not group_kept:
        try:
            os.fchown(fd, -1, gid)
            group_kept = True
        except OSError:
            pass
    if st.st_uid != uid:
        return mode & ~(stat.S_ISUID | stat.S_ISGID)
    return mode if group_kept else mode & ~stat.S_ISGID


def open_folder_beneath(root: Path, folder: Path) -> int:
    """``folder`` (inside ``root``) opened one folder at a time from ``root``, following no link."""
    fd = os.open(root, _DIR_FLAGS)
    try:
        for part in folder.relative_to(root).parts:
            nfd = os.open(part, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = nfd
    except BaseException:
        os.close(fd)
        raise
    return fd


def atomic_write(full: Path, data: bytes, mode: int, *, root: Path | None = None) -> None:
    """Write ``data`` to ``full``: a temporary file in the same folder, fsync, rename over it.

    A crash at any instant leaves ``full`` either as it was or entirely new. The folder is
    opened once, without following a link (with ``root``, none on the way from ``root``
    either), and everything happens relative to it.
    """
    dir_fd = os.open(full.parent, _DIR_FLAGS) if root is None else open_folder_beneath(root, full.parent)
    try:
        tmp, _ = _write_temporary(dir_fd, full.name, data, mode, None)
        try:
            os.rename(tmp, full.name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            _unlink_quietly(dir_fd, tmp)
            raise
        _fsync_fd(dir_fd)
    finally:
        os.close(dir_fd)


def _new_file_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


class FolderSync:
    """Folders whose entries an apply changed, each synced once when :meth:`flush` is called (a
    folder holding many written files is not synced again for each)."""

    MAX_OPEN = 64
    """Folders held open at most; more are synced early."""

    def __init__(self) -> None:
        self._open: dict[tuple[int, int], int] = {}

    def add(self, dir_fd: int) -> None:
        st = os.fstat(dir_fd)
        key = (st.st_dev, st.st_ino)
        if key in self._open:
            return
        if len(self._open) >= self.MAX_OPEN:
            self.flush()
        self._open[key] = os.dup(dir_fd)

    def flush(self) -> None:
        """Sync every folder added since the last flush."""
        held, self._open = self._open, {}
        for fd in held.values():
            try:
                _fsync_fd(fd)
            finally:
                os.close(fd)


def _sync_folder(dir_fd: int, folders: FolderSync | None) -> None:
    if folders is None:
        _fsync_fd(dir_fd)
    else:
        folders.add(dir_fd)


def _fsync_fd(dir_fd: int) -> None:
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
