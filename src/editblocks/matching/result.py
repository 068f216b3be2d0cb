"""What the matcher answers: a unique location, or a failure with a diagnosis."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Match:
    """A unique location: characters ``start:end`` of the text become ``replacement``."""

    start: int
    end: int
    replacement: str
    strategy: str
    """``exact``, ``whitespace``, ``indentation``, ``blank-lines``, ``elision``, ``unicode`` or ``fuzzy``."""
    line: int
    """1-based line where the matched region starts."""
    score: float | None = None
    """Similarity of the matched region, for fuzzy matches (0 to 1)."""
    already_applied: bool = False
    """The replacement is already in the file where the search text would be: nothing to do."""
    note: str | None = None
    """How a hint, a scope or an end-of-file mark weighed in (they chose among equal places, or
    the place found is away from what they said); None when they played no part."""


@dataclass(frozen=True)
class MatchFailure:
    """No certain location; ``reason`` says why in words a model can act on."""

    reason: str
    kind: str
    """``not_found``, ``ambiguous``, ``anchor_not_found``, ``old_mismatch``, ``trailing_mismatch``
    or ``elision``."""
    line: int | None = None
    """The nearest line of the file, when one is known."""
    candidates: list[int] = field(default_factory=list)
    """Every matching line, for ambiguity; the closest regions' first lines otherwise."""
    region: tuple[int, int] | None = None
    """First and last line (1-based) of the closest region of the file."""
    region_text: str | None = None
    """The file's text of that region: the lines to copy into a corrected block."""
    score: float | None = None
    """Similarity of the closest region (0 to 1)."""
    scope: str | None = None
    """The enclosing function or class of the closest region, when known."""
