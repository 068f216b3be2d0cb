"""The syntax step of the matching chain (level ``ast``): a SEARCH that is one whole definition,
placed on the file's definition of the same name and kind.

The syntax tree only says *which lines* stand for SEARCH (see
:mod:`editblocks.syntax.astmatch`: one definition of that name and kind, similar enough). The
change is then carried onto those lines as for a fuzzy match: every line the block changes or
removes must be there, new lines must have a certain place, and lines the block leaves alone
keep the file's text. Anything less certain is refused, with the reason.
"""

from __future__ import annotations

from dataclasses import replace as _replace
from difflib import SequenceMatcher

from editblocks.matching.diagnosis import not_found
from editblocks.matching.fuzzy import CHANGED_LINE_SIMILARITY, line_similarity, map_lines
from editblocks.matching.result import Match, MatchFailure
from editblocks.matching.strategies import Candidate, FileView, build_match
from editblocks.quoting import quote

STRATEGY = "ast"


def by_definition(
    view: FileView, search: list[str], replace: list[str], language: str | None, earlier: MatchFailure | None
) -> Match | MatchFailure | None:
    """A match found through the syntax tree, or the failure to report (``earlier``, the text
    strategies' own failure, with the reason the syntax step could not help added)."""
    from editblocks.syntax.astmatch import Located, locate_definition
    from editblocks.syntax.tree import SyntaxUnavailable

    if language is None:
        return _explain(view, search, language, earlier, "the file's language is not known")
    try:
        found = locate_definition(view.text, "".join(line + "\n" for line in search), language)
    except SyntaxUnavailable as exc:
        return _explain(view, search, language, earlier, str(exc))
    if not isinstance(found, Located):
        return _explain(view, search, language, earlier, found.reason)
    return _carry(view, search, replace, found.first, found.last, found.similarity, found.description)


def _carry(
    view: FileView, search: list[str], replace: list[str], first: int, last: int, similarity: float, what: str
) -> Match | MatchFailure:
    window = view.lines[first : last + 1]
    mapping = map_lines(search, window)
    ops = SequenceMatcher(None, search, replace, autojunk=False).get_opcodes()
    # Lines changed one for one, each onto the file line it stands for, have a certain place
    # whatever surrounds them; new lines need the neighbourhood check (strict).
    in_place = all(
        tag in ("equal", "delete")
        or (tag == "replace" and i2 - i1 == j2 - j1 and all(mapping[k] is not None for k in range(i1, i2)))
        for tag, i1, i2, j1, j2 in ops
    )
    for tag, i1, i2, _, _ in ops:
        if tag not in ("replace", "delete"):
            continue
        for k in range(i1, i2):
            if not search[k].strip():
                continue
            w = mapping[k]
            if w is None or line_similarity(search[k], window[w]) < CHANGED_LINE_SIMILARITY:
                return MatchFailure(
                    f"SEARCH stands for the {what} by its name, but that definition does not contain the line "
                    f"{quote(search[k].strip(), 60)} that the edit changes; copy it exactly from the file",
                    "not_found",
                    first + 1,
                    region=(first + 1, last + 1),
                    region_text="".join(line + "\n" for line in window[:20]),
                    score=similarity,
                )
    return build_match(
        view, Candidate(first, last - first + 1, mapping, STRATEGY, similarity), search, replace, strict=not in_place
    )


def _explain(
    view: FileView, search: list[str], language: str | None, earlier: MatchFailure | None, why: str
) -> MatchFailure:
    base = earlier if earlier is not None else not_found(view, search, language=language)
    return _replace(base, reason=f"{base.reason} (the syntax step did not place it: {why})")
