"""Which lines of a text are comments, as the tree-sitter grammar of its language reads them.

Used to recognise a lazy sketch's elision comments (``-- ... existing code ...`` in Lua or SQL,
``{- ... -}`` in Haskell, ``(* ... *)`` in OCaml, ``{/* ... */}`` in JSX) by the language's own
comment syntax rather than by a table of delimiters. Needs the ``ast`` extra; without it, or for
a language the grammar pack does not cover, :func:`read_lines` answers None and the caller keeps
its table.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

__all__ = ["GRAMMARS", "LineReading", "grammar_for", "read_lines"]

GRAMMARS: dict[str, str] = {}
"""File name extension (lower case) → grammar of ``tree-sitter-language-pack`` whose comments are read."""
for _grammar, _suffixes in (
    ("python", ".py .pyi .pyw"),
    ("javascript", ".js .mjs .cjs .jsx"),
    ("typescript", ".ts .mts .cts"),
    ("tsx", ".tsx"),
    ("lua", ".lua"),
    ("sql", ".sql"),
    ("haskell", ".hs"),
    ("purescript", ".purs"),
    ("elm", ".elm"),
    ("ocaml", ".ml"),
    ("ocaml_interface", ".mli"),
    ("fsharp", ".fs .fsx"),
    ("erlang", ".erl .hrl"),
    ("elixir", ".ex .exs"),
    ("rust", ".rs"),
    ("go", ".go"),
    ("java", ".java"),
    ("c", ".c .h"),
    ("cpp", ".cc .cpp .cxx .hh .hpp .hxx"),
    ("csharp", ".cs"),
    ("kotlin", ".kt .kts"),
    ("swift", ".swift"),
    ("scala", ".scala"),
    ("dart", ".dart"),
    ("php", ".php"),
    ("ruby", ".rb"),
    ("bash", ".sh .bash"),
    ("r", ".r"),
    ("julia", ".jl"),
    ("css", ".css"),
    ("scss", ".scss"),
    ("html", ".html .htm"),
    ("yaml", ".yaml .yml"),
    ("toml", ".toml"),
    ("hcl", ".hcl .tf"),
    ("nix", ".nix"),
    ("clojure", ".clj .cljs .cljc .edn"),
    ("commonlisp", ".lisp"),
    ("elisp", ".el"),
    ("racket", ".rkt"),
    ("scheme", ".scm"),
    ("latex", ".tex"),
    ("zig", ".zig"),
    ("fortran", ".f90 .f95 .f03"),
    ("ada", ".ada .adb .ads"),
    ("vhdl", ".vhd .vhdl"),
    ("groovy", ".groovy .gradle"),
    ("proto", ".proto"),
    ("solidity", ".sol"),
    ("gleam", ".gleam"),
    ("tcl", ".tcl"),
):
    for _suffix in _suffixes.split():
        GRAMMARS[_suffix] = _grammar

_COMMENT_TYPES: dict[str, frozenset[str]] = {"sql": frozenset({"marginalia"})}
"""Comment node types a grammar names without the word "comment"."""
_WRAPPERS = frozenset({"jsx_expression"})
"""Nodes that hold only a comment and make it one line of its own: JSX's ``{/* ... */}``."""

MAX_CHARS = 1_000_000
"""Larger texts are not parsed (the caller keeps its table)."""


def grammar_for(path: str) -> str | None:
    """The grammar whose comment syntax ``path`` is written in, or None."""
    name = PurePosixPath(path.replace("\\", "/")).name.lower()
    return GRAMMARS.get(PurePosixPath(name).suffix)


@dataclass(frozen=True)
class LineReading:
    """How the grammar reads one line: ``comment`` is True when the whole line is a comment,
    False when it is not (``what`` says what it is instead: ``a string``, ``code``), None when
    the tree cannot tell (the line is in or next to a syntax error)."""

    comment: bool | None
    what: str = ""


def read_lines(text: str, path: str, rows: Iterable[int], starts: tuple[str, ...]) -> dict[int, LineReading] | None:
    """How the grammar of ``path`` reads lines ``rows`` (0-based) of ``text``; None without the
    ``ast`` extra, for a language without a grammar, or for a text too large.

    A line is a comment when it lies inside a comment node and is itself written as one, that
    is, it starts with one of ``starts`` (its comment delimiters: a line inside a multi-line
    comment is part of that comment, not a comment of its own). In a tree with syntax errors
    only lines that are comments outside the errors are known; a line the tree reads as code
    or a string there may be misread, so it is not known."""
    grammar = grammar_for(path)
    if grammar is None or len(text) > MAX_CHARS:
        return None
    from editblocks.syntax.tree import SyntaxUnavailable, grammar_parser

    try:
        parser = grammar_parser(grammar)
    except SyntaxUnavailable:
        return None
    data = text.encode("utf-8", "surrogatepass")
    tree = parser.parse(data)
    root = tree.root_node
    clean = not root.has_error
    lines = text.split("\n")
    kinds = _COMMENT_TYPES.get(grammar, frozenset())
    out: dict[int, LineReading] = {}
    for row in rows:
        line = lines[row]
        stripped = line.strip()
        if not stripped:
            continue
        first = len(line[: len(line) - len(line.lstrip())].encode("utf-8", "surrogatepass"))
        last = len(line.rstrip().encode("utf-8", "surrogatepass"))
        node = root.descendant_for_point_range((row, first), (row, max(first, last - 1)))
        out[row] = _reading(node, row, first, last, stripped, starts, kinds, clean)
    return out


def _is_comment(node: Any, kinds: frozenset[str]) -> bool:
    t = str(node.type)
    return t in kinds or ("comment" in t.lower() and not t.endswith("_content"))


def _reading(
    node: Any,
    row: int,
    first: int,
    last: int,
    stripped: str,
    starts: tuple[str, ...],
    kinds: frozenset[str],
    clean: bool,
) -> LineReading:
    if _wrapped_comment(node, row, first, last, kinds):
        return LineReading(True)
    comment = None
    what = "code"
    n = node
    while n is not None:
        if n.type == "ERROR" or n.is_missing:
            return LineReading(None)
        if comment is None and _is_comment(n, kinds):
            comment = n
        elif comment is None and "string" in str(n.type).lower():
            what = "a string"
        n = n.parent
    if comment is not None:
        start, end = comment.start_point, comment.end_point
        whole = (start[0], start[1]) <= (row, first) and (end[0], end[1]) >= (row, last)
        if not whole:
            if _wrapped_comment(comment.parent, row, first, last, kinds):
                return LineReading(True)
            return LineReading(False if clean else None, "code with a comment")
        if stripped.startswith(starts):
            return LineReading(True)
        return LineReading(False if clean else None, "inside a longer comment")
    return LineReading(False if clean else None, what)


def _wrapped_comment(node: Any, row: int, first: int, last: int, kinds: frozenset[str]) -> bool:
    """JSX's ``{/* ... */}``: an expression that is the whole line and holds only a comment."""
    if node is None or node.type not in _WRAPPERS:
        return False
    if tuple(node.start_point) != (row, first) or tuple(node.end_point) != (row, last):
        return False
    named = [c for c in node.children if c.is_named]
    return bool(named) and all(_is_comment(c, kinds) for c in named)
