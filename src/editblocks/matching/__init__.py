"""Finding where an edit goes in a file's text. Knows text, not formats.

:func:`locate` runs the matching chain: exact, then (at level ``tolerant``) trailing white
space, indentation offset, spurious blank lines, ``...`` elision and Unicode look-alikes, then
(at level ``fuzzy``) line similarity, then (at level ``ast``, with the ``ast`` extra) a SEARCH
that is one whole definition placed on the file's definition of the same name (see
:mod:`.syntactic`). Each strategy is tried only when the earlier ones found
nothing, and accepted only when it finds exactly one place; several places stop the chain with
an ambiguity. Tolerant matches are applied as a delta (see :mod:`.delta`), so lines the model did
not change keep the file's exact text.

Texts are LF-normalised and made of whole lines (every line ends with ``"\\n"``).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace as _replace
from difflib import SequenceMatcher
from functools import cache

from editblocks.matching import diagnosis, syntactic
from editblocks.matching.delta import DeltaError, apply_delta
from editblocks.matching.fuzzy import (
    CHANGED_LINE_SIMILARITY,
    line_similarity,
    map_lines,
    ranked_regions,
    region_score,
    similar_lines,
    similar_regions,
    text_similarity,
)
from editblocks.matching.narrowing import HINT_WINDOW, Narrowing
from editblocks.matching.result import Match, MatchFailure
from editblocks.matching.strategies import (
    Candidate,
    FileView,
    build_match,
    identity,
    indentation,
    lookalikes,
    split_elisions,
    trim_blank_lines,
    whitespace,
)
from editblocks.matching.text import find_all, find_lines, format_lines, indent_width, line_of, split_lines
from editblocks.quoting import percent, quote

LEVELS = ("exact", "tolerant", "fuzzy", "ast")
FUZZY_THRESHOLD = 0.90
"""Least similarity for a fuzzy match of three or more lines."""
FUZZY_THRESHOLD_SHORT = 0.95
"""Least similarity for a fuzzy match of one or two lines."""
FUZZY_MARGIN = 0.10
"""How much better than any other region the best one must be."""
SEARCH_ELSEWHERE = 0.85
"""Least similarity to SEARCH of a region apart from the REPLACE text that makes an "already
applied" claim uncertain (when it is also at least as like SEARCH as the REPLACE text's place)."""
SEARCH_ELSEWHERE_SHORT = 0.75
"""The same for a SEARCH of one or two lines, where one misremembered word weighs more."""
STANDS_ELSEWHERE_LINES = 8
"""How many of the SEARCH lines an edit removes are looked for elsewhere when it looks applied."""
LONGEST_WORDS = 3
"""How many of a removed SEARCH line's longest words the lines elsewhere are searched for by."""
STANDS_ELSEWHERE_ANCHORS = 50
"""How many places of each other SEARCH line found verbatim are looked at around."""
HOLDING_LIMIT = 50
"""How many lines holding a removed SEARCH line, or one of its words, are looked at."""
REMOVED_NEAR = 2
"""How many non-blank lines on each side of the REPLACE text are looked at for a line the edit removes."""
INDENTED_TIE = 0.05
"""How much less like SEARCH (its lines stripped) a region apart from the REPLACE text may be and
still contradict an "already applied" claim, when it is as like SEARCH with indentation."""

__all__ = [
    "FUZZY_MARGIN",
    "FUZZY_THRESHOLD",
    "LEVELS",
    "Match",
    "MatchFailure",
    "Narrowing",
    "choose_reading",
    "find_all",
    "format_lines",
    "line_of",
    "locate",
    "searched_elsewhere",
]


def locate(
    text: str,
    old: str,
    new: str,
    *,
    leading: str = "",
    trailing: str = "",
    level: str = "exact",
    hint_line: int | None = None,
    scope: Sequence[str] = (),
    at_end: bool = False,
    language: str | None = None,
) -> Match | MatchFailure:
    """Where ``leading + old + trailing`` goes in ``text``, and what that region becomes.

    Returns a :class:`Match` (possibly with ``already_applied`` set, when the replacement is
    already in the file where the search text would be) or a :class:`MatchFailure` saying why
    no certain location exists.

    ``hint_line`` (where the text is said to start, 1-based), ``scope`` (enclosing lines,
    outermost first) and ``at_end`` (the text ends the file) only choose among places the text
    matches equally well, when the choice is clear; the match's ``note`` says when they did (see
    :mod:`.narrowing`). With nothing to search for, ``scope`` or ``at_end`` place an insertion.

    ``language`` (``"python"``, ``"tsx"``..., see :func:`editblocks.syntax.language_for`) lets
    a failure name the definition around the closest region from the syntax tree, and is what
    the ``ast`` level needs.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown match level {level!r}; use one of {', '.join(LEVELS)}")
    narrow = Narrowing(hint_line, tuple(scope), at_end)
    search = leading + old + trailing
    replace = leading + new + trailing
    if not search and (narrow.scope or narrow.at_end):
        return narrow.insertion(text, replace)
    hits = find_all(text, search, limit=200)
    note = None
    if len(hits) > 1 and narrow:
        view = FileView.of(text)
        starts = [line_of(text, h) - 1 for h in hits]
        chosen, why = narrow.choose(view, starts, search.count("\n"))
        if chosen is None:
            return _unsettled(diagnosis.ambiguous(view, starts, 0, "exact"), why)
        hits, note = [hits[chosen]], why
    if len(hits) == 1:
        start = hits[0]
        line = line_of(text, start)
        if note is None and narrow:
            view = FileView.of(text)
            note = narrow.check(view, line - 1, search.count("\n"))
            other = _hinted_elsewhere(view, narrow.hint_line, line, search)
            if other is not None:
                return MatchFailure(
                    f"the text occurs exactly at line {line}, {abs(line - other)} lines from the hinted line {narrow.hint_line}, "
                    f"and with other indentation at line {other}, where the hint points; which one is meant is not certain. "
                    "Copy the lines exactly, with their indentation, from the place meant",
                    "ambiguous",
                    line,
                    candidates=sorted([line, other]),
                )
        around = _contains_applied(text, search, replace, start)
        if isinstance(around, str):
            return MatchFailure(
                f"SEARCH is in the file (line {line}) with the lines the edit adds already around it, but the edit "
                f"adds {quote(around.strip(), 60) if around.strip() else 'a blank line'} beside the same line, so the "
                "file would look like this whether the edit was made or not; whether it was made is not certain. "
                "Include in SEARCH a line next to the insertion that differs from the one added",
                "ambiguous",
                line,
            )
        if around is True:
            return Match(start, start + len(search), search, "exact", line, already_applied=True, note=note)
        return Match(start, start + len(search), replace, "exact", line, note=note)
    view = FileView.of(text)
    if len(hits) > 1:
        return diagnosis.ambiguous(view, [line_of(text, h) - 1 for h in hits], 0, "exact")
    s_lines, r_lines = split_lines(search), split_lines(replace)
    elision_failure: MatchFailure | None = None
    if level != "exact":
        found = _tolerant(view, s_lines, r_lines, replace, narrow)
        if isinstance(found, MatchFailure) and found.kind == "elision":
            # '...' lines that are not elisions (doctest continuation lines): let similarity try.
            elision_failure = found
        elif isinstance(found, Match) and not found.already_applied:
            elsewhere = _made_elsewhere(text, replace, found) if replace.strip() else None
            return elsewhere or _other_nesting(view, s_lines, found) or found
        elif found is not None:
            return found
    applied = _applied_elsewhere(text, search, replace, view if level != "exact" else None)
    if applied is not None:
        return searched_elsewhere(view, s_lines, applied) or applied
    if level in ("fuzzy", "ast"):
        found = _fuzzy(view, s_lines, r_lines)
        if isinstance(found, Match) and narrow:
            outside = narrow.outside_scope(view, found.line - 1, len(s_lines))
            if outside is not None:
                return MatchFailure(
                    f"the closest region (line {found.line}) is only similar to SEARCH, and {outside}; "
                    "copy the lines exactly from the file",
                    "not_found",
                    found.line,
                )
            found = _replace(found, note=narrow.check(view, found.line - 1, len(s_lines)))
        if level == "ast" and not isinstance(found, Match) and not (leading or trailing):
            found = syntactic.by_definition(view, s_lines, r_lines, language, found)
        if isinstance(found, Match) and not found.already_applied and replace.strip():
            # Only similar to SEARCH, while the REPLACE text stands exactly elsewhere: a reply
            # applied again would carry its change onto a near twin of the code it edited.
            return _loosely_elsewhere(view, r_lines, found) or found
        if found is not None:
            return found
    if elision_failure is not None:
        return elision_failure
    if leading or trailing:
        return diagnosis.anchored(text, view, old, leading, trailing, language=language)
    return diagnosis.not_found(view, s_lines, language=language)


def _hinted_elsewhere(view: FileView, hint_line: int | None, line: int, search: str) -> int | None:
    """The line near the hint where ``search`` also occurs but for indentation, when the exact
    match at ``line`` is away from the hint: a model that got the indentation wrong and the line
    right means that place (None when there is none)."""
    if hint_line is None or abs(line - hint_line) <= HINT_WINDOW:
        return None
    wanted = [x.strip() for x in split_lines(search)]
    n = len(wanted)
    lines = view.lines
    for start in range(max(0, hint_line - 1 - HINT_WINDOW), min(len(lines) - n, hint_line - 1 + HINT_WINDOW) + 1):
        if start != line - 1 and [x.strip() for x in lines[start : start + n]] == wanted:
            return start + 1
    return None


def choose_reading(text: str, readings: list[tuple[str, str]]) -> int | MatchFailure:
    """Which (old, new) reading of an edit is meant: the only one whose old text is in the file.

    It must occur exactly once, and no other reading's old text may occur at all: when two
    readings are possible, the text alone cannot tell which edit is meant, so none is made.
    """
    present: list[tuple[int, list[int]]] = []
    for k, (old, _) in enumerate(readings):
        if old.strip():
            hits = find_all(text, old, limit=2)
            if hits:
                present.append((k, hits))
    if len(present) == 1 and len(present[0][1]) == 1:
        return present[0][0]
    if not present:
        why = "no reading of it is in the file"
    elif len(present) == 1:
        why = "its text occurs more than once"
    else:
        why = "several readings of it are in the file"
    lines = sorted({line_of(text, h) for _, hits in present for h in hits})
    return MatchFailure(
        f"the block has several '=======' lines, so where SEARCH ends is unclear, and {why}; "
        "split the edit so that no SEARCH or REPLACE section holds a line of only '=' signs, "
        "or include enough lines to make the edit certain",
        "ambiguous" if present else "not_found",
        lines[0] if lines else None,
        candidates=lines,
    )


def _contains_applied(text: str, search: str, replace: str, start: int) -> bool | str | None:
    """True when REPLACE is SEARCH with lines added around it, and those lines already
    surround the found SEARCH text: an insertion that was applied before. When the added line
    next to SEARCH is the same as SEARCH's line beside it (a second ``print()`` after one, a
    blank line beside a blank line), the file looks the same whether the edit was made or not:
    that line is returned instead. None when the lines are not there."""
    if len(replace) <= len(search) or search not in replace:
        return None
    s_lines, r_lines = split_lines(search), split_lines(replace)
    for offset in range(len(r_lines) - len(s_lines) + 1):
        if r_lines[offset : offset + len(s_lines)] != s_lines:
            continue
        before = "".join(line + "\n" for line in r_lines[:offset])
        after = "".join(line + "\n" for line in r_lines[offset + len(s_lines) :])
        end = start + len(search)
        begin = start - len(before)
        line_start = begin == 0 or (begin > 0 and text[begin - 1] == "\n")
        if text.startswith(after, end) and begin >= 0 and line_start and text[begin:start] == before:
            if offset and r_lines[offset - 1] == s_lines[0]:
                return r_lines[offset - 1]
            if offset + len(s_lines) < len(r_lines) and r_lines[offset + len(s_lines)] == s_lines[-1]:
                return s_lines[-1]
            return True
    return None


def _applied_elsewhere(text: str, search: str, replace: str, view: FileView | None = None) -> Match | None:
    """SEARCH is absent but REPLACE occurs exactly once: the edit was applied before.

    With a ``view``, REPLACE also counts when it occurs once up to white space and indentation
    (an edit applied before through a tolerant strategy).
    """
    if not replace.strip() or replace == search:
        return None
    hits = find_all(text, replace, limit=2)
    if len(hits) == 1:
        start = hits[0]
        return Match(start, start + len(replace), replace, "exact", line_of(text, start), already_applied=True)
    if hits or view is None:
        return None
    r_lines = split_lines(replace)
    s_first = next((x for x in split_lines(search) if x.strip()), "")
    r_first = next((x for x in r_lines if x.strip()), "")
    if s_first[: len(s_first) - len(s_first.lstrip())] != r_first[: len(r_first) - len(r_first.lstrip())]:
        # SEARCH and REPLACE begin at different indentations: the edit may be that change of
        # indentation, which REPLACE found up to indentation cannot show to be made.
        return None
    for strategy in (whitespace, indentation):
        cands = strategy(view, r_lines, r_lines)
        if len(cands) == 1:
            c = cands[0]
            start, end = view.offsets[c.start], view.offsets[c.start + c.length]
            return Match(start, end, text[start:end], c.strategy, c.start + 1, already_applied=True)
        if cands:
            return None
    return None


def _loosely_elsewhere(view: FileView, replace: list[str], found: Match) -> MatchFailure | None:
    """A placement only similar to SEARCH, while the REPLACE text stands elsewhere, exactly or but
    for white space (a reply applied again, with a near twin of the code it edited, or with a
    SEARCH line copied without its indentation): whether the edit was made there already is not
    certain. None otherwise."""
    if not any(x.strip() for x in replace):
        return None
    first = found.line - 1
    end = first + max(1, view.text.count("\n", found.start, found.end))
    hits = [k for k in view.find("strip", str.strip, replace, limit=50) if not first <= k < end]
    if not hits:
        return None
    exact = [k for k in hits if view.lines[k : k + len(replace)] == replace]
    at = (exact or hits)[0] + 1
    how = "exactly" if exact else "but for white space"
    return MatchFailure(
        f"SEARCH matches at line {found.line} ({found.strategy}), and the REPLACE text already stands {how} at line "
        f"{at}: whether the edit was made there already or is meant at line {found.line} is not certain. Copy the "
        "lines exactly from the place meant, with a line around them that tells the places apart",
        "ambiguous",
        found.line,
        candidates=sorted({found.line, at}),
    )


def _other_nesting(view: FileView, search: list[str], found: Match) -> MatchFailure | None:
    """SEARCH of one line, copied with an indentation the file's line does not have (nor none at
    all, a copy that lost it): the same text at another nesting is another line, as when a reply
    is applied again and the line it edited is gone. Refused as uncertain; None otherwise."""
    lines = [x for x in search if x.strip()]
    if found.strategy != "indentation" or len(lines) != 1:
        return None
    model = lines[0]
    there = next((x for x in view.lines[found.line - 1 :] if x.strip()), "")
    mine, theirs = model[: len(model) - len(model.lstrip())], there[: len(there) - len(there.lstrip())]
    if not mine or mine == theirs:
        return None
    return MatchFailure(
        f"SEARCH's line is indented {len(mine)} columns, and the file has it only at line {found.line}, indented "
        f"{len(theirs)}: the same text at another nesting may be another line (an edit made already, say). Copy the "
        "line exactly from the place meant, with a line around it that tells the places apart",
        "ambiguous",
        found.line,
        candidates=[found.line],
    )


def _made_elsewhere(text: str, replace: str, found: Match) -> MatchFailure | None:
    """SEARCH found only up to white space or indentation, while REPLACE stands exactly elsewhere:
    the edit may be made already (a reply applied again, with a copy of the code at another
    indentation), or not; refused as uncertain."""
    hits = find_all(text, replace, limit=2)
    if len(hits) != 1 or found.start <= hits[0] < found.end:
        return None
    line = line_of(text, hits[0])
    return MatchFailure(
        f"SEARCH matches at line {found.line} ({found.strategy}), and the REPLACE text already stands exactly at line "
        f"{line}: whether the edit was made there already or is meant at line {found.line} is not certain. Copy the "
        "lines exactly from the place meant, with a line around them that tells the places apart",
        "ambiguous",
        found.line,
        candidates=sorted({found.line, line}),
    )


def _removed_beside(view: FileView, search: list[str], first: int, end: int) -> int | None:
    """The file line right after (or before) the REPLACE text at ``first:end`` when it stands for a
    SEARCH line the edit removes after its last kept line (or before its first) better than any
    line REPLACE puts there: the edit made, that line would be gone. None when there is none."""
    s = [x.strip() for x in search]
    r = [x.strip() for x in view.lines[first:end]]
    kept = [op for op in SequenceMatcher(None, s, r, autojunk=False).get_opcodes() if op[0] == "equal"]
    if not kept:
        return None  # (see searched_elsewhere: the lines near are looked at last)
    in_replace = set(r)
    _, _, last_i, _, last_j = kept[-1]
    tail = [x for x in s[last_i:] if x and x not in in_replace]
    after = _nonblank(view, range(end, len(view.lines)), len(tail))
    for k in after:
        if any(_stands_for(x, view.lines[k].strip(), r[last_j:]) for x in tail):
            return k
    _, first_i, _, first_j, _ = kept[0]
    head = [x for x in s[:first_i] if x and x not in in_replace]
    before = _nonblank(view, range(first - 1, -1, -1), len(head))
    for k in before:
        if any(_stands_for(x, view.lines[k].strip(), r[:first_j]) for x in head):
            return k
    # Removed: the SEARCH lines REPLACE has fewer of (a line SEARCH has twice and REPLACE once counts).
    removed = set(Counter(x for x in s if x) - Counter(x for x in r if x))
    return _removed_near(view, removed, first, end, [x for x in r if x])


def _removed_near(view: FileView, removed: set[str], first: int, end: int, instead: list[str]) -> int | None:
    """A line the edit removes (``removed``, stripped) standing a line or two away from the REPLACE
    text at ``first:end``, on either side (SEARCH's lines in another order, or missing a line):
    still there, so the edit was not made. A line that stands for a removed one (misremembered,
    cut short or missing a word) better than any of the REPLACE text's lines (``instead``,
    stripped) counts too. None when there is none."""
    near = _nonblank(view, range(first - 1, -1, -1), REMOVED_NEAR) + _nonblank(
        view, range(end, len(view.lines)), REMOVED_NEAR
    )
    for k in near:
        line = view.lines[k].strip()
        if line in removed or any(_stands_for(x, line, instead) for x in removed):
            return k
    return None


def _nonblank(view: FileView, indexes: range, count: int) -> list[int]:
    """The first ``count`` indexes of non-blank lines in ``indexes`` (looking at most a few lines further)."""
    found: list[int] = []
    for k in indexes[: count + 3]:
        if len(found) >= count:
            break
        if view.lines[k].strip():
            found.append(k)
    return found


def _stands_for(model: str, line: str, instead: list[str]) -> bool:
    """The file's ``line`` is like the model's line (a misremembered copy of it, or a piece of it
    cut short, inside a word too), and more so than any of the lines the edit puts ``instead``."""

    def like(x: str) -> float:
        return 1.0 if _piece_of(model, x) else _likeness(model, x)

    here = like(line)
    return here >= CHANGED_LINE_SIMILARITY and here > max((like(x) for x in instead if x), default=0.0)


def _piece_of(model: str, line: str) -> bool:
    """The model's line, holding a word, is the start or the end of the file's ``line``, cut
    anywhere (``# -- Convenie``), or the line with words left out (``raise (`` for ``raise
    JSONDecodeError(``)."""
    if not (0 < len(model) < len(line) and _WORD.search(model)):
        return False
    if line.startswith(model) or line.endswith(model):
        return True
    theirs = iter(_TOKENS.findall(line))
    return all(t in theirs for t in _TOKENS.findall(model))


_WORD = re.compile(r"\w")
_WORDS = re.compile(r"\w+")
_TOKENS = re.compile(r"\w+|[^\w\s]")


def _cut_side(model: str, line: str) -> str | None:
    """How the model's line is the file's ``line`` cut short: a piece of its "start" or "end" cut
    at a word's edge, or its "words" with some left out; None when it is not (nor when the
    model's line has no word: a lone ``)`` ends half the lines of a file)."""
    n = len(model)
    if 0 < n < len(line) and _WORD.search(model):
        k = len(line) - n
        if line.startswith(model) and not (_WORD.match(line[n - 1]) and _WORD.match(line[n])):
            return "start"
        if line.endswith(model) and not (_WORD.match(line[k - 1]) and _WORD.match(line[k])):
            return "end"
        words, theirs = model.split(), iter(line.split())
        if all(w in theirs for w in words):
            return "words"
    return None


def _likeness(model: str, line: str) -> float:
    """How like the file's line the model's is: its similarity, or 1 for a piece of it cut at a
    word's edge (the model's copy cut short)."""
    return 1.0 if _cut_side(model, line) in ("start", "end") else line_similarity(model, line)


def _stands_elsewhere(view: FileView, search: list[str], first: int, end: int) -> int | None:
    """A file line apart from the REPLACE text at ``first:end`` that a SEARCH line the edit removes
    stands for at least as well as for any line there, SEARCH's lines scoring at least as well
    around it, line by line, as at the REPLACE text: misremembered (``ifs withyear:`` for ``if
    withyear:``) or cut short (``def`` of every ``def`` line; when it is a piece of a line there
    too, only a line cut the same way counts, as a tie). The first few lines the edit removes
    are looked at. None when there is none."""
    own = [x for x in view.stripped[first:end] if x]
    if not own:
        return None
    kept = set(own)
    models = [x.strip() for x in search]

    @cache
    def best(j: int) -> tuple[float, str | None]:
        m = models[j]
        return (1.0, None) if m in kept else max((_piece_score(m, x), _cut_side(m, x)) for x in own)

    removed = [i for i, m in enumerate(models) if m and m not in kept][:STANDS_ELSEWHERE_LINES]
    certain = [(j, set(_WORDS.findall(m))) for j, m in enumerate(models) if m and m in kept]
    starts = _kept_starts(view, certain)
    for i in removed:
        model = models[i]
        like, side = best(i)
        if starts is None:
            candidates = _lines_for(view, models, i)
        else:
            words = _longest_words(model)
            candidates = [s + i for s in starts if _offered(view, models, i, words, s)]
        for k in candidates:
            start = k - i
            if first - len(models) < start < end or start < 0 or start + len(models) > len(view.lines):
                continue  # overlapping the REPLACE text, or off the file's edge
            if any(not words <= set(_WORDS.findall(view.stripped[start + j])) for j, words in certain):
                continue  # a line the edit keeps, certain at the REPLACE text, lacks a word there
            line = view.stripped[k]
            score, there = _piece_score(model, line), _cut_side(model, line)
            if (
                not (there or side)
                and model in line
                and _WORD.search(model)
                and (
                    len(_WORDS.findall(model)) >= 2
                    or (certain and all(view.stripped[start + j] == models[j] for j, _ in certain))
                )
            ):
                # A piece of the line cut inside a word (``with differen``; ``cat`` among the lines
                # the edit keeps, standing there as they are): cut short all the same.
                there, score = "piece", (1 + score) / 2
            if side and there:
                if there != side:
                    continue  # cut short both ways, differently: the REPLACE text's line counts
            elif score < like or (not there and score < SEARCH_ELSEWHERE_SHORT):
                continue
            if side and there:
                score = like  # cut short the same way at both places: a tie
            there_all = sum(
                _piece_score(m, view.stripped[start + j]) if j != i else score for j, m in enumerate(models) if m
            )
            if there_all >= sum(best(j)[0] for j, m in enumerate(models) if m):
                return k
    return None


def _kept_starts(view: FileView, certain: list[tuple[int, set[str]]]) -> list[int] | None:
    """Every start of a place apart where SEARCH's lines that the edit keeps could have all
    their words (``certain``: each line's index and words): the places of the longest word of
    one of them, when few enough lines hold it that one pass over the file finds them all;
    None otherwise."""
    held = [(max(words, key=len), j) for j, words in certain if words]
    if not held:
        return None
    word, j = max(held, key=lambda x: len(x[0]))
    hits = _holding(view, word)
    return None if len(hits) >= HOLDING_LIMIT else [k - j for k in hits]


def _offered(view: FileView, models: list[str], i: int, words: list[str], start: int) -> bool:
    """Whether the file's line that SEARCH line ``i`` would be at, SEARCH placed at ``start``, is
    one :func:`_lines_for` offers: holding the line or one of its longest ``words``, or put there
    by another SEARCH line found verbatim."""
    k = start + i
    if not 0 <= k < len(view.lines):
        return False
    line, model = view.lines[k], models[i]
    if model in line or any(w in line for w in words):
        return True
    stripped = view.stripped
    return any(
        other and j != i and 0 <= start + j < len(stripped) and stripped[start + j] == other
        for j, other in enumerate(models)
    )


def _lines_for(view: FileView, models: list[str], i: int) -> list[int]:
    """Indexes of the file lines SEARCH line ``i`` might stand for: those holding it or one of its
    longest words (it cut short, or missing a word), those SEARCH's other lines found verbatim put in its
    place, and for a SEARCH of one line those most like it."""
    model = models[i]
    by_word = [_holding(view, word) for word in _longest_words(model)]
    if by_word and len(by_word[0]) < HOLDING_LIMIT:
        # Every line holding the whole line holds its longest word, and those were all found:
        # no second pass over the file for the line.
        found = [k for k in by_word[0] if model in view.lines[k]]
    else:
        found = _holding(view, model)
    for hits in by_word:
        found += hits
    positions = view.positions()
    for j, other in enumerate(models):
        if other and j != i:
            at = view.stripped_places(other, positions)
            found += [k + i - j for k in at[:STANDS_ELSEWHERE_ANCHORS]]
    if sum(1 for m in models if m) == 1:
        found += similar_lines(view, models[i], CHANGED_LINE_SIMILARITY, 8)
    return list(dict.fromkeys(found))


def _longest_words(line: str) -> list[str]:
    """The longest words of a line (:data:`LONGEST_WORDS` of them), longest first."""
    return sorted(set(line.split()), key=len, reverse=True)[:LONGEST_WORDS]


def _piece_score(model: str, line: str) -> float:
    """How like the file's line the model's is, for telling which line it stands for: 1 when it
    is the line, its similarity halfway to 1 when it is the line cut short."""
    if model == line:
        return 1.0
    similar = line_similarity(model, line)
    return (1 + similar) / 2 if _cut_side(model, line) else similar


def _holding(view: FileView, piece: str, limit: int = HOLDING_LIMIT) -> list[int]:
    """Indexes of (at most ``limit``) file lines that hold ``piece``."""
    found: list[int] = []
    at = view.text.find(piece)
    while at != -1 and len(found) < limit:
        k = bisect_right(view.offsets, at) - 1
        found.append(k)
        at = view.text.find(piece, view.offsets[k + 1] if k + 1 < len(view.offsets) else len(view.text))
    return found


def _indented_as(view: FileView, search: list[str], start: int, length: int) -> float:
    """The similarity of SEARCH to file lines ``start:start+length`` with their indentation."""
    return text_similarity(
        "\n".join(x.rstrip() for x in search), "\n".join(x.rstrip() for x in view.lines[start : start + length])
    )


def searched_elsewhere(view: FileView, search: list[str], applied: Match) -> MatchFailure | None:
    """What contradicts an "already applied" claim (REPLACE is in the file, SEARCH is not): a
    region at least as like SEARCH as a fuzzy match must be, outside the place of the REPLACE
    text (a line misremembered: the edit was never made, and the REPLACE text is there because
    it was there before). Then whether the edit was made is not certain; None when nothing
    contradicts it."""
    meaningful = sum(1 for x in search if x.strip())
    if not meaningful:
        return None
    threshold = FUZZY_THRESHOLD if meaningful >= 3 else FUZZY_THRESHOLD_SHORT
    first = applied.line - 1
    end = max(first + view.text.count("\n", applied.start, applied.end), first + 1)
    # How like SEARCH the REPLACE text's own place is: an edit made leaves its place like SEARCH
    # in part (the lines it kept, or the lines it changed, changed).
    own = region_score(view, search, first, end - first)
    beside = _removed_beside(view, search, first, end)
    if beside is not None:
        return _line_against(view, applied, beside, "beside it is like a line the edit removes")
    reordered = _reordered_elsewhere(view, search, first, end)
    if reordered is not None:
        return _line_against(view, applied, reordered, "and the lines around it are SEARCH's lines in another order")
    left = _removed_apart(view, search, first, end)
    if left is not None:
        return _line_against(
            view, applied, left, "stands apart from it, among lines SEARCH has, as a line the edit removes"
        )
    for region in ranked_regions(view, search, limit=3)[0]:
        if region.score is None:
            continue
        if first <= region.start and region.start + region.length <= end:
            continue  # SEARCH is like the REPLACE text itself: the edit made, as claimed
        if region.start + region.length <= first or region.start >= end:
            # Apart from the REPLACE text: the place the edit was meant for, when it is more like
            # SEARCH than the REPLACE text's own place (a near twin of the edited code, or the
            # code a misremembered SEARCH stands for).
            # At least as like SEARCH as that place, in a tie too (the edit could be meant for either).
            # Near a tie, indentation tells: the place indented as SEARCH is is at least as likely.
            least = SEARCH_ELSEWHERE if meaningful >= 3 else SEARCH_ELSEWHERE_SHORT
            if region.score < least or region.score < own - INDENTED_TIE:
                continue
            if region.score < own and _indented_as(view, search, region.start, region.length) < _indented_as(
                view, search, first, end - first
            ):
                continue
        elif region.score < threshold or region.score <= own:
            # Overlapping it: only more like SEARCH than that place (lines the edit removes,
            # misremembered, still standing next to the lines it kept).
            continue
        line = region.start + 1
        shown = view.lines[region.start : region.start + region.length]
        return MatchFailure(
            f"the REPLACE text is in the file (line {applied.line}), so the edit looks applied already, but lines "
            f"{percent(region.score)} like SEARCH still stand at line {line}, where the edit would go; whether it was "
            "made is not certain. Copy the current lines exactly into SEARCH",
            "ambiguous",
            line,
            candidates=sorted({applied.line, line}),
            region=(line, line + region.length - 1),
            region_text="".join(x + "\n" for x in shown),
            score=region.score,
        )
    apart = _stands_elsewhere(view, search, first, end)
    if apart is not None:
        return _line_against(view, applied, apart, "is as like a line the edit removes")
    # REPLACE keeps none of SEARCH's lines: a line it removes standing a line or two away.
    s, r = {x.strip() for x in search if x.strip()}, {x.strip() for x in view.lines[first:end]}
    near = _removed_near(view, s - r, first, end, sorted(r)) if not s & r else None
    return None if near is None else _line_against(view, applied, near, "near it is a line the edit removes")


def _removed_apart(view: FileView, search: list[str], first: int, end: int) -> int | None:
    """A file line apart from the REPLACE text at ``first:end`` that is a line the edit removes (as
    the file has it, or the model's copy of it cut short) with every line the edit keeps (of two
    words or more) standing within SEARCH's length of it: the code the edit was meant for,
    unedited, its lines copied out of order or with one missing. None when there is none."""
    own = {x for x in view.stripped[first:end] if x}
    models = [x.strip() for x in search if x.strip()]
    kept = {m for m in models if m in own and len(_WORDS.findall(m)) > 1}
    removed = [m for m in models if m not in own and len(_WORDS.findall(m)) > 1][:LONGEST_WORDS]
    if not removed or not (kept or len(removed) > 1):
        return None
    span = len(search) + 1
    for model in removed:
        for k in _holding(view, model):
            if first - span <= k < end + span:
                continue  # beside the REPLACE text: see _removed_beside
            line = view.stripped[k]
            if not (line.startswith(model) or line.endswith(model)):
                continue
            near = view.stripped[max(0, k - span) : k + span + 1]
            if kept and kept <= set(near):
                return k
            # The edit keeps none of them: every line it removes standing there (a copy cut short
            # or missing a word counts).
            if not kept and all(any(x == m or _piece_of(m, x) for x in near) for m in removed):
                return k
    return None


def _reordered_elsewhere(view: FileView, search: list[str], first: int, end: int) -> int | None:
    """A line apart from the REPLACE text at ``first:end`` around which every SEARCH line stands,
    in another order (SEARCH copied with two lines swapped): the code the edit was meant for may
    be there, unedited. None when there is none."""
    models = [x.strip() for x in search if x.strip()]
    if len(models) < 2:
        return None
    positions = view.positions()
    places = [view.stripped_places(m, positions) for m in set(models)]
    rarest = min(places, key=len)
    if len(rarest) > STANDS_ELSEWHERE_ANCHORS:
        return None
    wanted = Counter(models)
    span = len(search)
    for k in rarest:
        lo, hi = max(0, k - span), min(len(view.lines), k + span + 1)
        if lo < end and first < hi:
            continue  # overlapping the REPLACE text
        for start in range(lo, hi - span + 1):
            window = [x for x in view.stripped[start : start + span] if x]
            if Counter(window) == wanted and window != models:
                return start
    return None


def _line_against(view: FileView, applied: Match, line: int, where: str) -> MatchFailure:
    """The "already applied" claim contradicted by file line ``line`` (0-based), which ``where`` says."""
    return MatchFailure(
        f"the REPLACE text is in the file (line {applied.line}), so the edit looks applied already, but line "
        f"{line + 1} {where}, {quote(view.lines[line].strip(), 60)}; whether it was made is not certain. "
        "Copy the current lines exactly into SEARCH",
        "ambiguous",
        line + 1,
        candidates=sorted({applied.line, line + 1}),
        region=(line + 1, line + 1),
        region_text=view.lines[line] + "\n",
    )


def _unsettled(failure: MatchFailure, why: str) -> MatchFailure:
    """An ambiguity the block's hints could not settle, saying why."""
    return (
        _replace(failure, reason=f"{failure.reason} (the block's hints did not settle it: {why})") if why else failure
    )


def _accept(
    view: FileView,
    cands: list[Candidate],
    search: list[str],
    replace: list[str],
    replace_text: str,
    narrow: Narrowing | None = None,
) -> Match | MatchFailure | None:
    if not cands:
        return None
    note = None
    if len(cands) > 1 and narrow:
        chosen, why = narrow.choose(view, [c.start for c in cands], cands[0].length)
        if chosen is None:
            return _unsettled(diagnosis.ambiguous(view, [c.start for c in cands], len(search), cands[0].strategy), why)
        cands, note = [cands[chosen]], why
    elif narrow:
        note = narrow.check(view, cands[0].start, cands[0].length)
    if len(cands) > 1:
        return diagnosis.ambiguous(view, [c.start for c in cands], len(search), cands[0].strategy)
    found = _accept_one(view, cands[0], search, replace, replace_text)
    return _replace(found, note=note) if note and isinstance(found, Match) else found


def _accept_one(
    view: FileView, cand: Candidate, search: list[str], replace: list[str], replace_text: str
) -> Match | MatchFailure:
    start = view.offsets[cand.start]
    end = view.offsets[cand.start + cand.length]
    if replace_text.strip() and replace != search:
        # The replacement already stands there: an edit applied before (e.g. a pure re-indent).
        for hit in find_all(view.text, replace_text, limit=50):
            if hit < end and start < hit + len(replace_text):
                return Match(
                    hit,
                    hit + len(replace_text),
                    replace_text,
                    cand.strategy,
                    line_of(view.text, hit),
                    already_applied=True,
                )
        # ... or, found the same tolerant way, it surrounds the found text (an insertion applied before).
        for strategy in (whitespace, indentation):
            for r in strategy(view, replace, replace):
                if r.start <= cand.start and cand.start + cand.length <= r.start + r.length and r.length > cand.length:
                    r_start, r_end = view.offsets[r.start], view.offsets[r.start + r.length]
                    return Match(
                        r_start, r_end, view.text[r_start:r_end], r.strategy, r.start + 1, already_applied=True
                    )
    return build_match(view, cand, search, replace)


def _tolerant(
    view: FileView, search: list[str], replace: list[str], replace_text: str, narrow: Narrowing | None = None
) -> Match | MatchFailure | None:
    for strategy in (whitespace, indentation):
        found = _accept(view, strategy(view, search, replace), search, replace, replace_text, narrow)
        if isinstance(found, Match) and not found.already_applied:
            found = _reordered_exactly(view, search, found) or found
        if found is not None:
            return found
    trimmed = trim_blank_lines(search, replace)
    if trimmed is not None:
        s2, r2 = trimmed
        r2_text = "".join(line + "\n" for line in r2)
        exact = [Candidate(i, len(s2), identity(len(s2)), "blank-lines") for i in find_lines(view.lines, s2, 200)]
        for cands in (exact, whitespace(view, s2, r2), indentation(view, s2, r2)):
            for c in cands:
                c.strategy = "blank-lines"
            found = _accept(view, cands, s2, r2, r2_text, narrow)
            if found is not None:
                return found
    found = _elision(view, search, replace)
    if isinstance(found, Match):
        return _replace(found, note=narrow.check(view, found.line - 1, len(search))) if narrow else found
    looked = _accept(view, lookalikes(view, search, replace), search, replace, replace_text, narrow)
    return looked if looked is not None else found


def _reordered_exactly(view: FileView, search: list[str], found: Match) -> MatchFailure | None:
    """A failure when every SEARCH line stands exactly, indentation and all, among as many lines
    elsewhere in another order, while ``found`` places SEARCH's order with other white space:
    the model may have copied those lines in the wrong order (two swapped) rather than with
    other white space. None when no such place is."""
    model = [x.rstrip() for x in search if x.strip()]
    if len(model) < 2:
        return None
    wanted = Counter(model)
    first = found.line - 1
    n = len(search)
    for hit in find_all(view.text, model[0] + "\n", 50):
        k = bisect_right(view.offsets, hit) - 1
        if first <= k < first + n:
            continue
        # The lines around it, the found place's own left out.
        around = Counter(
            view.lines[j].rstrip()
            for j in range(max(0, k - n), min(len(view.lines), k + n))
            if not first <= j < first + n
        )
        if not wanted - around:
            return MatchFailure(
                f"SEARCH's lines stand with other white space at line {found.line}, and exactly, in another order, "
                f"around line {k + 1}: which one the edit is meant for is not certain (SEARCH may have two lines "
                "swapped). Copy the lines exactly from the file",
                "ambiguous",
                found.line,
                candidates=sorted({found.line, k + 1}),
            )
    return None


def _elision(view: FileView, search: list[str], replace: list[str]) -> Match | MatchFailure | None:
    s_pieces = split_elisions(search)
    if s_pieces is None:
        return None
    r_pieces = split_elisions(replace)
    if r_pieces is None or len(r_pieces) != len(s_pieces):
        return MatchFailure(
            "SEARCH uses '...' for unchanged lines, but REPLACE does not use it the same number of times; "
            "write the lines out, or use '...' at the same places in both",
            "elision",
        )
    placed: list[tuple[int, list[str], list[str]]] = []
    prev_end = 0
    for s_piece, r_piece in zip(s_pieces, r_pieces):
        if not any(x.strip() for x in s_piece):
            if any(x.strip() for x in r_piece):
                return MatchFailure(
                    "lines to insert stand next to '...' with no SEARCH lines to place them by", "elision"
                )
            continue
        hits = find_lines(view.lines, s_piece, 3) or whitespace_starts(view, s_piece)
        if len(hits) != 1:
            first = next(x.strip() for x in s_piece if x.strip())
            what = (
                "occurs nowhere" if not hits else f"occurs more than once (lines {format_lines([h + 1 for h in hits])})"
            )
            return MatchFailure(
                f"the part of SEARCH starting {quote(first, 60)} between '...' lines {what}",
                "elision",
                hits[0] + 1 if hits else None,
            )
        if hits[0] < prev_end:
            return MatchFailure("the parts of SEARCH between '...' lines are not in file order", "elision", hits[0] + 1)
        placed.append((hits[0], s_piece, r_piece))
        prev_end = hits[0] + len(s_piece)
    if not placed:
        return None
    out: list[str] = []
    first_start = cursor = placed[0][0]
    for pos, s_piece, r_piece in placed:
        out.extend(view.lines[cursor:pos])
        window = view.lines[pos : pos + len(s_piece)]
        try:
            out.extend(apply_delta(s_piece, r_piece, window, identity(len(s_piece)), view.style))
        except DeltaError as exc:
            return MatchFailure(str(exc), "elision", pos + 1)
        cursor = pos + len(s_piece)
    start, end = view.offsets[first_start], view.offsets[cursor]
    return Match(start, end, "".join(line + "\n" for line in out), "elision", first_start + 1)


def whitespace_starts(view: FileView, piece: list[str]) -> list[int]:
    return [c.start for c in whitespace(view, piece, piece)]


def _fuzzy(view: FileView, search: list[str], replace: list[str]) -> Match | MatchFailure | None:
    stripped = view.find("strip", str.strip, search, limit=2)
    if len(stripped) == 1 and any(s.strip() for s in search):
        # Every line is there, in order and only once, with uneven indentation: the place is
        # certain, unless a line is paired with its twin at another indentation than the others
        # while the line at theirs stands beside (two lines swapped: ``finally:`` at two depths).
        twin = _verbatim_apart(view, search, stripped[0], len(search), list(range(len(search))))
        if twin is not None:
            k, p = twin
            return MatchFailure(
                f"SEARCH's lines are at line {stripped[0] + 1} with other indentation, but its line "
                f"{quote(search[k].strip(), 60)} stands there at another depth than the others, and at theirs at line "
                f"{p + 1}, so where the edit goes is not certain (SEARCH may have its lines in another order). "
                "Copy the lines exactly from the file",
                "ambiguous",
                stripped[0] + 1,
                candidates=sorted({stripped[0] + 1 + k, p + 1}),
            )
        cand = Candidate(stripped[0], len(search), identity(len(search)), "fuzzy", 1.0)
        return build_match(view, cand, search, replace, strict=True)
    regions, complete = ranked_regions(view, search, limit=3)
    if not regions or regions[0].score is None:
        return None
    if not complete:
        # Made of lines too common to place it, or of no line the file has: a similar region
        # cannot be shown to be the only one, so it is never edited (the diagnosis still names it).
        return None
    best = regions[0]
    best_score: float = regions[0].score
    meaningful = sum(1 for s in search if s.strip())
    threshold = FUZZY_THRESHOLD if meaningful >= 3 else FUZZY_THRESHOLD_SHORT
    if best_score < threshold:
        return None
    others = [r for r in regions[1:] if r.score is not None and r.score > best_score - FUZZY_MARGIN]
    if others:
        listed = ", ".join(f"line {r.start + 1} ({percent(r.score)})" for r in [best, *others])
        return MatchFailure(
            f"Edit location is ambiguous: several places are similar to SEARCH ({listed}); "
            "copy the lines exactly and include more surrounding lines",
            "ambiguous",
            best.start + 1,
            candidates=[r.start + 1 for r in [best, *others]],
        )
    window = view.lines[best.start : best.start + best.length]
    mapping = map_lines(search, window)
    twin = _cut_twin(view, search, best.start, mapping)
    if twin is not None:
        k, p = twin
        return MatchFailure(
            f"the closest region (line {best.start + 1}, {percent(best.score)} similar) has SEARCH's line "
            f"{quote(search[k].strip(), 60)} only as a piece of a longer line, and line {p + 1} begins or ends the "
            "same way among the same lines, so which one is meant is not certain. Copy the whole line",
            "ambiguous",
            best.start + 1,
            candidates=sorted({best.start + 1 + (mapping[k] or 0), p + 1}),
        )
    beside = _verbatim_apart(view, search, best.start, best.length, mapping)
    if beside is not None:
        k, p = beside
        return MatchFailure(
            f"the closest region (line {best.start + 1}, {percent(best.score)} similar) does not have SEARCH's line "
            f"{quote(search[k].strip(), 60)} where SEARCH puts it, yet the file has that line exactly at line {p + 1}, "
            "so where the edit goes is not certain (SEARCH may lack a line the file has, have its lines in another "
            f"order, or be meant for line {p + 1}). Copy the lines exactly from the file",
            "ambiguous",
            best.start + 1,
            candidates=sorted({best.start + 1, p + 1}),
        )
    changed = [
        k
        for tag, i1, i2, _, _ in SequenceMatcher(None, search, replace, autojunk=False).get_opcodes()
        if tag in ("replace", "delete")
        for k in range(i1, i2)
        if search[k].strip()
    ]
    for k in changed:
        w = mapping[k]
        if w is None or line_similarity(search[k], window[w]) < CHANGED_LINE_SIMILARITY:
            return MatchFailure(
                f"the closest region (line {best.start + 1}, {percent(best.score)} similar) does not contain the line "
                f"{quote(search[k].strip(), 60)} that the edit changes; copy it exactly from the file",
                "not_found",
                best.start + 1,
            )
    cand = Candidate(best.start, best.length, mapping, "fuzzy", best.score)
    built = build_match(view, cand, search, replace, strict=True)
    if isinstance(built, MatchFailure):
        return built
    if replace != search and any(r.strip() for r in replace):
        for r in similar_regions(view, replace, limit=1):
            if (
                r.score is not None
                and r.score >= best_score
                and r.start < best.start + best.length
                and best.start < r.start + r.length
            ):
                # REPLACE fits this place at least as well as SEARCH does: the edit may be there
                # already, in part or in another form. Similarity never says "already applied".
                return MatchFailure(
                    f"the closest region (line {best.start + 1}) is only similar to SEARCH ({percent(best_score)}), and at least "
                    f"as similar to REPLACE ({percent(r.score)}): the change may be there already in part, or in another form. "
                    "Copy the current lines exactly into SEARCH",
                    "not_found",
                    best.start + 1,
                    region=(best.start + 1, best.start + best.length),
                    region_text="".join(line + "\n" for line in view.lines[best.start : best.start + best.length]),
                    score=best_score,
                )
    already = _new_lines_present(search, replace, window, mapping)
    if already is not None:
        return MatchFailure(
            f"the closest region (line {best.start + 1}, {percent(best.score)} similar) already contains "
            f"{quote(already.strip(), 60)}, a line this edit adds; part of the change seems applied already. "
            "Copy the current lines exactly into SEARCH",
            "not_found",
            best.start + 1,
        )
    return built


def _cut_twin(view: FileView, search: list[str], start: int, mapping: list[int | None]) -> tuple[int, int] | None:
    """(k, p): a SEARCH line ``k`` that the region at ``start`` has only as a piece of a longer line
    (its start or its end, cut anywhere), while file line ``p`` elsewhere holds it the same way and the
    place it makes for SEARCH has every other line the region has exactly, exactly too: the
    piece fits both, and nothing else tells them apart. None when there is none."""
    stripped = view.stripped
    models = [x.strip() for x in search]
    exact = [(j, start + w) for j, w in enumerate(mapping) if w is not None and stripped[start + w] == models[j]]
    for k, w in enumerate(mapping):
        model = models[k]
        if w is None or not model or stripped[start + w] == model:
            continue
        line = stripped[start + w]
        if not (0 < len(model) < len(line) and _WORD.search(model)):
            continue
        side = line.startswith(model), line.endswith(model)
        if not any(side):
            continue
        for p in _holding(view, model):
            other = stripped[p]
            if p == start + w or len(other) <= len(model) or (other.startswith(model), other.endswith(model)) != side:
                continue
            shift = p - (start + w)
            if all(0 <= q + shift < len(stripped) and stripped[q + shift] == models[j] for j, q in exact):
                return k, p
    return None


def _verbatim_apart(
    view: FileView, search: list[str], start: int, length: int, mapping: list[int | None]
) -> tuple[int, int] | None:
    """(k, p): a SEARCH line ``k`` of two words or more that the region ``start:start+length`` stands
    another line for, while file line ``p`` (anywhere) is that line exactly; or that the region
    stands no line for, while the file has it exactly at ``p`` where
    no other SEARCH line stands, inside the region or, in another order than SEARCH's, beside
    it. The region is then likely misaligned (a line SEARCH left out, or its lines in another
    order). None when there is no such line."""
    stripped = view.stripped
    span = len(search)
    lo, hi = max(0, start - span), min(len(stripped), start + length + span)
    mapped = {start + w for w in mapping if w is not None}
    # A line paired with its twin at another indentation than the other pairs share, while the
    # line stands at that shared indentation in or beside the region where no SEARCH line stands
    # (``break`` under the inner ``if`` taken for the ``break`` under the outer one).
    shifts = Counter(
        indent_width(view.lines[start + w]) - indent_width(search[j])
        for j, w in enumerate(mapping)
        if w is not None and search[j].strip()
    )
    if len(shifts) > 1:
        shift = shifts.most_common(1)[0][0]
        paired = {start + w: j for j, w in enumerate(mapping) if w is not None}
        for k, w in enumerate(mapping):
            model = search[k].strip()
            if w is None or not model or stripped[start + w] != model:
                continue
            if indent_width(view.lines[start + w]) - indent_width(search[k]) == shift:
                continue
            for p in range(lo, hi):
                if (
                    # Free, or paired with another SEARCH line of the same text (the two paired
                    # crosswise: ``try:`` under ``try:`` copied the other way round).
                    (p not in mapped or (paired[p] != k and search[paired[p]].strip() == model))
                    and stripped[p] == model
                    and indent_width(view.lines[p]) - indent_width(search[k]) == shift
                ):
                    return k, p
    for k, w in enumerate(mapping):
        model = search[k].strip()
        if not model or (w is not None and stripped[start + w] == model):
            continue
        few = len(_WORDS.findall(model)) < 2
        if few and w is not None:
            # A line of few words (a docstring's quotes, a brace) stands in many places; the one
            # right beside the region, though, says the region is one line off (``setcopyright()``
            # taken for the ``sethelper()`` after it, SEARCH having left that line out).
            for p in (start - 1, start + length):
                if 0 <= p < len(stripped) and p not in mapped and stripped[p] == model:
                    return k, p
            continue
        if w is not None:
            # Stood for another line while the file has this one exactly: beside the region (a line
            # left out of SEARCH), or anywhere else (the region is the wrong one of two like it).
            for p in view.stripped_places(model, view.positions()):
                if p not in mapped:
                    return k, p
            continue
        for p in range(lo, hi):
            if stripped[p] != model or p in mapped:
                continue
            if start <= p < start + length:
                return k, p  # stood for none while the region has it
            # Stood for none, the line just outside the region: misaligned only when SEARCH has it
            # in another order than the file around the lines the region stands for.
            if any((j < k) != (start + v < p) for j, v in enumerate(mapping) if v is not None):
                return k, p
    return None


def _new_lines_present(
    search: list[str], replace: list[str], window: list[str], mapping: list[int | None]
) -> str | None:
    """A line the edit adds that the region already has outside the lines SEARCH stands for."""
    s_set = {s.strip() for s in search}
    added = {r.strip() for r in replace if r.strip() and r.strip() not in s_set}
    mapped = {w for w in mapping if w is not None}
    for w, line in enumerate(window):
        if w not in mapped and line.strip() in added:
            return line
    return None
