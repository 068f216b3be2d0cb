"""aider's SEARCH/REPLACE blocks: ``diff``, ``diff-fenced`` and their ``editor-`` prompt variants.

The same line parser also reads ``### File:`` sections and ``NEW_FILE`` blocks, so a reply that
mixes these dialects is read in one pass; each block records the dialect it was written in.
"""

from __future__ import annotations

import re
from typing import ClassVar

from editblocks.formats.base import EditFormat, LineParser, LineView, OpenBlock, ParseItem, text_of
from editblocks.formats.common import MarkerParser
from editblocks.models import EditBlock, ParseWarning, make_block
from editblocks.quoting import choose_fence

SEARCH = re.compile(r"^\s*<{5,9}\s*SEARCH\s*>?\s*$")
DIVIDER = re.compile(r"^\s*={5,9}\s*$")
REPLACE = re.compile(r"^\s*>{5,9}\s*(?:REPLACE\s*)?$")
NEW_FILE_START = re.compile(r"^\s*<{5,9}\s*NEW_FILE\s*$")
NEW_FILE_END = re.compile(r"^\s*>{5,9}\s*NEW_FILE\s*$")
# Roo Code's line hints right after the SEARCH marker, then a '-------' line.
LINE_HINT = re.compile(r"^\s*:(start|end)_line:\s*(\d{1,9})\s*$")
HINT_SEPARATOR = re.compile(r"^\s*-{5,9}\s*$")


def start_line_hint(lines: list[str], lo: int, hi: int) -> tuple[int | None, int]:
    """Roo's ``:start_line:N`` (and ``:end_line:N``) lines opening SEARCH, which spans lines
    ``lo:hi`` (0-based) of the store, with the ``-------`` line after them: (N or None, how many
    lines they take). Without a hint line a ``-------`` line is content."""
    if lo >= hi or ":" not in lines[lo]:
        return None, 0
    k, hint = lo, None
    while k < hi:
        m = LINE_HINT.match(lines[k])
        if m is None:
            break
        if m.group(1) == "start":
            hint = int(m.group(2))
        k += 1
    if k == lo:
        return None, 0
    if k < hi and HINT_SEPARATOR.match(lines[k]):
        k += 1
    return hint, k - lo


class _SearchView(LineView):
    """The live view of SEARCH without Roo's hint lines (which are not text to search for)."""

    __slots__ = ("_final_skip",)

    def __init__(self, lines: list[str], lo: int, hi: int | None = None) -> None:
        super().__init__(lines, lo, hi)
        self._final_skip = -1
        """How many hint lines open the view, once a line after them makes that final."""

    def _skip(self) -> int:
        if self._final_skip >= 0:
            return self._final_skip
        end = self._end()
        skip = start_line_hint(self._lines, self._lo, end)[1]
        if self._lo + skip < end or self._hi is not None:
            self._final_skip = skip
        return skip

    def __len__(self) -> int:
        return max(0, LineView.__len__(self) - self._skip())

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        lo = self._lo + self._skip()
        if isinstance(index, slice):
            start, stop, step = index.indices(max(0, self._end() - lo))
            return self._lines[lo + start : lo + stop : step]
        return LineView(self._lines, lo, self._end())[index]


_OUTSIDE, _SEARCH, _REPLACE, _NEW_FILE = range(4)


def _dialect(source: str, new_file: bool) -> str:
    if new_file or source == "heading":
        return "file-sections"
    return "diff-fenced" if source == "fenced" else "diff"


class SearchReplaceParser(MarkerParser):
    """Line state machine for SEARCH/REPLACE blocks, ``### File:`` sections and NEW_FILE blocks.

    It keeps the line numbers of a block's markers and takes its text from the line store.
    """

    wake = re.compile(r"\s*(?:<{5,9}\s*(?:SEARCH|NEW_FILE)|>{5,9}\s*REPLACE)")
    wake_words = ("<<<<<", ">>>>>")

    def __init__(self) -> None:
        super().__init__()
        self._sep = 0
        self._more_seps: list[int] = []
        self._views: tuple[LineView, LineView] | None = None

    def open_block(self) -> OpenBlock | None:
        state = self._state
        if state == _OUTSIDE:
            return None
        if self._views is None:
            # Live views of the block's texts, made when first asked for (a reply parsed in one
            # go never asks): SEARCH grows until the divider, then REPLACE does.
            lines, start = self.lines, self._start
            if state == _NEW_FILE:
                self._views = (LineView.empty(lines), LineView(lines, start))
            elif state == _SEARCH:
                self._views = (_SearchView(lines, start), LineView.empty(lines))
            else:
                self._views = (_SearchView(lines, start, self._sep - 1), LineView(lines, self._sep))
        old, new = self._views
        if state == _NEW_FILE:
            return OpenBlock(self._start, self._path, _dialect(self._source, True), (), new)
        return OpenBlock(self._start, self._path, _dialect(self._source, False), old, new)

    def _begin(self, state: int, lineno: int) -> None:
        self._enter(state, lineno)
        self._views = None

    def _emit(self, lineno: int, new_file: bool) -> list[ParseItem]:
        self._leave(lineno, kept=True)
        if not self._path:
            return [
                ParseWarning(
                    self._start, "edit block has no file path; put the path on the line before the block", "diff"
                )
            ]
        lines, start = self.lines, self._start
        splits: tuple[tuple[str, str], ...] = ()
        balanced = False
        if new_file:
            old, new = "", text_of(lines, start, lineno - 1)
            raw = f"{lines[start - 1]}\n{new}{lines[lineno - 1]}\n"
        else:
            old, new = text_of(lines, start, self._sep - 1), text_of(lines, self._sep, lineno - 1)
            raw = f"{lines[start - 1]}\n{old}{lines[self._sep - 1]}\n{new}{lines[lineno - 1]}\n"
            others = list(self._more_seps)
            if others and len(others) % 2 == 0 and start + 1 < self._sep:
                # As many '=======' lines before a separator as after it: the edit of underlined text.
                middle = others.pop(len(others) // 2 - 1)
                others.insert(0, middle)
                balanced = True
            # Each reading's SEARCH is a prefix of the next one's, so if one is in a file, every
            # earlier one is too: whether exactly one reading fits is decided by the first two
            # with a SEARCH of more than blank lines. Only those are made (linear in the block,
            # however many '=======' lines it has).
            splits = tuple(
                (text_of(lines, start, sep - 1), text_of(lines, sep, lineno - 1))
                for sep in others[: 1 if balanced else 2]
            )
        hint, skip = (None, 0) if new_file else start_line_hint(lines, start, self._sep - 1)
        if skip:
            cut = len(text_of(lines, start, start + skip))
            old = old[cut:]
            splits = tuple((o[cut:], n) for o, n in splits)
        return [
            make_block(
                self._path,
                old_lines=old,
                new_lines=new,
                hint_line=hint,
                format=_dialect(self._source, new_file),
                line_number=start,
                end_line=lineno,
                raw_block=raw,
                new_file=new_file,
                other_splits=splits,
                split_balanced=balanced,
            )
        ]

    def _abandon(self, lineno: int, message: str) -> ParseWarning:
        self._leave(lineno, kept=False)
        return ParseWarning(self._start, message, "diff")

    def _restart(self, lineno: int, message: str) -> list[ParseItem]:
        """The block is abandoned at a new SEARCH marker on ``lineno``, which starts the next block."""
        w = self._abandon(lineno, message)
        self._paths.replay(self._start + 1, lineno - 1)
        self._begin(_SEARCH, lineno)
        return [w]

    def feed(self, line: str, lineno: int) -> list[ParseItem]:
        if self.owns_lines:
            self.store(line, lineno)
        # Every marker holds a run of five '<', '=' or '>': a plain substring test rules most
        # lines out before any pattern is tried.
        state = self._state
        if state == _OUTSIDE:
            if "<<<<<" in line:
                if SEARCH.match(line):
                    self._begin(_SEARCH, lineno)
                    return []
                if NEW_FILE_START.match(line):
                    self._begin(_NEW_FILE, lineno)
                    return []
            elif ">>>>>" in line and REPLACE.match(line) and "REPLACE" in line:
                return [ParseWarning(lineno, "'>>>>>>> REPLACE' without a '<<<<<<< SEARCH' before it", "diff")]
            self._paths.note(line, lineno)
            return []
        if state == _SEARCH:
            if "=====" in line:
                if DIVIDER.match(line):
                    self._state = _REPLACE
                    self._sep = lineno
                    self._more_seps = []
                    if self._views is not None:
                        self._views[0].stop(lineno - 1)
                        self._views[1].follow(lineno)
            elif "<<<<<" in line:
                if SEARCH.match(line):
                    return self._restart(
                        lineno,
                        f"SEARCH block has no '=======' separator before the next block at line {lineno}; block ignored",
                    )
            elif ">>>>>" in line and REPLACE.match(line):
                return [
                    self._abandon(
                        lineno,
                        f"SEARCH block is missing its '=======' separator (reached '>>>>>>> REPLACE' at line {lineno}); block ignored",
                    )
                ]
            return []
        if state == _REPLACE:
            if ">>>>>" in line:
                if REPLACE.match(line):
                    return self._emit(lineno, new_file=False)
            elif "<<<<<" in line:
                if SEARCH.match(line):
                    return self._restart(
                        lineno,
                        f"block is not closed with '>>>>>>> REPLACE' before the next block at line {lineno}; block ignored",
                    )
            elif "=====" in line and DIVIDER.match(line):
                self._more_seps.append(lineno)
            return []
        # _NEW_FILE
        if ">>>>>" in line and NEW_FILE_END.match(line):
            return self._emit(lineno, new_file=True)
        return []

    def close(self, lineno: int) -> list[ParseItem]:
        if self._state == _OUTSIDE:
            return []
        what = {
            _SEARCH: "before its '=======' separator",
            _REPLACE: "before '>>>>>>> REPLACE'",
            _NEW_FILE: "before '>>>>>>> NEW_FILE'",
        }[self._state]
        return [
            self._abandon(
                lineno,
                f"reply ends inside the block started at line {self._start} ({what}); the reply looks truncated, block ignored",
            )
        ]


class SearchReplaceFormat(EditFormat):
    """``diff``: the path on its own line, then a fenced SEARCH/REPLACE block."""

    name: ClassVar[str] = "diff"
    description: ClassVar[str] = "aider SEARCH/REPLACE: path line, fence, <<<<<<< SEARCH / ======= / >>>>>>> REPLACE"
    family: ClassVar[str] = "search-replace"
    aider_reading: ClassVar[bool] = True
    markers: ClassVar[str] = "<=>"
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
