"""The registry of edit formats. A new format is one module here plus one line below."""

from __future__ import annotations

import re

from editblocks.errors import EditblocksError
from editblocks.formats.base import EditFormat, LineParser
from editblocks.formats.cline import ClineFormat
from editblocks.formats.edit_v2 import EditV2Format
from editblocks.formats.edit_v3 import EditV3Format
from editblocks.formats.file_sections import FileSectionsFormat
from editblocks.formats.lazy import LazyFormat
from editblocks.formats.patch import PatchFormat
from editblocks.formats.search_replace import (
    DiffFencedFormat,
    EditorDiffFencedFormat,
    EditorDiffFormat,
    SearchReplaceFormat,
)
from editblocks.formats.udiff import UdiffFormat
from editblocks.formats.whole import WholeFormat

FORMATS: dict[str, EditFormat] = {
    f.name: f
    for f in (
        SearchReplaceFormat(),
        DiffFencedFormat(),
        EditorDiffFormat(),
        EditorDiffFencedFormat(),
        EditV2Format(),
        EditV3Format(),
        FileSectionsFormat(),
        PatchFormat(),
        UdiffFormat(),
        ClineFormat(),
        WholeFormat(),
        LazyFormat(),
    )
}

ALWAYS_LOUD = "`~<#*"
"""What fences (backticks, tildes, tags), headings and bold path lines start with: lines a
reader looks at whatever the formats."""

_loud: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {}


def register(fmt: EditFormat) -> None:
    """Add ``fmt`` to the registry (replacing a format of the same name)."""
    FORMATS[fmt.name] = fmt


def loud_characters() -> str:
    """The characters a line may start with (after white space) for a parser to react to it: the
    registered formats' markers and :data:`ALWAYS_LOUD`."""
    return "".join(sorted(set(ALWAYS_LOUD).union(*(f.markers for f in FORMATS.values()))))


def loud_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The loud-line pattern (matched at a line's start), and the same after a line ending (for
    a C-speed search of a text that starts with a line ending)."""
    chars = loud_characters()
    found = _loud.get(chars)
    if found is None:
        group = "[" + re.escape(chars) + "]"
        found = _loud[chars] = (re.compile(r"\s*" + group), re.compile(r"\n[^\S\n]*+" + group))
    return found


class UnknownFormatError(EditblocksError, ValueError):
    """The format name is not registered."""


def get_format(name: str) -> EditFormat:
    """The format registered under ``name``."""
    try:
        return FORMATS[name]
    except KeyError:
        known = ", ".join(FORMATS)
        raise UnknownFormatError(f"unknown format {name!r}; known formats: {known}") from None


def default_level(name: str | None) -> str:
    """The match level blocks of format ``name`` are placed with when none is asked for."""
    fmt = FORMATS.get(name) if name else None
    return "exact" if fmt is not None and fmt.exact_only else "fuzzy"


def family_formats() -> list[EditFormat]:
    """One format per parser family: what a mixed reply is parsed with (formats read only when
    asked for, like ``whole`` and ``lazy``, left out)."""
    seen: dict[str, EditFormat] = {}
    for fmt in FORMATS.values():
        if fmt.auto:
            seen.setdefault(fmt.family, fmt)
    return list(seen.values())


def detect_format(text: str) -> str | None:
    """The name of the format ``text`` most likely uses, or None (never a format read only when asked for)."""
    best, best_score = None, 0.0
    for fmt in FORMATS.values():
        if not fmt.auto:
            continue
        score = fmt.detect(text)
        if score > best_score:
            best, best_score = fmt.name, score
    return best


__all__ = [
    "ALWAYS_LOUD",
    "FORMATS",
    "EditFormat",
    "LineParser",
    "UnknownFormatError",
    "default_level",
    "detect_format",
    "family_formats",
    "get_format",
    "loud_characters",
    "loud_patterns",
    "register",
]
