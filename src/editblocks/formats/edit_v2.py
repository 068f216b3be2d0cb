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

from ..models import EditBlock, ParseWarning
from .base import EditFormat, LineChain, LineParser, OpenBlock, ParseItem
from .common import PathLookback

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


class EditV2Parser(LineParser):
    """Line state machine for ``<<<<<<< EDIT`` blocks."""

    def __init__(self) -> None:
        self._state = _OUTSIDE
        self._paths = PathLookback()
        self._start = 0
        self._path: str | None = None
        self._source = "none"
        self._sections: list[list[str]] = [[], [], [], []]
        self._raw: list[str] = []

    def in_block(self) -> bool:
        return self._state != _OUTSIDE

    def open_block(self) -> OpenBlock | None:
        if self._state == _OUTSIDE:
            return None
        lead, old, new, trail = self._sections
        return OpenBlock(self._start, self._path, "edit-v2", LineChain(lead, old, trail), LineChain(lead, new, trail))

    def _begin(self, lineno: int, line: str) -> None:
        self._state = _LEADING
        self._start = lineno
        self._path, self._source = self._paths.find()
        self._sections = [[], [], [], []]
        self._raw = [line]

    def _abandon(self, message: str) -> ParseWarning:
        self._state = _OUTSIDE
        self._paths.reset_after_block(None, "none")
        return ParseWarning(self._start, message, "edit-v2")

    def _emit(self, lineno: int) -> list[ParseItem]:
        self._state = _OUTSIDE
        self._paths.reset_after_block(self._path, self._source)
        if not self._path:
            return [ParseWarning(self._start, "EDIT block has no file path; put the path on the line before '<<<<<<< EDIT'", "edit-v2")]
        lead, old, new, trail = ("".join(x + "\n" for x in sec) for sec in self._sections)
        return [
            EditBlock(
                file_path=self._path,
                anchor=lead,
                old_lines=old,
                new_lines=new,
                trailing_anchor=trail,
                format="edit-v2",
                line_number=self._start,
                end_line=lineno,
                raw_block="\n".join(self._raw) + "\n",
            )
        ]

    def feed(self, line: str, lineno: int) -> list[ParseItem]:
        state = self._state
        if state == _OUTSIDE:
            if START.match(line):
                self._begin(lineno, line)
            else:
                self._paths.note(line, lineno)
            return []
        self._raw.append(line)
        if START.match(line):
            w = self._abandon(f"EDIT block is not closed before the next '<<<<<<< EDIT' at line {lineno}; block ignored")
            self._paths.replay(self._raw[1:-1], self._start + 1)
            self._begin(lineno, line)
            return [w]
        if state == _LEADING:
            if ANCHOR_SEP.match(line):
                self._state = _OLD
            elif CONTENT_SEP.match(line):
                return [self._abandon(f"EDIT block is missing the '-------' line after its leading anchor (found '=======' at line {lineno}); block ignored")]
            elif END.match(line):
                return [self._abandon(f"EDIT block ends at line {lineno} without '-------' and '=======' sections; block ignored")]
            else:
                self._sections[0].append(line)
        elif state == _OLD:
            if CONTENT_SEP.match(line):
                self._state = _NEW
            elif END.match(line):
                return [self._abandon(f"EDIT block ends at line {lineno} without its '=======' separator; block ignored")]
            else:
                self._sections[1].append(line)
        elif state == _NEW:
            if ANCHOR_SEP.match(line):
                self._state = _TRAILING
            elif END.match(line):
                # No trailing anchor section written: the same as an empty trailing anchor.
                return self._emit(lineno)
            else:
                self._sections[2].append(line)
        else:  # _TRAILING
            if END.match(line):
                return self._emit(lineno)
            self._sections[3].append(line)
        return []

    def close(self, lineno: int) -> list[ParseItem]:
        if self._state == _OUTSIDE:
            return []
        where = _SECTION_NAMES[self._state]
        return [self._abandon(f"reply ends inside the EDIT block started at line {self._start}, in its {where}; the reply looks truncated, block ignored")]


class EditV2Format(EditFormat):
    """Anchored EDIT blocks (exact matching by default)."""

    name: ClassVar[str] = "edit-v2"
    description: ClassVar[str] = "anchored <<<<<<< EDIT blocks: leading anchor, old, new, trailing anchor"
    family: ClassVar[str] = "edit-v2"

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
