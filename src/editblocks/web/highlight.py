"""Diff rows for the review page: syntax highlighting and word-level change marks.

Every row carries its text as HTML built here from escaped pieces: Pygments tokens become
``<span class="k">`` (Pygments' short class names, styled by :func:`pygments_css`), and the
words that changed inside a changed line are wrapped in ``<span class="eb-chg">``.
Nothing of the file or the reply reaches the page unescaped.
"""

from __future__ import annotations

import functools
import hashlib
import re
import threading
from collections import OrderedDict
from difflib import SequenceMatcher
from html import escape
from typing import Any

from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import TextLexer, get_lexer_for_filename
from pygments.token import STANDARD_TYPES, Token, _TokenType
from pygments.util import ClassNotFound

from editblocks.reading.reader import split_reply

MAX_HIGHLIGHT_CHARS = 2_000_000
"""Texts longer than this are shown without syntax highlighting."""
MAX_CHAR_DIFF_CHARS = 2_000
"""Lines longer than this get no character-level marks."""
CHAR_DIFF_MIN_RATIO = 0.35
"""Two paired lines less similar than this are shown as wholly changed, without marks."""
FULL_CONTEXT_LINES = 3_000
"""Files up to this many lines are shown whole in the file view; longer ones around the changes."""
LONG_FILE_CONTEXT = 200

Row = dict[str, Any]
TokenLine = list[tuple[str, str]]


split_lines = split_reply
"""The lines of a text without their line endings (as a reply's are split)."""


def _css_class(ttype: _TokenType) -> str:
    while ttype is not Token:
        name = STANDARD_TYPES.get(ttype)
        if name:
            return str(name)
        ttype = ttype.parent
    return ""


def _lexer(path: str) -> Lexer:
    name = path.rsplit("/", 1)[-1]
    return _lexer_for(name)


@functools.lru_cache(maxsize=1024)
def _lexer_for(name: str) -> Lexer:
    """One lexer per kind of file name (finding it scans every lexer's patterns)."""
    try:
        return get_lexer_for_filename(name, stripnl=False, ensurenl=False, stripall=False)
    except (ClassNotFound, ValueError):
        return TextLexer(stripnl=False, ensurenl=False)


_cache: OrderedDict[tuple[str, str], list[TokenLine]] = OrderedDict()
_cache_lock = threading.Lock()
_CACHE_SIZE = 64


def token_lines(text: str, path: str) -> list[TokenLine]:
    """``text`` split into lines, each a list of (css class, text) pieces, lexed as a whole."""
    lines = split_lines(text)
    if not lines:
        return []
    key = (path.rsplit(".", 1)[-1], hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest())
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            return hit
    result = _lex(text, path, lines)
    with _cache_lock:
        _cache[key] = result
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return result


def _lex(text: str, path: str, lines: list[str]) -> list[TokenLine]:
    plain = [[("", line)] if line else [] for line in lines]
    if len(text) > MAX_HIGHLIGHT_CHARS:
        return plain
    body = "\n".join(lines) + "\n"
    out: list[TokenLine] = [[]]
    try:
        for ttype, value in _lexer(path).get_tokens(body):
            cls = _css_class(ttype)
            parts = value.split("\n")
            for k, part in enumerate(parts):
                if k:
                    out.append([])
                if part:
                    out[-1].append((cls, part))
    except Exception:  # a lexer bug must not break the page
        return plain
    if out and not out[-1]:
        out.pop()
    # Lexers may rewrite text (tabs, stray characters); use their output only when it is faithful.
    if len(out) != len(lines) or any("".join(t for _, t in toks) != line for toks, line in zip(out, lines)):
        return plain
    return out


def render_line(tokens: TokenLine, changes: list[tuple[int, int]] | None = None) -> str:
    """One line as escaped HTML, with ``changes`` (character ranges) marked."""
    changes = changes or []
    pieces: list[tuple[str, str, bool]] = []
    pos = 0
    for cls, text in tokens:
        start, end = pos, pos + len(text)
        cuts = {start, end}
        for a, b in changes:
            if start < a < end:
                cuts.add(a)
            if start < b < end:
                cuts.add(b)
        points = sorted(cuts)
        for a, b in zip(points, points[1:]):
            changed = any(ca <= a and b <= cb for ca, cb in changes)
            pieces.append((cls, text[a - start : b - start], changed))
        pos = end
    merged: list[tuple[str, str, bool]] = []
    for piece in pieces:
        if merged and merged[-1][0] == piece[0] and merged[-1][2] == piece[2]:
            merged[-1] = (piece[0], merged[-1][1] + piece[1], piece[2])
        else:
            merged.append(piece)
    return "".join(_span(cls, text, changed) for cls, text, changed in merged)


def _span(cls: str, text: str, changed: bool) -> str:
    classes = " ".join(c for c in (cls, "eb-chg" if changed else "") if c)
    if not classes:
        return escape(text, quote=False)
    return f'<span class="{classes}">{escape(text, quote=False)}</span>'


_WORD_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")


def word_tokens(line: str) -> list[str]:
    """``line`` cut into words, runs of blanks and single other characters (they join back into it)."""
    return _WORD_TOKEN.findall(line)


def char_changes(old: str, new: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]] | None:
    """Character ranges that differ in ``old`` and in ``new``, always whole word tokens (a renamed
    ``subtotal`` is marked whole, not as ``sub|t|otal`` fragments); None when the lines are too unlike."""
    if len(old) > MAX_CHAR_DIFF_CHARS or len(new) > MAX_CHAR_DIFF_CHARS:
        return None
    a, b = word_tokens(old), word_tokens(new)
    if SequenceMatcher(None, old, new, autojunk=False).ratio() < CHAR_DIFF_MIN_RATIO:
        return None
    a_at = _offsets(a)
    b_at = _offsets(b)
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    a_ranges: list[tuple[int, int]] = []
    b_ranges: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:
            a_ranges.append((a_at[i1], a_at[i2]))
        if j2 > j1:
            b_ranges.append((b_at[j1], b_at[j2]))
    return _merge(a_ranges), _merge(b_ranges)


def _offsets(tokens: list[str]) -> list[int]:
    """Where each token starts, and the end of the last one."""
    out = [0]
    for token in tokens:
        out.append(out[-1] + len(token))
    return out


def _merge(ranges: list[tuple[int, int]], gap: int = 1) -> list[tuple[int, int]]:
    """Join ranges separated by at most ``gap`` unchanged characters (fewer, readable marks)."""
    out: list[tuple[int, int]] = []
    for a, b in ranges:
        if out and a - out[-1][1] <= gap:
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


def diff_rows(
    before: str,
    after: str,
    path: str,
    *,
    context: int | None = 3,
    numbers: bool = True,
    first_line: int = 1,
) -> list[Row]:
    """A unified diff of two texts as rows for the page.

    Each row is ``{"t": kind, "o": old line, "n": new line, "h": html}`` with kind ``hunk``,
    ``ctx``, ``del`` or ``add``. ``context=None`` shows the whole text (or, for a long one, a
    wide window around each change). Without ``numbers`` the line numbers are None (a block's
    own text, not placed in a file).
    """
    a, b = split_lines(before), split_lines(after)
    ta, tb = token_lines(before, path), token_lines(after, path)
    if context is None:
        context = max(len(a), len(b)) if max(len(a), len(b)) <= FULL_CONTEXT_LINES else LONG_FILE_CONTEXT
    off = first_line - 1
    rows: list[Row] = []
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    if a == b:
        return [_row("ctx", i + 1 + off, i + 1 + off, ta[i], None, numbers) for i in range(len(a))]
    for group in matcher.get_grouped_opcodes(context):
        o1, o2 = group[0][1], group[-1][2]
        n1, n2 = group[0][3], group[-1][4]
        if numbers:
            header = f"@@ -{_span_text(o1 + off, o2 - o1)} +{_span_text(n1 + off, n2 - n1)} @@"
            rows.append({"t": "hunk", "o": None, "n": None, "h": escape(header, quote=False)})
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                for k in range(i2 - i1):
                    rows.append(_row("ctx", i1 + k + 1 + off, j1 + k + 1 + off, ta[i1 + k], None, numbers))
                continue
            dels = list(range(i1, i2))
            adds = list(range(j1, j2))
            marks_a: dict[int, list[tuple[int, int]]] = {}
            marks_b: dict[int, list[tuple[int, int]]] = {}
            for i, j in zip(dels, adds):
                found = char_changes(a[i], b[j])
                if found:
                    marks_a[i], marks_b[j] = found
            for i in dels:
                rows.append(_row("del", i + 1 + off, None, ta[i], marks_a.get(i), numbers))
            for j in adds:
                rows.append(_row("add", None, j + 1 + off, tb[j], marks_b.get(j), numbers))
    return rows


def text_rows(text: str, path: str, first_line: int = 1) -> list[Row]:
    """The lines of ``text`` as unchanged rows numbered from ``first_line``."""
    return [
        _row("ctx", first_line + i, first_line + i, toks, None, True) for i, toks in enumerate(token_lines(text, path))
    ]


def _span_text(start0: int, length: int) -> str:
    start = start0 + 1 if length else start0
    return f"{start}" if length == 1 else f"{start},{length}"


def _row(
    kind: str, o: int | None, n: int | None, tokens: TokenLine, marks: list[tuple[int, int]] | None, numbers: bool
) -> Row:
    return {
        "t": kind,
        "o": o if numbers else None,
        "n": n if numbers else None,
        "h": render_line(tokens, marks),
    }


LIGHT_BACKGROUNDS = ("#ffffff", "#e6ffec", "#ffebe9", "#fff8c5", "#f6f8fa")
"""The page's code backgrounds in its light theme (plain, added, removed, matched place, subtle)."""
DARK_BACKGROUNDS = ("#151b23", "#0f2a1a", "#33161a", "#3a2d08", "#1c232c")
"""The same in its dark theme."""
MIN_CONTRAST = 4.6
"""Token colours are adjusted until they reach this contrast on every code background (WCAG AA is 4.5)."""


def pygments_css(style: str = "default", dark_style: str = "github-dark") -> str:
    """The token colours, scoped to ``.hl`` (the page's code containers): ``style`` and, when the
    browser prefers a dark colour scheme, ``dark_style``. Backgrounds are left to the page, and
    each colour is darkened (lightened in the dark theme) until it is readable on every
    background the page puts code on."""
    light = _style_rules(style, LIGHT_BACKGROUNDS, dark=False)
    dark = _style_rules(dark_style, DARK_BACKGROUNDS, dark=True)
    return light + "@media (prefers-color-scheme: dark) {\n" + dark + "}\n"


def _style_rules(style: str, backgrounds: tuple[str, ...], *, dark: bool) -> str:
    defs = HtmlFormatter(style=style).get_style_defs(".hl")
    rules = [line for line in defs.splitlines() if line.startswith(".hl .")]
    # Token backgrounds (error boxes, ...) would hide the diff's own colours.
    rules = [re.sub(r"background-color: #[0-9a-fA-F]+;?\s*", "", line) for line in rules]
    rules = [
        re.sub(
            r"(?<![-\w])color: (#[0-9a-fA-F]{3,6})\b",
            lambda m: "color: " + readable(m.group(1), backgrounds, dark=dark),
            line,
        )
        for line in rules
    ]
    return "\n".join(rules) + "\n"


def _rgb(color: str) -> tuple[float, float, float]:
    h = color.lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)


def _luminance(rgb: tuple[float, float, float]) -> float:
    def channel(v: float) -> float:
        v /= 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = rgb
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two ``#rrggbb`` colours."""
    x, y = sorted((_luminance(_rgb(a)), _luminance(_rgb(b))), reverse=True)
    return (x + 0.05) / (y + 0.05)


def readable(color: str, backgrounds: tuple[str, ...], *, dark: bool) -> str:
    """``color`` mixed toward black (toward white for a dark theme) until its contrast with every
    one of ``backgrounds`` is at least :data:`MIN_CONTRAST`."""
    r, g, b = _rgb(color)
    target = 255.0 if dark else 0.0
    for step in range(21):
        t = step / 20
        mixed = tuple(round(v + (target - v) * t) for v in (r, g, b))
        out = "#{:02x}{:02x}{:02x}".format(*mixed)
        if all(contrast(out, bg) >= MIN_CONTRAST for bg in backgrounds):
            return out
    return "#ffffff" if dark else "#000000"
