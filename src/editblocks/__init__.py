"""editblocks: turn a language model's reply into safe, verified edits of real files.

>>> import editblocks
>>> parsed = editblocks.parse_response(reply_text)          # doctest: +SKIP
>>> result = editblocks.apply_edits(reply_text, root=".")   # doctest: +SKIP
"""

from __future__ import annotations

from .apply import apply_edits
from .formats import FORMATS, EditFormat, get_format
from .journal import JournalEntry, UndoError, UndoResult, undo
from .journal import history as undo_history
from .models import (
    ApplyResult,
    EditBlock,
    EditResult,
    EditStatus,
    ParsedResponse,
    ParseWarning,
)
from .parsing import parse_response
from .prompts import build_messages
from .streaming import (
    BlockAbandoned,
    BlockCompleted,
    BlockProgress,
    BlockStarted,
    ParseWarningEvent,
    ReplyDecodeError,
    ShellSuggestion,
    StreamParser,
    stream_events,
)

__version__ = "0.1.0"

__all__ = [
    "FORMATS",
    "ApplyResult",
    "EditBlock",
    "EditFormat",
    "EditResult",
    "EditStatus",
    "JournalEntry",
    "ParseWarning",
    "ParsedResponse",
    "UndoError",
    "UndoResult",
    "apply_edits",
    "get_format",
    "parse_response",
    "undo",
    "undo_history",
]

# Prompts for a model, and parsing a reply while it arrives.
__all__ += [
    "BlockAbandoned",
    "BlockCompleted",
    "BlockProgress",
    "BlockStarted",
    "ParseWarningEvent",
    "ReplyDecodeError",
    "ShellSuggestion",
    "StreamParser",
    "build_messages",
    "stream_events",
]

# Applying a reply while it arrives, and the loop against a model (``editblocks run``).
from .incremental import ApplyStream, BlockApplied, apply_stream  # noqa: E402
from .run import RunError, RunSummary, arun_request, run_request  # noqa: E402

__all__ += [
    "ApplyStream",
    "BlockApplied",
    "RunError",
    "RunSummary",
    "apply_stream",
    "arun_request",
    "run_request",
]

# Syntax-aware help (the ast extra; plain text without it): file context and repository summaries.
from .syntax import RepoSummary, file_context, summarize  # noqa: E402

__all__ += ["RepoSummary", "file_context", "summarize"]

# Rewriting a reply's blocks in another edit format.
from .convert import Conversion, ConversionError, convert, convert_reply  # noqa: E402

__all__ += ["Conversion", "ConversionError", "convert", "convert_reply"]
