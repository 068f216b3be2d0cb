"""Drift: a file on disk that differs from the version the model saw when it wrote its edits.

The caller says what the model saw with ``base={path: content}``, where content is the text
(any line endings), the file's bytes, ``None`` for a file the model saw as absent, or the
SHA-256 of the bytes or of the UTF-8 text, as 64 hex digits or ``"sha256:<hex>"``.

A block for a drifted file still applies when where it goes is certain: its text occurs exactly
once in the file as it is now. Its result then carries a note saying the file had drifted.
Otherwise, or with ``refuse_drift``, the block fails and says why.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

from editblocks.files.textfile import TextFile
from editblocks.files.workspace import PathError, Workspace, WorkspaceError

_HASH = re.compile(r"^(?:sha256:)?([0-9a-fA-F]{64})$")

BaseContent = str | bytes | None


class FolderBase(Mapping[str, BaseContent]):
    """``base`` for :func:`editblocks.apply_edits` and :class:`editblocks.ApplyStream`: a folder
    holding the files as the model saw them, each read when a block first needs it.

    A path that is not a file in the folder (or not a valid path) is not checked for drift.
    Iterating lists the folder's files (as :meth:`Workspace.files` does), which only a caller
    that wants them all needs.
    """

    def __init__(self, folder: str | Path) -> None:
        self._workspace = Workspace(folder)
        self._read: dict[str, bytes | None] = {}

    def lookup(self, path: str) -> bytes | None:
        """The bytes of ``path`` in the folder, or None when it holds no such file."""
        if path not in self._read:
            try:
                data: bytes | None = self._workspace.read_bytes(self._workspace.normalize(path))[1]
            except WorkspaceError:
                data = None
            self._read[path] = data
        return self._read[path]

    def __getitem__(self, path: str) -> bytes:
        data = self.lookup(path)
        if data is None:
            raise KeyError(path)
        return data

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and self.lookup(path) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self._workspace.files())

    def __len__(self) -> int:
        return sum(1 for _ in self)


class DriftCheck:
    """Compares files as read with what the model saw."""

    def __init__(self, base: Mapping[str, BaseContent], workspace: Workspace) -> None:
        self._base: dict[str, BaseContent] = {}
        self._folder = base if isinstance(base, FolderBase) else None
        self._cache: dict[str, str | None] = {}
        if self._folder is not None:
            return  # read path by path (see knows)
        for path, content in base.items():
            try:
                rel = workspace.normalize(str(path))
            except PathError as exc:
                raise ValueError(f"base: {exc}") from None
            if content is not None and not isinstance(content, (str, bytes)):
                raise ValueError(f"base[{path!r}] must be text, bytes, a SHA-256 or None, not {type(content).__name__}")
            self._base[rel] = content

    def knows(self, path: str) -> bool:
        if path not in self._base and self._folder is not None:
            data = self._folder.lookup(path)
            if data is None:
                return False
            self._base[path] = data
        return path in self._base

    def drift(self, path: str, file: TextFile | None) -> str | None:
        """How ``file`` (None: absent) differs from what the model saw, or None when it does not."""
        if not self.knows(path):
            return None
        if path in self._cache:
            return self._cache[path]
        seen = self._base[path]
        found = file.data if file is not None else None
        message: str | None
        if seen is None:
            message = None if found is None else "the model saw no such file, but it exists"
        elif found is None:
            message = "the model saw this file, but it does not exist now"
        elif isinstance(seen, bytes):
            message = None if seen == found else "its content differs from what the model saw"
        else:
            m = _HASH.match(seen)
            if m:
                digest = m.group(1).lower()
                same = digest in (
                    hashlib.sha256(found).hexdigest(),
                    hashlib.sha256(file.text.encode("utf-8")).hexdigest(),  # type: ignore[union-attr]
                )
                message = None if same else "its SHA-256 differs from the one the model saw"
            else:
                seen_text = seen.replace("\r\n", "\n").replace("\r", "\n")
                message = None if seen_text == file.text else "its content differs from what the model saw"  # type: ignore[union-attr]
        self._cache[path] = message
        return message


def occurrences(text: str, needle: str, limit: int = 2) -> int:
    """How many times the whole lines ``needle`` occur in ``text`` (counting stops at ``limit``)."""
    if not needle:
        return 0
    padded = "\n" + text
    target = "\n" + needle
    count = 0
    pos = padded.find(target)
    while pos != -1 and count < limit:
        count += 1
        pos = padded.find(target, pos + 1)
    return count
