"""Does a file's text parse? Syntax as a second opinion on an edit's outcome.

Python is checked with the standard library's own compiler (no extra needed); other languages
with tree-sitter where the ``ast`` extra is installed.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

from editblocks.syntax.languages import language_for
from editblocks.syntax.tree import SyntaxUnavailable, parse

__all__ = ["SyntaxProblem", "SyntaxUnavailable", "syntax_problem"]


@dataclass(frozen=True)
class SyntaxProblem:
    """Where a text stops parsing: 1-based ``line`` and a short ``message``."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


_PYTHON = (".py", ".pyi", ".pyw")


def syntax_problem(text: str, path: str) -> SyntaxProblem | None:
    """The first syntax error of ``text`` (the content of ``path``), or None when it parses.

    Raises :class:`SyntaxUnavailable` when the file's language cannot be checked here.
    """
    if path.lower().endswith(_PYTHON):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                compile(text, path, "exec", dont_inherit=True, flags=0x400)  # PyCF_ONLY_AST
        except SyntaxError as exc:
            return SyntaxProblem(exc.lineno or 1, exc.msg or "invalid syntax")
        except (ValueError, RecursionError, MemoryError) as exc:
            raise SyntaxUnavailable(f"Python could not check it ({type(exc).__name__})") from None
        return None
    language = language_for(path, text)
    if language is None:
        raise SyntaxUnavailable(f"the language of {path} is not known")
    tree = parse(text, language)
    if not tree.root_node.has_error:
        return None
    node = _first_error(tree.root_node)
    row = node.start_point[0] + 1 if node is not None else 1
    what = f"missing {node.type}" if node is not None and node.is_missing else "syntax error"
    return SyntaxProblem(row, f"{what} ({language})")


def _first_error(node: Any) -> Any:
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "ERROR" or n.is_missing:
            return n
        if n.has_error:
            stack.extend(reversed(n.children))
    return None
