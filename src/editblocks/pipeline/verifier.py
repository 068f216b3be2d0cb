"""An independent check of what a placed block did to a file.

The verifier shares no code with :mod:`editblocks.matching`: it reads the file's text before
and after one block, the span the placer says it changed and the block's own SEARCH and
REPLACE texts, and answers whether the outcome is what the block meant. A block it rejects is
failed with its reason, so an unknown path to a wrong edit fails loudly instead of silently.

What it checks (see :func:`check_edit`, :func:`check_already_applied`, :func:`check_markers`):

- the text outside the reported span is unchanged, and the span is made of whole lines;
- the change inside the span is the model's change: for an exact placement the span held
  SEARCH and now holds REPLACE; for a tolerant one, the words the span gained and lost are
  exactly the words REPLACE gains and loses against SEARCH (white space, indentation and
  typographic look-alikes aside);
- "already applied" stands only where REPLACE is in the file once (exactly, or equal but for
  white space) and SEARCH is not, outside that place;
- no elision line (``# ... existing code ...``) and no marker line of an edit format
  (``=======``, ``>>>>>>> REPLACE``, ``*** End Patch``...) is written into a file that had none;
- a merged lazy sketch (:func:`check_sketch`) changed only the spans its parts were anchored to,
  and each span now holds that part of the sketch.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from difflib import SequenceMatcher
from itertools import islice

from editblocks.quoting import quote
from editblocks.syntax.languages import is_document

__all__ = [
    "Verdict",
    "check_already_applied",
    "check_edit",
    "check_file",
    "check_markers",
    "check_sketch",
    "check_span",
    "marker_lines",
]

_WORD = re.compile(r"\w+|[^\w\s]")
_NAMES = re.compile(r"\w+")

# Typographic look-alikes a model writes for ASCII (after NFKC, which already maps "…" to "...").
_FOLD = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2015": "-",
        "\u2212": "-",
        "\u200b": "",
        "\ufeff": "",
    }
)

_STRICT = frozenset({"exact", "create", "whole", "append", "scope", "end"})
"""Strategies that claim the span held SEARCH and now holds REPLACE, character for character."""


@dataclass(frozen=True)
class Verdict:
    """The verifier's answer: ``ok``, or the reason the outcome is not what the block meant."""

    ok: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.ok


_OK = Verdict(True)


def _fail(reason: str) -> Verdict:
    return Verdict(False, reason)


def _words(text: str) -> Counter[str]:
    return Counter(_WORD.findall(unicodedata.normalize("NFKC", text).translate(_FOLD)))


def _delta(before: str, after: str) -> tuple[Counter[str], Counter[str]]:
    """(words gained, words lost) from ``before`` to ``after``."""
    b, a = _words(before), _words(after)
    return a - b, b - a


def _show(words: Counter[str]) -> str:
    listed = sorted(words.elements())[:8]
    return ", ".join(repr(w) for w in listed) + (" ..." if sum(words.values()) > 8 else "")


def check_edit(
    before: str,
    after: str,
    start: int,
    end: int,
    search: str,
    replace: str,
    strategy: str,
) -> Verdict:
    """Whether ``after`` is ``before`` with characters ``start:end`` changed as SEARCH → REPLACE means.

    ``start:end`` is the span of ``before`` the placer says it replaced; ``strategy`` is how it
    placed it (``exact`` claims the span held SEARCH exactly).
    """
    if not 0 <= start <= end <= len(before):
        return _fail(f"the reported span {start}:{end} is outside the file")
    tail = len(before) - end
    new_end = len(after) - tail
    if new_end < start:
        return _fail("the file after the edit is shorter than the text outside the reported span")
    if not after.startswith(before[:start]) or not after.endswith(before[end:]):
        return _fail("the edit changed lines outside the place it was reported at")
    if not _whole_lines(before, start, end) or not _whole_lines(after, start, new_end):
        return _fail("the edit does not start and end at line boundaries")
    old, new = before[start:end], after[start:new_end]
    if strategy in _STRICT:
        if old != search:
            return _fail("the place the edit was made does not hold the SEARCH text")
        if new != replace:
            return _fail("the place the edit was made does not hold the REPLACE text")
        if strategy == "exact":
            edge = _repeats_beside(before, start, end, search, replace)
            if edge is not None:
                line, where = edge
                return _fail(
                    f"REPLACE {where[0]} with the line {line!r}, which SEARCH lacks and the file has right {where[1]} "
                    "it: SEARCH may stop a line short (or the edit be made already), and the line would stand twice. "
                    "Include that line in SEARCH, or leave it out of REPLACE"
                )
        return _OK
    restated = _restated(before, start, end, search, replace)
    if restated is not None:
        return _fail(
            f"REPLACE adds the line {restated!r}, which SEARCH lacks and the file already has there "
            f"({strategy} match): the model's copy may have left it out, and the line would stand twice. "
            "Copy the lines exactly from the file"
        )
    gained, lost = _delta(old, new)
    meant_gained, meant_lost = _delta(search, replace)
    if gained != meant_gained or lost != meant_lost:
        parts = []
        if gained - meant_gained:
            parts.append(f"it would add {_show(gained - meant_gained)}, which the edit does not add")
        if meant_gained - gained:
            parts.append(f"it would not add {_show(meant_gained - gained)}, which the edit adds")
        if lost - meant_lost:
            parts.append(f"it would remove {_show(lost - meant_lost)}, which the edit keeps")
        if meant_lost - lost:
            parts.append(f"it would keep {_show(meant_lost - lost)}, which the edit removes")
        return _fail(
            f"carrying the change onto the file's lines ({strategy} match) would not make the change the block "
            f"makes: {'; '.join(parts)}. The file's lines differ from SEARCH; copy them exactly from the file"
        )
    return _OK


def _repeats_beside(before: str, start: int, end: int, search: str, replace: str) -> tuple[str, tuple[str, str]] | None:
    """For SEARCH placed exactly at ``start:end``: a line REPLACE adds (one SEARCH lacks, white
    space aside, holding a word) that is the file's line right after the span, with no line of
    SEARCH after it in REPLACE, or the line right before the span, with none before it. Written
    literally, that line would stand twice (SEARCH stopped a line short of what REPLACE was copied
    from). That line, with where it stands; None when there is none."""
    r_lines = [x.strip() for x in replace.split("\n")]
    if r_lines and not r_lines[-1]:
        r_lines.pop()
    s_lines = [x.strip() for x in search.split("\n") if x.strip()]
    searched = {x for x in s_lines if _NAMES.search(x)}
    if end < len(before):
        stop = before.find("\n", end)
        following = before[end : len(before) if stop == -1 else stop].strip()
        if following and following not in searched and _NAMES.search(following) and following in r_lines:
            at = len(r_lines) - 1 - r_lines[::-1].index(following)
            if not any(x in searched for x in r_lines[at + 1 :]) and _telling(following, r_lines, at, s_lines, -1):
                return following, ("ends", "after")
    if start > 0:
        preceding = before[before.rfind("\n", 0, start - 1) + 1 : start - 1].strip()
        if preceding and preceding not in searched and _NAMES.search(preceding) and preceding in r_lines:
            at = r_lines.index(preceding)
            if not any(x in searched for x in r_lines[:at]) and _telling(preceding, r_lines, at, s_lines, 0):
                return preceding, ("starts", "before")
    return None


def _telling(line: str, r_lines: list[str], at: int, s_lines: list[str], edge: int) -> bool:
    """Whether ``line`` at ``r_lines[at]`` restates the file's neighbouring line: a line of two
    words or more anywhere past SEARCH's lines kept; a line of one word (``import {``, common in a
    file) only right beside SEARCH's edge line kept."""
    if len(_NAMES.findall(line)) >= 2:
        return True
    if not s_lines:
        return False
    if edge == -1:
        return at > 0 and r_lines[at - 1] == s_lines[-1]
    return at + 1 < len(r_lines) and r_lines[at + 1] == s_lines[0]


def _restated(before: str, start: int, end: int, search: str, replace: str) -> str | None:
    """A line REPLACE adds (one SEARCH lacks, white space aside) that the file already has in the
    span ``start:end`` of ``before`` or on the line either side of it; None when there is none.
    Lines without a word (``}``, ``)``) stand twice often enough on purpose."""
    searched = {x.strip() for x in search.split("\n")}
    added = {x for x in (y.strip() for y in replace.split("\n")) if _NAMES.search(x)} - searched
    if not added:
        return None
    first = before.rfind("\n", 0, max(start - 1, 0)) + 1 if start > 0 else 0
    last = before.find("\n", end)
    around = before[first : len(before) if last == -1 else last].split("\n")
    return next((x.strip() for x in around if x.strip() in added), None)


def check_span(
    before: str,
    after: str,
    start: int,
    end: int,
    search: str,
    replace: str,
    strategy: str,
    *,
    sizes: tuple[int, int],
) -> Verdict:
    """:func:`check_edit` for a file whose text outside a window is not rebuilt by the edit: a
    splice of whole lines leaves every line outside the window as it was by construction.

    ``before`` and ``after`` are the window's text before and after the edit: the lines of the
    span and, where the file has them, one whole line on each side (the same lines in both);
    ``start:end`` is the span inside ``before``. ``sizes`` are the whole file's lengths before and
    after: what the span lost and gained must account for the difference exactly.
    """
    size_before, size_after = sizes
    if size_after - size_before != len(after) - len(before):
        return _fail("the file's length changed by more than the edit's")
    return check_edit(before, after, start, end, search, replace, strategy)


def _whole_lines(text: str, start: int, end: int) -> bool:
    if start > 0 and text[start - 1] != "\n":
        return False
    return end == start or end == len(text) or text[end - 1] == "\n"


# -- "already applied" ------------------------------------------------------------------------


def _loose(text: str) -> list[str]:
    """Non-blank lines with white space runs collapsed (equal but for white space)."""
    out = []
    for line in text.split("\n"):
        words = line.split()
        if words:
            out.append(" ".join(words))
    return out


PROBES = 4
"""How many of a needle's longest words are tried as the word its places are found by."""
PROBE_HITS = 64
"""A probe word found more often than this is given up for the next longest (a word on every
few lines, such as ``self`` or ``return``, would make every one of its places a candidate)."""


def _probe(text: str, needle: list[str], among: set[str] | None = None) -> tuple[str, list[int]]:
    """(word, offsets): a word of the needle (of ``among``, when given) and every place it occurs
    in ``text`` as a whole word: the longest found at most :data:`PROBE_HITS` times, else the
    longest."""
    words = sorted({w for line in needle for w in line.split() if among is None or w in among}, key=len, reverse=True)
    for word in words[:PROBES]:
        hits = list(islice(_every(text, word), PROBE_HITS + 1))
        if len(hits) <= PROBE_HITS:
            return word, hits
    return words[0], list(_every(text, words[0]))


def _every(text: str, word: str) -> Iterator[int]:
    """Every offset where ``word`` occurs in ``text`` as a whole word (white space or the text's
    edge on both sides, as a line's words are compared when loose), in order."""
    n, size = len(text), len(word)
    pos = text.find(word)
    while pos != -1:
        end = pos + size
        if (pos == 0 or text[pos - 1].isspace()) and (end == n or text[end].isspace()):
            yield pos
        pos = text.find(word, pos + 1)


def _hits(
    text: str, needle: list[str], loose: bool, limit: int, probed: tuple[str, list[int]] | None = None
) -> list[tuple[int, int]]:
    """(start, end) character spans of ``text`` where the lines ``needle`` occur, at most ``limit``.

    Loose: each line equal but for white space, blank lines in ``text`` skipped. Candidates are
    found with the C string search for one of its longest words that is rare in the file, so a
    large file is not normalised line by line. ``probed`` is a word of the needle and its offsets, when known."""
    if not needle:
        return []
    if not loose:
        return _exact_hits(text, "".join(x + "\n" for x in needle), limit)
    # A word of the needle, on its line ``k`` (the first holding it): its hits place the needle's start.
    word, places = probed if probed is not None else _probe(text, needle)
    k = next(i for i, line in enumerate(needle) if word in line.split())
    found: list[tuple[int, int]] = []
    seen: set[int] = set()
    for pos in places:
        if len(found) >= limit:
            break
        start = _lines_back(text, text.rfind("\n", 0, pos) + 1, k)
        if start is None or start in seen:
            continue
        seen.add(start)
        end = _match_at(text, start, needle, loose)
        if end is not None:
            found.append((start, end))
    found.sort()
    return found


def _lines_back(text: str, start: int, k: int) -> int | None:
    """The start of the ``k``-th non-blank line before the line starting at ``start``."""
    while k > 0:
        if start == 0:
            return None
        end = start - 1
        start = text.rfind("\n", 0, end) + 1
        if text[start:end].strip():
            k -= 1
    return start


def _exact_hits(text: str, lines: str, limit: int) -> list[tuple[int, int]]:
    """Spans where the whole lines ``lines`` occur (the last may end the text without a newline)."""
    found: list[tuple[int, int]] = []
    pos = text.find(lines)
    while pos != -1 and len(found) < limit:
        if pos == 0 or text[pos - 1] == "\n":
            found.append((pos, pos + len(lines)))
        pos = text.find(lines, pos + 1)
    if len(found) < limit and text.endswith(lines[:-1]) and not text.endswith(lines):
        pos = len(text) - len(lines) + 1
        if pos == 0 or (pos > 0 and text[pos - 1] == "\n"):
            found.append((pos, len(text)))
    return found


def _match_at(text: str, start: int, needle: list[str], loose: bool) -> int | None:
    """End of the lines ``needle`` when they occur from line start ``start``, else None."""
    at, n = start, len(text)
    for want in needle:
        while True:
            if at >= n:
                return None
            stop = text.find("\n", at)
            stop = n if stop == -1 else stop
            line = text[at:stop]
            at = stop + 1
            if loose and not line.strip():
                continue  # blank lines do not count when loose
            break
        if (" ".join(line.split()) if loose else line) != want:
            return None
    return min(at, n)


def check_already_applied(text: str, search: str, replace: str) -> Verdict:
    """Whether the block may be called already applied: REPLACE occurs in ``text`` exactly once
    (equal but for white space) and SEARCH does not occur anywhere outside that place."""
    if not replace.strip():
        return _fail("an edit that only removes lines cannot be known to be applied already")
    loose = _loose(search) != _loose(replace)
    if loose:
        r_lines, s_lines = _loose(replace), _loose(search)
    else:
        # A change of white space alone: only the exact text can tell the two apart.
        r_lines, s_lines = replace.split("\n"), search.split("\n")
        if r_lines[-1] == "" and s_lines[-1] == "":
            r_lines, s_lines = r_lines[:-1], s_lines[:-1]
    probed = None
    common = (
        {w for line in s_lines for w in line.split()}.intersection(w for line in r_lines for w in line.split())
        if loose
        else set()
    )
    if common:
        probed = _probe(text, r_lines, common)  # one search serves both texts
    r_hits = _hits(text, r_lines, loose, 2, probed)
    if len(r_hits) != 1:
        where = "nowhere" if not r_hits else "more than once"
        return _fail(f"the REPLACE text occurs {where} in the file, so the edit is not known to be applied")
    r_start, r_end = r_hits[0]
    for s_start, s_end in _hits(text, s_lines, loose, 50, probed):
        if not (r_start <= s_start and s_end <= r_end):
            return _fail("the SEARCH text is still in the file, so the edit is not applied")
    return _OK


# -- marker and elision lines -----------------------------------------------------------------

_MARKERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("conflict", re.compile(r"^\s*(?:<{5,9}|>{5,9})(?:\s.*)?$")),
    ("divider", re.compile(r"^\s*={5,9}\s*$")),
    ("edit-v2 separator", re.compile(r"^\s*-{5,9}\s*$")),
    ("edit-v3", re.compile(r"^\s*(?:«{3}\s*EDIT|═{3,}\s*REPL|»{3}\s*EDIT\s+END)\s*$")),
    ("cline", re.compile(r"^\s*(?:-{3,}\s*SEARCH>?|\+{3,}\s*REPLACE>?)\s*$")),
    (
        "apply_patch",
        re.compile(r"^\s*\*\*\* (?:Begin Patch|End Patch|End of File|(?:Add|Update|Delete) File:|Move to:)"),
    ),
    ("diff header", re.compile(r"^(?:@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@|--- a/\S|\+\+\+ b/\S|diff --git )")),
)

_COMMENT = r"(?:#+|//+|/\*+|<!--|--|;+|\{/\*+|\*|%+|'|rem\b)"
_ELIDED = (
    r"(?:existing|unchanged|rest|remaining|remainder|other|previous|more|same|original|omitted|"
    r"everything else|as before|keep|kept|lines?|code|content|imports?|tests?|sections?|methods?|functions?)"
)
_ELISION_LINES = (
    # "# ... existing code ...", "// ...", "/* ... */", "<!-- ... -->", "{/* ... */}"
    re.compile(
        rf"^\s*{_COMMENT}\s*(?:\.\.\.|…)(?:\s*\(?\s*(?:the\s+)?{_ELIDED}\b.*|\s*(?:\.\.\.|…)?\s*(?:\*+/\}}?|-->)?)\s*$",
        re.I,
    ),
    # "// rest of the code stays the same", "# existing code here", "<!-- unchanged sections -->"
    re.compile(
        rf"^\s*{_COMMENT}\s*\(?\s*(?:the\s+)?(?:rest of (?:the )?\w+|existing \w+|(?:code|content|everything) "
        rf"(?:remains|stays|is) (?:the same|unchanged)|unchanged \w+|(?:other|remaining) (?:methods|functions|code|lines|"
        rf"sections|tests|imports)|same as before)\b.*$",
        re.I,
    ),
)
_BARE_ELLIPSIS = re.compile(r"^\s*(?:\.\.\.|…)\s*$")
_RULE = re.compile(r"^\s*(?:={3,}|-{3,})\s*$")

_ELLIPSIS_IS_CODE = frozenset({".py", ".pyi", ".pyw", ".ipynb"})
"""Files where a line of only ``...`` is code (Python's Ellipsis, a stub's body)."""


_TITLE = re.compile(r"^[\w\s'\".,:!?()/&+-]*\w[\w\s'\".,:!?()/&+-]*$")


def _kind(line: str, prev: str, ellipsis_is_code: bool, document: bool = False) -> str | None:
    """The kind of marker ``line`` is, or None. An underline (``====`` right under a title, as in
    reStructuredText, Markdown and numpydoc) is text, not a marker: in a document, under a
    title no longer than it; elsewhere, under a title of exactly its length at its indentation."""
    if _RULE.match(line) and _TITLE.match(prev.strip()) and "=" not in prev:
        rule, title = line.strip(), prev.strip()
        same_indent = len(line) - len(line.lstrip()) == len(prev) - len(prev.lstrip())
        if (document and len(rule) >= len(title)) or (same_indent and len(rule) == len(title)):
            return None
    for kind, pattern in _MARKERS:
        if pattern.match(line):
            return kind
    if any(p.match(line) for p in _ELISION_LINES):
        return "elision"
    if not ellipsis_is_code and _BARE_ELLIPSIS.match(line):
        return "elision"
    return None


_FENCE = re.compile(r"^\s*(?:`{3,}|~{3,})")

_MARKER_PARTS = ("<<<<<", ">>>>>", "=====", "---", "+++", "«««", "═══", "»»»", "*** ", "@@ -", "diff --git", "...", "…")
_ELISION_WORDS = ("rest of", "existing ", "the same", "unchanged", "other ", "remaining ", "same as before")


def _may_have_markers(text: str) -> bool:
    """False when no line of ``text`` can be a marker or elision line: every pattern needs one of
    these parts (the elision comments' words in any case)."""
    if any(part in text for part in _MARKER_PARTS):
        return True
    folded = text.casefold()
    return any(word in folded for word in _ELISION_WORDS)


def marker_lines(text: str, path: str = "") -> Counter[str]:
    """How many lines of each marker kind ``text`` has (``elision``, ``divider``, ``conflict``...).

    In a document (Markdown, reStructuredText, plain text), an elision comment inside a fenced
    code example is the example's content, not a marker."""
    kinds: Counter[str] = Counter()
    if not _may_have_markers(text):
        return kinds
    lowered = path.lower()
    ellipsis_is_code = lowered.endswith(tuple(_ELLIPSIS_IS_CODE))
    document = is_document(path)
    prev, fenced = "", False
    for line in text.split("\n"):
        if document and _FENCE.match(line):
            fenced = not fenced
        kind = _kind(line, prev, ellipsis_is_code, document)
        if kind is not None and not (fenced and kind == "elision"):
            kinds[kind] += 1
        prev = line
    return kinds


_WHY = {
    "elision": "stands for lines left out (an elision comment); write the lines out, or leave them out of both SEARCH and REPLACE",
    "divider": "is a SEARCH/REPLACE divider; a block has exactly one '=======' line between SEARCH and REPLACE",
}


def check_markers(file_before: str | Callable[[], str], old: str, new: str, path: str = "") -> Verdict:
    """Whether replacing ``old`` by ``new`` in a file that held ``file_before`` writes a marker
    or elision line the file did not have (kinds the file already has are its own content).
    ``file_before`` may be a function giving that text, called only when a marker is added."""
    gained = marker_lines(new, path)
    if not gained:
        return _OK
    added = gained - marker_lines(old, path)
    if not added:
        return _OK
    if callable(file_before):
        file_before = file_before()
    present = marker_lines(file_before, path) if file_before else Counter()
    for kind in added:
        if present[kind]:
            continue
        prev, example = "", ""
        for line in new.split("\n"):
            if marker_lines(prev + "\n" + line, path)[kind] > marker_lines(prev, path)[kind]:
                example = line.strip()
                break
            prev = line
        why = _WHY.get(kind, f"is a marker line of an edit format ({kind}), not file content")
        return _fail(f"the edit would write the line {quote(example, 60)} into {path or 'the file'}, which {why}")
    return _OK


def check_file(before: str, after: str, path: str = "") -> Verdict:
    """Markers check for a whole new text of a file (a created or wholly replaced file)."""
    return check_markers(before, before, after, path)


def check_sketch(
    before: str, after: str, spans: list[tuple[int, int, int, int, str]], path: str = "", *, definitions: bool = False
) -> Verdict:
    """Whether ``after`` is ``before`` with only the given spans changed, each into its part of a sketch.

    A span is ``(start, end, new_start, new_end, part)``: characters ``start:end`` of ``before``
    became characters ``new_start:new_end`` of ``after``, which must hold the sketch's lines
    ``part`` (equal but for white space and blank lines: lines the sketch repeats keep the file's
    text). Everything between the spans is unchanged, the spans are whole lines and in order, and
    no elision or marker line is written into the file. Nothing is dropped that the sketch does not
    show: a definition or its decorator, a long run of lines, or (in Python) code a bare ``...``
    line takes the place of. With ``definitions`` (each part is a whole definition that replaces
    its namesake), only a decorator the part leaves out counts as dropped.
    """
    at_before = at_after = 0
    for start, end, new_start, new_end, part in spans:
        if not at_before <= start <= end <= len(before) or not at_after <= new_start <= new_end <= len(after):
            return _fail("the sketch's parts were reported out of order or outside the file")
        if before[at_before:start] != after[at_after:new_start] or start - at_before != new_start - at_after:
            return _fail("the merge changed lines outside the places the sketch's parts were anchored to")
        if not _whole_lines(before, start, end) or not _whole_lines(after, new_start, new_end):
            return _fail("the merge does not start and end at line boundaries")
        if _loose(after[new_start:new_end]) != _loose(part):
            return _fail("a place the sketch was merged into does not hold the sketch's lines for it")
        verdict = _no_silent_loss(
            before[start:end], after[new_start:new_end], path, before.count("\n", 0, start) + 1, definitions
        )
        if not verdict:
            return verdict
        at_before, at_after = end, new_end
    if before[at_before:] != after[at_after:]:
        return _fail("the merge changed lines outside the places the sketch's parts were anchored to")
    verdict = _no_elision_written(before, after, spans, path)
    if not verdict:
        return verdict
    return check_markers(before, before, after, path)


def _no_elision_written(before: str, after: str, spans: list[tuple[int, int, int, int, str]], path: str) -> Verdict:
    """No line a sketch's part wrote reads as an elision comment in any language's comment syntax
    (``(* ... *)``, ``{- ... -}``, ``% ...`` as well as the file's own), unless the file already
    has that line: an elision the merge did not recognise would land in the file as text."""
    if is_document(path):
        return _OK  # a document's fenced examples hold such lines as content
    from editblocks.matching.lazy import looks_like_elision  # only sketches need it

    have: set[str] | None = None
    for _, _, new_start, new_end, _ in spans:
        for line in after[new_start:new_end].split("\n"):
            if not looks_like_elision(line):
                continue
            if have is None:
                have = {x.strip() for x in before.split("\n")}
            if line.strip() not in have:
                return _fail(
                    f"the merge would write the line {quote(line.strip(), 60)} into {path or 'the file'}, which reads as an "
                    "elision comment; write elision comments in the file's comment syntax, or write the lines out"
                )
    return _OK


_DEFINITION_START = re.compile(
    r"^\s*(?:@\w|(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:pub(?:\([^)]*\))?\s+)?"
    r"(?:def|class|function|fn|func|impl|struct|enum|trait|interface|mod|module|type|macro_rules!)\b"
    r"|[A-Za-z_][\w-]*\s*\(\)\s*\{?\s*$)"
)
"""A line that starts a definition (or decorates one) in the common languages."""
MAX_SILENT_LOSS = 5
"""The most lines with text that a sketch's part may drop from the file in one run without
showing them (a longer run reads as lines the model left out, not lines it deleted)."""


def _no_silent_loss(old: str, new: str, path: str, first_line: int, definitions: bool = False) -> Verdict:
    """A sketch's part turned the file's ``old`` lines into ``new``: it must not drop a definition
    (or its decorator) that it does not show, nor a long run of lines, and in Python it must not
    write a bare ``...`` line that is not the whole body of a block (that is an elision the model
    meant, not code)."""
    old_lines, new_lines = old.split("\n")[:-1], new.split("\n")[:-1]
    shown = {x.strip() for x in new_lines}
    matcher = SequenceMatcher(None, [x.strip() for x in old_lines], [x.strip() for x in new_lines], autojunk=False)
    python = path.lower().endswith((".py", ".pyi", ".pyw"))
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        lost = [x for x in old_lines[i1:i2] if x.strip() and x.strip() not in shown]

        def starts(x: str) -> bool:
            return _DEFINITION_START.match(x) is not None and (not definitions or x.lstrip().startswith("@"))

        # A definition line changed into another (a new signature) is a change; one that goes
        # with no definition line in its place is lost.
        headers = [x for x in lost if starts(x)]
        if len(headers) > sum(1 for x in new_lines[j1:j2] if starts(x)):
            return _fail(
                f"the sketch would delete line {first_line + old_lines.index(headers[0])}, {quote(headers[0].strip())}, "
                "without showing it; put an elision comment where the file's lines are left out (or, to delete it, "
                "show the lines around it in a separate part)"
            )
        if len(lost) > MAX_SILENT_LOSS and i2 - i1 > j2 - j1 and not definitions:
            return _fail(
                f"the sketch would delete {len(lost)} lines of the file it does not show, from line "
                f"{first_line + old_lines.index(lost[0])}, {quote(lost[0].strip())}; "
                "put an elision comment where the file's lines are left out, or show the lines around a deletion"
            )
        if python:
            for k in range(j1, j2):
                if new_lines[k].strip() == "..." and not _opens_block(new_lines, k):
                    return _fail(
                        "the sketch writes a bare `...` line into Python code where it is not a block's whole body: "
                        "an elision in a Python sketch is written `# ... existing code ...`"
                    )
    return _OK


def _opens_block(lines: list[str], k: int) -> bool:
    """Whether line ``k`` (a bare ``...``) is the whole body of the block the line before it opens."""
    before = next((x for x in reversed(lines[:k]) if x.strip()), None)
    after = next((x for x in lines[k + 1 :] if x.strip()), None)
    if before is None or not before.rstrip().endswith(":"):
        return False
    indent = len(lines[k]) - len(lines[k].lstrip())
    return indent > len(before) - len(before.lstrip()) and (after is None or len(after) - len(after.lstrip()) < indent)
