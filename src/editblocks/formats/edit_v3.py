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

from editblocks.formats.base import EditFormat, LineParser, LineView, OpenBlock, ParseItem, text_of
from editblocks.formats.common import MarkerParser
from editblocks.models import EditBlock, ParseWarning, make_block

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


class EditV3Parser(MarkerParser):
    """Line state machine for ``««« EDIT`` blocks.

    It keeps the line numbers of a block's markers and takes its text from the line store.
    """

    wake = START
    wake_words = ("«««",)

    def __init__(self) -> None:
        super().__init__()
        self._sep = 0
        self._views: tuple[LineView, LineView] | None = None

    def open_block(self) -> OpenBlock | None:
        if self._state == _OUTSIDE:
            return None
        if self._views is None:
            # Live views of the two sections, made when first asked for (a reply parsed in one
            # go never asks).
            lines, start = self.lines, self._start
            if self._state == _EDIT:
                self._views = (LineView(lines, start), LineView.empty(lines))
            else:
                self._views = (LineView(lines, start, self._sep - 1), LineView(lines, self._sep))
        return OpenBlock(self._start, self._path, "edit-v3", *self._views)

    def _begin(self, lineno: int) -> None:
        self._enter(_EDIT, lineno)
        self._views = None

    def _abandon(self, message: str, lineno: int) -> ParseWarning:
        self._leave(lineno, kept=False)
        return ParseWarning(self._start, message, "edit-v3")

    def feed(self, line: str, lineno: int) -> list[ParseItem]:
        if self.owns_lines:
            self.store(line, lineno)
        state = self._state
        # Every marker holds a run of three '«', '═' or '»': a plain substring test rules most
        # lines out before any pattern is tried.
        if state == _OUTSIDE:
            if "«««" in line and START.match(line):
                self._begin(lineno)
            else:
                self._paths.note(line, lineno)
            return []
        if "«««" in line and START.match(line):
            w = self._abandon(
                f"EDIT block is not closed with '»»» EDIT END' before the next block at line {lineno}; block ignored",
                lineno,
            )
            self._paths.replay(self._start + 1, lineno - 1)
            self._begin(lineno)
            return [w]
        if state == _EDIT:
            if "═══" in line and REPL.match(line):
                self._state = _REPL
                self._sep = lineno
                if self._views is not None:
                    self._views[0].stop(lineno - 1)
                    self._views[1].follow(lineno)
            elif "»»»" in line and END.match(line):
                return [
                    self._abandon(
                        f"EDIT block ends at line {lineno} without its '═══════ REPL' separator; block ignored", lineno
                    )
                ]
            return []
        if "»»»" in line and END.match(line):
            return self._emit(lineno)
        return []

    def _emit(self, lineno: int) -> list[ParseItem]:
        self._leave(lineno, kept=True)
        if not self._path:
            return [
                ParseWarning(
                    self._start, "EDIT block has no file path; put the path on the line before '««« EDIT'", "edit-v3"
                )
            ]
        lines = self.lines
        anchor, old, new = split_common_prefix(lines[self._start : self._sep - 1], lines[self._sep : lineno - 1])
        return [
            make_block(
                self._path,
                anchor="".join(x + "\n" for x in anchor),
                old_lines="".join(x + "\n" for x in old),
                new_lines="".join(x + "\n" for x in new),
                format="edit-v3",
                line_number=self._start,
                end_line=lineno,
                raw_block=text_of(lines, self._start - 1, lineno),
            )
        ]

    def close(self, lineno: int) -> list[ParseItem]:
        if self._state == _OUTSIDE:
            return []
        where = "before '═══════ REPL'" if self._state == _EDIT else "before '»»» EDIT END'"
        return [
            self._abandon(
                f"reply ends inside the EDIT block started at line {self._start} ({where}); the reply looks truncated, block ignored",
                lineno,
            )
        ]


class EditV3Format(EditFormat):
    """Guillemet EDIT blocks (exact matching by default)."""

    name: ClassVar[str] = "edit-v3"
    description: ClassVar[str] = "««« EDIT / ═══════ REPL / »»» EDIT END; anchor = common leading lines"
    family: ClassVar[str] = "edit-v3"
    exact_only: ClassVar[bool] = True
    markers: ClassVar[str] = "«═»"

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
