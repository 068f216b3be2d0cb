"""Similarity search: the regions of a file most like a SEARCH text, found fast on large files.

Candidate regions come from votes: every distinctive SEARCH line found verbatim (stripped) in the
file votes for the region start it implies, so only a handful of regions are scored, with
rapidfuzz, instead of every window of the file.
"""

from __future__ import annotations

from collections import defaultdict
from difflib import SequenceMatcher
from functools import cache
from types import ModuleType

from editblocks.matching.strategies import Candidate, FileView


@cache
def _fuzz() -> ModuleType:
    """rapidfuzz's scorers, loaded when a similarity is first needed (an exact apply needs none)."""
    from rapidfuzz import fuzz

    return fuzz


@cache
def _process() -> ModuleType:
    from rapidfuzz import process

    return process


MAX_STARTS = 40
LENGTH_SLACK = 2
MAX_HITS_PER_LINE = 200
COMMON_SCORE_LIMIT = 0.75
"""Similarity that regions sharing only a search's too-common lines must stay below for the
scored regions to be known to be the only candidates."""
MAX_PROBE_CHARS = 300
"""Characters of a line compared when no search line occurs verbatim (keeps that search linear)."""
CHANGED_LINE_SIMILARITY = 0.6
"""Least similarity between a line the model changes and the file line it is taken to be."""
PAIR_SIMILARITY = 50
"""Least similarity (percent) for a changed search line to be paired with a file line."""


def _index(view: FileView, wanted: set[str]) -> dict[str, list[int]]:
    """Where each of the ``wanted`` stripped lines occurs in the file (0-based line indexes)."""
    known = view.positions()
    if known is not None:
        return {line: known[line] for line in wanted if line in known}
    index: dict[str, list[int]] = defaultdict(list)
    stripped = view.stripped
    for i in [i for i, line in enumerate(stripped) if line in wanted]:
        index[stripped[i]].append(i)
    return index


def _starts(view: FileView, search: list[str]) -> tuple[list[int], bool]:
    """Region starts implied by the search lines found in the file, most voted first, and
    whether they are every place that could match as well (see :func:`similar_regions`)."""
    stripped = [s.strip() for s in search]
    index = _index(view, {s for s in stripped if s})
    votes: dict[int, float] = defaultdict(float)
    complete = True
    common = total = 0
    for i, s in enumerate(stripped):
        if not s:
            continue
        total += len(s)
        hits = index.get(s)
        if not hits:
            continue
        if len(hits) > MAX_HITS_PER_LINE:
            # Too common to vote with: places that only such lines point to are not scored.
            common += len(s)
            continue
        weight = min(len(s), 40) / 40 / len(hits) ** 0.5
        for j in hits:
            votes[j - i] += weight
    if not votes and view.lines:
        # No line survived verbatim: look for the longest lines by similarity instead. This
        # finds the closest places for a diagnosis, never a complete set of candidates.
        complete = False
        longest = sorted((i for i, s in enumerate(stripped) if s), key=lambda i: -len(stripped[i]))[:3]
        for i in longest:
            probe = stripped[i][:MAX_PROBE_CHARS]
            for _, score, j in _process().extract(
                probe, view.stripped, scorer=_fuzz().ratio, processor=_head, limit=5, score_cutoff=50
            ):
                votes[j - i] += score / 100
    if total and common:
        # A region that shares only the too-common lines scores at most about this much; if
        # that could pass for a match, the unscored places could compete with the scored ones.
        share = common / total
        if 2 * share / (1 + share) >= COMMON_SCORE_LIMIT:
            complete = False
    ranked = sorted(votes.items(), key=lambda kv: -kv[1])
    if len(ranked) > MAX_STARTS:
        complete = False
    return [start for start, _ in ranked[:MAX_STARTS]], complete


def _head(line: str) -> str:
    return line[:MAX_PROBE_CHARS]


def region_score(view: FileView, search: list[str], start: int, length: int) -> float:
    """The similarity (0 to 1) of file lines ``start:start+length`` to ``search``, as
    :func:`ranked_regions` scores a region."""
    needle = "\n".join(s.strip() for s in search)
    hay = "\n".join(view.stripped[start : start + length])
    return float(_fuzz().ratio(needle, hay)) / 100


def similar_regions(view: FileView, search: list[str], limit: int = 5) -> list[Candidate]:
    """The regions of the file most similar to ``search``, best first, each at most once.

    A region's score (0 to 1) is the similarity of its stripped lines to the stripped search
    lines, joined; regions may be up to two lines longer or shorter than the search.
    """
    return ranked_regions(view, search, limit)[0]


def ranked_regions(view: FileView, search: list[str], limit: int = 5) -> tuple[list[Candidate], bool]:
    """:func:`similar_regions`, and whether every place that could score as well was scored.

    It is not complete when the search is made of lines too common to locate it, nor when no
    search line is in the file verbatim. Only a complete set can show the best region is unique.
    """
    m = len(search)
    n = len(view.lines)
    if not m or not n:
        return [], False
    needle = "\n".join(s.strip() for s in search)
    scored: dict[tuple[int, int], float] = {}
    starts, complete = _starts(view, search)
    for base in starts:
        for start in range(base - 1, base + 2):
            for length in range(max(1, m - LENGTH_SLACK), m + LENGTH_SLACK + 1):
                if start < 0 or start + length > n or (start, length) in scored:
                    continue
                hay = "\n".join(view.stripped[start : start + length])
                scored[(start, length)] = _fuzz().ratio(needle, hay) / 100
    best: list[Candidate] = []
    for (start, length), score in sorted(scored.items(), key=lambda kv: (-kv[1], abs(kv[0][1] - m), kv[0][0])):
        if any(_overlap(start, length, c.start, c.length) for c in best):
            continue
        best.append(Candidate(start, length, [], "fuzzy", score))
        if len(best) >= limit:
            break
    return best, complete


def _overlap(a: int, alen: int, b: int, blen: int) -> bool:
    return a < b + blen and b < a + alen


def map_lines(search: list[str], window: list[str]) -> list[int | None]:
    """For each search line, the window line it corresponds to (by content, in order), or None."""
    s = [x.strip() for x in search]
    w = [x.strip() for x in window]
    mapping: list[int | None] = [None] * len(search)
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, s, w, autojunk=False).get_opcodes():
        if tag == "equal":
            for k in range(i2 - i1):
                mapping[i1 + k] = j1 + k
        elif tag == "replace":
            # Pair changed lines in order, each with the most similar remaining window line.
            j = j1
            for i in range(i1, i2):
                if j >= j2:
                    break
                rest = w[j:j2]
                ratio = _fuzz().ratio
                pick = max(range(len(rest)), key=lambda k: (ratio(s[i], rest[k]), -k))
                if len(rest) - pick < i2 - i:
                    pick = 0
                if ratio(s[i], rest[pick]) < PAIR_SIMILARITY:
                    continue
                mapping[i] = j + pick
                j = j + pick + 1
    return mapping


def line_similarity(a: str, b: str) -> float:
    """The similarity (0 to 1) of two lines, stripped."""
    return float(_fuzz().ratio(a.strip(), b.strip())) / 100


def similar_lines(view: FileView, line: str, least: float, limit: int) -> list[int]:
    """Indexes of up to ``limit`` file lines at least ``least`` like ``line`` (stripped), best first."""
    probe = line.strip()[:MAX_PROBE_CHARS]
    found = _process().extract(probe, view.stripped, scorer=_fuzz().ratio, limit=limit, score_cutoff=least * 100)
    return [j for _, _, j in found]


def text_similarity(a: str, b: str) -> float:
    """The similarity (0 to 1) of two texts as they are, indentation included."""
    return float(_fuzz().ratio(a, b)) / 100
