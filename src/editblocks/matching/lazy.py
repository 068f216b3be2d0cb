"""Merging a lazy sketch ("Cursor/Continue-style") into a file's text.

A sketch is the file as the model wants it, with parts left out and marked by elision comments
(``// ... existing code ...``, ``# rest of the file unchanged``, ``<!-- ... -->``). Its other
lines come in *runs*, separated by elision lines. The merge is certain or refused, never guessed:

* every run is anchored to exactly one place of the file, in the sketch's order: its first line
  found in the file (exactly, or equal but for white space), extended with the lines after it
  until only one place is left; then its last line found between there and the next run's
  first line, at the place where the run fits the file with the fewest changed lines (refused
  on a tie). A run that starts the sketch (no elision before it) starts at the file's start
  (refused when its first line is further down: the file's first lines would be lost); one that
  ends it ends at the file's end (refused when that drops more lines than the run has);
* each elision stands for the file's lines between its neighbours' anchors, kept as they are;
* within a run's anchored span, the run is compared line by line with the file (:mod:`difflib`):
  lines the run repeats keep the file's text, the run's other lines are its changes. New lines
  before a run's first anchored line go right before it, new lines after its last right after it;
* a run that anchors nowhere, in several places or out of order is refused with the run quoted
  and the candidate places listed; so is a new line next to an elision that could as well be a
  changed copy of the line the elision ends or starts with.

A sketch without any elision is one or a few whole definitions (replacing the file's only
definitions of those names and kinds), or the complete file.

Elision lines are recognised in the comment syntax of the file's language
(:func:`comment_styles`). In Python a bare ``...`` line is never an elision: it is a statement
(a stub's body), and the file's own ``...`` lines would make its meaning uncertain; Python sketches
write ``# ...``. A line that reads as an elision and that the file itself has is read both ways,
and the sketch is refused unless both readings give the same file.

This module knows text only; the ``lazy`` format (:mod:`editblocks.formats.lazy`) reads sketches
from replies, and :mod:`editblocks.pipeline.placer` checks every merge with the outcome verifier.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from pathlib import PurePosixPath

from editblocks.matching.strategies import is_elision
from editblocks.matching.text import indent_width
from editblocks.models import SKETCH_PART_SHOWN, SketchPart

__all__ = [
    "SketchMerge",
    "SketchRefusal",
    "Span",
    "comment_styles",
    "elision_lines",
    "is_sketch_elision",
    "looks_like_elision",
    "merge_sketch",
    "sketch_elisions",
]

# -- elision lines ------------------------------------------------------------------------------

HASH, SLASH, BLOCK, JSX, HTML, DASH, SEMI = (
    ("#", ""),
    ("//", ""),
    ("/*", "*/"),
    ("{/*", "*/}"),
    ("<!--", "-->"),
    ("--", ""),
    (";", ""),
)
ML, HS_BLOCK, LUA_BLOCK, PERCENT = ("(*", "*)"), ("{-", "-}"), ("--[[", "]]"), ("%", "")
_ALL_STYLES = (HASH, SLASH, BLOCK, JSX, HTML, DASH, SEMI)
_C_LIKE = (SLASH, BLOCK)
_ANY_STYLES = (*_ALL_STYLES, ML, HS_BLOCK, LUA_BLOCK, PERCENT, ("#|", "|#"), ("#=", "=#"), ("<#", "#>"), ("!", ""))
"""Every comment delimiter an elision is read through once the grammar says the line is a comment."""

_STYLES_BY_SUFFIX: dict[str, tuple[tuple[str, str], ...]] = {}
for _suffixes, _styles in (
    (
        ".py .pyi .pyw .sh .bash .zsh .fish .rb .pl .pm .r .yaml .yml .toml .cfg .conf .properties .ps1 .cmake .nim .jl "
        ".ex .exs .tf .hcl .coffee .mk .dockerfile .gitignore .env .txt",
        (HASH,),
    ),
    (".ini", (SEMI, HASH)),
    (
        ".js .mjs .cjs .ts .mts .cts .java .c .h .cc .cpp .cxx .hh .hpp .hxx .cs .go .rs .swift .kt .kts .scala .dart "
        ".proto .zig .groovy .gradle .json5 .jsonc .m .mm .v .sol",
        _C_LIKE,
    ),
    (".php", (SLASH, BLOCK, HASH)),
    (".jsx .tsx", (SLASH, BLOCK, JSX)),
    (".css", (BLOCK,)),
    (".scss .sass .less .styl", _C_LIKE),
    (".html .htm .xhtml .xml .svg .xsl .md .markdown .rst .adoc", (HTML,)),
    (".mdx", (HTML, JSX)),
    (".vue .svelte .astro", (HTML, SLASH, BLOCK, JSX)),
    (".sql", (DASH, BLOCK)),
    (".lua", (DASH, LUA_BLOCK)),
    (".hs .elm .purs", (DASH, HS_BLOCK)),
    (".ada .adb .ads .vhd .vhdl", (DASH,)),
    (".ml .mli", (ML,)),
    (".fs .fsx .fsi", (SLASH, ML)),
    (".erl .hrl .tex", (PERCENT,)),
    (".lisp .clj .cljs .cljc .edn .el .scm .rkt .asm .s", (SEMI,)),
):
    for _suffix in _suffixes.split():
        _STYLES_BY_SUFFIX[_suffix] = _styles
_STYLES_BY_NAME = {
    "makefile": (HASH,),
    "dockerfile": (HASH,),
    "gemfile": (HASH,),
    "rakefile": (HASH,),
    "cmakelists.txt": (HASH,),
}

_PYTHON = (".py", ".pyi", ".pyw")


def comment_styles(path: str) -> tuple[tuple[str, str], ...]:
    """The comment delimiters ``(open, close)`` an elision line may use in ``path`` (every style
    for an unknown kind of file)."""
    name = PurePosixPath(path.replace("\\", "/")).name.lower()
    if name in _STYLES_BY_NAME:
        return _STYLES_BY_NAME[name]
    return _STYLES_BY_SUFFIX.get(PurePosixPath(name).suffix, _ALL_STYLES)


_ELLIPSIS = r"(?:\.{3,}|…)"
_KEEP_WORDS = (
    r"(?:existing|unchanged|rest|remaining|remainder|other|previous|same|original|omitted|more|everything\s+else|"
    r"as\s+before|keep|kept)"
)
_THINGS = (
    r"(?:code|file|files|class|classes|function|functions|methods?|module|implementation|imports?|tests?|sections?|"
    r"content|contents|lines?|body|component|components|document|page|markup|styles?|rules?|fields?|properties|"
    r"routes?|cases?|entries|definitions?|logic|config|configuration|setup|helpers?|props|members?|items?|"
    r"declarations?|statements?|handlers?|html|css|text|data|types?|structs?|enums?|traits?|impls?|variants?)"
)
_STAYS = (
    r"(?:\s+(?:here|unchanged|omitted|elided|hidden|skipped|(?:remains?|stays?|is|are)\s+(?:the\s+)?(?:same|unchanged)|"
    r"as\s+(?:is|before)|for\s+brevity|goes\s+here|not\s+shown|below|above))*"
)
_PHRASE = re.compile(
    r"^\(?\s*(?:"
    rf"(?:the\s+)?rest\s+of\s+(?:the\s+)?(?:\w+\s+)?{_THINGS}"
    rf"|(?:the\s+)?(?:existing|remaining|other|unchanged|previous|original|same)\s+(?:\w+\s+)?{_THINGS}"
    rf"|{_THINGS}\s+(?:unchanged|omitted|as\s+before|(?:remains?|stays?|is|are)\s+(?:the\s+)?(?:same|unchanged))"
    r"|(?:everything\s+else\s+)?(?:unchanged|the\s+same|same(?:\s+as\s+before)?|as\s+before)"
    rf"){_STAYS}\s*\)?\s*[.:;,]?$",
    re.IGNORECASE,
)
_LOOSE_PHRASE = re.compile(rf"^\(?\s*(?:the\s+)?{_KEEP_WORDS}\b[\w\s,.'/()&+-]{{0,80}}$", re.IGNORECASE)
_BARE = re.compile(rf"^\s*{_ELLIPSIS}\s*$")


def _comment_body(line: str, styles: tuple[tuple[str, str], ...]) -> str | None:
    """The text inside ``line``'s comment delimiters when the line is one comment, else None."""
    s = line.strip()
    for open_, close in sorted(styles, key=lambda st: -len(st[0])):
        if not s.startswith(open_):
            continue
        body = s[len(open_) :]
        if close:
            if not body.rstrip().endswith(close):
                # A block comment left open on an elision line ("/* ... existing code ...") is rare; not one.
                continue
            body = body.rstrip()[: -len(close)]
        if open_ in ("#", "//", ";", "--", "%", "!"):
            body = body.lstrip(open_[0])
        return body.strip().strip("*").strip()
    return None


def _says_elision(body: str) -> bool:
    """Whether a comment's text stands for left-out lines: ``...`` alone, ``...`` and words like
    "existing code", or only such words."""
    if not body:
        return False
    m = re.match(rf"^{_ELLIPSIS}\s*", body)
    if m:
        rest = body[m.end() :]
        rest = re.sub(rf"\s*{_ELLIPSIS}\s*$", "", rest).strip()
        return not rest or bool(_PHRASE.match(rest) or _LOOSE_PHRASE.match(rest))
    body = re.sub(rf"\s*{_ELLIPSIS}\s*$", "", body)
    return bool(_PHRASE.match(body))


def is_sketch_elision(line: str, path: str = "") -> bool:
    """True for a line that stands for left-out lines in a sketch of ``path``: a comment (in the
    file's comment syntax) holding only ``...``, or ``...`` and words like "existing code", or
    only such words ("rest of the file", "unchanged", "existing imports"); or ``...`` alone,
    except in Python (see the module documentation)."""
    s = line.strip()
    if not s:
        return False
    python = path.lower().endswith(_PYTHON)
    if _BARE.match(s):
        return not python
    if not python and is_elision(line) and not s.startswith("#"):
        return True
    body = _comment_body(s, comment_styles(path))
    return body is not None and _says_elision(body)


_FENCE = re.compile(r"^\s*(?:`{3,}|~{3,})")
_DOCUMENTS = (".md", ".markdown", ".mdx", ".rst", ".txt", ".adoc", ".org")


def elision_lines(sketch_lines: list[str], file_lines: list[str], path: str = "") -> list[bool]:
    """Which lines of a sketch are elisions (see :func:`sketch_elisions`), unless the file has
    that very line (then it is content)."""
    marks, _ = sketch_elisions(sketch_lines, path)
    return _unless_in_file(sketch_lines, marks, file_lines)


def _unless_in_file(sketch_lines: list[str], marks: list[bool], file_lines: list[str]) -> list[bool]:
    if not any(marks):
        return list(marks)
    have = {x.strip() for x in file_lines}
    return [mark and line.strip() not in have for line, mark in zip(sketch_lines, marks)]


def sketch_elisions(sketch_lines: list[str], path: str = "") -> tuple[list[bool], dict[int, str]]:
    """Which lines of a sketch of ``path`` stand for left-out lines, and the lines whose reading
    is not certain (index → what the grammar reads the line as instead).

    A line is an elision when its text says so (:func:`is_sketch_elision`'s phrases) and it is a
    comment: by the tree-sitter grammar of the file's language where the ``ast`` extra has one
    (:mod:`editblocks.syntax.comments`), else by the file's comment delimiters
    (:func:`comment_styles`); in a document, not inside a fenced code example. The grammar
    decides where it reads the line: a comment the table does not know (``(* ... *)`` in OCaml)
    is an elision; a line the table takes for one and the grammar reads as a string or code
    (a docstring's line, ``/* ... */`` in Haskell) is uncertain. Where the sketch has a syntax
    error near the line, or no grammar applies, the table decides."""
    document, fenced = path.lower().endswith(_DOCUMENTS), False
    marks: list[bool] = []
    asked: list[int] = []
    for i, line in enumerate(sketch_lines):
        if document and _FENCE.match(line):
            fenced = not fenced
        mark = not fenced and is_sketch_elision(line, path)
        marks.append(mark)
        if not document and not _BARE.match(line.strip()) and (mark or looks_like_elision(line)):
            asked.append(i)
    if not asked:
        return marks, {}
    from editblocks.syntax.comments import read_lines  # only sketches with comment lines need it

    # Bare "..." lines the table reads as elisions are no code: blanked, so that they do not
    # make the rest of the sketch a syntax error.
    text = "\n".join(" " * len(x) if m and _BARE.match(x.strip()) else x for x, m in zip(sketch_lines, marks))
    readings = read_lines(text, path, asked, tuple(o for o, _ in _ANY_STYLES))
    if readings is None:
        return marks, {}
    uncertain: dict[int, str] = {}
    for i in asked:
        reading = readings.get(i)
        if reading is None or reading.comment is None:
            continue
        if reading.comment:
            marks[i] = marks[i] or looks_like_elision(sketch_lines[i])
        elif marks[i]:
            marks[i] = False
            uncertain[i] = reading.what
    return marks, uncertain


def looks_like_elision(line: str) -> bool:
    """Whether ``line`` would be an elision comment in some language's comment syntax (a bare
    ``...`` line is not counted: in Python it is code)."""
    body = _comment_body(line.strip(), _ANY_STYLES)
    return body is not None and _says_elision(body)


# -- results --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Span:
    """File lines ``start:end`` (0-based) became ``lines``; ``run`` is the sketch's text for them."""

    start: int
    end: int
    lines: tuple[str, ...]
    run: tuple[str, ...]


@dataclass(frozen=True)
class SketchMerge:
    """A certain merge: the file's new ``text`` (LF, whole lines) and the spans that changed."""

    text: str
    spans: tuple[Span, ...]
    mode: str
    """``merge`` (elisions anchored), ``definition`` (whole definitions replaced), ``whole`` (the
    complete file) or ``create`` (a new or empty file)."""
    line: int = 1
    """The first changed line (1-based)."""
    notes: tuple[str, ...] = ()
    parts: tuple[SketchPart, ...] = ()
    """Where the sketch's runs were anchored and which lines its elisions kept (``merge``), or
    which definitions its parts replaced (``definition``)."""


@dataclass(frozen=True)
class SketchRefusal:
    """Why the sketch is not merged, and what to send instead; ``candidates`` are 1-based lines."""

    reason: str
    line: int | None = None
    candidates: tuple[int, ...] = field(default_factory=tuple)


SIMILAR = 0.6
"""Least similarity for a new line to be taken as possibly a changed copy of a file line."""

MAX_DEFINITIONS = 3
"""A sketch without elisions of at most this many whole definitions replaces them by name."""

_SHOWN = 4


def _key(line: str) -> str:
    return " ".join(line.split())


_WORDS = re.compile(r"\w+")


def _similar(a: str, b: str) -> bool:
    """True when one line could be a changed copy of the other: similar characters, or the words
    of one all in the other (a comment or an argument added)."""
    a, b = a.strip(), b.strip()
    if not a or not b:
        return False
    wa, wb = set(_WORDS.findall(a)), set(_WORDS.findall(b))
    if wa and wb and (wa <= wb or wb <= wa):
        return True
    return SequenceMatcher(None, a, b, autojunk=False).ratio() >= SIMILAR


def _quote(lines: list[str], first: int) -> str:
    """A sketch run quoted for a message: its first lines, with their line numbers in the sketch."""
    shown = [x for x in lines if x.strip()][:_SHOWN] or lines[:1]
    body = " / ".join(repr(x.strip()[:60]) for x in shown)
    more = " ..." if len([x for x in lines if x.strip()]) > _SHOWN else ""
    last = first + len(lines) - 1
    where = f"line {first}" if last == first else f"lines {first}-{last}"
    return f"the sketch's {where} ({body}{more})"


def _places(positions: list[int]) -> str:
    shown = [str(p + 1) for p in positions[:8]]
    more = f" and {len(positions) - 8} more" if len(positions) > 8 else ""
    if len(shown) == 1:
        return f"line {shown[0]}"
    return "lines " + ", ".join(shown[:-1]) + f" and {shown[-1]}" + more


class _Refused(Exception):
    def __init__(self, reason: str, line: int | None = None, candidates: list[int] | None = None) -> None:
        super().__init__(reason)
        self.refusal = SketchRefusal(reason, line, tuple(p + 1 for p in candidates or ()))


# -- anchoring ------------------------------------------------------------------------------------


@dataclass
class _Run:
    lines: list[str]
    keys: list[str]
    first: int
    """1-based line of the sketch the run starts on."""
    after_elision: bool
    before_elision: bool
    head: int = 0
    """File index of the run's first anchored line (the span starts here)."""
    h: int = 0
    """Index in the run of its first anchored line."""
    tail_end: int = 0
    t: int = 0
    """Index in the run of its last anchored line."""
    places: int = 1
    """How many places of the file hold the run's first anchored line (before narrowing)."""
    elision_before: str = ""
    """The elision comment line right before the run, as the sketch has it."""


class _File:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.keys = [_key(x) for x in lines]
        self.where: dict[str, list[int]] = {}
        for i, k in enumerate(self.keys):
            if k:
                self.where.setdefault(k, []).append(i)

    def at(self, key: str, lo: int, hi: int) -> list[int]:
        return [p for p in self.where.get(key, ()) if lo <= p < hi]


def _narrow(f: _File, run: _Run, start: int, cands: list[int], lo: int, hi: int) -> list[int]:
    """Candidates for run line ``start`` (file positions), narrowed by the run's following lines
    while more than one is left. Only a line the file has narrows (a new line could be anywhere),
    and a place left out where the file's line is similar to the run's (a changed copy of it)
    keeps the run ambiguous."""
    k = 1
    while len(cands) > 1:
        j = start + k
        if j >= len(run.keys):
            break
        want = run.keys[j]
        if want and want not in f.where:
            break
        kept = [c for c in cands if lo <= c + k < hi and f.keys[c + k] == want]
        if not kept:
            break
        for c in cands:
            if c not in kept and lo <= c + k < hi and _close(f.lines[c + k], run.lines[j]):
                return cands  # that place may hold the run with this line changed
        cands = kept
        k += 1
    return cands


def _close(a: str, b: str) -> bool:
    a, b = a.strip(), b.strip()
    return bool(a) and bool(b) and SequenceMatcher(None, a, b, autojunk=False).ratio() >= SIMILAR


def _find_head(f: _File, run: _Run, lo: int) -> tuple[int, int, list[int]]:
    """(run index, file position) of the run's first anchored line, at or after ``lo``, and the
    places its line has before narrowing."""
    n = len(f.lines)
    for j, key in enumerate(run.keys):
        if not key:
            continue
        found = f.at(key, lo, n)
        if not found:
            continue
        cands = _narrow(f, run, j, found, lo, n)
        if len(cands) > 1:
            closing = _block_end(f, run, j, cands, lo)
            if closing is not None:
                return j, closing[0], closing  # the one place that closes the block: certain
        if len(cands) > 1:
            raise _Refused(
                f"{_quote(run.lines, run.first)} could go in several places of the file: its line {run.first + j} "
                f"({run.lines[j].strip()[:60]!r}) is at {_places(cands)}, and the lines after it do not tell which is "
                "meant. Add unchanged lines of the file around the change (the function or class header above it), so "
                "that they occur only once",
                run.first + j,
                cands,
            )
        return j, cands[0], found
    raise _Refused(_nowhere(f, run, lo), run.first, _earlier(f, run, lo))


_CLOSERS = frozenset({"}", "};", "},", "})", "});", ")", ");", "]", "];", "end", "end;", "fi", "done", "esac"})
"""Lines that only close a block: the sketch's closing brace after an elision inside a body."""


def _block_end(f: _File, run: _Run, j: int, cands: list[int], lo: int) -> list[int] | None:
    """For a part that starts with a line that only closes a block (``}``) right after an elision
    comment indented deeper than it (one standing for the rest of a body): the one place that
    closes the block the elision is in, the first such line after ``lo`` with only deeper or
    blank lines before it; None when that is not so."""
    if j != 0 or run.lines[0].strip() not in _CLOSERS or not run.after_elision:
        return None
    if indent_width(run.elision_before) <= indent_width(run.lines[0]):
        return None
    for c in sorted(cands):
        if c < lo:
            continue
        depth = indent_width(f.lines[c])
        if all(not x.strip() or indent_width(x) > depth for x in f.lines[lo:c]):
            return [c]
        return None
    return None


def _earlier(f: _File, run: _Run, lo: int) -> list[int]:
    return sorted({p for k in run.keys if k for p in f.at(k, 0, lo)})


def _nowhere(f: _File, run: _Run, lo: int) -> str:
    earlier = _earlier(f, run, lo)
    if earlier:
        return (
            f"{_quote(run.lines, run.first)} is out of order: the file has its lines only at {_places(earlier)}, before "
            f"line {lo + 1}, where the sketch's earlier lines were placed. Keep the sketch's parts in the file's order"
        )
    return (
        f"{_quote(run.lines, run.first)} is not in the file, and an elision comment is next to it, so where it goes is "
        "not certain. Keep at least one unchanged line of the file before or after new lines, next to each elision comment"
    )


def _find_tail(f: _File, run: _Run, hi: int) -> tuple[int, int, list[int]]:
    """(run index, file position) of the run's last anchored line, between its head and ``hi``,
    and the places its line has there before narrowing."""
    lo = run.head
    # The run repeating the file exactly from its head on: no other reading is needed.
    last = max((j for j in range(run.h, len(run.keys)) if run.keys[j]), default=run.h)
    contiguous = 0
    while (
        run.h + contiguous <= last
        and run.head + contiguous < hi
        and f.keys[run.head + contiguous] == run.keys[run.h + contiguous]
    ):
        contiguous += 1
    if run.h + contiguous > last:
        return last, run.head + last - run.h, [run.head + last - run.h]
    anchored = run.after_elision  # the run's first anchored line is at its head
    for j in range(len(run.keys) - 1, run.h - 1, -1):
        key = run.keys[j]
        if not key:
            continue
        if j == run.h and anchored:
            return j, run.head, [run.head]
        found = f.at(key, lo + 1 if anchored else lo, hi)
        if not found:
            continue
        # The place where the part fits with the fewest changed lines, when no other fits as well.
        costs = sorted((_edits(f, lo, c + 1, run, run.h, j), c) for c in found[:MAX_ALTERNATIVES])
        if len(costs) > 1 and costs[1][0] == costs[0][0]:
            tied = sorted(c for cost, c in costs if cost == costs[0][0])
            raise _Refused(
                f"{_quote(run.lines, run.first)} could end in several places of the file: its line {run.first + j} "
                f"({run.lines[j].strip()[:60]!r}) is at {_places(tied)}, after the part's first line (line {run.head + 1}). "
                "End the part with unchanged lines that occur once (or add the lines up to the next elision comment)",
                run.first + j,
                tied,
            )
        return j, costs[0][1], found
    return run.h, run.head, [run.head]


MAX_ALTERNATIVES = 400
"""Most pairs of (first, last) places checked against the anchors chosen for one run."""


def _edits(f: _File, start: int, end: int, run: _Run, h: int, t: int) -> int:
    """Lines changed, added or removed to turn file lines ``start:end`` into run lines ``h:t+1``
    (blank lines aside; a line changed in place counts once)."""
    a = [k for k in f.keys[start:end] if k]
    b = [k for k in run.keys[h : t + 1] if k]
    ops = SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    return sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in ops if tag != "equal")


def _confirm(f: _File, run: _Run, heads: list[int], tails: list[int], tail: int) -> None:
    """The anchors chosen by narrowing must also be the one place where the run fits with the
    fewest changes, among every pair of places its first and last anchored lines have: a line the
    model changed or added can narrow to a wrong place, never two ways at once."""
    if len(heads) <= 1 and len(tails) <= 1:
        return
    pairs = [(c, e) for c in heads for e in tails if e >= c]
    if len(pairs) > MAX_ALTERNATIVES:
        pairs = sorted(pairs, key=lambda p: abs(p[0] - run.head) + abs(p[1] - tail))[:MAX_ALTERNATIVES]
    chosen = _edits(f, run.head, tail + 1, run, run.h, run.t)
    rivals = [
        (c, e) for c, e in pairs if (c, e) != (run.head, tail) and _edits(f, c, e + 1, run, run.h, run.t) <= chosen
    ]
    if rivals:
        places = sorted({run.head, *(c for c, _ in rivals)})
        raise _Refused(
            f"{_quote(run.lines, run.first)} fits the file in several places (starting at {_places(places)}) "
            "about equally well, so where it goes is not certain. Include more unchanged lines of the file around "
            "the change, so that they occur only once",
            run.first + run.h,
            places,
        )


# -- the merge ----------------------------------------------------------------------------------------


def _diff(region: list[str], run: list[str]) -> tuple[list[str], int, int]:
    """The run's lines with the lines it repeats taken from the file's ``region``, and how many
    non-blank lines the region loses at its start and at its end with nothing in their place."""
    a = [x.rstrip() for x in region]
    b = [x.rstrip() for x in run]
    out: list[str] = []
    ops = SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in ops:
        out.extend(region[i1:i2] if tag == "equal" else run[j1:j2])
    head_cut = sum(1 for x in region[ops[0][1] : ops[0][2]] if x.strip()) if ops and ops[0][0] == "delete" else 0
    tail_cut = sum(1 for x in region[ops[-1][1] : ops[-1][2]] if x.strip()) if ops and ops[-1][0] == "delete" else 0
    return out, head_cut, tail_cut


def _blank_count(lines: list[str], reverse: bool = False) -> int:
    n = 0
    for x in reversed(lines) if reverse else lines:
        if x.strip():
            break
        n += 1
    return n


def _check_new_lines(new: list[str], gap: list[str], run: _Run, at_gap_end: bool) -> None:
    """New lines next to an elision must not look like a changed copy of the lines the elision keeps there."""
    near = [x for x in (reversed(gap) if at_gap_end else gap) if x.strip()][
        : max(1, len([x for x in new if x.strip()]))
    ]
    for line in new:
        for kept in near:
            if _similar(line, kept):
                raise _Refused(
                    f"the line {line.strip()[:60]!r} of {_quote(run.lines, run.first)} is next to an elision comment and "
                    f"is not in the file there; it could be a new line or a changed copy of {kept.strip()[:60]!r}, which "
                    "the elision keeps. Write the unchanged line of the file next to the elision comment, then the change",
                    run.first,
                )


def _check_block_closed(run: _Run, sketch: list[str], lines: list[str], kept: list[str]) -> None:
    """The run adds lines after its last line the file has, in that line's block, then an elision
    stands left of them (the sketch closed their block), yet the file lines the elision keeps
    continue that block: the old rest of a body the sketch rewrote would be kept after the new
    one. Refused."""
    added = [x for x in run.lines[run.t + 1 :] if x.strip()]
    first_kept = next((x for x in kept if x.strip()), None)
    mark = run.first - 1 + len(run.lines)
    if not added or first_kept is None or mark >= len(sketch):
        return
    # The sketch's indentation read in the file's: by the run's first anchored line.
    offset = indent_width(lines[run.head]) - indent_width(run.lines[run.h])
    anchored, elided = indent_width(run.lines[run.t]) + offset, indent_width(sketch[mark]) + offset
    depth = min(indent_width(x) for x in added) + offset
    # The added lines stay in the block of the last line the file has (not a new member after
    # it), the elision stands outside them, and the file's next lines are in that block too.
    if elided < depth and anchored <= depth <= indent_width(first_kept):
        raise _Refused(
            f"the elision comment at line {mark + 1} of the sketch stands outside the block that "
            f"{_quote(run.lines, run.first)} adds lines to, but the file's lines it would keep continue that block ({first_kept.strip()[:60]!r}): the old lines would stay "
            "after the new ones. Write the whole block, or put the elision comment inside it, indented as the lines "
            "it stands for",
            mark + 1,
        )


def _runs(sketch: list[str], marks: list[bool]) -> list[_Run]:
    """The sketch's runs of literal lines (blank-only runs between elisions dropped)."""
    runs: list[_Run] = []
    cur: list[str] = []
    start = 0
    seen_elision = False
    before = last = ""
    for i, (line, mark) in enumerate(zip(sketch, marks)):
        if mark:
            if any(x.strip() for x in cur):
                runs.append(_Run(cur, [_key(x) for x in cur], start + 1, seen_elision, True, elision_before=before))
            cur = []
            seen_elision = True
            last = line
            continue
        if not cur:
            start = i
            before = last
        cur.append(line)
    if any(x.strip() for x in cur):
        runs.append(_Run(cur, [_key(x) for x in cur], start + 1, seen_elision, False, elision_before=before))
    return runs


def _merge_elided(lines: list[str], sketch: list[str], marks: list[bool]) -> SketchMerge:
    runs = _runs(sketch, marks)
    if not runs:
        raise _Refused(
            "the sketch holds only elision comments: it changes nothing. Write the lines that change, with unchanged "
            "lines around them",
            1,
        )
    f = _File(lines)
    n = len(lines)
    # Heads, in order; each run's tail lies before the next run's head.
    lo = 0
    for i, run in enumerate(runs):
        heads = [0]
        if run.after_elision:
            run.h, run.head, heads = _find_head(f, run, lo)
            run.places = len(heads)
            if run.head < lo:
                raise _Refused(_nowhere(f, run, lo), run.first, _earlier(f, run, lo))
        hi = n
        if i + 1 < len(runs):
            try:
                hi = _find_head(f, runs[i + 1], run.head + 1)[1]
            except _Refused:
                hi = n
        if not run.before_elision:
            run.t, run.tail_end = len(run.lines) - 1, n
            tails = [n - 1]
        else:
            run.t, tail, tails = _find_tail(f, run, hi)
            run.tail_end = tail + 1
        if run.after_elision or run.before_elision:
            _confirm(
                f, run, heads if run.after_elision else [0], tails if run.before_elision else [n - 1], run.tail_end - 1
            )
        lo = run.tail_end
    # Build the file: the gaps keep the file's lines, each run's span is merged.
    out: list[str] = []
    spans: list[Span] = []
    parts: list[SketchPart] = []
    pos = sketch_pos = 0
    for i, run in enumerate(runs):
        gap = lines[pos : run.head]
        after_gap = lines[run.tail_end : runs[i + 1].head] if i + 1 < len(runs) else lines[run.tail_end :]
        prefix = run.lines[: run.h]
        suffix = run.lines[run.t + 1 :]
        region = lines[run.head : run.tail_end]
        body, head_cut, tail_cut = _diff(region, run.lines[run.h : run.t + 1])
        if not run.after_elision and head_cut:
            raise _Refused(
                f"the sketch starts with {run.lines[0].strip()[:60]!r} without an elision comment before it, so it starts "
                "at the file's start, and the file's first lines before it would be deleted. Start the sketch with an "
                "elision comment to keep them (or write them out)",
                run.first,
            )
        if not run.before_elision and tail_cut > sum(1 for x in run.lines if x.strip()):
            raise _Refused(
                f"the sketch ends with {run.lines[-1].strip()[:60]!r} without an elision comment after it, so it ends at "
                f"the file's end, and the file's last {tail_cut} lines after it would be deleted (more than the part "
                "itself has). End the sketch with an elision comment to keep them (or write them out)",
                run.first + len(run.lines) - 1,
            )
        if run.after_elision and prefix:
            if any(x.strip() for x in prefix):
                _check_new_lines(prefix, gap, run, at_gap_end=True)
                drop = min(_blank_count(prefix), _blank_count(gap, reverse=True))
            else:
                drop = min(len(prefix), _blank_count(gap, reverse=True))
            prefix = prefix[drop:]
        if run.before_elision:
            _check_block_closed(run, sketch, lines, after_gap)
        if run.before_elision and suffix:
            if any(x.strip() for x in suffix):
                _check_new_lines(suffix, after_gap, run, at_gap_end=False)
                drop = min(_blank_count(suffix, reverse=True), _blank_count(after_gap))
            else:
                drop = min(len(suffix), _blank_count(after_gap))
            suffix = suffix[: len(suffix) - drop]
        new = [*prefix, *body, *suffix]
        if new == region and run.places > 1 and run.after_elision and run.before_elision:
            # A part that changes nothing where it fits exactly, while its first line is in other
            # places too: the change it was written for (a deleted line, say) may be meant at one of
            # them, where the part does not fit line for line.
            raise _Refused(
                f"{_quote(run.lines, run.first)} changes nothing where it fits the file exactly (line {run.head + 1}), "
                f"and its first line is also in {run.places - 1} other places; if it changes the file, add unchanged lines "
                "of the file around the change (the function or class header above it) so that they occur only once, "
                "else leave the part out",
                run.first,
            )
        out.extend(gap)
        out.extend(new)
        if new != region:
            spans.append(Span(run.head, run.tail_end, tuple(new), tuple(run.lines)))
        parts.extend(_elision_part(sketch, marks, sketch_pos, run.first - 1, lines, pos, run.head))
        parts.append(
            SketchPart(
                "run",
                run.first,
                run.first + len(run.lines) - 1,
                run.head + 1,
                run.tail_end,
                new != region,
                tuple(region),
            )
        )
        pos, sketch_pos = run.tail_end, run.first - 1 + len(run.lines)
    parts.extend(_elision_part(sketch, marks, sketch_pos, len(sketch), lines, pos, n))
    out.extend(lines[pos:])
    text = "".join(x + "\n" for x in out)
    first = spans[0].start + 1 if spans else 1
    return SketchMerge(text, tuple(spans), "merge", first, parts=tuple(parts))


def _elision_part(
    sketch: list[str], marks: list[bool], lo: int, hi: int, lines: list[str], start: int, end: int
) -> list[SketchPart]:
    """The elision comments among sketch lines ``lo:hi`` as one part keeping file lines ``start:end``."""
    marked = [i for i in range(lo, hi) if marks[i]]
    if not marked:
        return []
    kept = lines[start:end]
    shown = kept if len(kept) <= 2 * SKETCH_PART_SHOWN else kept[:SKETCH_PART_SHOWN] + kept[-SKETCH_PART_SHOWN:]
    return [SketchPart("elision", marked[0] + 1, marked[-1] + 1, start + 1, end, False, tuple(shown))]


def merge_sketch(file_text: str, sketch: str, path: str = "") -> SketchMerge | SketchRefusal:
    """Merge ``sketch`` (whole lines) into ``file_text`` (LF, whole lines); see the module doc."""
    lines = file_text.split("\n")[:-1] if file_text else []
    sk = sketch.split("\n")
    if sk and sk[-1] == "":
        sk.pop()
    loose, uncertain = sketch_elisions(sk, path)
    marks = _unless_in_file(sk, loose, lines)
    if uncertain:
        have = {x.strip() for x in lines}
        for i, what in uncertain.items():
            if sk[i].strip() in have:
                continue  # the file's own line, and no comment by the grammar: content
            from editblocks.syntax.comments import grammar_for

            return SketchRefusal(
                f"the sketch's line {i + 1}, {sk[i].strip()[:60]!r}, reads as an elision comment, but the "
                f"{grammar_for(path)} grammar reads it as {what} there, not as a comment: whether it stands for "
                "left-out lines is not certain. Put each elision comment on a line of its own, outside strings, in the "
                "file's comment syntax, or write the lines out",
                i + 1,
            )
    first = _read(lines, sk, marks, path)
    if loose == marks:
        return first
    # A line that reads as an elision comment and that the file also has: read both ways, the
    # readings must agree.
    other = _read(lines, sk, loose, path)
    if isinstance(first, SketchRefusal) and isinstance(other, SketchRefusal):
        return first
    if isinstance(first, SketchRefusal) or isinstance(other, SketchRefusal) or other.text != first.text:
        i = next(i for i, (a, b) in enumerate(zip(marks, loose)) if a != b)
        return SketchRefusal(
            f"the sketch's line {i + 1}, {sk[i].strip()[:60]!r}, reads as an elision comment, and the file has that very "
            "line: whether it stands for left-out lines or is the file's own line is not certain. Use another elision "
            "comment, such as '... existing code ...' in the file's comment syntax",
            i + 1,
        )
    return first


def _read(lines: list[str], sk: list[str], marks: list[bool], path: str) -> SketchMerge | SketchRefusal:
    try:
        if any(marks):
            if not any(x.strip() for x in lines):
                raise _Refused(
                    "the sketch has elision comments, but the file is empty or missing: there is nothing they could "
                    "stand for. Write the complete file",
                    marks.index(True) + 1,
                )
            return _merge_elided(lines, sk, marks)
        return _without_elision(lines, sk, path)
    except _Refused as exc:
        return exc.refusal


# -- sketches without elision -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Def:
    name: str
    kind: str
    first: int
    """First line (0-based) with decorators and attributes."""
    last: int
    top: bool
    qualifier: str | None = None
    broken: bool = False


def _without_elision(lines: list[str], sk: list[str], path: str) -> SketchMerge:
    text = "".join(x + "\n" for x in lines)
    new = "".join(x + "\n" for x in sk)
    if not any(x.strip() for x in lines):
        return SketchMerge(new, (Span(0, len(lines), tuple(sk), tuple(sk)),), "create", 1)
    if not any(x.strip() for x in sk):
        raise _Refused(
            "the sketch is empty; it would empty the file. Write the lines that change, with elision comments for the rest",
            1,
        )
    if [x.rstrip() for x in lines] == [x.rstrip() for x in sk]:
        return SketchMerge(text, (), "whole", 1)
    file_defs = _definitions(lines, path)
    sketch_defs = _definitions(sk, path, sketch=True)
    top_file = [d for d in file_defs if d.top]
    top_sketch = [d for d in sketch_defs if d.top]
    covered: set[int] = set()
    for d in top_sketch:
        covered.update(range(d.first, d.last + 1))
    outside = [i for i, x in enumerate(sk) if x.strip() and i not in covered and not _is_comment(x, path)]
    fragment = bool(top_sketch) and len(top_sketch) <= MAX_DEFINITIONS and not outside
    file_names = {(d.name, d.kind) for d in top_file}
    kept = len(file_names & {(d.name, d.kind) for d in top_sketch})
    if top_file:
        complete = kept * 2 >= len(file_names) and kept > 0
    else:
        have = {_key(x) for x in lines if x.strip()}
        shared = sum(1 for x in sk if x.strip() and _key(x) in have)
        complete = shared * 2 >= len(have)
    if fragment and complete:
        file_covered: set[int] = set()
        for d in top_file:
            file_covered.update(range(d.first, d.last + 1))
        other = [x for i, x in enumerate(lines) if x.strip() and i not in file_covered and not _is_comment(x, path)]
        sketch_keys = {_key(x) for x in sk}
        if other and any(_key(x) not in sketch_keys for x in other):
            complete = False  # the file's imports and statements are not in it: a fragment
        elif file_names <= {(d.name, d.kind) for d in top_sketch}:
            fragment = False  # every definition of the file, and nothing else: the whole file
        else:
            missing = sorted(name for name, _ in file_names - {(d.name, d.kind) for d in top_sketch})
            raise _Refused(
                "the sketch has no elision comment and holds some of the file's definitions but not "
                f"{', '.join(missing[:6])}: it could be the whole file (deleting them) or only the definitions it "
                "shows. Add an elision comment where the file's other lines stay, or write the complete file",
                1,
            )
    if fragment:
        return _replace_definitions(lines, sk, file_defs, top_sketch, path)
    if complete:
        last = next((x for x in reversed(lines) if x.strip() and not _is_comment(x, path)), None)
        if last is not None and _key(last) not in {_key(x) for x in sk}:
            raise _Refused(
                f"the sketch has no elision comment and could be the whole file, but the file's last line "
                f"{last.strip()[:60]!r} is not in it: it may be a fragment. Put an elision comment where the file "
                "goes on, or write the complete file",
                len(lines),
            )
        return SketchMerge(new, (Span(0, len(lines), tuple(sk), tuple(sk)),), "whole", 1)
    raise _Refused(
        "the sketch has no elision comment, and it is neither the complete file nor one or a few whole definitions "
        f"(at most {MAX_DEFINITIONS}) of functions or classes the file has. Mark the parts of the file you leave out with "
        "an elision comment such as '... existing code ...' in the file's comment syntax",
        1,
    )


def _replace_definitions(
    lines: list[str], sk: list[str], file_defs: list[_Def], wanted: list[_Def], path: str
) -> SketchMerge:
    targets: list[tuple[_Def, _Def]] = []
    for w in wanted:
        same = [
            d
            for d in file_defs
            if d.name == w.name and d.kind == w.kind and (w.qualifier is None or d.qualifier == w.qualifier)
        ]
        label = f"{w.kind} `{w.name}`"
        if not same:
            raise _Refused(
                f"the sketch is a whole {label}, and the file has no {label}. To add it, send a sketch with an elision "
                "comment and an unchanged line of the file next to the new definition",
                w.first + 1,
            )
        if len(same) > 1:
            raise _Refused(
                f"the sketch is a whole {label}, and the file defines {w.name} {len(same)} times "
                f"({_places([d.first for d in same])}): which one is meant is not certain. Send the enclosing class "
                "header and elision comments around the definition",
                w.first + 1,
                [d.first for d in same],
            )
        if same[0].broken:
            raise _Refused(
                f"the file's {label} (line {same[0].first + 1}) does not parse cleanly, so where it ends is not certain",
                w.first + 1,
            )
        targets.append((same[0], w))
    targets.sort(key=lambda t: t[0].first)
    for (a, _), (b, _) in zip(targets, targets[1:]):
        if b.first <= a.last:
            raise _Refused(
                f"the sketch's definitions `{a.name}` and `{b.name}` overlap in the file; send one at a time",
                b.first + 1,
            )
    out: list[str] = []
    spans: list[Span] = []
    parts: list[SketchPart] = []
    pos = 0
    for d, w in targets:
        # Comments after the definition's last statement belong to it in the tree, not in the
        # model's copy: kept unless the sketch ends with them.
        end = d.last
        sketch_last = next((_key(x) for x in reversed(sk[w.first : w.last + 1]) if x.strip()), "")
        while (
            end > d.first
            and (not lines[end].strip() or _is_comment(lines[end], path))
            and _key(lines[end]) != sketch_last
        ):
            end -= 1
        body = _reindent(sk[w.first : w.last + 1], lines[d.first : end + 1])
        out.extend(lines[pos : d.first])
        out.extend(body)
        if body != lines[d.first : end + 1]:
            spans.append(Span(d.first, end + 1, tuple(body), tuple(sk[w.first : w.last + 1])))
        parts.append(
            SketchPart(
                "run",
                w.first + 1,
                w.last + 1,
                d.first + 1,
                end + 1,
                body != lines[d.first : end + 1],
                tuple(lines[d.first : end + 1]),
            )
        )
        pos = end + 1
    out.extend(lines[pos:])
    first = spans[0].start + 1 if spans else 1
    names = ", ".join(f"`{w.name}`" for _, w in targets)
    return SketchMerge(
        "".join(x + "\n" for x in out),
        tuple(spans),
        "definition",
        first,
        (f"the sketch replaced the definition of {names}",),
        tuple(parts),
    )


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _reindent(new: list[str], old: list[str]) -> list[str]:
    """``new`` moved to the indentation of ``old``'s first non-blank line: every line shifted by
    the same amount, and only when every line can be: a line left of the definition's own, or
    any line of a sketch that may hold a multi-line string (whose text a shift would change),
    makes it refused."""
    want = _indent(next((x for x in old if x.strip()), ""))
    have = _indent(next((x for x in new if x.strip()), ""))
    if want == have:
        return list(new)
    if any(x.strip() and not x.startswith(have) for x in new) or any(q in x for x in new for q in ('"""', "'''", "`")):
        raise _Refused(
            "the definition is written at another indentation than the file's, and some of its lines (a multi-line "
            "string's text, say) are left of its first line, so it cannot be moved to the file's indentation without "
            f"changing them. Write it indented as in the file ({len(want)} columns)",
            1,
        )
    return [want + x[len(have) :] if x.strip() else x for x in new]


_COMMENT_START = re.compile(r"^\s*(?:#|//|/\*|\*|<!--|--|;)")


def _is_comment(line: str, path: str) -> bool:
    s = line.strip()
    if path.lower().endswith(_PYTHON):
        return s.startswith("#")
    return any(s.startswith(o) for o, _ in comment_styles(path)) or bool(_COMMENT_START.match(line))


# -- definitions: through the syntax tree, or by indentation and braces --------------------------------


_DEF_NODE_TYPES = {
    "python": {"function_definition", "class_definition"},
    "javascript": {"function_declaration", "class_declaration", "generator_function_declaration"},
    "typescript": {
        "function_declaration",
        "class_declaration",
        "abstract_class_declaration",
        "generator_function_declaration",
    },
    "tsx": {
        "function_declaration",
        "class_declaration",
        "abstract_class_declaration",
        "generator_function_declaration",
    },
    "rust": {"function_item", "impl_item"},
    "go": {"function_declaration", "method_declaration"},
}


def _definitions(lines: list[str], path: str, sketch: bool = False) -> list[_Def]:
    """The definitions of ``lines`` (functions, classes; Rust fn and impl; Go func)."""
    from editblocks.syntax.languages import language_for

    language = language_for(path)
    if language in _DEF_NODE_TYPES:
        try:
            return _tree_definitions(lines, language, sketch)
        except Exception as exc:  # no ast extra, or no grammar: the plain-text reading
            from editblocks.syntax.tree import SyntaxUnavailable

            if not isinstance(exc, SyntaxUnavailable):
                raise
    return _text_definitions(lines, path)


def _tree_definitions(lines: list[str], language: str, sketch: bool) -> list[_Def]:
    from editblocks.syntax.tree import analyze

    text = "".join(x + "\n" for x in lines)
    if sketch:
        text = textwrap.dedent(text)
    analysis = analyze(text, language)
    if sketch and analysis.has_errors:
        return []
    wanted = _DEF_NODE_TYPES[language]
    out = []
    for d in analysis.definitions:
        if d.node_type not in wanted:
            continue
        top = d.parent is None
        out.append(_Def(d.name, d.node_type, d.outer_first, d.outer_last, top, d.qualified, d.broken))
    if sketch:
        # Rust's and Go's top-level items only, and a definition's own nested ones are not separate.
        out = [d for d in out if d.top]
    return out


_PY_DEF = re.compile(r"^(\s*)(?:async\s+)?(def|class)\s+(\w+)")
_BRACE_DEFS = (
    re.compile(r"^(\s*)(?:export\s+(?:default\s+)?)?(?:declare\s+)?(?:async\s+)?(function)\*?\s+(\w+)"),
    re.compile(r"^(\s*)(?:export\s+(?:default\s+)?)?(?:declare\s+)?(?:abstract\s+)?(class)\s+(\w+)"),
    re.compile(r"^(\s*)(?:pub(?:\([^)]*\))?\s+)?(?:(?:const|async|unsafe)\s+|extern\s+\"[^\"]*\"\s+)*(fn)\s+(\w+)"),
    re.compile(r"^(\s*)(impl)(?:<[^{]*?>)?\s+(?:[\w:<>, &']+\s+for\s+)?(?:[\w:]+::)?(\w+)"),
    re.compile(r"^(\s*)(func)\s+(?:\([^)]*\)\s*)?(\w+)"),
)
_STRINGS = re.compile(r"\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'|`(?:\\.|[^`\\])*`|//.*$")


def _text_definitions(lines: list[str], path: str) -> list[_Def]:
    """Definitions read from the text alone: Python by indentation, the brace languages by
    counting braces (outside strings and line comments)."""
    out: list[_Def] = []
    python = path.lower().endswith(_PYTHON)
    base = min((len(_indent(x)) for x in lines if x.strip()), default=0)
    for i, line in enumerate(lines):
        if python:
            m = _PY_DEF.match(line)
            if not m:
                continue
            indent = len(m.group(1))
            last = i
            for j in range(i + 1, len(lines)):
                if not lines[j].strip():
                    continue
                if len(_indent(lines[j])) <= indent:
                    break
                last = j
            kind = "class" if m.group(2) == "class" else "function"
        else:
            m = next((p.match(line) for p in _BRACE_DEFS if p.match(line)), None)
            if not m:
                continue
            indent = len(m.group(1))
            end = _brace_end(lines, i)
            if end is None:
                continue
            last = end
            kind = m.group(2)
        first = i
        while (
            first > 0 and lines[first - 1].strip().startswith(("@", "#[")) and len(_indent(lines[first - 1])) == indent
        ):
            first -= 1
        out.append(_Def(m.group(3), kind, first, last, indent == base))
    return out


def _brace_end(lines: list[str], start: int) -> int | None:
    depth, opened = 0, False
    for j in range(start, len(lines)):
        code = _STRINGS.sub("", lines[j])
        for ch in code:
            if ch == "{":
                depth += 1
                opened = True
            elif ch == "}":
                depth -= 1
        if opened and depth <= 0:
            return j
        if not opened and j > start + 20:
            return None
    return None
