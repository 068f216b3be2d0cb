"""Applying an edit as a delta onto a tolerantly matched region.

The model's SEARCH text is diffed against its REPLACE text; only the lines it changed are
carried onto the file. Lines it left unchanged keep the file's exact text, and inserted lines
are re-indented into the file's own style, keeping their relative indentation.
"""

from __future__ import annotations

from collections.abc import Sequence
from difflib import SequenceMatcher

from .text import IndentStyle, detect_style, indent_of


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

    def uniform(self, search: Sequence[str], window: Sequence[str], mapping: Sequence[int | None]) -> bool:
        """True when every matched line is shifted by the same number of levels, keeping its
        extra alignment spaces (what the indentation strategy requires)."""
        shifts = set(self.shift.values())
        if len(shifts) > 1:
            return False
        for i, w in enumerate(mapping):
            if w is None or not search[i].strip():
                continue
            if self.model_style.level(indent_of(search[i]))[1] != self.file_style.level(indent_of(window[w]))[1]:
                return False
        return True

    def shift_near(self, index: int) -> int:
        """The level shift of the matched search line nearest to search line ``index``."""
        if not self._known:
            return 0
        best = min(self._known, key=lambda k: (abs(k - index), k))
        return self.shift[best]

    def apply(self, line: str, shift: int) -> str:
        if self.identical:
            return line
        if not line.strip():
            return ""
        levels, extra = self.model_style.level(indent_of(line))
        return self.file_style.make(levels + shift, extra) + line.lstrip(" \t")


class DeltaError(ValueError):
    """The change cannot be carried onto the matched region with certainty."""


def apply_delta(
    search: Sequence[str],
    replace: Sequence[str],
    window: Sequence[str],
    mapping: Sequence[int | None],
    file_style: IndentStyle,
) -> list[str]:
    """The new lines for ``window``: ``search`` → ``replace`` changes carried onto the file's lines.

    ``mapping[i]`` is the index in ``window`` of search line ``i`` (None when the file has no
    counterpart). Window lines that no search line maps to are kept. A search line the model
    deletes or replaces must have a counterpart, or the delta is refused.
    """
    reindent = Reindenter(search, replace, window, mapping, file_style)
    out: list[str] = []
    w_pos = 0
    ops = SequenceMatcher(None, list(search), list(replace), autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            for k in range(i1, i2):
                w = mapping[k]
                if w is not None:
                    out.extend(window[w_pos : w + 1])
                    w_pos = w + 1
            continue
        if tag in ("delete", "replace"):
            for k in range(i1, i2):
                w = mapping[k]
                if w is None:
                    if search[k].strip():
                        raise DeltaError(f"the line {search[k].strip()[:60]!r} to be changed has no counterpart in the file")
                    continue
                out.extend(window[w_pos:w])
                w_pos = w + 1
        anchor = i1 if tag != "insert" else max(i1 - 1, 0)
        shift = reindent.shift_near(anchor)
        out.extend(reindent.apply(line, shift) for line in replace[j1:j2])
    out.extend(window[w_pos:])
    return out
