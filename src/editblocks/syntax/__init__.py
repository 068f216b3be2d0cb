"""Syntax-aware help (the ``ast`` extra): file context, repository summaries, enclosing scopes.

Built on tree-sitter and the grammars of ``tree-sitter-language-pack``, both imported on first
use: without them editblocks works as before, and these functions fall back to plain text with
a note (see :func:`missing`).
"""

from __future__ import annotations

from .context import Context, file_context
from .languages import CODE_LANGUAGES, EXTENSIONS, LANGUAGES, language_for
from .summary import DEFAULT_MAX_TOKENS, RepoSummary, estimate_tokens, summarize
from .tree import Definition, SyntaxUnavailable, analyze, available, innermost, missing

__all__ = [
    "CODE_LANGUAGES",
    "DEFAULT_MAX_TOKENS",
    "EXTENSIONS",
    "LANGUAGES",
    "Context",
    "Definition",
    "RepoSummary",
    "SyntaxUnavailable",
    "analyze",
    "available",
    "enclosing_definition",
    "estimate_tokens",
    "file_context",
    "innermost",
    "language_for",
    "missing",
    "summarize",
]


def enclosing_definition(text: str, first: int, last: int, language: str) -> Definition | None:
    """The innermost definition around rows ``first``..``last`` (0-based) of ``text``.

    Raises :class:`SyntaxUnavailable` when no syntax tree can be had (no extra, no grammar).
    """
    return innermost(analyze(text, language).definitions, first, last)
