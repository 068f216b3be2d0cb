"""``edit-v3``: guillemet EDIT blocks whose anchor is the common prefix of both sections.

::

    path/to/file.ext
    ««« EDIT
    context lines
    old lines
    ═══════ REPL
    context lines
    new lines
    »»» EDIT END
"""

from __future__ import annotations

import re
from typing import ClassVar

from ..models import EditBlock, ParseWarning
from .base import EditFormat, LineParser, OpenBlock, ParseItem
from .common import PathLookback

START = re.compile(r"^\s*«{3}\s*EDIT\s*$")
REPL = re.compile(r"^\s*═{3,}\s*REPL\s*$")
END = re.compile(r"^\s*»{3}\s*EDIT\s+END\s*$")

_OUTSIDE, _EDIT, _REPL = range(3)


def split_common_prefix(edit: list[str], repl: list[str]) -> tuple[list[str], list[str], list[str]]:
    """(anchor, old, new): the identical leading lines of both sections, and the rest of each."""
    n = 0
    limit = min(len(edit), len(repl))
    while n < limit and edit[n] == repl[n]:
        n += 1
    return edit[:n], edit[n:], repl[n:]


class EditV3Parser(LineParser):
    """Line state machine for ``««« EDIT`` blocks."""

    def __init__(self) -> None:
        self._state = _OUTSIDE
        self._paths = PathLookback()
        self._start = 0
        self._path: str | None = None
        self._source = "none"
        self._edit: list[str] = []
        self._repl: list[str] = []
        self._raw: list[str] = []

    def in_block(self) -> bool:
        return self._state != _OUTSIDE

    def open_block(self) -> OpenBlock | None:
        if self._state == _OUTSIDE:
            return None
        return OpenBlock(self._start, self._path, "edit-v3", self._edit, self._repl)

    def _begin(self, lineno: int, line: str) -> None:
        self._state = _EDIT
        self._start = lineno
        self._path, self._source = self._paths.find()
        self._edit, self._repl, self._raw = [], [], [line]

    def _abandon(self, message: str) -> ParseWarning:
        self._state = _OUTSIDE
        self._paths.reset_after_block(None, "none")
        return ParseWarning(self._start, message, "edit-v3")

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
            w = self._abandon(f"EDIT block is not closed with '»»» EDIT END' before the next block at line {lineno}; block ignored")
            self._paths.replay(self._raw[1:-1], self._start + 1)
            self._begin(lineno, line)
            return [w]
        if state == _EDIT:
            if REPL.match(line):
                self._state = _REPL
            elif END.match(line):
                return [self._abandon(f"EDIT block ends at line {lineno} without its '═══════ REPL' separator; block ignored")]
            else:
                self._edit.append(line)
            return []
        if END.match(line):
            return self._emit(lineno)
        self._repl.append(line)
        return []

    def _emit(self, lineno: int) -> list[ParseItem]:
        self._state = _OUTSIDE
        self._paths.reset_after_block(self._path, self._source)
        if not self._path:
            return [ParseWarning(self._start, "EDIT block has no file path; put the path on the line before '««« EDIT'", "edit-v3")]
        anchor, old, new = split_common_prefix(self._edit, self._repl)
        return [
            EditBlock(
                file_path=self._path,
                anchor="".join(x + "\n" for x in anchor),
                old_lines="".join(x + "\n" for x in old),
                new_lines="".join(x + "\n" for x in new),
                format="edit-v3",
                line_number=self._start,
                end_line=lineno,
                raw_block="\n".join(self._raw) + "\n",
            )
        ]

    def close(self, lineno: int) -> list[ParseItem]:
        if self._state == _OUTSIDE:
            return []
        where = "before '═══════ REPL'" if self._state == _EDIT else "before '»»» EDIT END'"
        return [self._abandon(f"reply ends inside the EDIT block started at line {self._start} ({where}); the reply looks truncated, block ignored")]


class EditV3Format(EditFormat):
    """Guillemet EDIT blocks (exact matching by default)."""

    name: ClassVar[str] = "edit-v3"
    description: ClassVar[str] = "««« EDIT / ═══════ REPL / »»» EDIT END; anchor = common leading lines"
    family: ClassVar[str] = "edit-v3"

    def parser(self) -> LineParser:
        return EditV3Parser()

    def detect(self, text: str) -> float:
        n = sum(1 for line in text.split("\n") if START.match(line))
        return 0.0 if n == 0 else min(1.0, 0.6 + 0.1 * n)

    def render(self, block: EditBlock) -> str:
        # Trailing anchors have no place of their own here: they join both sections.
        edit = block.anchor + block.old_lines + block.trailing_anchor
        repl = block.anchor + block.new_lines + block.trailing_anchor
        return f"{block.file_path}\n««« EDIT\n{edit}═══════ REPL\n{repl}»»» EDIT END\n"
