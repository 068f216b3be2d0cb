"""Applying an edit as a delta onto a tolerantly matched region.

The model's SEARCH text is diffed against its REPLACE text; only the lines it changed are
carried onto the file. Lines it left unchanged keep the file's exact text, and inserted lines
are re-indented into the file's own style, keeping their relative indentation.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from difflib import SequenceMatcher

from editblocks.matching.merge import merge_line
from editblocks.matching.text import IndentStyle, detect_style, indent_of
from editblocks.quoting import quote


class Reindenter:
    """Maps the model's indentation onto the file's, from pairs of matched lines."""

    def __init__(
        self,
        search: Sequence[str],
        replace: Sequence[str],
        window: Sequence[str],
        mapping: Sequence[int | None],
        file_style: IndentStyle,
    ) -> None:
        self.file_style = file_style
        self.model_style = detect_style([*search, *replace], fallback=file_style)
        if self.model_style.tabs == file_style.tabs and not file_style.tabs:
            # Same kind of indentation: prefer the file's unit when it fits the model's lines.
            widths = [len(indent_of(x)) for x in [*search, *replace] if x.strip() and indent_of(x)]
            if widths and all(w % file_style.unit == 0 for w in widths):
                self.model_style = file_style
        self.shift: dict[int, int] = {}
        self.identical = True
        for i, w in enumerate(mapping):
            if w is None or not search[i].strip() or not window[w].strip():
                continue
            s_ind, w_ind = indent_of(search[i]), indent_of(window[w])
            if s_ind != w_ind:
                self.identical = False
            ls, es = self.model_style.level(s_ind)
            lw, ew = file_style.level(w_ind)
            self.shift[i] = lw - ls
        self._known = sorted(self.shift)
        self._mixed: bool | None = None
        """SEARCH's lines are shifted from the file's by different amounts (some copied with
        their indentation lost or changed): a new line placed by one of them is uncertain,
        unless REPLACE shows it is written in SEARCH's indentation (:attr:`search_frame`).
        Worked out when first needed (see :meth:`mixed`)."""
        self.search_frame = False
        """REPLACE repeats, as SEARCH has it, a SEARCH line indented unlike its file line (set by
        :func:`apply_delta`, which compares the two)."""

    def uniform(self, search: Sequence[str], window: Sequence[str], mapping: Sequence[int | None]) -> bool:
        """True when every matched line is shifted by the same number of levels, keeping its
        extra alignment spaces (what the indentation strategy requires)."""
        pairs = [
            (indent_of(search[i]), indent_of(window[w]))
            for i, w in enumerate(mapping)
            if w is not None and search[i].strip()
        ]
        if all("\t" not in s + w for s, w in pairs):
            # Spaces only: one column offset for every line.
            return len({len(w) - len(s) for s, w in pairs}) <= 1
        shifts = set(self.shift.values())
        if len(shifts) > 1:
            return False
        for i, w in enumerate(mapping):
            if w is None or not search[i].strip():
                continue
            if self.model_style.level(indent_of(search[i]))[1] != self.file_style.level(indent_of(window[w]))[1]:
                return False
        return True

    def mixed(self, search: Sequence[str], window: Sequence[str], mapping: Sequence[int | None]) -> bool:
        """Whether SEARCH's lines are shifted by different amounts (not :meth:`uniform`), worked
        out once."""
        if self._mixed is None:
            self._mixed = not self.uniform(search, window, mapping)
        return self._mixed

    def reference(self, index: int) -> int | None:
        """The matched, non-blank search line nearest to search line ``index``."""
        if not self._known:
            return None
        return min(self._known, key=lambda k: (abs(k - index), k))

    def apply(
        self, line: str, ref: int | None, search: Sequence[str], window: Sequence[str], mapping: Sequence[int | None]
    ) -> str:
        """``line`` re-indented as its reference search line was moved onto its file line."""
        if self.identical:
            return line
        if not line.strip():
            return ""
        body = line.lstrip(" \t")
        if ref is None:
            return line
        w = mapping[ref]
        assert w is not None
        s_ind, w_ind, r_ind = indent_of(search[ref]), indent_of(window[w]), indent_of(line)
        if r_ind == s_ind:
            return w_ind + body
        mixed = self.mixed(search, window, mapping)
        if (
            len(s_ind) < len(w_ind) <= len(r_ind)
            and line != window[w]
            and (mixed or sum(1 for x in search if x.strip()) == 1)
        ):
            # Written at (or past) the file's indentation, beside a SEARCH line copied with less
            # than its own, where SEARCH's other lines show no frame (they are shifted otherwise,
            # or there are none): meant where it is written, or shifted with SEARCH's line? Nothing tells.
            raise DeltaError(
                f"{quote(body.strip(), 60)} is indented in the file's way beside {quote(window[w].strip(), 60)}, but SEARCH "
                "has that line with less indentation, so whether the new line keeps its indentation or moves with "
                "SEARCH's is not certain. Copy SEARCH's lines exactly as the file has them, with their indentation"
            )
        if mixed and not self.search_frame and s_ind != w_ind:
            if line == window[w]:
                return line  # the file's own line, as the file has it
            # REPLACE's line may be written in the file's indentation or in SEARCH's (then
            # shifted): SEARCH's other lines do not tell which, being shifted otherwise.
            raise DeltaError(
                f"SEARCH's line {quote(search[ref].strip(), 60)} is indented unlike the file's, and SEARCH's other "
                f"lines are not shifted the same way, so where {quote(body.strip(), 60)} goes in the indentation is "
                "not certain. Copy SEARCH's lines exactly as the file has them, with their indentation"
            )
        if "\t" not in s_ind + r_ind + w_ind:
            # Spaces on both sides: keep the line's offset from its reference, in columns.
            return " " * max(len(w_ind) + len(r_ind) - len(s_ind), 0) + body
        ls, es = self.model_style.level(s_ind)
        lw, ew = self.file_style.level(w_ind)
        lr, er = self.model_style.level(r_ind)
        return self.file_style.make(lw + lr - ls, max(ew + er - es, 0)) + body


def _certain_place(i1: int, i2: int, mapping: Sequence[int | None], search: Sequence[str]) -> bool:
    """True when the search lines around ``i1:i2`` map to adjacent file lines, with no file lines
    or unmatched search lines between them and the changed lines."""
    prev = next((k for k in range(i1 - 1, -1, -1) if mapping[k] is not None), None)
    nxt = next((k for k in range(i2, len(mapping)) if mapping[k] is not None), None)
    inside = [mapping[k] for k in range(i1, i2) if mapping[k] is not None]
    for k in range((prev + 1) if prev is not None else 0, i1):
        if search[k].strip():
            return False
    for k in range(i2, nxt if nxt is not None else len(mapping)):
        if search[k].strip():
            return False
    points = [
        p
        for p in ([mapping[prev]] if prev is not None else []) + inside + ([mapping[nxt]] if nxt is not None else [])
        if p is not None
    ]
    return all(b - a == 1 for a, b in zip(points, points[1:]))


class DeltaError(ValueError):
    """The change cannot be carried onto the matched region with certainty."""


def _same(a: str, b: str) -> bool:
    """Equal but for white space."""
    return a.split() == b.split()


def _merges(
    ops: Sequence[tuple[str, int, int, int, int]],
    search: Sequence[str],
    replace: Sequence[str],
    window: Sequence[str],
    mapping: Sequence[int | None],
) -> dict[int, str]:
    """For each changed SEARCH line that differs from its file line: the REPLACE line's text
    merged word by word onto the file's line (by REPLACE index). A change is carried only onto
    lines the model saw correctly, or by a clean merge; otherwise :class:`DeltaError`."""
    merged: dict[int, str] = {}
    for tag, i1, i2, j1, j2 in ops:
        if tag not in ("replace", "delete"):
            continue
        for k in range(i1, i2):
            w = mapping[k]
            if w is None or _same(search[k], window[w]):
                continue
            line = None
            if tag == "replace" and i2 - i1 == j2 - j1:
                line = merge_line(window[w].strip(), search[k].strip(), replace[j1 + k - i1].strip())
            if line is None:
                what = "removes" if tag == "delete" or k - i1 >= j2 - j1 else "changes"
                raise DeltaError(
                    f"the edit {what} a line the file has as {quote(window[w].strip(), 80)}, and SEARCH has it as "
                    f"{quote(search[k].strip(), 80)}; the change cannot be carried over with certainty. Copy the line "
                    "exactly from the file"
                )
            merged[j1 + k - i1] = line
    return merged


def _shows_search_frame(
    ops: Sequence[tuple[str, int, int, int, int]],
    search: Sequence[str],
    replace: Sequence[str],
    window: Sequence[str],
    mapping: Sequence[int | None],
) -> bool:
    """REPLACE repeats as it is a SEARCH line indented unlike its file line: REPLACE is written in
    SEARCH's indentation (a repeated line indented as the file has it tells nothing). A line
    SEARCH has twice (an ``else:`` at two depths) tells nothing either, and REPLACE writing one
    of SEARCH's shifted lines as the file has it shows the file's indentation: then neither."""
    texts = Counter(x.strip() for x in search)
    shifted = {
        window[w]
        for x, w in zip(search, mapping)
        if x.strip() and w is not None and indent_of(x) != indent_of(window[w])
    }
    shows = False
    for tag, i1, i2, j1, j2 in ops:
        if tag != "equal":
            if any(line in shifted for line in replace[j1:j2]):
                return False  # a line as the file has it, where SEARCH's is shifted
            continue
        for k in range(i1, i2):
            w = mapping[k]
            line = search[k]
            if line.strip() and w is not None and indent_of(line) != indent_of(window[w]) and texts[line.strip()] == 1:
                shows = True
    return shows


def _check_frame(
    ops: Sequence[tuple[str, int, int, int, int]],
    search: Sequence[str],
    replace: Sequence[str],
    window: Sequence[str],
    mapping: Sequence[int | None],
    search_frame: bool,
) -> None:
    """SEARCH is indented unlike the file; refuse when REPLACE begins indented otherwise than
    SEARCH (at the file's indentation, or at another) and repeats none of SEARCH's shifted lines
    as they are. Then REPLACE may be written in the file's indentation (shifting it like SEARCH
    would indent it twice) or in SEARCH's with a change of indentation meant: which one is not
    certain. A REPLACE that repeats a shifted SEARCH line as it is shows SEARCH's indentation,
    and is shifted with it (``search_frame``, see :func:`_shows_search_frame`)."""
    if search_frame:
        return
    pair = next(((line, window[w]) for line, w in zip(search, mapping) if line.strip() and w is not None), None)
    new = next((line for line in replace if line.strip()), None)
    if pair is None or new is None:
        return
    s, w = pair
    if indent_of(s) != indent_of(w) and indent_of(new) != indent_of(s):
        how = "as the file is" if indent_of(new) == indent_of(w) else "unlike SEARCH"
        raise DeltaError(
            f"SEARCH's line {quote(s.strip(), 60)} is indented unlike the file's, and REPLACE begins indented {how}: "
            "whether REPLACE is written in the file's indentation or in SEARCH's is not certain. "
            "Copy SEARCH's lines exactly as the file has them, with their indentation"
        )


def _check_restored(
    ops: Sequence[tuple[str, int, int, int, int]],
    search: Sequence[str],
    replace: Sequence[str],
    window: Sequence[str],
    mapping: Sequence[int | None],
) -> None:
    """Refuse when REPLACE may restore a file line SEARCH left out: it has that line more often
    than SEARCH has it, or it has the line (or the line with more written to it) beside the same
    kept line as the file. Then keeping the file's copy too could leave it twice (or REPLACE adds
    a second copy on purpose): which one is not certain."""
    kept: dict[int, int] = {}  # SEARCH index -> REPLACE index, for lines the edit keeps
    for tag, i1, i2, j1, _j2 in ops:
        if tag == "equal":
            for k in range(i1, i2):
                kept[k] = j1 + k - i1
    in_search = Counter(x.strip() for x in search)
    in_replace = Counter(x.strip() for x in replace)
    placed = sorted((w, k) for k, w in enumerate(mapping) if w is not None)
    bounds: list[tuple[int, int | None]] = [(-1, None), *placed, (len(window), None)]
    for (wa, ka), (wb, kb) in zip(bounds, bounds[1:]):
        run = [window[u].strip() for u in range(wa + 1, wb) if window[u].strip()]
        if not run:
            continue
        beside = window[wa] if wa >= 0 else window[wb]
        for line in run:
            if in_replace[line] > in_search[line]:
                _restored(line, beside)
        for at, line, step in ((ka, run[0], 1), (kb, run[-1], -1)):
            if at is None or at not in kept:
                continue
            # The first non-blank line past the kept line, towards the left-out line: in REPLACE
            # the left-out line itself (or it with more written to it), in SEARCH another.
            theirs = _next_line(replace, kept[at], step)
            ours = _next_line(search, at, step)
            if theirs is not None and theirs != ours and _restates(line, theirs):
                _restored(line, window[wa] if step > 0 else window[wb])


def _restates(line: str, other: str) -> bool:
    """``other`` is ``line``, or holds it with more written to it (``f()  # why`` for ``f()``)."""
    return other == line or (line in other and any(c.isalnum() for c in line))


def _restored(line: str, beside: str) -> None:
    raise DeltaError(
        f"SEARCH leaves out the file's line {quote(line, 60)} beside {quote(beside.strip(), 60)}, and REPLACE has "
        "that line: whether REPLACE restores it or adds a second copy is not certain. Copy the lines exactly from "
        "the file, leaving none out"
    )


def _next_line(lines: Sequence[str], start: int, step: int) -> str | None:
    """The first non-blank line past ``lines[start]`` going by ``step`` (1 or -1), stripped."""
    end = len(lines) if step > 0 else -1
    return next((lines[i].strip() for i in range(start + step, end, step) if lines[i].strip()), None)


def apply_delta(
    search: Sequence[str],
    replace: Sequence[str],
    window: Sequence[str],
    mapping: Sequence[int | None],
    file_style: IndentStyle,
    *,
    strict: bool = False,
) -> list[str]:
    """The new lines for ``window``: ``search`` → ``replace`` changes carried onto the file's lines.

    ``mapping[i]`` is the index in ``window`` of search line ``i`` (None when the file has no
    counterpart). Window lines that no search line maps to are kept. A search line the model
    deletes or replaces must have a counterpart, or the delta is refused. With ``strict`` (for
    similarity matches), new lines must also have a certain place: not beside file lines or
    search lines that have no counterpart on the other side.
    """
    reindent = Reindenter(search, replace, window, mapping, file_style)
    out: list[str] = []
    w_pos = 0
    # A REPLACE line that differs from its SEARCH line only in trailing white space is unchanged.
    ops = SequenceMatcher(
        None, [x.rstrip() for x in search], [x.rstrip() for x in replace], autojunk=False
    ).get_opcodes()
    if not reindent.identical:
        reindent.search_frame = _shows_search_frame(ops, search, replace, window, mapping)
        _check_frame(ops, search, replace, window, mapping, reindent.search_frame)
    _check_restored(ops, search, replace, window, mapping)
    merged = _merges(ops, search, replace, window, mapping)
    mapped = [k for k, w in enumerate(mapping) if w is not None and search[k].strip()]
    first_mapped, last_mapped = (mapped[0], mapped[-1]) if mapped else (0, len(search))
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            for k in range(i1, i2):
                w = mapping[k]
                if w is not None:
                    out.extend(window[w_pos : w + 1])
                    w_pos = w + 1
            continue
        if strict and tag in ("insert", "replace") and not _certain_place(i1, i2, mapping, search):
            line = replace[j1].strip()[:60] if j2 > j1 else ""
            raise DeltaError(
                f"where to put {line!r} is uncertain: the file has lines there that SEARCH does not show, or SEARCH "
                "has lines the file does not have"
            )
        if tag in ("delete", "replace"):
            for k in range(i1, i2):
                w = mapping[k]
                if w is None:
                    if search[k].strip():
                        raise DeltaError(
                            f"the line {quote(search[k].strip(), 60)} to be changed has no counterpart in the file"
                        )
                    if (
                        tag == "replace"
                        and not first_mapped <= k <= last_mapped
                        and any(x.strip() for x in replace[j1:j2])
                    ):
                        # A blank line at SEARCH's edge turned into code: it may stand for a line of
                        # the file the model did not copy, and the code would go beside that line.
                        raise DeltaError(
                            "the edit turns a blank line at the edge of SEARCH into code, and the file has no blank "
                            "line there; copy the lines exactly from the file"
                        )
                    continue
                out.extend(window[w_pos:w])
                w_pos = w + 1
        if tag == "insert" and 0 < i1 < len(search) and any(x.strip() for x in replace[j1:j2]):
            above, below = reindent.reference(i1 - 1), reindent.reference(i1)
            if (
                above is not None
                and below is not None
                and reindent.shift[above] != reindent.shift[below]
                and reindent.mixed(search, window, mapping)
            ):
                # Between SEARCH lines shifted from the file's by different amounts (one copied
                # with its indentation lost): which one the new lines are indented like is not certain.
                raise DeltaError(
                    f"the lines REPLACE adds go between SEARCH's lines {quote(search[above].strip(), 40)} and "
                    f"{quote(search[below].strip(), 40)}, which are indented unlike each other compared with the file, "
                    "so how to indent them is not certain. Copy SEARCH's lines exactly as the file has them, with their "
                    "indentation"
                )
        for t, line in enumerate(replace[j1:j2]):
            if j1 + t in merged:
                line = indent_of(line) + merged[j1 + t]
            if tag == "replace" and i1 + t < i2 and mapping[i1 + t] is not None and search[i1 + t].strip():
                ref: int | None = i1 + t
            else:
                ref = reindent.reference(i1 + min(t, i2 - i1 - 1) if tag == "replace" else max(i1 - 1, 0))
            out.append(reindent.apply(line, ref, search, window, mapping))
    out.extend(window[w_pos:])
    return out
