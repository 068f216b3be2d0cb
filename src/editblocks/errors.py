"""The errors editblocks raises on purpose, under one base: catch :class:`EditblocksError` for
all of them, or the kind a caller can act on."""

from __future__ import annotations


class EditblocksError(Exception):
    """Base of every error editblocks raises on purpose; the message says why, for a person."""


class UsageError(EditblocksError):
    """A bad invocation or an unusable reply: the command line says why and exits with status 2."""


class WorkspaceError(EditblocksError):
    """A path or file that cannot be used; the message says why."""


class PathError(WorkspaceError):
    """A path that is not allowed (outside the root, absolute, into .git, ...)."""


class FileMissingError(WorkspaceError):
    """The file does not exist."""


class BinaryFileError(WorkspaceError, ValueError):
    """The file is binary, or not text in any encoding that could be recognised (or not text
    that would be written back unchanged)."""


class TooLargeError(WorkspaceError):
    """A reply or file larger than the configured limit."""


class ConflictError(WorkspaceError):
    """The file on disk is not what it was expected to be (it changed since it was read)."""


__all__ = [
    "BinaryFileError",
    "ConflictError",
    "EditblocksError",
    "FileMissingError",
    "PathError",
    "TooLargeError",
    "UsageError",
    "WorkspaceError",
]
