"""editblocks: turn a language model's reply into safe, verified edits of real files.

>>> import editblocks
>>> parsed = editblocks.parse_response(reply_text)          # doctest: +SKIP
>>> result = editblocks.apply_edits(reply_text, root=".")   # doctest: +SKIP
"""

from __future__ import annotations

from .apply import apply_edits
from .formats import FORMATS, EditFormat, get_format
from .models import (
    ApplyResult,
    EditBlock,
    EditResult,
    EditStatus,
    ParsedResponse,
    ParseWarning,
)
from .parsing import parse_response

__version__ = "0.1.0"

__all__ = [
    "FORMATS",
    "ApplyResult",
    "EditBlock",
    "EditFormat",
    "EditResult",
    "EditStatus",
    "ParseWarning",
    "ParsedResponse",
    "apply_edits",
    "get_format",
    "parse_response",
]
