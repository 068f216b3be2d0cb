"""The mistake corpus: real files, an intended edit, a reply written the way models write it, and
one known model mistake per case, plus the scorer that judges what ``apply_edits`` made of it.

Used by ``benchmarks/bench_mistakes.py`` (the table, timings and scenario dumps) and by
``tests/test_mistake_corpus.py`` (a small fixed slice that must never produce a wrong edit).

How a case is made:

1. A source file is taken from the Python standard library of the running interpreter (the
   packages ``json``, ``email``, ``asyncio``, ``logging`` and ``http``, plus the non-Python text
   files found there: IDLE's ``.txt``/``.def``/``.html`` files, grammar files, a stylesheet, the
   licence). Categories that need indentation use Python files only.
2. The file is prepared when the category needs it: indentation turned into tabs, trailing
   spaces added to some lines, a region duplicated.
3. A region is picked and an intended edit is made: change a line or two (an identifier renamed,
   a number changed, a comment added), insert lines, delete lines, or replace one line by two.
   The intended result of the whole file is computed from the file's own lines, so lines the
   edit does not touch keep their exact text.
4. The model's copy of the region is made (the SEARCH and REPLACE lines), the category's
   mistake is injected into it, and it is rendered as a reply: a sentence, the path line, a
   fence, ``<<<<<<< SEARCH`` / ``=======`` / ``>>>>>>> REPLACE``.

The categories and their variants (each case picks one at random; ``stray-divider`` is written
in ``diff`` only):

* ``none`` - a correct reply (the control);
* ``dedent`` - SEARCH and REPLACE both dedented completely or by one level, or indented one
  level more;
* ``partial-indent`` - one or a few lines (a third at most) moved by 1, 2 or 4 columns, in
  SEARCH and REPLACE alike; never the lines around an inserted line, whose intended
  indentation would then be a guess;
* ``tabs-as-spaces`` - the file's indentation turned into tabs (4 columns each; alignment spaces
  after them kept), the reply written with spaces;
* ``trailing-spaces`` - the file has trailing spaces or tabs on some lines (at least one
  unchanged line of the region), the reply has none;
* ``crlf`` - a CRLF file, an LF reply;
* ``blank-edge`` - a blank line at the start, end or both ends of SEARCH where the file has none,
  in REPLACE too or in SEARCH only;
* ``elision`` - a run of unchanged lines written as ``...`` (``# ...``, ``# ... existing code
  ...`` in Python) in SEARCH and REPLACE;
* ``misremembered`` - one unchanged line of the model's copy has a word or number changed; in a
  tenth of the cases the region is made of lines that begin with ``...`` (doctest continuation
  lines) and both the edited and the misremembered line are such lines;
* ``decorated-path`` - ``**path**``, `` `path` ``, ``# path``, ``path:``, ``**`path`**``,
  ``### path``;
* ``marker-length`` - SEARCH/divider/REPLACE markers of 5 to 9 characters;
* ``no-fences`` - the block without its fence lines;
* ``hallucinated`` - a SEARCH from another file, or from this file with half its lines replaced
  by invented ones (must be refused);
* ``ambiguous`` - the region duplicated elsewhere in the file; SEARCH exact, dedented,
  misremembered or with a blank line added; or the copy indented one level more and SEARCH
  dedented; or the copy differing in one word and SEARCH having a third version of that word,
  as far from both (must be refused);
* ``truncated`` - one to three blocks, the reply cut inside the last one, at a line end or
  mid-line, in SEARCH or in REPLACE;
* ``no-final-newline`` - the file does not end with a newline; the edit touches its last lines
  or not. The intended result keeps the file without a final newline, so an applier that adds
  one scores ``ws-equal``;
* ``dependent`` - two blocks where the second's SEARCH contains a line the first one wrote, and
  sometimes a third, independent one;
* ``twice`` - the reply applied two times (correct, or dedented, or with a misremembered line):
  the second time must leave the file as the first left it;
* ``misremembered-changed`` - the line the edit changes is recalled without one of its words
  (away from the change), in SEARCH and REPLACE alike: right is the file's line with exactly
  the model's change (its word kept), or a refusal;
* ``elision-replace`` - a run of unchanged lines written as an elision line in REPLACE only
  (Cursor-style), SEARCH complete;
* ``stray-divider`` - a ``=======`` line doubled right after the divider, or left after
  REPLACE's last line;
* ``cut-short``, ``word-dropped``, ``lines-swapped``, ``line-missing`` - the model's copy of
  the unchanged lines recalled with a flaw, in SEARCH and REPLACE alike: one line cut short (at
  a word's edge or inside a word, its end or its start), one line missing a word, two adjacent
  lines in the wrong order, or a line between two others left out. Right is the edit made with
  the file's own lines kept as they are, or a refusal; each reply is applied twice, as in
  ``twice``, and the second time must leave the file as the first left it (an edit whose
  copy was flawed must not be reported "already applied" while the file lacks it).

A generated SEARCH is unique in its file, even with white space ignored (except in the
``ambiguous`` category, whose point is the opposite), and its model copy does not occur verbatim
anywhere else in the file: a reply whose SEARCH is exactly some other place of the file is
indistinguishable from a correct edit there, for any tool. Regions never contain lines that look
like block markers (``=======``, ``<<<<<<<``...), which no format can carry.

Every case is reproducible on its own: its random generator is seeded with
``"{seed}:{category}:{index}"``. The corpus depends on the standard library's files, so figures
differ between Python versions, not between runs.
"""

from __future__ import annotations

import json
import keyword
import random
import re
import shutil
import sysconfig
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from difflib import unified_diff
from functools import cache
from pathlib import Path

import editblocks
from editblocks import EditStatus

CATEGORIES: tuple[str, ...] = (
    "none",
    "dedent",
    "partial-indent",
    "tabs-as-spaces",
    "trailing-spaces",
    "crlf",
    "blank-edge",
    "elision",
    "misremembered",
    "decorated-path",
    "marker-length",
    "no-fences",
    "hallucinated",
    "ambiguous",
    "truncated",
    "no-final-newline",
    "dependent",
    "twice",
    "misremembered-changed",
    "elision-replace",
    "stray-divider",
    "cut-short",
    "word-dropped",
    "lines-swapped",
    "line-missing",
)
"""Every mistake category, in table order. ``none`` is the control: a correct reply."""

REFUSE_CATEGORIES = frozenset({"hallucinated", "ambiguous"})
FLAWED_COPY_CATEGORIES = frozenset({"cut-short", "word-dropped", "lines-swapped", "line-missing"})
"""Categories where applying and refusing are both right (the model's copy is flawed in a way
no tool can always see past); the right-rate target leaves them out, wrong = 0 still holds."""

ONLY_IN: dict[str, frozenset[str]] = {"stray-divider": frozenset({"diff"})}
"""Categories whose mistake exists in some formats only (a stray '=======' is a SEARCH/REPLACE
mistake); in other formats they are left out."""
"""Categories whose only acceptable outcome is a refusal."""

VERDICTS = ("exact", "ws-equal", "refused", "partial", "wrong", "error")

FORMATS: tuple[str, ...] = ("diff", "patch", "udiff", "cline")
"""The edit formats a case can be written in: every case (the file, the edit, the mistake) is the
same in each, only the reply is written another way (see :func:`render_reply`)."""
"""``partial``: some blocks applied exactly as intended, the others were reported failed."""

PY_PACKAGES = ("json", "email", "asyncio", "logging", "http")
TEXT_GLOBS = (
    "idlelib/*.txt",
    "idlelib/*.def",
    "idlelib/help.html",
    "lib2to3/*Grammar.txt",
    "pydoc_data/*.css",
    "turtledemo/*.cfg",
    "LICENSE.txt",
    "test/test_email/data/msg_0*.txt",
)
MIN_LINES, MAX_LINES = 30, 4000
TEXT_SHARE = 0.2
"""Share of cases on non-Python files, in the categories that take them."""

PY_ONLY = frozenset({"dedent", "partial-indent", "tabs-as-spaces"})

# Lines no block format can carry inside a block: they would be read as markers.
_MARKERISH = re.compile(r"^\s*(?:<{5,}|={5,}|>{5,}|-{5,}\s*$|«{3}|═{3}|»{3})")
# Lines an applier may take for an elision (`...` or a comment mentioning `...`).
_ELLIPSISH = re.compile(r"\.\.\.|…")
_IDENT = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]{2,}\b")
_NUMBER = re.compile(r"\b\d+\b")
_INDENT = re.compile(r"^[ \t]*")
_SKIP_WORDS = frozenset(keyword.kwlist) | {"self", "cls", "None", "True", "False"}

WORDS = [
    "alpha",
    "buffer",
    "cache",
    "chunk",
    "cursor",
    "delta",
    "entry",
    "event",
    "field",
    "frame",
    "handle",
    "header",
    "index",
    "item",
    "key",
    "label",
    "limit",
    "marker",
    "offset",
    "option",
    "packet",
    "parent",
    "queue",
    "record",
    "result",
    "scope",
    "section",
    "signal",
    "slot",
    "source",
    "state",
    "stream",
    "target",
    "token",
    "total",
    "value",
    "window",
    "worker",
    "amount",
    "bound",
    "count",
    "length",
    "policy",
    "region",
    "retry",
    "status",
    "timeout",
    "weight",
    "factor",
]
SUFFIXES = ("_count", "_list", "_map", "_new", "_old", "_raw", "_tmp", "_value", "_all", "_next")

INTROS = (
    "Here is the change:",
    "I'll update the file as follows.",
    "To fix this, make the following edit:",
    "The fix is small:",
    "Apply this change:",
    "Let me make that change.",
)


# --------------------------------------------------------------------------------------------
# Sources


@dataclass(frozen=True)
class Source:
    """A real file: its path inside the generated project, its lines (no endings), its kind."""

    rel: str
    lines: tuple[str, ...]
    python: bool


def stdlib_dir() -> Path:
    return Path(sysconfig.get_paths()["stdlib"])


def _readable(path: Path) -> list[str] | None:
    try:
        text = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if "\r" in text or "\t" in text or "\x00" in text or not text.endswith("\n"):
        return None
    lines = text[:-1].split("\n")
    if not MIN_LINES <= len(lines) <= MAX_LINES:
        return None
    return lines


@cache
def load_sources(root: str | None = None) -> tuple[Source, ...]:
    """The source files, in a fixed order: Python files of ``PY_PACKAGES``, then text files."""
    base = Path(root) if root else stdlib_dir()
    found: list[Source] = []
    for package in PY_PACKAGES:
        folder = base / package
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*.py")):
            rel = path.relative_to(base).as_posix()
            if "/test" in rel or "__pycache__" in rel:
                continue
            lines = _readable(path)
            if lines is not None:
                found.append(Source(rel, tuple(lines), True))
    for pattern in TEXT_GLOBS:
        for path in sorted(base.glob(pattern)):
            lines = _readable(path)
            if lines is not None:
                found.append(Source(path.relative_to(base).as_posix(), tuple(lines), False))
    return tuple(found)


# --------------------------------------------------------------------------------------------
# Line helpers


def indent_of(line: str) -> str:
    return _INDENT.match(line).group(0)  # type: ignore[union-attr]


def tabify(line: str) -> str:
    """Leading spaces as tabs, four to a tab; what is left over stays as alignment spaces."""
    ind = indent_of(line)
    if not line.strip():
        return line
    n = len(ind)
    return "\t" * (n // 4) + " " * (n % 4) + line[n:]


def untabify(line: str) -> str:
    ind = indent_of(line)
    return ind.replace("\t", "    ") + line[len(ind) :]


def occurrences(
    lines: Sequence[str], needle: Sequence[str], norm: Callable[[str], str] | None = None, limit: int = 3
) -> list[int]:
    """Line indexes where ``needle`` occurs line-aligned in ``lines`` (after ``norm`` on both)."""
    if not needle:
        return []
    if norm is not None:
        lines = [norm(x) for x in lines]
        needle = [norm(x) for x in needle]
    hay = "\n" + "\n".join(lines) + "\n"
    target = "\n" + "\n".join(needle) + "\n"
    hits: list[int] = []
    pos = hay.find(target)
    while pos != -1 and len(hits) < limit:
        hits.append(hay.count("\n", 0, pos))
        pos = hay.find(target, pos + 1)
    return hits


def _strip(line: str) -> str:
    return line.strip()


def _join(lines: Iterable[str]) -> str:
    return "".join(line + "\n" for line in lines)


# --------------------------------------------------------------------------------------------
# Edits


@dataclass
class Row:
    """One line of an edited region, as the file has it, as intended, and as the model writes it.

    ``old``: the file's line (None for an inserted line); ``new``: the intended line (None for a
    deleted one); ``s``/``r``: the model's line in SEARCH/REPLACE (None when not written there).
    A ``marker`` row (an elision line, a spurious blank line) exists only in the model's copy.
    """

    kind: str
    old: str | None
    new: str | None
    s: str | None
    r: str | None

    @classmethod
    def keep(cls, line: str) -> Row:
        return cls("keep", line, line, line, line)

    @classmethod
    def change(cls, old: str, new: str) -> Row:
        return cls("change", old, new, old, new)

    @classmethod
    def insert(cls, new: str) -> Row:
        return cls("insert", None, new, None, new)

    @classmethod
    def delete(cls, old: str) -> Row:
        return cls("delete", old, None, old, None)

    @classmethod
    def marker(cls, s: str | None, r: str | None) -> Row:
        return cls("marker", None, None, s, r)


@dataclass
class Block:
    """An edit of ``rows`` starting at line index ``start`` of the file as it is when it applies."""

    start: int
    rows: list[Row]

    @property
    def old_lines(self) -> list[str]:
        return [r.old for r in self.rows if r.old is not None]

    @property
    def new_lines(self) -> list[str]:
        return [r.new for r in self.rows if r.new is not None]

    @property
    def search(self) -> list[str]:
        return [r.s for r in self.rows if r.s is not None]

    @property
    def replace(self) -> list[str]:
        return [r.r for r in self.rows if r.r is not None]

    def apply_to(self, lines: list[str]) -> list[str]:
        old = self.old_lines
        assert lines[self.start : self.start + len(old)] == old, "block does not fit its file"
        return lines[: self.start] + self.new_lines + lines[self.start + len(old) :]


class NoCase(Exception):
    """This source or region does not suit the category; try another."""


def _words_in(line: str) -> list[re.Match[str]]:
    """The words of ``line`` a rename could touch (not keywords, not long encoded runs)."""
    return [m for m in _IDENT.finditer(line) if m.group(0) not in _SKIP_WORDS and len(m.group(0)) <= 30]


def mutate_line(rng: random.Random, line: str, python: bool, taken: set[str]) -> str:
    """``line`` with one word or number changed (what a rename or a small fix does)."""
    body = line.rstrip()
    for _ in range(20):
        words = _words_in(body)
        numbers = list(_NUMBER.finditer(body))
        choice = rng.random()
        if numbers and (choice < 0.2 or not words):
            m = rng.choice(numbers)
            new = body[: m.start()] + str(int(m.group(0)) + rng.randint(1, 9)) + body[m.end() :]
        elif words:
            m = rng.choice(words)
            w = m.group(0)
            if python and rng.random() < 0.6:
                repl = w + rng.choice(SUFFIXES)
            else:
                repl = rng.choice(WORDS)
                if w[:1].isupper():
                    repl = repl.capitalize()
            new = body[: m.start()] + repl + body[m.end() :]
        elif python and body.strip():
            new = body + "  # " + " ".join(rng.sample(WORDS, 2))
        else:
            raise NoCase("line without words")
        if new != body and new.strip() not in taken:
            return new
    raise NoCase("could not change the line")


def new_line(rng: random.Random, indent: str, python: bool, taken: set[str]) -> str:
    """An inserted line, unique in the file."""
    for _ in range(20):
        a, b, c = rng.sample(WORDS, 3)
        n = rng.randint(2, 999)
        if python:
            text = rng.choice(
                (
                    f"# {a} {b} {c} {n}",
                    f"{a}_{b} = {c}({n})",
                    f"{a}_{b} = self.{c}_{n} if {a} else None",
                    f'log.debug("{a} {b}: %s", {c}_{n})',
                    f"assert {a}_{n} is not None, {b!r}",
                    f"{a}_{n} = max({a}_{n}, {n})",
                )
            )
        else:
            text = rng.choice((f"{a.capitalize()} {b} {c} {n}.", f"- {a} {b} ({c} {n})", f"{a} = {b}_{c} {n}"))
        line = indent + text
        if line.strip() not in taken:
            taken.add(line.strip())
            return line
    raise NoCase("no unique new line")


def _indent_near(lines: Sequence[str], k: int) -> str:
    """The indentation of the nearest non-blank line at or before ``k`` (else after)."""
    for i in range(min(k, len(lines) - 1), -1, -1):
        if lines[i].strip():
            return indent_of(lines[i])
    for i in range(k, len(lines)):
        if lines[i].strip():
            return indent_of(lines[i])
    return ""


EDIT_KINDS = ("modify", "modify", "insert", "delete", "replace")


def make_rows(rng: random.Random, region: Sequence[str], kind: str, python: bool, taken: set[str]) -> list[Row]:
    """The rows of an intended edit of ``region``."""
    n = len(region)
    nonblank = [i for i, x in enumerate(region) if x.strip()]
    rows = [Row.keep(x) for x in region]
    if kind == "modify":
        changeable = [i for i in nonblank if _words_in(region[i]) or _NUMBER.search(region[i])]
        if not changeable:
            raise NoCase("nothing to change")
        i = rng.choice(changeable)
        rows[i] = Row.change(region[i], mutate_line(rng, region[i], python, taken))
        if rng.random() < 0.3 and i + 1 in changeable:
            rows[i + 1] = Row.change(region[i + 1], mutate_line(rng, region[i + 1], python, taken))
        return rows
    if kind == "insert":
        k = rng.randint(1, n)  # after region line k-1: there is context before the new lines
        count = rng.choice((1, 1, 2, 3))
        indent = _indent_near(region, k - 1)
        if k < n and region[k].strip() and len(indent_of(region[k])) > len(indent):
            indent = indent_of(region[k])
        added = [Row.insert(new_line(rng, indent, python, taken)) for _ in range(count)]
        return rows[:k] + added + rows[k:]
    if kind == "delete":
        inner = [i for i in nonblank if 0 < i < n - 1]
        if not inner:
            raise NoCase("nothing to delete")
        i = rng.choice(inner)
        rows[i] = Row.delete(region[i])
        if rng.random() < 0.3 and i + 1 in inner:
            rows[i + 1] = Row.delete(region[i + 1])
        return rows
    if kind == "replace":
        changeable = [i for i in nonblank if _words_in(region[i]) or _NUMBER.search(region[i])]
        if not changeable:
            raise NoCase("nothing to change")
        i = rng.choice(changeable)
        changed = Row.change(region[i], mutate_line(rng, region[i], python, taken))
        added = Row.insert(new_line(rng, indent_of(region[i]), python, taken))
        return rows[:i] + [changed, added] + rows[i + 1 :]
    raise ValueError(kind)


def region_ok(lines: Sequence[str], start: int, length: int, *, unique: bool = True) -> bool:
    region = lines[start : start + length]
    if len(region) != length or not region[0].strip() or not region[-1].strip():
        return False
    if any(_MARKERISH.match(x) for x in region):
        return False
    if sum(1 for x in region if x.strip()) < 2 or max(len(x.strip()) for x in region) < 12:
        return False
    return not unique or len(occurrences(lines, region, _strip)) == 1


def pick_region(
    rng: random.Random,
    lines: Sequence[str],
    lengths: tuple[int, int],
    *,
    check: Callable[[int, int], bool] | None = None,
    unique: bool = True,
    avoid: tuple[int, int] | None = None,
    tries: int = 300,
) -> tuple[int, int]:
    for _ in range(tries):
        length = rng.randint(*lengths)
        if length > len(lines):
            continue
        start = rng.randint(0, len(lines) - length)
        if avoid is not None and start < avoid[1] and avoid[0] < start + length:
            continue
        if region_ok(lines, start, length, unique=unique) and (check is None or check(start, length)):
            return start, length
    raise NoCase("no suitable region")


def min_indent(lines: Iterable[str | None]) -> int:
    widths = [len(indent_of(x)) for x in lines if x is not None and x.strip()]
    return min(widths) if widths else 0


# --------------------------------------------------------------------------------------------
# Mistakes on the model's copy


def shift_rows(rows: list[Row], delta: int) -> None:
    """Move the model's copy of every line ``delta`` spaces right (left when negative)."""
    for row in rows:
        row.s = _shift(row.s, delta)
        row.r = _shift(row.r, delta)


def _shift(line: str | None, delta: int) -> str | None:
    if line is None or not line.strip():
        return "" if line is not None else None
    if delta >= 0:
        return " " * delta + line
    ind = indent_of(line)
    assert len(ind) >= -delta and set(ind) <= {" "}
    return line[-delta:]


def misremember(rng: random.Random, rows: list[Row], python: bool, taken: set[str], exclude: int | None = None) -> int:
    """Change one word of an unchanged line in the model's copy (SEARCH and REPLACE alike)."""
    keeps = [
        i
        for i, r in enumerate(rows)
        if r.kind == "keep"
        and r.s is not None
        and r.s.strip()
        and (_words_in(r.s) or _NUMBER.search(r.s))
        and i != exclude
    ]
    if not keeps:
        raise NoCase("no context line to misremember")
    i = rng.choice(keeps)
    wrong = mutate_line(rng, rows[i].s or "", python, taken)
    rows[i].s = rows[i].r = wrong
    return i


def elide(rng: random.Random, rows: list[Row], python: bool) -> None:
    """Replace a run of unchanged lines with a ``...`` line in SEARCH and REPLACE."""
    n = len(rows)
    changed = [i for i, r in enumerate(rows) if r.kind != "keep"]
    lo, hi = min(changed), max(changed)
    # A run of at least 2 unchanged lines, with at least 2 lines of context on each side of it.
    spans = []
    for a in range(2, n - 3):
        for b in range(a + 2, n - 1):
            outside = (b <= lo or a > hi) and b - a <= 12 and all(rows[i].kind == "keep" for i in range(a, b))
            if outside and (rows[a - 1].s or "").strip() and (rows[b].s or "").strip():
                spans.append((a, b))
    if not spans:
        raise NoCase("no run of unchanged lines to elide")
    a, b = rng.choice(spans)
    indent = indent_of(rows[b].s or "")
    if python:
        text = indent + rng.choice(("...", "# ...", "# ... existing code ...", "# ... rest unchanged ..."))
    else:
        text = indent + "..."
    for i in range(a, b):
        rows[i].s = rows[i].r = None
    rows.insert(a, Row.marker(text, text))


# --------------------------------------------------------------------------------------------
# Replies


def _fence(path: str, texts: Sequence[str]) -> str:
    longest = 2
    for text in texts:
        for line in text.split("\n"):
            s = line.lstrip()
            if s.startswith("```"):
                longest = max(longest, len(s) - len(s.lstrip("`")))
    ext = path.rsplit(".", 1)[-1].lower()
    lang = {"py": "python", "html": "html", "css": "css", "cfg": "ini", "def": "ini"}.get(ext, "")
    return "`" * (longest + 1) + lang


@dataclass
class Style:
    """How a block is written: path line, fences, marker lengths."""

    path_line: str | None = None
    fenced: bool = True
    markers: tuple[int, int, int] = (7, 7, 7)


def render_block(path: str, search: Sequence[str], replace: Sequence[str], style: Style | None = None) -> str:
    style = style or Style()
    s, r = _join(search), _join(replace)
    a, b, c = style.markers
    body = f"{'<' * a} SEARCH\n{s}{'=' * b}\n{r}{'>' * c} REPLACE\n"
    head = (style.path_line if style.path_line is not None else path) + "\n"
    if not style.fenced:
        return head + body
    fence = _fence(path, (s, r))
    return f"{head}{fence}\n{body}{fence[: len(fence) - len(fence.lstrip('`'))]}\n"


def render_reply(
    rng: random.Random,
    path: str,
    blocks: Sequence[Block],
    styles: Sequence[Style] | None = None,
    *,
    lines: Sequence[str] | None = None,
) -> str:
    """The reply in the format of the case being built (see :data:`FORMATS`); ``lines`` is the
    file as the first block meets it."""
    if _CONTEXT.format != "diff":
        return _render_other(rng, path, blocks, styles, lines or ())
    parts = [rng.choice(INTROS) + "\n"]
    for i, block in enumerate(blocks):
        parts.append("\n" + render_block(path, block.search, block.replace, styles[i] if styles else None))
        if i + 1 < len(blocks) and rng.random() < 0.5:
            parts.append("\nThen:\n")
    if rng.random() < 0.5:
        parts.append("\nThis keeps the behaviour the same otherwise.\n")
    return "".join(parts)


class _Context:
    """What the case being built is written in (set by :func:`build_case`)."""

    format = "diff"
    category = ""
    rng = random.Random(0)
    """Choices only the other formats make (line-number slips, scope lines), so that the ``diff``
    replies stay what they were."""


_CONTEXT = _Context()

_TRUNCATE_BETWEEN = {
    "diff": ("<<<<<<< SEARCH", ">>>>>>> REPLACE"),
    "cline": ("------- SEARCH", "+++++++ REPLACE"),
    "patch": ("\n@@", "*** End Patch"),
    "udiff": ("\n@@", "\n```"),
}
"""Per format: a truncated reply is cut after the last line starting with the first text and
before the last occurrence of the second."""

_SCOPE_LINE = re.compile(r"^(\s*)(?:async\s+def|def|class)\s+\w")


def _last_line_end(reply: str, opener: str) -> int:
    """Where the line holding the last ``opener`` ends."""
    at = reply.rfind(opener)
    return reply.index("\n", at + len(opener)) + 1 if reply.find("\n", at + len(opener)) != -1 else len(reply)


def _hunk(search: Sequence[str], replace: Sequence[str]) -> list[str]:
    """The block as diff lines: unchanged lines with a space, removed with '-', added with '+'."""
    from difflib import SequenceMatcher

    out: list[str] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, list(search), list(replace), autojunk=False).get_opcodes():
        if tag == "equal":
            out.extend(" " + x for x in search[i1:i2])
        else:
            out.extend("-" + x for x in search[i1:i2])
            out.extend("+" + x for x in replace[j1:j2])
    return out


def _enclosing(lines: Sequence[str], start: int, search: Sequence[str]) -> str | None:
    """The ``def``/``class`` line enclosing a region starting at ``start`` (Python files)."""
    widths = [len(indent_of(x)) for x in search if x.strip()]
    if not widths or not 0 < start <= len(lines):
        return None
    width = min(widths)
    for i in range(start - 1, max(-1, start - 400), -1):
        line = lines[i]
        if not line.strip():
            continue
        m = _SCOPE_LINE.match(line)
        if m and len(m.group(1)) < width:
            return line
        if len(indent_of(line)) < width and not m:
            width = len(indent_of(line))
    return None


def _slip(rng: random.Random) -> int:
    """How far a model's line number is off: mostly not, sometimes a little, now and then a lot."""
    roll = rng.random()
    if roll < 0.6:
        return 0
    if roll < 0.9:
        return rng.choice((-1, 1)) * rng.randint(1, 5)
    return rng.choice((-1, 1)) * rng.randint(20, 200)


def _render_other(
    rng: random.Random, path: str, blocks: Sequence[Block], styles: Sequence[Style] | None, lines: Sequence[str]
) -> str:
    """The reply of a case written in ``patch``, ``udiff`` or ``cline``.

    The category's variations map onto what each format can vary: ``decorated-path`` decorates
    the path (``./path``, backticks; diffs without ``a/``/``b/`` or with timestamps; Cline's path
    line instead of its ``<path>`` tag), ``marker-length`` varies the markers (Cline's runs of 3
    to 9 signs; a diff's hunk header; a patch's first chunk without its ``@@`` line), ``no-fences``
    drops the fence around a patch or diff (and writes Cline's plain layout). Line numbers of a
    diff are right, slightly off or stale (see :func:`_slip`); a patch names the enclosing
    ``def``/``class`` on half its ``@@`` lines. In ``ambiguous`` cases neither tells the places
    apart (no scope; no line numbers, or a line halfway between the two places).
    """
    fmt, category, frng = _CONTEXT.format, _CONTEXT.category, _CONTEXT.rng
    style = (styles[0] if styles else None) or Style()
    parts = [rng.choice(INTROS) + "\n\n"]
    current = list(lines)
    placed: list[tuple[Block, int, str | None]] = []
    for block in blocks:
        fits = current[block.start : block.start + len(block.old_lines)] == block.old_lines
        scope = _enclosing(current, block.start, block.search) if fits and path.endswith(".py") else None
        placed.append((block, block.start, scope))
        if fits:
            current = block.apply_to(current)
    if fmt == "patch":
        shown = path
        if category == "decorated-path":
            shown = frng.choice(("./{}", "`{}`", "{} ")).format(path)
        body = ["*** Begin Patch", f"*** Update File: {shown}"]
        for k, (block, _, scope) in enumerate(placed):
            if category == "ambiguous" or scope is None or frng.random() < 0.5:
                head = "@@"
            else:
                head = "@@ " + scope.strip()
            if not (k == 0 and category == "marker-length" and head == "@@"):
                body.append(head)
            body.extend(_hunk(block.search, block.replace))
        body.append("*** End Patch")
        text = "\n".join(body) + "\n"
        fenced = category != "no-fences"
        parts.append(f"```\n{text}```\n" if fenced else text)
    elif fmt == "udiff":
        old_name, new_name = f"a/{path}", f"b/{path}"
        if category == "decorated-path":
            if frng.random() < 0.5:
                old_name = new_name = path
            else:
                old_name += "\t2024-05-01 12:00:00.000000000 +0200"
                new_name += "\t2024-05-01 12:05:00.000000000 +0200"
        body = [f"--- {old_name}", f"+++ {new_name}"]
        delta = 0
        for block, start, _ in placed:
            search, replace = list(block.search), list(block.replace)
            new_start = start + 1 + _slip(frng)
            old_start = new_start - delta
            delta += len(replace) - len(search)
            if category == "ambiguous":
                places = occurrences(lines, search, _strip, limit=5) if search else []
                if len(places) >= 2 and frng.random() < 0.5:
                    middle = (places[0] + places[1]) // 2 + 1
                    body.append(f"@@ -{middle},{len(search)} +{middle},{len(replace)} @@")
                else:
                    body.append("@@ ... @@")
            elif category == "marker-length":
                body.append(
                    frng.choice(
                        (
                            f"@@ -{old_start},{len(search)} +{new_start},{len(replace)} @@ {frng.choice(WORDS)}",
                            f"@@ -{old_start} +{new_start} @@" if len(search) == len(replace) == 1 else "@@ ... @@",
                            "@@ ... @@",
                        )
                    )
                )
            else:
                body.append(f"@@ -{max(old_start, 1)},{len(search)} +{max(new_start, 1)},{len(replace)} @@")
            body.extend(_hunk(search, replace))
        text = "\n".join(body) + "\n"
        parts.append(text if category == "no-fences" else f"```diff\n{text}```\n")
    else:  # cline
        a, b, c = (
            (frng.randint(3, 9), frng.randint(3, 9), frng.randint(3, 9)) if category == "marker-length" else (7, 7, 7)
        )
        pairs = "".join(
            f"{'-' * a} SEARCH\n{_join(block.search)}{'=' * b}\n{_join(block.replace)}{'+' * c} REPLACE\n"
            for block, _, _ in placed
        )
        if category in ("decorated-path", "no-fences"):
            head = style.path_line if style.path_line is not None else path
            parts.append(f"{head}\n{pairs}")
        else:
            parts.append(f"<replace_in_file>\n<path>{path}</path>\n<diff>\n{pairs}</diff>\n</replace_in_file>\n")
    if rng.random() < 0.5:
        parts.append("\nThis keeps the behaviour the same otherwise.\n")
    return "".join(parts)


# --------------------------------------------------------------------------------------------
# Cases


@dataclass
class Case:
    """One generated reply and what it should do to its one file."""

    category: str
    index: int
    variant: str
    source: str
    """The standard library file the case was made from."""
    path: str
    """The file's path inside the project (and in the reply)."""
    before: bytes
    reply: str
    intended: bytes
    """The file's bytes as the reply means them (``before`` when the reply must be refused)."""
    stages: list[bytes] = field(default_factory=list)
    """The file after each complete block, first to last (``stages[-1] == intended``)."""
    expect: str = "apply"
    """``apply`` or ``refuse``."""
    twice: bool = False
    truncated: bool = False
    format: str = "diff"
    """The edit format the reply is written in."""

    @property
    def name(self) -> str:
        prefix = "" if self.format == "diff" else f"{self.format}-"
        return f"{prefix}{self.category}-{self.index:03d}"


@dataclass
class _Doc:
    """A file being prepared: its lines, whether it ends with a newline, its line ending."""

    lines: list[str]
    final_newline: bool = True
    crlf: bool = False

    def encode(self, lines: Sequence[str] | None = None) -> bytes:
        lines = self.lines if lines is None else lines
        text = "\n".join(lines) + ("\n" if self.final_newline and lines else "")
        if self.crlf:
            text = text.replace("\n", "\r\n")
        return text.encode("utf-8")


def _sources_by_kind() -> tuple[list[Source], list[Source]]:
    sources = load_sources()
    py = [s for s in sources if s.python]
    text = [s for s in sources if not s.python]
    if not py:
        raise RuntimeError(f"no Python sources found under {stdlib_dir()}")
    return py, text


def _pick_source(rng: random.Random, category: str) -> Source:
    py, text = _sources_by_kind()
    if category not in PY_ONLY and text and rng.random() < TEXT_SHARE:
        return rng.choice(text)
    return rng.choice(py)


def _finish(
    category: str,
    index: int,
    variant: str,
    src: Source,
    doc: _Doc,
    blocks: list[Block],
    reply: str,
    *,
    expect: str = "apply",
    applied: int | None = None,
    twice: bool = False,
    truncated: bool = False,
) -> Case:
    """Compute the intended stages and build the case. ``applied``: how many blocks apply."""
    lines = list(doc.lines)
    stages = [doc.encode(lines)]
    if expect == "apply":
        for block in blocks[: len(blocks) if applied is None else applied]:
            lines = block.apply_to(lines)
            stages.append(doc.encode(lines))
    return Case(
        category=category,
        index=index,
        variant=variant,
        source=src.rel,
        path=src.rel,
        before=stages[0],
        reply=reply,
        intended=stages[-1],
        stages=stages,
        expect=expect,
        twice=twice,
        truncated=truncated,
    )


def _check_model_copy(lines: Sequence[str], block: Block, *, allow_exact: bool = False) -> None:
    """The model's SEARCH must not be the verbatim text of some other place of the file."""
    hits = occurrences(lines, block.search)
    if hits and not (allow_exact and hits == [block.start] and block.search == block.old_lines):
        raise NoCase("the model's copy occurs verbatim in the file")


def _taken(lines: Sequence[str]) -> set[str]:
    return {x.strip() for x in lines}


def _simple(rng: random.Random, src: Source, doc: _Doc, lengths: tuple[int, int] = (3, 8), check=None) -> Block:
    start, length = pick_region(rng, doc.lines, lengths, check=check)
    region = doc.lines[start : start + length]
    rows = make_rows(rng, region, rng.choice(EDIT_KINDS), src.python, _taken(doc.lines))
    return Block(start, rows)


def _indented(min_width: int) -> Callable[[Sequence[str]], Callable[[int, int], bool]]:
    def factory(lines: Sequence[str]) -> Callable[[int, int], bool]:
        return lambda start, length: min_indent(lines[start : start + length]) >= min_width

    return factory


def build_case(category: str, index: int, seed: int, format: str = "diff") -> Case:
    """The case ``index`` of ``category`` written in ``format``; deterministic for a given seed
    and standard library. The file, the edit and the mistake do not depend on the format."""
    if format not in FORMATS:
        raise ValueError(f"unknown format {format!r}; known: {', '.join(FORMATS)}")
    rng = random.Random(f"{seed}:{category}:{index}")
    builder = _BUILDERS[category]
    last: Exception | None = None
    _CONTEXT.format, _CONTEXT.category = format, category
    _CONTEXT.rng = random.Random(f"{seed}:{category}:{index}:{format}")
    try:
        for _ in range(200):
            src = _pick_source(rng, category)
            try:
                case = builder(rng, src, category, index)
            except NoCase as exc:
                last = exc
                continue
            case.format = format
            return case
    finally:
        _CONTEXT.format = "diff"
    raise RuntimeError(f"could not build case {category} #{index}: {last}")


def generate(
    seed: int = 0, per_category: int = 10, categories: Iterable[str] | None = None, format: str = "diff"
) -> list[Case]:
    """``per_category`` cases of every category (or of the named ones), written in ``format``."""
    wanted = list(categories) if categories else list(CATEGORIES)
    unknown = set(wanted) - set(CATEGORIES)
    if unknown:
        raise ValueError(f"unknown categories {sorted(unknown)}; known: {', '.join(CATEGORIES)}")
    wanted = [cat for cat in wanted if format in ONLY_IN.get(cat, frozenset({format}))]
    return [build_case(cat, i, seed, format) for cat in wanted for i in range(per_category)]


# ---- builders: one per category --------------------------------------------------------------


def _b_plain(rng: random.Random, src: Source, category: str, index: int) -> Case:
    """``none``, ``decorated-path``, ``marker-length``, ``no-fences``, ``crlf``, ``no-final-newline``."""
    doc = _Doc(list(src.lines))
    kind = rng.choice(EDIT_KINDS)
    style = Style()
    variant = kind
    at_end = False
    if category == "decorated-path":
        form = rng.choice(("**{}**", "`{}`", "# {}", "{}:", "**`{}`**", "### {}"))
        style.path_line = form.format(src.rel)
        variant = f"{form.format('path')} {kind}"
    elif category == "marker-length":
        style.markers = (rng.randint(5, 9), rng.randint(5, 9), rng.randint(5, 9))
        variant = f"markers {'/'.join(map(str, style.markers))} {kind}"
    elif category == "no-fences":
        style.fenced = False
    elif category == "crlf":
        doc.crlf = True
    elif category == "no-final-newline":
        doc.final_newline = False
        at_end = rng.random() < 0.5
        variant = f"{'last lines' if at_end else 'elsewhere'} {kind}"
    if at_end:
        n = len(doc.lines)
        for length in rng.sample(range(3, 9), 6):
            if region_ok(doc.lines, n - length, length):
                start = n - length
                break
        else:
            raise NoCase("the end of the file does not suit")
    else:
        start, length = pick_region(rng, doc.lines, (3, 8))
    block = Block(start, make_rows(rng, doc.lines[start : start + length], kind, src.python, _taken(doc.lines)))
    _check_model_copy(doc.lines, block, allow_exact=True)
    reply = render_reply(rng, src.rel, [block], [style], lines=doc.lines)
    return _finish(category, index, variant, src, doc, [block], reply)


def _b_dedent(rng: random.Random, src: Source, category: str, index: int) -> Case:
    doc = _Doc(list(src.lines))
    start, length = pick_region(rng, doc.lines, (3, 8), check=_indented(4)(doc.lines))
    kind = rng.choice(EDIT_KINDS)
    block = Block(start, make_rows(rng, doc.lines[start : start + length], kind, src.python, _taken(doc.lines)))
    common = min_indent([*block.search, *block.replace])
    how = rng.choice(("all", "one level", "one level more"))
    if how == "all":
        shift_rows(block.rows, -common)
    elif how == "one level":
        shift_rows(block.rows, -4)
    else:
        shift_rows(block.rows, 4)
    _check_model_copy(doc.lines, block)
    reply = render_reply(rng, src.rel, [block], lines=doc.lines)
    return _finish(category, index, f"{how} {kind}", src, doc, [block], reply)


def _b_partial_indent(rng: random.Random, src: Source, category: str, index: int) -> Case:
    doc = _Doc(list(src.lines))
    start, length = pick_region(rng, doc.lines, (4, 9))
    kind = rng.choice(EDIT_KINDS)
    block = Block(start, make_rows(rng, doc.lines[start : start + length], kind, src.python, _taken(doc.lines)))
    # The lines around an inserted line keep their indentation: when the model misindents the
    # line before a new one, how far it meant the new line to be indented is anyone's guess.
    written = [i for i, r in enumerate(block.rows) if r.s is not None and r.s.strip()]
    guarded: set[int] = set()
    for i, row in enumerate(block.rows):
        if row.kind == "insert":
            before = [j for j in written if j < i]
            after = [j for j in written if j > i]
            guarded.update(before[-1:] + after[:1])
    written = [i for i in written if i not in guarded]
    if len(written) < 2:
        raise NoCase("too few lines to misindent some")
    count = rng.randint(1, max(1, len(written) // 3))
    chosen = rng.sample(written, min(count, len(written) - 1))
    for i in chosen:
        row = block.rows[i]
        width = len(indent_of(row.s or ""))
        delta = rng.choice([d for d in (-4, -2, -1, 1, 2, 4) if width + d >= 0])
        row.s = _shift(row.s, delta)
        if row.r is not None:
            row.r = _shift(row.r, delta)
    _check_model_copy(doc.lines, block)
    reply = render_reply(rng, src.rel, [block], lines=doc.lines)
    return _finish(category, index, f"{len(chosen)} line(s) off, {kind}", src, doc, [block], reply)


def _b_tabs(rng: random.Random, src: Source, category: str, index: int) -> Case:
    doc = _Doc([tabify(x) for x in src.lines])
    start, length = pick_region(rng, doc.lines, (3, 8), check=lambda s, n: min_indent(doc.lines[s : s + n]) >= 1)
    kind = rng.choice(EDIT_KINDS)
    block = Block(start, make_rows(rng, doc.lines[start : start + length], kind, src.python, _taken(doc.lines)))
    for row in block.rows:
        row.s = untabify(row.s) if row.s is not None else None
        row.r = untabify(row.r) if row.r is not None else None
    _check_model_copy(doc.lines, block)
    reply = render_reply(rng, src.rel, [block], lines=doc.lines)
    return _finish(category, index, kind, src, doc, [block], reply)


def _b_trailing(rng: random.Random, src: Source, category: str, index: int) -> Case:
    lines = list(src.lines)
    start, length = pick_region(rng, lines, (3, 8))
    marked = {i for i, x in enumerate(lines) if x.strip() and rng.random() < 0.3}
    marked |= set(rng.sample([i for i in range(start, start + length) if lines[i].strip()], 1))
    doc = _Doc([x + rng.choice((" ", "  ", "\t", "    ")) if i in marked else x for i, x in enumerate(lines)])
    kind = rng.choice(EDIT_KINDS)
    block = Block(start, make_rows(rng, doc.lines[start : start + length], kind, src.python, _taken(doc.lines)))
    if not any(r.kind == "keep" and r.old != r.old.rstrip() for r in block.rows if r.old is not None):
        raise NoCase("no unchanged line with trailing spaces")
    for row in block.rows:
        row.s = row.s.rstrip() if row.s is not None else None
        row.r = row.r.rstrip() if row.r is not None else None
    _check_model_copy(doc.lines, block)
    reply = render_reply(rng, src.rel, [block], lines=doc.lines)
    return _finish(category, index, kind, src, doc, [block], reply)


def _b_blank_edge(rng: random.Random, src: Source, category: str, index: int) -> Case:
    doc = _Doc(list(src.lines))
    where = rng.choice(("start", "end", "both"))
    both_sides = rng.random() < 0.7

    def check(s: int, n: int) -> bool:
        before_ok = s == 0 or doc.lines[s - 1].strip() != ""
        after_ok = s + n == len(doc.lines) or doc.lines[s + n].strip() != ""
        return (where == "end" or before_ok) and (where == "start" or after_ok)

    start, length = pick_region(rng, doc.lines, (3, 8), check=check)
    kind = rng.choice(EDIT_KINDS)
    block = Block(start, make_rows(rng, doc.lines[start : start + length], kind, src.python, _taken(doc.lines)))
    blank = Row.marker("", "" if both_sides else None)
    if where in ("start", "both"):
        block.rows.insert(0, blank)
    if where in ("end", "both"):
        block.rows.append(Row.marker("", "" if both_sides else None))
    reply = render_reply(rng, src.rel, [block], lines=doc.lines)
    variant = f"{where}, {'SEARCH and REPLACE' if both_sides else 'SEARCH only'}, {kind}"
    return _finish(category, index, variant, src, doc, [block], reply)


def _b_elision(rng: random.Random, src: Source, category: str, index: int) -> Case:
    doc = _Doc(list(src.lines))

    def check(s: int, n: int) -> bool:
        return not any(_ELLIPSISH.search(x) for x in doc.lines[s : s + n])

    start, length = pick_region(rng, doc.lines, (8, 20), check=check)
    kind = rng.choice(EDIT_KINDS)
    region = doc.lines[start : start + length]
    # Edit near one end, so that a run of unchanged lines can be elided.
    if rng.random() < 0.5:
        cut = rng.randint(3, 5)
        rows = make_rows(rng, region[:cut], kind, src.python, _taken(doc.lines)) + [Row.keep(x) for x in region[cut:]]
    else:
        cut = length - rng.randint(3, 5)
        rows = [Row.keep(x) for x in region[:cut]] + make_rows(rng, region[cut:], kind, src.python, _taken(doc.lines))
    block = Block(start, rows)
    elide(rng, block.rows, src.python)
    # Each piece between '...' lines must be unique: a model picks distinctive context.
    pieces: list[list[str]] = [[]]
    for row in block.rows:
        if row.kind == "marker":
            pieces.append([])
        elif row.s is not None:
            pieces[-1].append(row.s)
    for piece in pieces:
        if not any(x.strip() for x in piece) or len(occurrences(doc.lines, piece, _strip)) != 1:
            raise NoCase("an elision piece is not unique")
    marker = next(r.s for r in block.rows if r.kind == "marker")
    reply = render_reply(rng, src.rel, [block], lines=doc.lines)
    return _finish(category, index, f"{(marker or '').strip()!r} {kind}", src, doc, [block], reply)


ELLIPSIS_SHARE = 0.1
"""Share of ``misremembered`` cases set among lines that begin with ``...`` (doctest
continuation lines, ``...`` bodies): the edit changes one of them and the misremembered line is
another. Such lines look like elision markers, yet they are text the model copied."""


def _starts_with_ellipsis(line: str) -> bool:
    return line.strip().startswith("...")


def _b_misremembered(rng: random.Random, src: Source, category: str, index: int) -> Case:
    if rng.random() < ELLIPSIS_SHARE:
        dotted = [
            s for s in load_sources() if sum(1 for x in s.lines if _starts_with_ellipsis(x) and _words_in(x)) >= 2
        ]
        if dotted:
            src = rng.choice(dotted)
            doc = _Doc(list(src.lines))
            return _misremembered_ellipsis(rng, src, doc, category, index, _taken(doc.lines))
    doc = _Doc(list(src.lines))
    taken = _taken(doc.lines)
    start, length = pick_region(rng, doc.lines, (4, 10))
    kind = rng.choice(EDIT_KINDS)
    block = Block(start, make_rows(rng, doc.lines[start : start + length], kind, src.python, taken))
    misremember(rng, block.rows, src.python, taken)
    _check_model_copy(doc.lines, block)
    reply = render_reply(rng, src.rel, [block], lines=doc.lines)
    return _finish(category, index, kind, src, doc, [block], reply)


def _misremembered_ellipsis(
    rng: random.Random, src: Source, doc: _Doc, category: str, index: int, taken: set[str]
) -> Case:
    def check(s: int, n: int) -> bool:
        return sum(1 for x in doc.lines[s : s + n] if _starts_with_ellipsis(x) and _words_in(x)) >= 2

    start, length = pick_region(rng, doc.lines, (4, 10), check=check, tries=2000)
    region = doc.lines[start : start + length]
    dotted = [i for i, x in enumerate(region) if _starts_with_ellipsis(x) and _words_in(x)]
    changed, wrong = rng.sample(dotted, 2)
    rows = [Row.keep(x) for x in region]
    rows[changed] = Row.change(region[changed], mutate_line(rng, region[changed], src.python, taken))
    rows[wrong].s = rows[wrong].r = mutate_line(rng, region[wrong], src.python, taken)
    block = Block(start, rows)
    _check_model_copy(doc.lines, block)
    reply = render_reply(rng, src.rel, [block], lines=doc.lines)
    return _finish(category, index, "lines starting with '...' modify", src, doc, [block], reply)


def _b_hallucinated(rng: random.Random, src: Source, category: str, index: int) -> Case:
    doc = _Doc(list(src.lines))
    taken = _taken(doc.lines)
    how = rng.choice(("foreign", "invented"))
    if how == "foreign":
        py, text = _sources_by_kind()
        other = rng.choice([s for s in (py if src.python else text or py) if s.rel != src.rel])
        start, length = pick_region(rng, other.lines, (3, 8))
        fake = list(other.lines[start : start + length])
    else:
        start, length = pick_region(rng, doc.lines, (4, 10))
        fake = list(doc.lines[start : start + length])
        written = [i for i, x in enumerate(fake) if x.strip()]
        for i in rng.sample(written, (len(written) + 1) // 2):
            fake[i] = new_line(rng, indent_of(fake[i]), src.python, taken)
    if occurrences(doc.lines, fake, _strip) or any(_MARKERISH.match(x) for x in fake):
        raise NoCase("the invented text is in the file")
    rows = make_rows(rng, fake, rng.choice(("modify", "insert", "replace")), src.python, taken | _taken(fake))
    block = Block(0, rows)
    reply = render_reply(rng, src.rel, [block], lines=doc.lines)
    return _finish(category, index, how, src, doc, [block], reply, expect="refuse")


def _b_ambiguous(rng: random.Random, src: Source, category: str, index: int) -> Case:
    """A region that occurs twice (or, for ``near-duplicate``, twice but for one line)."""
    lines = list(src.lines)
    how = rng.choice(("exact", "dedented", "misremembered", "near-duplicate", "blank-edge", "indented-copy"))
    need_indent = how in ("dedented", "indented-copy")
    start, length = pick_region(
        rng, lines, (3, 8), check=(lambda s, n: min_indent(lines[s : s + n]) >= 4) if need_indent else None
    )
    region = lines[start : start + length]
    taken = _taken(lines)
    kind = rng.choice(("modify", "insert", "replace"))
    rows = make_rows(rng, region, kind, src.python, taken)
    copy = list(region)
    if how == "indented-copy":
        copy = [("    " + x) if x.strip() else x for x in copy]
    elif how == "near-duplicate":
        # The copy differs in one word of an unchanged line, and the model's SEARCH has a third
        # version of that word, as far from either: nothing tells the two places apart.
        keeps = [
            i
            for i, r in enumerate(rows)
            if r.kind == "keep" and r.old and any(len(w.group(0)) >= 4 for w in _words_in(r.old))
        ]
        if not keeps:
            raise NoCase("no line to vary")
        j = rng.choice(keeps)
        k = sum(1 for r in rows[:j] if r.old is not None)
        word = rng.choice([w for w in _words_in(region[k]) if len(w.group(0)) >= 4])
        w = word.group(0)
        free = [c for c in "abcdefghijklmnopqrstuvwxyz" if c not in w.lower()]
        rng.shuffle(free)
        half = len(free) // 2
        one = "".join(rng.choice(free[:half]) for _ in w)
        two = "".join(rng.choice(free[half:]) for _ in w)
        copy[k] = region[k][: word.start()] + one + region[k][word.end() :]
        rows[j].s = rows[j].r = region[k][: word.start()] + two + region[k][word.end() :]
    at = rng.choice([i for i in range(len(lines) + 1) if i < start - 2 or i > start + length + 2])
    doc = _Doc(lines[:at] + copy + lines[at:])
    block = Block(start if at > start else start + len(copy), rows)
    if how == "dedented":
        shift_rows(block.rows, -min_indent(block.search))
    elif how == "indented-copy":
        shift_rows(block.rows, -rng.choice((4, min_indent(block.search))))
    elif how == "misremembered":
        misremember(rng, block.rows, src.python, taken)
    elif how == "blank-edge":
        block.rows.insert(0, Row.marker("", ""))
    if how != "exact" and occurrences(doc.lines, block.search):
        raise NoCase("the model's copy occurs verbatim")
    reply = render_reply(rng, src.rel, [block], lines=doc.lines)
    return _finish(category, index, how, src, doc, [block], reply, expect="refuse")


def _b_truncated(rng: random.Random, src: Source, category: str, index: int) -> Case:
    doc = _Doc(list(src.lines))
    blocks = _independent_blocks(rng, src, doc, rng.choice((1, 2, 2, 3)))
    reply = render_reply(rng, src.rel, blocks, lines=doc.lines)
    # Cut inside the last block: after its SEARCH marker, before its REPLACE marker.
    opener, closer = _TRUNCATE_BETWEEN[_CONTEXT.format]
    at = _last_line_end(reply, opener)
    end = reply.rfind(closer)
    line_starts = [i + 1 for i in range(at - 1, end - 1) if reply[i] == "\n"]
    if rng.random() < 0.7:
        cut = rng.choice(line_starts)
        how = "at a line end"
    else:
        cut = rng.randint(at, end - 1)
        how = "mid-line"
    where = "in SEARCH" if cut <= reply.rfind("=======\n", at, end) else "in REPLACE"
    if _CONTEXT.format in ("patch", "udiff"):
        where = "in the last chunk"
    reply = reply[:cut]
    return _finish(
        category,
        index,
        f"{len(blocks)} block(s), cut {where} {how}",
        src,
        doc,
        blocks,
        reply,
        applied=len(blocks) - 1,
        truncated=True,
    )


def _independent_blocks(rng: random.Random, src: Source, doc: _Doc, count: int) -> list[Block]:
    """``count`` blocks on disjoint regions, in file order, each unique in the file it meets."""
    spans: list[tuple[int, int]] = []
    for _ in range(count * 30):
        if len(spans) == count:
            break
        s, n = pick_region(rng, doc.lines, (3, 7))
        if any(s < b + m + 1 and b < s + n + 1 for b, m in spans):
            continue
        spans.append((s, n))
    if len(spans) < count:
        raise NoCase("no room for the blocks")
    spans.sort()
    blocks: list[Block] = []
    taken = _taken(doc.lines)
    lines = list(doc.lines)
    offset = 0
    for s, n in spans:
        rows = make_rows(rng, doc.lines[s : s + n], rng.choice(EDIT_KINDS), src.python, taken)
        block = Block(s + offset, rows)
        _check_model_copy(lines, block, allow_exact=True)
        lines = block.apply_to(lines)
        if len(occurrences(lines, block.new_lines)) > 1:
            raise NoCase("a replacement occurs twice")
        offset += len(block.new_lines) - len(block.old_lines)
        blocks.append(block)
    return blocks


def _b_dependent(rng: random.Random, src: Source, category: str, index: int) -> Case:
    doc = _Doc(list(src.lines))
    taken = _taken(doc.lines)
    start, length = pick_region(rng, doc.lines, (3, 7))
    kind = rng.choice(("modify", "insert", "replace"))
    first = Block(start, make_rows(rng, doc.lines[start : start + length], kind, src.python, taken))
    lines1 = first.apply_to(list(doc.lines))
    fresh = [start + i for i, row in enumerate(r for r in first.rows if r.new is not None) if row.kind != "keep"]

    # The second block's SEARCH contains a line the first block wrote: it only exists after it.
    def check(s: int, n: int) -> bool:
        return any(s <= f < s + n for f in fresh) and (s, n) != (start, len(first.new_lines))

    s2, n2 = pick_region(rng, lines1, (3, 7), check=check)
    second = Block(s2, make_rows(rng, lines1[s2 : s2 + n2], rng.choice(EDIT_KINDS), src.python, taken | _taken(lines1)))
    if occurrences(doc.lines, second.search):
        raise NoCase("the second block does not depend on the first")
    blocks = [first, second]
    lines2 = second.apply_to(lines1)
    variant = "2 blocks"
    if rng.random() < 0.5:
        lo = min(start, s2)
        hi = max(start + len(first.new_lines), s2 + len(second.new_lines))
        s3, n3 = pick_region(rng, lines2, (3, 7), avoid=(lo - 1, hi + 1))
        third = Block(
            s3, make_rows(rng, lines2[s3 : s3 + n3], rng.choice(EDIT_KINDS), src.python, taken | _taken(lines2))
        )
        _check_model_copy(lines2, third, allow_exact=True)
        if occurrences(doc.lines, third.search) and not occurrences(lines1, third.search):
            raise NoCase("third block is ambiguous over time")
        blocks.append(third)
        variant = "3 blocks"
    reply = render_reply(rng, src.rel, blocks, lines=doc.lines)
    return _finish(category, index, variant, src, doc, blocks, reply)


def _b_twice(rng: random.Random, src: Source, category: str, index: int) -> Case:
    doc = _Doc(list(src.lines))
    how = rng.choice(("correct", "correct", "correct", "dedented", "misremembered"))
    kind = rng.choice(EDIT_KINDS)
    check = _indented(4)(doc.lines) if how == "dedented" else None
    start, length = pick_region(rng, doc.lines, (4, 9), check=check)
    taken = _taken(doc.lines)
    block = Block(start, make_rows(rng, doc.lines[start : start + length], kind, src.python, taken))
    if how == "dedented":
        shift_rows(block.rows, -min_indent(block.search))
    elif how == "misremembered":
        misremember(rng, block.rows, src.python, taken)
    _check_model_copy(doc.lines, block, allow_exact=how == "correct")
    reply = render_reply(rng, src.rel, [block], lines=doc.lines)
    return _finish(category, index, f"{how} {kind}", src, doc, [block], reply, twice=True)


def _b_misremembered_changed(rng: random.Random, src: Source, category: str, index: int) -> Case:
    """A line the edit changes, recalled without one of its words (elsewhere on the line) in
    SEARCH and REPLACE alike: right is the file's line with the model's change, or a refusal."""
    doc = _Doc(list(src.lines))
    taken = _taken(doc.lines)
    start, length = pick_region(rng, doc.lines, (4, 10))
    block = Block(start, make_rows(rng, doc.lines[start : start + length], "modify", src.python, taken))
    changes = [r for r in block.rows if r.kind == "change" and r.old is not None and r.new is not None]
    row = rng.choice(changes)
    old_t, new_t = (row.old or "").split(" "), (row.new or "").split(" ")
    if len(old_t) != len(new_t):
        raise NoCase("the change moved words")
    diff = [j for j in range(len(old_t)) if old_t[j] != new_t[j]]
    keep = [
        j for j in range(len(old_t)) if old_t[j].strip() and all(abs(j - d) >= 2 for d in diff) and old_t[j] == new_t[j]
    ]
    if len(diff) != 1 or not keep:
        raise NoCase("no word to forget away from the change")
    j = rng.choice(keep)
    row.s = " ".join(old_t[:j] + old_t[j + 1 :])
    row.r = " ".join(new_t[:j] + new_t[j + 1 :])
    _check_model_copy(doc.lines, block)
    reply = render_reply(rng, src.rel, [block], lines=doc.lines)
    return _finish(category, index, f"forgot {old_t[j]!r}", src, doc, [block], reply)


def _flawed_copy(rng: random.Random, rows: list[Row], category: str) -> str:
    """Recall one or two of the unchanged ``rows`` with the flaw ``category`` names, in SEARCH and
    REPLACE alike (the file's lines, and so the intended result, stay as they are); the
    variant's description."""
    keeps = [i for i, r in enumerate(rows) if r.kind == "keep" and r.s is not None and r.s.strip()]
    if category == "lines-swapped":
        pairs = [i for i in keeps if i + 1 in keeps and rows[i].s != rows[i + 1].s]
        if not pairs:
            raise NoCase("no two unchanged lines side by side")
        i = rng.choice(pairs)
        a, b = rows[i], rows[i + 1]
        a.s, b.s, a.r, b.r = b.s, a.s, b.r, a.r
        return "two lines swapped"
    if category == "line-missing":
        inner = [i for i in keeps if 0 < i < len(rows) - 1]
        if not inner:
            raise NoCase("no unchanged line between two others")
        row = rows[rng.choice(inner)]
        row.s = row.r = None
        return "a line left out"
    line = rows[i := rng.choice(keeps)].s if keeps else None
    if line is None:
        raise NoCase("no unchanged line")
    indent = indent_of(line)
    body = line[len(indent) :].rstrip()
    if category == "word-dropped":
        words = [m for m in _words_in(body) if m.start() > 0]
        if not words:
            raise NoCase("no word to drop")
        m = rng.choice(words)
        flawed, variant = indent + re.sub(r"  +", " ", body[: m.start()] + body[m.end() :]).strip(), "a word dropped"
    else:
        if len(body) < 12:
            raise NoCase("line too short to cut")
        inside = rng.random() < 0.4
        if inside:
            cuts = [
                m.start() + rng.randint(1, len(m.group(0)) - 1) for m in _IDENT.finditer(body) if len(m.group(0)) >= 4
            ]
        else:
            cuts = [m.start() for m in re.finditer(r"\s", body)]
        cuts = [c for c in cuts if 0.3 * len(body) <= c <= 0.85 * len(body)]
        if not cuts:
            raise NoCase("nowhere to cut the line")
        c = rng.choice(cuts)
        at_start = rng.random() < 0.25
        flawed = indent + (body[c:].lstrip() if at_start else body[:c].rstrip())
        variant = f"cut {'inside a word' if inside else 'at a word'}, its {'start' if at_start else 'end'} kept"
    if not flawed.strip() or flawed == line:
        raise NoCase("the flaw changes nothing")
    rows[i].s = rows[i].r = flawed
    return variant


def _b_flawed_copy(rng: random.Random, src: Source, category: str, index: int) -> Case:
    """``cut-short``, ``word-dropped``, ``lines-swapped``, ``line-missing``: see the module documentation."""
    doc = _Doc(list(src.lines))
    start, length = pick_region(rng, doc.lines, (4, 10))
    kind = rng.choice(EDIT_KINDS)
    block = Block(start, make_rows(rng, doc.lines[start : start + length], kind, src.python, _taken(doc.lines)))
    variant = _flawed_copy(rng, block.rows, category)
    if not block.search or block.search == block.replace:
        raise NoCase("nothing left to edit")
    _check_model_copy(doc.lines, block)
    reply = render_reply(rng, src.rel, [block], lines=doc.lines)
    return _finish(category, index, f"{variant}, {kind}", src, doc, [block], reply, twice=True)


def _b_elision_replace(rng: random.Random, src: Source, category: str, index: int) -> Case:
    """A run of unchanged lines written as an elision line in REPLACE only (Cursor-style)."""
    doc = _Doc(list(src.lines))

    def check(s: int, n: int) -> bool:
        return not any(_ELLIPSISH.search(x) for x in doc.lines[s : s + n])

    start, length = pick_region(rng, doc.lines, (8, 20), check=check)
    kind = rng.choice(("modify", "insert"))
    region = doc.lines[start : start + length]
    cut = rng.randint(3, 5)
    rows = make_rows(rng, region[:cut], kind, src.python, _taken(doc.lines)) + [Row.keep(x) for x in region[cut:]]
    block = Block(start, rows)
    elide(rng, block.rows, src.python)
    text = next(r.r for r in block.rows if r.kind == "marker")
    # SEARCH keeps the elided lines; only REPLACE has the marker in their place.
    block = Block(start, make_rows_from(block.rows))
    _check_model_copy(doc.lines, block, allow_exact=True)
    reply = render_reply(rng, src.rel, [block], lines=doc.lines)
    return _finish(category, index, f"{(text or '').strip()!r} {kind}", src, doc, [block], reply)


def make_rows_from(rows: list[Row]) -> list[Row]:
    """``rows`` after :func:`elide` (a marker in place of a run of unchanged lines), written so
    that SEARCH keeps the run and REPLACE has the marker instead."""
    out: list[Row] = []
    for r in rows:
        if r.kind == "marker":
            out.append(Row.marker(None, r.r))
        elif r.kind == "keep" and r.s is None:
            out.append(Row("keep", r.old, r.new, r.old, None))
        else:
            out.append(r)
    return out


def _b_stray_divider(rng: random.Random, src: Source, category: str, index: int) -> Case:
    """A divider line in the model's REPLACE: doubled right after the divider, or stray after
    REPLACE's last line. It is never file content; right is the edit without it, or a refusal."""
    doc = _Doc(list(src.lines))
    start, length = pick_region(rng, doc.lines, (3, 8))
    kind = rng.choice(EDIT_KINDS)
    block = Block(start, make_rows(rng, doc.lines[start : start + length], kind, src.python, _taken(doc.lines)))
    where = rng.choice(("doubled", "stray-end"))
    if where == "doubled":
        block.rows.insert(0, Row.marker(None, "======="))
    else:
        block.rows.append(Row.marker(None, "======="))
    reply = render_reply(rng, src.rel, [block], lines=doc.lines)
    return _finish(category, index, f"{where} {kind}", src, doc, [block], reply)


_BUILDERS: dict[str, Callable[[random.Random, Source, str, int], Case]] = {
    "none": _b_plain,
    "dedent": _b_dedent,
    "partial-indent": _b_partial_indent,
    "tabs-as-spaces": _b_tabs,
    "trailing-spaces": _b_trailing,
    "crlf": _b_plain,
    "blank-edge": _b_blank_edge,
    "elision": _b_elision,
    "misremembered": _b_misremembered,
    "decorated-path": _b_plain,
    "marker-length": _b_plain,
    "no-fences": _b_plain,
    "hallucinated": _b_hallucinated,
    "ambiguous": _b_ambiguous,
    "truncated": _b_truncated,
    "no-final-newline": _b_plain,
    "dependent": _b_dependent,
    "twice": _b_twice,
    "cut-short": _b_flawed_copy,
    "word-dropped": _b_flawed_copy,
    "lines-swapped": _b_flawed_copy,
    "line-missing": _b_flawed_copy,
    "misremembered-changed": _b_misremembered_changed,
    "elision-replace": _b_elision_replace,
    "stray-divider": _b_stray_divider,
}


# --------------------------------------------------------------------------------------------
# Running and scoring


@dataclass
class Outcome:
    """What ``apply_edits`` made of a case."""

    case: Case
    verdict: str
    detail: str = ""
    actual: bytes = b""
    results: list[tuple[str, str | None, str | None]] = field(default_factory=list)
    """(status, strategy, reason) of every block, in reply order."""
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    second: list[tuple[str, str | None, str | None]] = field(default_factory=list)
    """For ``twice``: the results of the second application."""
    second_run: bool = False
    """For ``twice``: the verdict is about the second application (the first one was right)."""


SAME_AFTER_SECOND = "second application left the file as it was"


def normalise(data: bytes) -> str:
    """The text with line endings, trailing white space and blank lines dropped."""
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n")
    return "\n".join(line.rstrip() for line in text.split("\n") if line.strip())


def _summary(result: editblocks.ApplyResult) -> list[tuple[str, str | None, str | None]]:
    return [(r.status.value, r.strategy, r.reason) for r in result.results]


def run_case(case: Case, workdir: Path) -> Outcome:
    """Apply the case's reply in a fresh project under ``workdir`` and judge the file."""
    root = workdir / case.name
    if root.exists():
        shutil.rmtree(root)
    target = root / case.path
    target.parent.mkdir(parents=True)
    target.write_bytes(case.before)
    try:
        # Without the undo journal: a reply applied again is judged on the text, as the engine
        # must when the journal has no word on it (the files changed since, or another tool wrote them).
        result = editblocks.apply_edits(case.reply, root=root, journal=False)
        actual = target.read_bytes()
        out = score(case, result, actual)
        if case.twice and out.verdict in ("exact", "ws-equal"):
            again = editblocks.apply_edits(case.reply, root=root, journal=False)
            second = target.read_bytes()
            out.second = _summary(again)
            if second != actual:
                out.verdict, out.actual, out.second_run = "wrong", second, True
                out.detail = "the second application changed the file again"
            elif again.failed:
                out.notes.append(f"{SAME_AFTER_SECOND}, but was reported failed, not already applied")
            elif any(r.status is EditStatus.APPLIED for r in again.results):
                out.notes.append(f"{SAME_AFTER_SECOND}, but was reported applied again, not already applied")
        return out
    except Exception as exc:  # any crash is reported as such
        return Outcome(case, "error", f"{type(exc).__name__}: {exc}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def score(case: Case, result: editblocks.ApplyResult, actual: bytes) -> Outcome:
    """exact / ws-equal / refused / partial / wrong, by the file's bytes and what was reported."""
    out = Outcome(case, "wrong", actual=actual, results=_summary(result), warnings=[w.message for w in result.warnings])
    statuses = [r.status for r in result.results]
    failed = EditStatus.FAILED in statuses
    if case.expect == "refuse":
        if actual == case.before and statuses and all(s is EditStatus.FAILED for s in statuses):
            out.verdict = "refused"
        elif actual == case.before:
            out.detail = (
                f"file unchanged, but the block was reported {', '.join(s.value for s in statuses) or 'nowhere'}"
            )
        else:
            out.detail = "changed a file whose edit must be refused"
        return out
    if actual == case.intended:
        if case.truncated and not result.warnings:
            out.detail = "the cut block was not reported"
            return out
        out.verdict = "exact"
        if failed:
            out.notes.append("file as intended, yet a block was reported failed")
        return out
    if actual == case.before:
        if failed:
            out.verdict = "refused"
        else:
            out.detail = "file unchanged, yet no block was reported failed"
        return out
    if normalise(actual) == normalise(case.intended):
        out.verdict = "ws-equal"
        return out
    if failed and actual in case.stages:
        out.verdict = "partial"
        return out
    out.detail = "file changed into something else than intended"
    return out


# --------------------------------------------------------------------------------------------
# Reporting helpers


def diff(case: Case, actual: bytes) -> str:
    """Unified diff from the intended file to the actual one (line endings shown when they differ)."""

    def lines(data: bytes) -> list[str]:
        text = data.decode("utf-8", errors="replace")
        if b"\r" in case.intended + actual and text.replace("\r\n", "\n") != text:
            text = text.replace("\r\n", "\u240d\n")  # make CR visible
        return text.split("\n")

    out = []
    for line in unified_diff(
        lines(case.intended), lines(actual), f"intended/{case.path}", f"actual/{case.path}", lineterm=""
    ):
        out.append(line + "\n")
    if case.intended.endswith(b"\n") != actual.endswith(b"\n"):
        which = "intended" if not case.intended.endswith(b"\n") else "actual"
        out.append(f"(the {which} file has no newline at its end)\n")
    return "".join(out)


def write_scenario(case: Case, folder: Path, *, second_run: bool = False) -> Path:
    """The case as a ``tests/scenarios/NAME/`` folder: ``before/``, ``reply.md``, ``after/`` (or
    ``expected-results.json`` when the reply must be refused). With ``second_run`` (a ``twice``
    case whose second application went wrong) ``before/`` is the file after the first one."""
    folder.mkdir(parents=True, exist_ok=True)
    second_run = second_run and case.twice
    before = case.intended if second_run else case.before
    (folder / "before" / case.path).parent.mkdir(parents=True, exist_ok=True)
    (folder / "before" / case.path).write_bytes(before)
    (folder / "reply.md").write_bytes(case.reply.encode("utf-8"))
    expected: dict[str, object] = {}
    if case.expect == "refuse":
        expected["results"] = [{"status": "failed"}]
    else:
        if case.intended != before:
            (folder / "after" / case.path).parent.mkdir(parents=True, exist_ok=True)
            (folder / "after" / case.path).write_bytes(case.intended)
        else:
            expected["files_modified"] = []
        if case.truncated:
            expected["warnings_contain"] = ["truncated"]
        if second_run:
            expected["results"] = [{"status": "already_applied", "reason_contains": "already applied"}]
    if expected:
        (folder / "expected-results.json").write_text(json.dumps(expected, indent=2) + "\n", encoding="utf-8")
    return folder
