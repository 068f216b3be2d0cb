"""The tolerant strategies of the matching chain, each finding candidate regions of a file.

Every strategy returns all the places it finds; the chain accepts a strategy's answer only when
there is exactly one.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from difflib import SequenceMatcher
from itertools import chain

from editblocks.matching.delta import DeltaError, Reindenter, apply_delta
from editblocks.matching.result import Match, MatchFailure
from editblocks.matching.text import IndentStyle, detect_style, find_all, line_offsets, split_lines

LOOKALIKES = str.maketrans(
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
        "\u00a0": " ",
        "\u2007": " ",
        "\u202f": " ",
        "\u2009": " ",
        "\u200a": " ",
        "\u3000": " ",
        "\u200b": "",
        "\ufeff": "",
        "\u2026": "...",
    }
)

_LOOKALIKE_CHARS = re.compile("[" + "".join(chr(c) for c in LOOKALIKES) + "]")

_ELISION = re.compile(
    r"^\s*(?:(?:#|//|--|;|/\*|<!--|\{/\*)\s*)?(?:\.\.\.|…)\s*"
    r"(?:(?:\(?\s*(?:the\s+)?(?:existing|unchanged|rest|remaining|other|previous|more|same|original)\b[\w\s,.'-]*\)?)\s*(?:\.\.\.|…)?\s*)?"
    r"(?:\*/|-->|\*/\})?\s*$",
    re.IGNORECASE,
)


def is_elision(line: str) -> bool:
    """True for a line that stands for unchanged lines: ``...`` alone, or a comment holding only
    ``...`` and words like "existing code" (``// ... existing code ...``, ``# ... rest unchanged``).

    A line of code that merely starts with ``...`` (a doctest continuation) is not one.
    """
    return bool(_ELISION.match(line))


@dataclass
class Candidate:
    """A region of the file (``length`` lines from line index ``start``) and how search lines map into it."""

    start: int
    length: int
    mapping: list[int | None]
    strategy: str
    score: float | None = None


class LinePositions:
    """Where each of a file's lines occurs (0-based line indexes), built at C speed: a line that
    occurs once is known by one dictionary entry, and only the lines that occur more than once
    get a list, made the first time one of them is asked for."""

    __slots__ = ("_last", "_lines", "_many")

    def __init__(self, lines: list[str]) -> None:
        self._lines = lines
        self._last = dict(zip(lines, range(len(lines))))
        """Every distinct line and the last place it occurs."""
        self._many: dict[str, list[int]] | None = {} if len(self._last) == len(lines) else None
        """The places of every line that occurs more than once (None until first needed)."""

    def __contains__(self, line: object) -> bool:
        return line in self._last

    def get(self, line: str, default: list[int] | None = None) -> list[int] | None:
        """The places of ``line``, in order; ``default`` when it is not in the file."""
        last = self._last.get(line)
        if last is None:
            return default
        many = self._many
        if many is None:
            many = self._many = self._repeated()
        return many.get(line) or [last]

    def __getitem__(self, line: str) -> list[int]:
        found = self.get(line)
        if found is None:
            raise KeyError(line)
        return found

    def _repeated(self) -> dict[str, list[int]]:
        last = self._last
        many: dict[str, list[int]] = {}
        for i, line in enumerate(self._lines):
            if last[line] != i:
                many.setdefault(line, []).append(i)
        for line, places in many.items():
            places.append(last[line])
        return many


STYLE_SAMPLE_LINES = 5000
"""A file's indentation style is read from its first lines (the style is the same throughout)."""


class FileView:
    """A file's text with its lines and normalised variants, computed on first use.

    :meth:`of` reuses the view of the same text object, so blocks that leave a file unchanged
    (failed or already applied) do not pay for the file's preparation again.
    """

    _last = threading.local()
    """The view made last, per thread (each apply runs in one thread)."""

    @classmethod
    def of(cls, text: str) -> FileView:
        last: FileView | None = getattr(cls._last, "view", None)
        if last is not None and last.text is text:
            return last
        view = cls(text)
        cls._last.view = view
        return view

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = split_lines(text)
        self._joined: dict[str, str] = {}
        self._offsets: list[int] | None = None
        self._style: IndentStyle | None = None
        self._stripped: list[str] | None = None
        self._positions: LinePositions | None = None
        self._position_asks = 0

    @property
    def offsets(self) -> list[int]:
        if self._offsets is None:
            self._offsets = line_offsets(self.lines)
        return self._offsets

    @property
    def style(self) -> IndentStyle:
        if self._style is None:
            self._style = detect_style(self.lines[:STYLE_SAMPLE_LINES])
        return self._style

    @property
    def stripped(self) -> list[str]:
        if self._stripped is None:
            self._stripped = list(map(str.strip, self.lines))
        return self._stripped

    def built_positions(self) -> LinePositions | None:
        """The index of :meth:`positions` when it is built, else None (never builds it)."""
        return self._positions

    def positions(self) -> LinePositions | None:
        """Where each stripped line occurs; None the first two times it is asked for (a scan for
        the lines wanted is cheaper, and lighter, for one block's searches), then built and
        kept: a file searched by similarity for several blocks pays for one pass."""
        if self._positions is None:
            self._position_asks += 1
            if self._position_asks < 3:
                return None
            self._positions = LinePositions(self.stripped)
        return self._positions

    def stripped_places(self, line: str, positions: LinePositions | None) -> list[int]:
        """Indexes of the lines that are ``line`` (stripped) once stripped: through ``positions``
        (:meth:`positions`, when built), otherwise by a search of the stripped text."""
        if positions is not None:
            return positions.get(line) or []
        return self.find("strip", str.strip, [line])

    def find(self, name: str, norm: Callable[[str], str], search: list[str], limit: int = 200) -> list[int]:
        """Line indexes where ``search`` occurs once both sides are normalised with ``norm``."""
        joined = self._joined.get(name)
        if joined is None:
            # The stripped lines are kept for similarity anyway; a trailing empty item ends the
            # text with a newline without copying it again.
            items = self.stripped if name == "strip" else map(norm, self.lines)
            joined = "\n".join(chain(items, ("",))) if self.lines else "\n"
            self._joined[name] = joined
        needle = "".join(norm(line) + "\n" for line in search)
        # A place is where all of ``search`` fits in the file's lines (an empty file has none).
        return [
            i
            for i in (joined.count("\n", 0, off) for off in find_all(joined, needle, limit))
            if i + len(search) <= len(self.lines)
        ]


_rstrip = str.rstrip
_strip = str.strip


def _lookalike(line: str) -> str:
    return line.translate(LOOKALIKES).strip()


def identity(n: int) -> list[int | None]:
    return list(range(n))


def whitespace(view: FileView, search: list[str], replace: list[str]) -> list[Candidate]:
    """Trailing white space ignored."""
    return [
        Candidate(i, len(search), identity(len(search)), "whitespace") for i in view.find("rstrip", _rstrip, search)
    ]


def _uniform_shift(
    view: FileView, search: list[str], replace: list[str], starts: list[int], strategy: str
) -> list[Candidate]:
    found = []
    n = len(search)
    for i in starts:
        window = view.lines[i : i + n]
        mapping = identity(n)
        if Reindenter(search, replace, window, mapping, view.style).uniform(search, window, mapping):
            found.append(Candidate(i, n, mapping, strategy))
    return found


def indentation(view: FileView, search: list[str], replace: list[str]) -> list[Candidate]:
    """Every line shifted by the same number of levels, in either direction, spaces or tabs."""
    return _uniform_shift(view, search, replace, view.find("strip", _strip, search), "indentation")


def lookalikes(view: FileView, search: list[str], replace: list[str]) -> list[Candidate]:
    """Curly quotes, dashes and unusual spaces read as their plain ASCII forms."""
    if view.text.isascii() and all(line.isascii() for line in search):
        return []
    if not _LOOKALIKE_CHARS.search(view.text) and not any(_LOOKALIKE_CHARS.search(line) for line in search):
        return []
    return _uniform_shift(view, search, replace, view.find("lookalike", _lookalike, search), "unicode")


def trim_blank_lines(search: list[str], replace: list[str]) -> tuple[list[str], list[str]] | None:
    """SEARCH without blank lines at its start and end, and REPLACE without the matching ones."""
    lead = 0
    while lead < len(search) and not search[lead].strip():
        lead += 1
    trail = 0
    while trail < len(search) - lead and not search[len(search) - 1 - trail].strip():
        trail += 1
    if (not lead and not trail) or lead == len(search):
        return None
    edge = set(range(lead)) | set(range(len(search) - trail, len(search)))
    ops = SequenceMatcher(None, [x.strip() for x in search], [x.strip() for x in replace], autojunk=False)
    for tag, i1, i2, j1, j2 in ops.get_opcodes():
        if tag == "replace" and edge.intersection(range(i1, i2)) and any(x.strip() for x in replace[j1:j2]):
            # REPLACE turns an edge blank line into code: that line stands for a file line the
            # model did not copy, and dropping it would put the code beside that line.
            return None
        if tag == "insert" and (i1 < lead or i1 > len(search) - trail) and any(x.strip() for x in replace[j1:j2]):
            # Code among SEARCH's edge blank lines: they may stand for file lines the model did
            # not copy (the code then restoring one of them), so where it goes is not certain.
            return None
    r_lead = 0
    while r_lead < min(lead, len(replace)) and not replace[r_lead].strip():
        r_lead += 1
    r_trail = 0
    while r_trail < min(trail, len(replace) - r_lead) and not replace[len(replace) - 1 - r_trail].strip():
        r_trail += 1
    return search[lead : len(search) - trail], replace[r_lead : len(replace) - r_trail]


def split_elisions(lines: list[str]) -> list[list[str]] | None:
    """The pieces between elision lines, or None when there is no elision line."""
    if not any(is_elision(line) for line in lines):
        return None
    pieces: list[list[str]] = [[]]
    for line in lines:
        if is_elision(line):
            pieces.append([])
        else:
            pieces[-1].append(line)
    return pieces


def build_match(
    view: FileView, cand: Candidate, search: list[str], replace: list[str], strict: bool = False
) -> Match | MatchFailure:
    """The match that puts REPLACE at ``cand``: the change carried onto the file's own lines
    there (see :func:`editblocks.matching.delta.apply_delta`), or why it cannot be."""
    window = view.lines[cand.start : cand.start + cand.length]
    try:
        new_lines = apply_delta(search, replace, window, cand.mapping, view.style, strict=strict)
    except DeltaError as exc:
        return MatchFailure(
            f"found a likely location at line {cand.start + 1} ({cand.strategy}), but {exc}",
            "not_found",
            cand.start + 1,
        )
    start = view.offsets[cand.start]
    end = view.offsets[cand.start + cand.length]
    replacement = "".join(line + "\n" for line in new_lines)
    if replacement == view.text[start:end] and search != replace:
        return MatchFailure(
            f"found a likely location at line {cand.start + 1} ({cand.strategy}), but carrying the change onto it "
            "would change nothing; copy the lines exactly from the file",
            "not_found",
            cand.start + 1,
        )
    return Match(start, end, replacement, cand.strategy, cand.start + 1, cand.score)
