"""Files under a root folder: safe path resolution, faithful reading and atomic writing.

Knows nothing of edit formats or matching.
"""

from __future__ import annotations

import codecs
import os
import re
import stat
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

DEFAULT_MAX_FILE_BYTES = 20 * 1024 * 1024

_DRIVE = re.compile(r"^[A-Za-z]:")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_SKIP_DIRS = frozenset({".git", ".hg", ".svn", ".editblocks", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".mypy_cache", ".pytest_cache"})
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


class WorkspaceError(Exception):
    """A path or file that cannot be used; the message says why."""


class PathError(WorkspaceError):
    """A path that is not allowed (outside the root, absolute, into .git, ...)."""


class FileMissingError(WorkspaceError):
    """The file does not exist."""


class BinaryFileError(WorkspaceError):
    """The file is binary or not decodable text."""


@dataclass
class TextFile:
    """A text file as read: its text with LF line endings, and how to write it back the same way."""

    path: str
    text: str
    encoding: str = "utf-8"
    bom: bytes = b""
    newline: str = "\n"
    mode: int | None = None

    def encode(self, text: str) -> bytes:
        """``text`` (LF endings) as bytes in this file's encoding, BOM and line-ending style."""
        if self.newline != "\n":
            text = text.replace("\n", self.newline)
        return self.bom + text.encode(self.encoding)


def dominant_newline(text: str) -> str:
    """The most common line ending of ``text`` ("\\n" when there is none)."""
    crlf = text.count("\r\n")
    lf = text.count("\n") - crlf
    cr = text.count("\r") - crlf
    if crlf > lf and crlf >= cr:
        return "\r\n"
    if cr > lf and cr > crlf:
        return "\r"
    return "\n"


def decode(data: bytes, path: str = "") -> tuple[str, str, bytes]:
    """(text, encoding, bom) of file bytes; raises :class:`BinaryFileError` for binary data."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom) :].decode(encoding), encoding, bom
            except UnicodeDecodeError:
                raise BinaryFileError(f"{path}: not valid {encoding} text despite its byte order mark") from None
    if b"\x00" in data:
        raise BinaryFileError(f"{path}: binary file (contains NUL bytes); edit it with other tools")
    try:
        return data.decode("utf-8"), "utf-8", b""
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    if best is None or best.encoding is None:
        raise BinaryFileError(f"{path}: not a text file in any encoding that could be recognised")
    encoding = codecs.lookup(best.encoding).name
    try:
        return data.decode(encoding), encoding, b""
    except (UnicodeDecodeError, LookupError):
        raise BinaryFileError(f"{path}: not a text file in any encoding that could be recognised") from None


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
        if not path or not path.strip():
            raise PathError("empty file path")
        if _CONTROL.search(path):
            raise PathError(f"file path contains control characters: {path!r}")
        if "\\" in path:
            raise PathError(f"file path uses backslashes; write it with '/': {path}")
        if path.startswith("/") or _DRIVE.match(path) or path.startswith("~"):
            raise PathError(f"absolute file paths are not allowed; use a path relative to the root: {path}")
        parts = [p for p in PurePosixPath(path).parts if p not in ("", ".")]
        if not parts:
            raise PathError(f"not a file path: {path}")
        if ".." in parts:
            raise PathError(f"file path leaves the root folder: {path}")
        if parts[0] == ".git" or ".git" in parts:
            raise PathError(f"editing inside .git is not allowed: {path}")
        return "/".join(parts)

    def resolve(self, path: str) -> tuple[str, Path]:
        """(relative path, absolute path) for ``path``, refusing anything that leaves the root.

        Symbolic links are followed and must end inside the root.
        """
        rel = self.normalize(path)
        full = self.root.joinpath(*rel.split("/"))
        real = Path(os.path.realpath(full))
        if real != self.root and self.root not in real.parents:
            raise PathError(f"file path leads outside the root folder (through a symbolic link): {path}")
        real_rel = real.relative_to(self.root).as_posix()
        if real_rel.split("/")[0] == ".git":
            raise PathError(f"editing inside .git is not allowed: {path}")
        return rel, full

    def exists(self, path: str) -> bool:
        _, full = self.resolve(path)
        return full.is_file()

    def similar_paths(self, path: str) -> list[str]:
        """Existing files the model may have meant by a path that does not exist.

        First the files equal to ``path`` up to letter case; if none, the files with the same
        file name anywhere under the root.
        """
        files = self._files()
        wanted = path.lower()
        same_case = [f for f in files if f.lower() == wanted]
        if same_case:
            return same_case
        name = path.rsplit("/", 1)[-1]
        return [f for f in files if f.rsplit("/", 1)[-1] == name]

    def _files(self) -> list[str]:
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

    def read(self, path: str) -> TextFile:
        """Read a text file under the root; raises a :class:`WorkspaceError` saying why it cannot."""
        rel, full = self.resolve(path)
        try:
            st = full.stat()
        except FileNotFoundError:
            raise FileMissingError(f"file not found: {rel}") from None
        if stat.S_ISDIR(st.st_mode):
            raise WorkspaceError(f"{rel} is a folder, not a file")
        if not stat.S_ISREG(st.st_mode):
            raise WorkspaceError(f"{rel} is not a regular file")
        if st.st_size > self.max_file_bytes:
            raise WorkspaceError(f"{rel} is too large to edit ({st.st_size:,} bytes; the limit is {self.max_file_bytes:,})")
        data = full.read_bytes()
        text, encoding, bom = decode(data, rel)
        newline = dominant_newline(text)
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        return TextFile(rel, text, encoding, bom, newline, stat.S_IMODE(st.st_mode))

    def write(self, file: TextFile, text: str) -> None:
        """Write ``text`` to ``file`` atomically: a temporary file beside it, fsync, rename."""
        rel, full = self.resolve(file.path)
        data = file.encode(text)
        full.parent.mkdir(parents=True, exist_ok=True)
        # Re-check after creating folders: a folder on the way may be a link out of the root.
        self.resolve(rel)
        fd, tmp = tempfile.mkstemp(prefix=f".{full.name}.", suffix=".editblocks-tmp", dir=full.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, file.mode if file.mode is not None else _new_file_mode())
            os.replace(tmp, full)
        except BaseException:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
            raise
        _fsync_dir(full.parent)

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
