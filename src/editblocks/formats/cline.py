"""``cline``: the SEARCH/REPLACE dialect of the Cline editor extension.

::

    <replace_in_file>
    <path>src/app.py</path>
    <diff>
    ------- SEARCH
    lines copied from the file
    =======
    the lines that take their place
    +++++++ REPLACE
    </diff>
    </replace_in_file>

Three or more of each sign make a marker (``--- SEARCH``, ``===``, ``+++ REPLACE``). The path
comes from a ``<path>`` line or, as for ``diff``, from a path line before the block; later blocks
in the same ``<diff>`` reuse it. The semantics are those of ``diff``: an empty SEARCH creates the
file. A block with more than one ``===`` line is refused: which one divides it cannot be told.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import ClassVar

from editblocks.formats.base import EditFormat, LineParser, LineView, OpenBlock, ParseItem, text_of
from editblocks.formats.common import MarkerParser, PathLookback, clean_path, parse_fence
from editblocks.models import EditBlock, ParseWarning

START = re.compile(r"^\s*-{3,}\s*SEARCH>?\s*$")
DIVIDER = re.compile(r"^\s*={3,}\s*$")
END = re.compile(r"^\s*\+{3,}\s*REPLACE>?\s*$")
_PATH_TAG = re.compile(r"^\s*<path>\s*(.*?)\s*</path>\s*$")
_WRAPPER_TAG = re.compile(r"^\s*</?(?:diff|replace_in_file|args)\s*>\s*$")

_OUTSIDE, _SEARCH, _REPLACE = range(3)
FORMAT = "cline"


class ClinePaths(PathLookback):
    """The path lookback of ``diff``, reading ``<path>...</path>`` lines of a tool call too."""

    def find(self, lineno: int) -> tuple[str | None, str]:
        lines = self.lines
        seen = 0
        for n in range(lineno - 1, max(self._floor, lineno - 17), -1):
            text = lines[n - 1]
            if not text.strip():
                continue
            m = _PATH_TAG.match(text)
            if m:
                return clean_path(m.group(1)) or m.group(1).strip() or None, "line"
            seen += 1
            if seen > 4 or not (_WRAPPER_TAG.match(text) or parse_fence(text) is not None):
                break
        return super().find(lineno)


class ClineParser(MarkerParser):
    """Line state machine for ``------- SEARCH`` blocks; block texts come from the line store."""

    wake = re.compile(r"\s*(?:-{3,}\s*SEARCH|\+{3,}\s*REPLACE)")
    wake_words = ("---", "+++")
    paths_class = ClinePaths

    def __init__(self) -> None:
        super().__init__()
        self._sep = 0
        self._views: tuple[LineView, LineView] | None = None

    def open_block(self) -> OpenBlock | None:
        if self._state == _OUTSIDE or self._views is None:
            return None
        return OpenBlock(self._start, self._path, FORMAT, *self._views)

    def _begin(self, lineno: int) -> None:
        self._enter(_SEARCH, lineno)
        self._views = (LineView(self.lines, lineno), LineView.empty(self.lines))

    def _abandon(self, lineno: int, message: str) -> ParseWarning:
        self._leave(lineno, kept=False)
        return ParseWarning(self._start, message, FORMAT)

    def _emit(self, lineno: int) -> list[ParseItem]:
        self._leave(lineno, kept=True)
        if not self._path:
            return [
                ParseWarning(
                    self._start, "edit block has no file path; put it in a <path> line before the block", FORMAT
                )
            ]
        lines, start = self.lines, self._start
        return [
            EditBlock(
                file_path=self._path,
                old_lines=text_of(lines, start, self._sep - 1),
                new_lines=text_of(lines, self._sep, lineno - 1),
                format=FORMAT,
                line_number=start,
                end_line=lineno,
                raw_block=text_of(lines, start - 1, lineno),
            )
        ]

    def feed(self, line: str, lineno: int) -> list[ParseItem]:
        if self.owns_lines:
            self.store(line, lineno)
        state = self._state
        if state == _OUTSIDE:
            if START.match(line):
                self._begin(lineno)
            elif END.match(line):
                return [ParseWarning(lineno, "'+++++++ REPLACE' without a '------- SEARCH' before it", FORMAT)]
            else:
                self._paths.note(line, lineno)
            return []
        if START.match(line):
            w = self._abandon(
                lineno,
                f"SEARCH block is not closed with '+++++++ REPLACE' before the next block at line {lineno}; block ignored",
            )
            self._paths.replay(self._start + 1, lineno - 1)
            self._begin(lineno)
            return [w]
        if state == _SEARCH:
            if DIVIDER.match(line):
                self._state = _REPLACE
                self._sep = lineno
                if self._views is not None:
                    self._views[0].stop(lineno - 1)
                    self._views[1].follow(lineno)
            elif END.match(line):
                return [
                    self._abandon(
                        lineno,
                        f"SEARCH block is missing its '=======' separator (reached '+++++++ REPLACE' at line {lineno}); block ignored",
                    )
                ]
            return []
        if END.match(line):
            return self._emit(lineno)
        if DIVIDER.match(line):
            return [
                self._abandon(
                    lineno,
                    f"block has more than one '=======' line (lines {self._sep} and {lineno}), so where SEARCH ends "
                    "cannot be told; block ignored. Split the edit so that no section holds a line of only '=' signs",
                )
            ]
        return []

    def close(self, lineno: int) -> list[ParseItem]:
        if self._state == _OUTSIDE:
            return []
        where = "before its '=======' separator" if self._state == _SEARCH else "before '+++++++ REPLACE'"
        return [
            self._abandon(
                lineno,
                f"reply ends inside the block started at line {self._start} ({where}); the reply looks truncated, block ignored",
            )
        ]


class ClineFormat(EditFormat):
    """Cline's ``replace_in_file`` blocks: ``------- SEARCH`` / ``=======`` / ``+++++++ REPLACE``."""

    name: ClassVar[str] = FORMAT
    description: ClassVar[str] = "Cline replace_in_file: <path>, then ------- SEARCH / ======= / +++++++ REPLACE"
    family: ClassVar[str] = "cline"
    markers: ClassVar[str] = "-=+<"

    def parser(self) -> LineParser:
        return ClineParser()

    def detect(self, text: str) -> float:
        lines = text.split("\n")
        starts = sum(1 for line in lines if START.match(line))
        ends = sum(1 for line in lines if END.match(line))
        n = min(starts, ends)
        return 0.0 if n == 0 else min(1.0, 0.6 + 0.1 * n)

    @staticmethod
    def _body(block: EditBlock) -> str:
        return f"------- SEARCH\n{block.search_text}=======\n{block.replace_text}+++++++ REPLACE\n"

    def render(self, block: EditBlock) -> str:
        return f"<replace_in_file>\n<path>{block.file_path}</path>\n<diff>\n{self._body(block)}</diff>\n</replace_in_file>\n"

    def render_blocks(self, blocks: Iterable[EditBlock]) -> str:
        """Consecutive blocks of one file share one ``<diff>``."""
        out: list[str] = []
        current: str | None = None
        for block in blocks:
            if block.file_path != current:
                if current is not None:
                    out.append("</diff>\n</replace_in_file>\n\n")
                out.append(f"<replace_in_file>\n<path>{block.file_path}</path>\n<diff>\n")
                current = block.file_path
            out.append(self._body(block))
        if current is not None:
            out.append("</diff>\n</replace_in_file>\n")
        return "".join(out)
