"""editblocks: turn a language model's reply into safe, verified edits of real files.

>>> import editblocks
>>> parsed = editblocks.parse_reply(reply_text)          # doctest: +SKIP
>>> result = editblocks.apply_edits(reply_text, root=".")   # doctest: +SKIP

The public API is what this module exports (``__all__``). Each name is imported when it is
first used, so ``import editblocks`` stays cheap for a command that needs one part of it; the
modules behind the names are the package's rooms (``reading``, ``formats``, ``matching``,
``files``, ``pipeline``, and the faces ``cli``, ``web``, ``mcp_server`` and ``run``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    # Reading a reply, whole or as it arrives.
    "parse_reply": "editblocks.reading.reader",
    "StreamParser": "editblocks.reading.stream",
    "stream_events": "editblocks.reading.stream",
    "BlockStarted": "editblocks.reading.stream",
    "BlockProgress": "editblocks.reading.stream",
    "BlockCompleted": "editblocks.reading.stream",
    "BlockAbandoned": "editblocks.reading.stream",
    "ParseWarningEvent": "editblocks.reading.stream",
    "ShellSuggestion": "editblocks.reading.stream",
    "ReplyDecodeError": "editblocks.reading.decode",
    # The model of blocks and results.
    "EditBlock": "editblocks.models",
    "ParseWarning": "editblocks.models",
    "ParsedReply": "editblocks.models",
    "EditResult": "editblocks.models",
    "EditStatus": "editblocks.status",
    "Strategy": "editblocks.status",
    "ApplyResult": "editblocks.models",
    # Formats and prompts.
    "FORMATS": "editblocks.formats",
    "EditFormat": "editblocks.formats",
    "get_format": "editblocks.formats",
    "build_messages": "editblocks.prompts",
    # Applying, undoing, converting.
    "apply_edits": "editblocks.pipeline.api",
    "apply_with_options": "editblocks.pipeline.api",
    "ApplyOptions": "editblocks.pipeline.placer",
    "ApplyStream": "editblocks.pipeline.stream",
    "BlockApplied": "editblocks.pipeline.stream",
    "apply_stream": "editblocks.pipeline.stream",
    "undo": "editblocks.files.journal",
    "undo_history": "editblocks.files.journal",
    "JournalEntry": "editblocks.files.journal",
    "UndoResult": "editblocks.files.journal",
    "Conversion": "editblocks.pipeline.conversion",
    "convert": "editblocks.pipeline.conversion",
    "convert_reply": "editblocks.pipeline.conversion",
    # The loop against a model (``editblocks run``).
    "run_request": "editblocks.run",
    "arun_request": "editblocks.run",
    "RunSummary": "editblocks.run",
    # Syntax-aware help (the ast extra; plain text without it).
    "RepoSummary": "editblocks.syntax",
    "file_context": "editblocks.syntax",
    "summarize": "editblocks.syntax",
    # Errors, under one base.
    "EditblocksError": "editblocks.errors",
    "UsageError": "editblocks.errors",
    "WorkspaceError": "editblocks.errors",
    "PathError": "editblocks.errors",
    "FileMissingError": "editblocks.errors",
    "BinaryFileError": "editblocks.errors",
    "TooLargeError": "editblocks.errors",
    "ConflictError": "editblocks.errors",
    "LockTimeoutError": "editblocks.files.lock",
    "UndoError": "editblocks.files.journal",
    "ConversionError": "editblocks.pipeline.conversion",
    "RunError": "editblocks.run",
}
_RENAMED = {"undo_history": "history", "parse_response": "parse_reply", "ParsedResponse": "ParsedReply"}
"""Public names whose object has another name in its module."""

_EXPORTS.update({"parse_response": "editblocks.reading.reader", "ParsedResponse": "editblocks.models"})
"""Earlier names of :func:`parse_reply` and :class:`ParsedReply`, kept working (not in ``__all__``)."""

_ROOMS = frozenset(
    {
        "cli",
        "errors",
        "files",
        "formats",
        "matching",
        "mcp_server",
        "models",
        "pipeline",
        "prompts",
        "reading",
        "run",
        "syntax",
        "web",
    }
)

__all__ = [
    "FORMATS",
    "ApplyOptions",
    "ApplyResult",
    "ApplyStream",
    "BinaryFileError",
    "BlockAbandoned",
    "BlockApplied",
    "BlockCompleted",
    "BlockProgress",
    "BlockStarted",
    "ConflictError",
    "Conversion",
    "ConversionError",
    "EditBlock",
    "EditFormat",
    "EditResult",
    "EditStatus",
    "EditblocksError",
    "FileMissingError",
    "JournalEntry",
    "LockTimeoutError",
    "ParseWarning",
    "ParseWarningEvent",
    "ParsedReply",
    "PathError",
    "ReplyDecodeError",
    "RepoSummary",
    "RunError",
    "RunSummary",
    "ShellSuggestion",
    "Strategy",
    "StreamParser",
    "TooLargeError",
    "UndoError",
    "UndoResult",
    "UsageError",
    "WorkspaceError",
    "apply_edits",
    "apply_stream",
    "apply_with_options",
    "arun_request",
    "build_messages",
    "convert",
    "convert_reply",
    "file_context",
    "get_format",
    "parse_reply",
    "run_request",
    "stream_events",
    "summarize",
    "undo",
    "undo_history",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        if name in _ROOMS:
            return importlib.import_module(f"editblocks.{name}")
        raise AttributeError(f"module 'editblocks' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), _RENAMED.get(name, name))
    if isinstance(value, type) and value.__module__.startswith("editblocks."):
        value.__module__ = "editblocks"  # shown (and pickled) as the public name
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])


if TYPE_CHECKING:
    from editblocks.errors import (
        BinaryFileError,
        ConflictError,
        EditblocksError,
        FileMissingError,
        PathError,
        TooLargeError,
        UsageError,
        WorkspaceError,
    )
    from editblocks.files.journal import JournalEntry, UndoError, UndoResult, undo
    from editblocks.files.journal import history as undo_history
    from editblocks.files.lock import LockTimeoutError
    from editblocks.formats import FORMATS, EditFormat, get_format
    from editblocks.models import ApplyResult, EditBlock, EditResult, ParsedReply, ParseWarning
    from editblocks.pipeline.api import apply_edits, apply_with_options
    from editblocks.pipeline.conversion import Conversion, ConversionError, convert, convert_reply
    from editblocks.pipeline.placer import ApplyOptions
    from editblocks.pipeline.stream import ApplyStream, BlockApplied, apply_stream
    from editblocks.prompts import build_messages
    from editblocks.reading.decode import ReplyDecodeError
    from editblocks.reading.reader import parse_reply
    from editblocks.reading.stream import (
        BlockAbandoned,
        BlockCompleted,
        BlockProgress,
        BlockStarted,
        ParseWarningEvent,
        ShellSuggestion,
        StreamParser,
        stream_events,
    )
    from editblocks.run import RunError, RunSummary, arun_request, run_request
    from editblocks.status import EditStatus, Strategy
    from editblocks.syntax import RepoSummary, file_context, summarize
