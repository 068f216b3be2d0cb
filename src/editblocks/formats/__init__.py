"""The registry of edit formats. A new format is one module here plus one line below."""

from __future__ import annotations

from .base import EditFormat, LineParser
from .cline import ClineFormat
from .edit_v2 import EditV2Format
from .edit_v3 import EditV3Format
from .file_sections import FileSectionsFormat
from .lazy import LazyFormat
from .patch import PatchFormat
from .search_replace import DiffFencedFormat, EditorDiffFencedFormat, EditorDiffFormat, SearchReplaceFormat
from .udiff import UdiffFormat
from .whole import WholeFormat

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

#: Formats whose seeds require exact matching.
EXACT_FORMATS = frozenset({"edit-v2", "edit-v3"})


class UnknownFormatError(ValueError):
    """The format name is not registered."""


def get_format(name: str) -> EditFormat:
    """The format registered under ``name``."""
    try:
        return FORMATS[name]
    except KeyError:
        known = ", ".join(FORMATS)
        raise UnknownFormatError(f"unknown format {name!r}; known formats: {known}") from None


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
    "EXACT_FORMATS",
    "FORMATS",
    "EditFormat",
    "LineParser",
    "UnknownFormatError",
    "detect_format",
    "family_formats",
    "get_format",
]
