"""aider's SEARCH/REPLACE blocks: ``diff``, ``diff-fenced`` and their ``editor-`` prompt variants.

The same line parser also reads ``### File:`` sections and ``NEW_FILE`` blocks, so a reply that
mixes these dialects is read in one pass; each block records the dialect it was written in.
"""

from __future__ import annotations

import re
from typing import ClassVar

from ..models import EditBlock, ParseWarning
from .base import EditFormat, LineParser, OpenBlock, ParseItem
from .common import PathLookback, choose_fence

SEARCH = re.compile(r"^\s*<{5,9}\s*SEARCH\s*>?\s*$")
DIVIDER = re.compile(r"^\s*={5,9}\s*$")
REPLACE = re.compile(r"^\s*>{5,9}\s*(?:REPLACE\s*)?$")
NEW_FILE_START = re.compile(r"^\s*<{5,9}\s*NEW_FILE\s*$")
NEW_FILE_END = re.compile(r"^\s*>{5,9}\s*NEW_FILE\s*$")

_OUTSIDE, _SEARCH, _REPLACE, _NEW_FILE = range(4)


def _dialect(source: str, new_file: bool) -> str:
    if new_file or source == "heading":
        return "file-sections"
    return "diff-fenced" if source == "fenced" else "diff"


class SearchReplaceParser(LineParser):
    """Line state machine for SEARCH/REPLACE blocks, ``### File:`` sections and NEW_FILE blocks."""

    def __init__(self) -> None:
        self._state = _OUTSIDE
        self._paths = PathLookback()
        self._start = 0
        self._path: str | None = None
        self._source = "none"
        self._old: list[str] = []
        self._new: list[str] = []
        self._raw: list[str] = []

    def in_block(self) -> bool:
        return self._state != _OUTSIDE

    def open_block(self) -> OpenBlock | None:
        if self._state == _OUTSIDE:
            return None
        if self._state == _NEW_FILE:
            return OpenBlock(self._start, self._path, _dialect(self._source, True), (), self._old)
        return OpenBlock(self._start, self._path, _dialect(self._source, False), self._old, self._new)

    def _begin(self, state: int, lineno: int, line: str) -> None:
        self._state = state
        self._start = lineno
        self._path, self._source = self._paths.find()
        self._old, self._new, self._raw = [], [], [line]

    def _emit(self, lineno: int, new_file: bool) -> list[ParseItem]:
        self._state = _OUTSIDE
        self._paths.reset_after_block(self._path, self._source)
        if not self._path:
            return [ParseWarning(self._start, "edit block has no file path; put the path on the line before the block", "diff")]
        block = EditBlock(
            file_path=self._path,
            old_lines="".join(line + "\n" for line in self._old),
            new_lines="".join(line + "\n" for line in self._new),
            format=_dialect(self._source, new_file),
            line_number=self._start,
            end_line=lineno,
            raw_block="\n".join(self._raw) + "\n",
            new_file=new_file,
        )
        return [block]

    def _abandon(self, lineno: int, message: str) -> ParseWarning:
        self._state = _OUTSIDE
        self._paths.reset_after_block(None, "none")
        return ParseWarning(self._start, message, "diff")

    def feed(self, line: str, lineno: int) -> list[ParseItem]:
        state = self._state
        if state == _OUTSIDE:
            if SEARCH.match(line):
                self._begin(_SEARCH, lineno, line)
            elif NEW_FILE_START.match(line):
                self._begin(_NEW_FILE, lineno, line)
            elif REPLACE.match(line) and "REPLACE" in line:
                return [ParseWarning(lineno, "'>>>>>>> REPLACE' without a '<<<<<<< SEARCH' before it", "diff")]
            else:
                self._paths.note(line, lineno)
            return []
        self._raw.append(line)
        if state == _SEARCH:
            if DIVIDER.match(line):
                self._state = _REPLACE
            elif SEARCH.match(line):
                w = self._abandon(lineno, f"SEARCH block has no '=======' separator before the next block at line {lineno}; block ignored")
                self._paths.replay(self._raw[1:-1], self._start + 1)
                self._begin(_SEARCH, lineno, line)
                return [w]
            elif REPLACE.match(line):
                return [self._abandon(lineno, f"SEARCH block is missing its '=======' separator (reached '>>>>>>> REPLACE' at line {lineno}); block ignored")]
            else:
                self._old.append(line)
            return []
        if state == _REPLACE:
            if REPLACE.match(line):
                return self._emit(lineno, new_file=False)
            if SEARCH.match(line):
                w = self._abandon(lineno, f"block is not closed with '>>>>>>> REPLACE' before the next block at line {lineno}; block ignored")
                self._paths.replay(self._raw[1:-1], self._start + 1)
                self._begin(_SEARCH, lineno, line)
                return [w]
            self._new.append(line)
            return []
        # _NEW_FILE
        if NEW_FILE_END.match(line):
            self._new, self._old = self._old, []
            return self._emit(lineno, new_file=True)
        self._old.append(line)
        return []

    def close(self, lineno: int) -> list[ParseItem]:
        if self._state == _OUTSIDE:
            return []
        what = {
            _SEARCH: "before its '=======' separator",
            _REPLACE: "before '>>>>>>> REPLACE'",
            _NEW_FILE: "before '>>>>>>> NEW_FILE'",
        }[self._state]
        return [self._abandon(lineno, f"reply ends inside the block started at line {self._start} ({what}); the reply looks truncated, block ignored")]


class SearchReplaceFormat(EditFormat):
    """``diff``: the path on its own line, then a fenced SEARCH/REPLACE block."""

    name: ClassVar[str] = "diff"
    description: ClassVar[str] = "aider SEARCH/REPLACE: path line, fence, <<<<<<< SEARCH / ======= / >>>>>>> REPLACE"
    family: ClassVar[str] = "search-replace"
    path_inside_fence: ClassVar[bool] = False
    editor: ClassVar[bool] = False

    def parser(self) -> LineParser:
        return SearchReplaceParser()

    def detect(self, text: str) -> float:
        n = sum(1 for line in text.split("\n") if SEARCH.match(line))
        return 0.0 if n == 0 else min(1.0, 0.6 + 0.1 * n)

    def render(self, block: EditBlock) -> str:
        old = block.search_text
        new = block.replace_text
        fence = choose_fence(old, new)
        body = f"<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n"
        if self.path_inside_fence:
            return f"{fence}\n{block.file_path}\n{body}{fence}\n"
        return f"{block.file_path}\n{fence}\n{body}{fence}\n"


class DiffFencedFormat(SearchReplaceFormat):
    """``diff-fenced``: the path is the first line inside the fence."""

    name = "diff-fenced"
    description = "SEARCH/REPLACE with the path as the first line inside the fence"
    path_inside_fence = True


class EditorDiffFormat(SearchReplaceFormat):
    """``editor-diff``: parsed like ``diff``; its prompt asks for edits only, no shell commands."""

    name = "editor-diff"
    description = "as diff, prompting for edits only (no shell commands)"
    editor = True


class EditorDiffFencedFormat(DiffFencedFormat):
    """``editor-diff-fenced``: parsed like ``diff-fenced``; prompt without shell commands."""

    name = "editor-diff-fenced"
    description = "as diff-fenced, prompting for edits only (no shell commands)"
    editor = True
