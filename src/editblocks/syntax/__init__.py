"""Syntax-aware help (the ``ast`` extra): file context, repository summaries, enclosing scopes.

Built on tree-sitter and the grammars of ``tree-sitter-language-pack``, both imported on first
use: without them editblocks works as before, and these functions fall back to plain text with
a note (see :func:`missing`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "Context": "context",
    "file_context": "context",
    "CODE_LANGUAGES": "languages",
    "EXTENSIONS": "languages",
    "LANGUAGES": "languages",
    "language_for": "languages",
    "DEFAULT_MAX_TOKENS": "budget",
    "RepoSummary": "summary",
    "estimate_tokens": "summary",
    "summarize": "summary",
    "Definition": "tree",
    "SyntaxUnavailable": "tree",
    "analyze": "tree",
    "available": "tree",
    "innermost": "tree",
    "missing": "tree",
}


def __getattr__(name: str) -> Any:
    """The names above, imported when first used (a format that needs one list of suffixes does
    not load the summaries)."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'editblocks.syntax' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"editblocks.syntax.{module}"), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from editblocks.syntax.budget import DEFAULT_MAX_TOKENS
    from editblocks.syntax.context import Context, file_context
    from editblocks.syntax.languages import CODE_LANGUAGES, EXTENSIONS, LANGUAGES, language_for
    from editblocks.syntax.summary import RepoSummary, estimate_tokens, summarize
    from editblocks.syntax.tree import Definition, SyntaxUnavailable, analyze, available, innermost, missing

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
    from editblocks.syntax.tree import analyze, innermost

    return innermost(analyze(text, language).definitions, first, last)
