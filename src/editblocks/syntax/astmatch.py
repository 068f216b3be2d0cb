"""Finding the definition a SEARCH text stands for, by its name and kind in the syntax tree.

The last step of the matching chain at level ``ast`` (see :mod:`editblocks.matching.syntactic`):
when SEARCH is one complete definition (a function, method or class) that the text strategies
could not place, the file's definition with the same name and kind is taken for it, but only
when

* SEARCH parses as exactly that one definition (comments around it allowed);
* exactly one definition in the file has that name and kind (and the qualifier SEARCH writes,
  such as a Go receiver or ``Parser::`` in C++), and its lines hold nothing else;
* that definition parses without errors;
* its text is at least :data:`SIMILARITY_THRESHOLD` similar to SEARCH's (90% for definitions of
  three lines or fewer), with indentation and blank lines ignored.

The chain then carries the block's change onto those lines the way it does for a fuzzy match:
lines the block changes must be there, lines it leaves alone keep the file's text.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from rapidfuzz import fuzz

from editblocks.quoting import percent
from editblocks.syntax.languages import CODE_KINDS, SPECS
from editblocks.syntax.render import split_lines
from editblocks.syntax.tree import Definition, SyntaxUnavailable, analyze, definitions, parse

SIMILARITY_THRESHOLD = 0.80
"""Least similarity between SEARCH and the definition found by its name (four lines or more)."""
SIMILARITY_THRESHOLD_SHORT = 0.90
"""Least similarity for a definition of at most :data:`SHORT_LINES` non-blank lines.

Measured on 400 modules of the standard library by ``benchmarks/bench_ast_threshold.py``: of
two different definitions sharing a name in two files (``close``, ``__repr__``, ``run`` of
unrelated classes), about 1% of the pairs of four lines or more reach 80%, mostly copies
of one another (the Python 2 and 3 versions of a test, an old and a new module); of three
lines or fewer 3% reach 80% and under 1% reach 90%. A copy with one line in ten altered, as a
model misremembers code, stays at 80% or more in 98% of cases from four lines on, and at 90% in
79% of the shortest. The name and kind already single out the place; the similarity makes sure
SEARCH is a version of that definition rather than another one of the same name, and the change
is then only carried onto lines that are there.
"""
SHORT_LINES = 3

_STATEMENT_WORDS = frozenset(
    {"if", "for", "while", "switch", "catch", "with", "do", "else", "try", "return", "function", "synchronized"}
)
"""Words that start a statement: ``if (x) { ... }`` read as a class member would be a method."""


@dataclass(frozen=True)
class Located:
    """The file's lines that stand for SEARCH's definition (0-based rows, inclusive)."""

    first: int
    last: int
    similarity: float
    description: str
    """``method `Parser.feed` (lines 120-134)``."""


@dataclass(frozen=True)
class NotLocated:
    """Why the syntax step found no place."""

    reason: str


def _search_definition(search: str, language: str) -> Definition | NotLocated:
    """The one definition SEARCH consists of."""
    spec = SPECS[language]
    dedented = textwrap.dedent(search)
    attempts = [(dedented, False)]
    if spec.member_wrapper is not None:
        before, after = spec.member_wrapper
        attempts.append((before + dedented + after, True))
    for source, wrapped in attempts:
        tree = parse(source, language)
        if tree.root_node.has_error:
            continue
        defs = definitions(tree, language, source, deep=False)
        if wrapped:
            if len(defs) < 1 or defs[0].parent is not None:
                continue
            body = [d for d in defs if d.parent is defs[0]]
            holder = _only_child(tree.root_node, spec.comments)
            members = _members(holder, spec.comments) if holder is not None else None
            if (
                len(body) == 1
                and body[0].name not in _STATEMENT_WORDS
                and members is not None
                and len(members) == 1
                and _covers(body[0], members)
            ):
                return body[0]
            continue
        top = [d for d in defs if d.parent is None]
        children = [c for c in tree.root_node.named_children if c.type not in spec.comments]
        if len(top) == 1 and _covers(top[0], children):
            return top[0]
    return NotLocated("SEARCH is not one complete function, method or class")


def _only_child(node: object, comments: frozenset[str]) -> object | None:
    kids = [c for c in node.named_children if c.type not in comments]  # type: ignore[attr-defined]
    return kids[0] if len(kids) == 1 else None


def _members(holder: object, comments: frozenset[str]) -> list[object] | None:
    body = holder.child_by_field_name("body")  # type: ignore[attr-defined]
    if body is None:
        return None
    return [c for c in body.named_children if c.type not in comments]


def _covers(d: Definition, nodes: list[object]) -> bool:
    """True when every node lies inside the definition (with its wrappers and attributes)."""
    return all(d.outer_span[0] <= n.start_byte and n.end_byte <= d.outer_span[1] for n in nodes)  # type: ignore[attr-defined]


def _normalized(lines: list[str]) -> str:
    return "\n".join(line.strip() for line in lines if line.strip())


def _alone(
    lines: list[str], text_bytes: list[bytes], first: int, last: int, span: tuple[int, int], offsets: list[int]
) -> bool:
    """True when rows ``first``..``last`` hold the definition and nothing else (a ``;`` may follow)."""
    start_col = span[0] - offsets[first]
    end_col = span[1] - offsets[last]
    before = text_bytes[first][:start_col]
    after = text_bytes[last][end_col:]
    return not before.strip() and after.strip() in (b"", b";", b",")


def threshold_for(lines: int) -> float:
    """The least similarity for a definition of ``lines`` non-blank lines."""
    return SIMILARITY_THRESHOLD_SHORT if lines <= SHORT_LINES else SIMILARITY_THRESHOLD


def locate_definition(text: str, search: str, language: str) -> Located | NotLocated:
    """Where the one definition SEARCH consists of stands in ``text``; see the module doc.

    Raises :class:`SyntaxUnavailable` without the ``ast`` extra or for an unsupported language.
    """
    spec = SPECS.get(language)
    if spec is None:
        raise SyntaxUnavailable(f"no syntax support for {language}")
    if spec.structural:
        return NotLocated(f"{language} files have no functions, methods or classes")
    wanted = _search_definition(search, language)
    if isinstance(wanted, NotLocated):
        return wanted
    if wanted.kind not in CODE_KINDS:
        return NotLocated(f"SEARCH is a {wanted.kind}, not a function, method or class")
    what = f"{'function or method' if wanted.kind in ('function', 'method') else wanted.kind} named `{wanted.name}`"
    analysis = analyze(text, language)
    same = [d for d in analysis.definitions if d.name == wanted.name and d.node_type == wanted.node_type]
    if wanted.qualified:
        suffix = f"{wanted.qualified}{spec.separator}{wanted.name}"
        same = [d for d in same if d.qualname == suffix or d.qualname.endswith(spec.separator + suffix)]
    if not same:
        return NotLocated(f"the file has no {what}")
    if len(same) > 1:
        listed = ", ".join(f"`{d.qualname}` (line {d.lines[0]})" for d in same[:6])
        return NotLocated(
            f"{len(same)} definitions share the name `{wanted.name}`: {listed}; the name does not tell which is meant"
        )
    d = same[0]
    first_line, last_line = d.lines
    where = f"`{d.qualname}` (lines {first_line}-{last_line})"
    if d.broken:
        return NotLocated(f"{where} does not parse cleanly, so its extent is uncertain")
    outer_wanted = wanted.wrapper is not None or wanted.outer_first < wanted.first
    outer_here = d.wrapper is not None or d.outer_first < d.first
    if outer_wanted and outer_here:
        first, last, span = d.outer_first, d.outer_last, d.outer_span
    else:
        first, last, span = d.first, d.last, d.span
    lines = split_lines(text)
    encoded = [line.encode("utf-8", "surrogatepass") for line in lines]
    offsets = [0]
    for b in encoded:
        offsets.append(offsets[-1] + len(b) + 1)
    if last >= len(lines) or not _alone(lines, encoded, first, last, span, offsets):
        return NotLocated(f"{where} shares its lines with other code")
    ours, theirs = _normalized(split_lines(search)), _normalized(lines[first : last + 1])
    similarity = fuzz.ratio(ours, theirs) / 100
    threshold = threshold_for(min(ours.count("\n"), theirs.count("\n")) + 1)
    if similarity < threshold:
        return NotLocated(
            f"the only {d.kind} named `{d.name}`, {where}, is {percent(similarity)} similar to SEARCH "
            f"(at least {percent(threshold)} is needed)"
        )
    return Located(first, last, similarity, f"{d.kind} {where}")
