"""``edit-v2``: symbol-anchored EDIT blocks with a leading and a trailing anchor.

::

    path/to/file.ext
    <<<<<<< EDIT
    leading anchor (kept)
    -------
    old lines (removed)
    =======
    new lines (inserted)
    -------
    trailing anchor (kept)
    >>>>>>>
"""

from __future__ import annotations

import re
from typing import ClassVar

from editblocks.formats.base import EditFormat, LineChain, LineParser, LineView, OpenBlock, ParseItem, text_of
from editblocks.formats.common import MarkerParser
from editblocks.models import EditBlock, ParseWarning, make_block

START = re.compile(r"^\s*<{5,9}\s*EDIT\s*$")
ANCHOR_SEP = re.compile(r"^\s*-{5,9}\s*$")
CONTENT_SEP = re.compile(r"^\s*={5,9}\s*$")
END = re.compile(r"^\s*>{5,9}\s*(?:EDIT(?:\s+END)?|END)?\s*$")

_OUTSIDE, _LEADING, _OLD, _NEW, _TRAILING = range(5)
_SECTION_NAMES = {
    _LEADING: "leading anchor (no '-------' yet)",
    _OLD: "old lines (no '=======' yet)",
    _NEW: "new lines (no second '-------' yet)",
    _TRAILING: "trailing anchor (no '>>>>>>>' yet)",
}


class EditV2Parser(MarkerParser):
    """Line state machine for ``<<<<<<< EDIT`` blocks.

    It keeps the line numbers of a block's separators and takes its text from the line store.
    """

    wake = START
    wake_words = ("EDIT",)

    def __init__(self) -> None:
        super().__init__()
        self._seps: list[int] = []
        self._views: list[LineView] | None = None

    def _separator(self, lineno: int) -> None:
        """A section ends on ``lineno``: its view stops and the next one follows the store."""
        k = len(self._seps)
        self._seps.append(lineno)
        if self._views is not None:
            self._views[k].stop(lineno - 1)
            self._views[k + 1].follow(lineno)

    def open_block(self) -> OpenBlock | None:
        if self._state == _OUTSIDE:
            return None
        if self._views is None:
            # Live views of the leading anchor, old lines, new lines and trailing anchor, made
            # when first asked for (a reply parsed in one go never asks).
            lines, bounds = self.lines, [self._start, *self._seps]
            views = [LineView(lines, lo, hi - 1) for lo, hi in zip(bounds, bounds[1:])]
            views.append(LineView(lines, bounds[-1]))
            views.extend(LineView.empty(lines) for _ in range(4 - len(views)))
            self._views = views
        lead, old, new, trail = self._views
        return OpenBlock(self._start, self._path, "edit-v2", LineChain(lead, old, trail), LineChain(lead, new, trail))

    def _begin(self, lineno: int) -> None:
        self._enter(_LEADING, lineno)
        self._seps = []
        self._views = None

    def _abandon(self, message: str, lineno: int) -> ParseWarning:
        self._leave(lineno, kept=False)
        return ParseWarning(self._start, message, "edit-v2")

    def _emit(self, lineno: int) -> list[ParseItem]:
        self._leave(lineno, kept=True)
        if not self._path:
            return [
                ParseWarning(
                    self._start,
                    "EDIT block has no file path; put the path on the line before '<<<<<<< EDIT'",
                    "edit-v2",
                )
            ]
        bounds = [self._start, *self._seps, lineno]
        texts = [text_of(self.lines, a, b - 1) for a, b in zip(bounds, bounds[1:])]
        lead, old, new, trail = (texts + ["", "", "", ""])[:4]
        return [
            make_block(
                self._path,
                anchor=lead,
                old_lines=old,
                new_lines=new,
                trailing_anchor=trail,
                format="edit-v2",
                line_number=self._start,
                end_line=lineno,
                raw_block=text_of(self.lines, self._start - 1, lineno),
            )
        ]

    def feed(self, line: str, lineno: int) -> list[ParseItem]:
        if self.owns_lines:
            self.store(line, lineno)
        # Every marker holds a run of five '<', '-', '=' or '>': a plain substring test rules
        # most lines out before any pattern is tried.
        state = self._state
        if state == _OUTSIDE:
            if "<<<<<" in line and START.match(line):
                self._begin(lineno)
            else:
                self._paths.note(line, lineno)
            return []
        if "<<<<<" in line and START.match(line):
            w = self._abandon(
                f"EDIT block is not closed before the next '<<<<<<< EDIT' at line {lineno}; block ignored", lineno
            )
            self._paths.replay(self._start + 1, lineno - 1)
            self._begin(lineno)
            return [w]
        if state == _LEADING:
            if "-----" in line and ANCHOR_SEP.match(line):
                self._state = _OLD
                self._separator(lineno)
            elif "=====" in line and CONTENT_SEP.match(line):
                return [
                    self._abandon(
                        f"EDIT block is missing the '-------' line after its leading anchor (found '=======' at line {lineno}); block ignored",
                        lineno,
                    )
                ]
            elif ">>>>>" in line and END.match(line):
                return [
                    self._abandon(
                        f"EDIT block ends at line {lineno} without '-------' and '=======' sections; block ignored",
                        lineno,
                    )
                ]
        elif state == _OLD:
            if "=====" in line and CONTENT_SEP.match(line):
                self._state = _NEW
                self._separator(lineno)
            elif ">>>>>" in line and END.match(line):
                return [
                    self._abandon(
                        f"EDIT block ends at line {lineno} without its '=======' separator; block ignored", lineno
                    )
                ]
        elif state == _NEW:
            if "-----" in line and ANCHOR_SEP.match(line):
                self._state = _TRAILING
                self._separator(lineno)
            elif ">>>>>" in line and END.match(line):
                # Without its second '-------', the trailing anchor's lines would be read as new
                # lines and written twice: the block is malformed, not "no trailing anchor".
                return [
                    self._abandon(
                        f"EDIT block ends at line {lineno} without the '-------' line before its trailing anchor "
                        "(write '-------' even when the trailing anchor is empty); block ignored",
                        lineno,
                    )
                ]
        elif ">>>>>" in line and END.match(line):  # _TRAILING
            return self._emit(lineno)
        return []

    def close(self, lineno: int) -> list[ParseItem]:
        if self._state == _OUTSIDE:
            return []
        where = _SECTION_NAMES[self._state]
        return [
            self._abandon(
                f"reply ends inside the EDIT block started at line {self._start}, in its {where}; the reply looks truncated, block ignored",
                lineno,
            )
        ]


class EditV2Format(EditFormat):
    """Anchored EDIT blocks (exact matching by default)."""

    name: ClassVar[str] = "edit-v2"
    description: ClassVar[str] = "anchored <<<<<<< EDIT blocks: leading anchor, old, new, trailing anchor"
    family: ClassVar[str] = "edit-v2"
    exact_only: ClassVar[bool] = True
    markers: ClassVar[str] = "<->="

    def parser(self) -> LineParser:
        return EditV2Parser()

    def detect(self, text: str) -> float:
        n = sum(1 for line in text.split("\n") if START.match(line))
        return 0.0 if n == 0 else min(1.0, 0.6 + 0.1 * n)

    def render(self, block: EditBlock) -> str:
        return (
            f"{block.file_path}\n<<<<<<< EDIT\n{block.anchor}-------\n{block.old_lines}"
            f"=======\n{block.new_lines}-------\n{block.trailing_anchor}>>>>>>>\n"
        )
