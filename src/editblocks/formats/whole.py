"""``whole``: a path line and a fenced block holding the complete new content of the file.

::

    src/app.py
    ```python
    every line of the file, as it should be
    ```

The block replaces the file (or creates it); the diff shows what changes. It is refused when it
is obviously partial: a line like ``// ... rest of code`` or ``# ... existing code ...`` that the
file does not have stands for lines the model left out (see :func:`partial_reason`).

Telling a whole file from an ordinary code fence: prose replies are full of fenced code that is
*not* a file's complete content (a snippet, a usage example, a function shown on its own), and
reading one as a whole file would silently delete the rest of that file. So this format is
**never detected**: it is read only when asked for (``--format whole``,
``parse_reply(text, "whole")``), and even then only fences whose path is on the line just
before them (or in their info string, or a ``### File:`` heading) count; a fence without its own
path (one that would reuse the previous block's path) is never a whole file. A fence whose
content reads as another format's edit blocks is refused rather than written into the file.
"""

from __future__ import annotations

import re
from typing import ClassVar

from editblocks.formats.base import EditFormat, LineParser, LineView, OpenBlock, ParseItem, text_of
from editblocks.formats.common import PathLookback, parse_fence
from editblocks.models import EditBlock, ParseWarning
from editblocks.quoting import choose_fence, quote

FORMAT = "whole"


# Lines an edit block of another format can start with (checked before parsing the content).

_COMMENT = r"(?:#+|//+|/\*+|<!--|--|;+|\{/\*|\*)"
_ELIDED_WORDS = (
    r"(?:rest|remaining|remainder|other|existing|unchanged|same|previous|omitted|more|original|everything else)"
)
_PARTIAL = [
    # "// ... rest of code", "# ... existing code ...", "/* ... */"
    re.compile(
        rf"^\s*{_COMMENT}\s*(?:\.\.\.|…)\s*(?:\(?\s*(?:the\s+)?{_ELIDED_WORDS}\b.*|\*+/|-->|\*/\}})?\s*$", re.IGNORECASE
    ),
    # "// rest of the code stays the same", "# existing code here", "<!-- unchanged -->"
    re.compile(
        rf"^\s*{_COMMENT}\s*(?:\.\.\.|…)?\s*\(?\s*(?:the\s+)?(?:rest of (?:the )?(?:code|file|class|function|module|implementation|methods?)|"
        rf"existing (?:code|methods?|functions?|imports?|content)|"
        rf"(?:code|content|everything) (?:remains|stays|is) (?:the same|unchanged)|unchanged (?:code|lines|content)|"
        rf"(?:other|remaining) (?:methods|functions|code|lines)(?: (?:unchanged|as before|remain unchanged))?|"
        rf"same as before|as before)\b.*$",
        re.IGNORECASE,
    ),
]


_FENCE_LINE = re.compile(r"^\s*(?:`{3,}|~{3,})")


def partial_reason(new_text: str, old_text: str | None, path: str = "") -> str | None:
    """Why a whole-file block looks partial, or None.

    A line that stands for left-out lines (a comment holding only ``...`` or words like "rest of
    code", "existing code", "unchanged") makes it partial, unless the file already has that very
    line (then it is content), or ``path`` is a document (Markdown, reStructuredText) and the
    line is inside one of its fenced code examples.
    """
    have = {line.strip() for line in old_text.split("\n")} if old_text else set()
    from editblocks.syntax.languages import is_document  # loaded when a whole file is read

    document, fenced = is_document(path), False
    for n, line in enumerate(new_text.split("\n"), start=1):
        s = line.strip()
        if document and _FENCE_LINE.match(line):
            fenced = not fenced
        if not s or s in have or fenced:
            continue
        if any(p.match(line) for p in _PARTIAL):
            return (
                f"line {n} of the new content, {quote(s, 60)}, stands for lines left out: the block is not the "
                "complete file. Write out every line of the file"
            )
    return None


_OUTSIDE, _IN, _SKIP = range(3)


class WholeParser(LineParser):
    """Reads fenced blocks that have their own path line; each is a complete file."""

    wake = re.compile(r"\s*(?:`{3,}|~{3,})")
    wake_words = ("```", "~~~")
    format: ClassVar[str] = FORMAT
    """What the fence holds, for warnings."""

    def __init__(self) -> None:
        self._paths = PathLookback()
        self.lines = self._paths.lines
        self._state = _OUTSIDE
        self._fence = ""
        self._depth = 0
        self._start = 0
        self._path: str | None = None
        self._view: LineView | None = None

    def bind(self, lines: list[str]) -> None:
        super().bind(lines)
        self._paths.lines = lines

    def in_block(self) -> bool:
        return self._state == _IN

    def open_block(self) -> OpenBlock | None:
        if self._state != _IN or self._view is None:
            return None
        return OpenBlock(self._start, self._path, self.format, (), self._view)

    def feed(self, line: str, lineno: int) -> list[ParseItem]:
        if self.owns_lines:
            self.store(line, lineno)
        fence = parse_fence(line)
        if fence is None or fence.marker.startswith("<"):
            if self._state == _OUTSIDE:
                self._paths.note(line, lineno)
            return []
        if self._state == _OUTSIDE:
            path, source = self._paths.find(lineno)
            self._paths.note(line, lineno)
            self._fence = fence.marker
            self._depth = 0
            if path is None or source not in ("line", "fence", "heading"):
                self._state = _SKIP
                return []
            self._state = _IN
            self._start = lineno
            self._path = path
            self._view = LineView(self.lines, lineno)
            return []
        closes = not fence.info and fence.marker[0] == self._fence[0] and len(fence.marker) >= len(self._fence)
        opens = bool(fence.info) and fence.marker[0] == self._fence[0] and len(fence.marker) >= len(self._fence)
        if opens:
            self._depth += 1
            return []
        if not closes:
            return []
        if self._depth:
            self._depth -= 1
            return []
        state = self._state
        self._state = _OUTSIDE
        self._paths.note(line, lineno)
        if state == _SKIP:
            self._paths.reset_after_block(None, "none", lineno)
            return []
        return self._emit(lineno)

    def _emit(self, lineno: int) -> list[ParseItem]:
        path, start = self._path, self._start
        assert path is not None
        self._paths.reset_after_block(path, "line", lineno)
        return [self._block(path, start, lineno)]

    def _block(self, path: str, start: int, lineno: int) -> EditBlock:
        """The block of the fence opened on line ``start`` and closed on line ``lineno``."""
        return EditBlock(
            file_path=path,
            new_lines=text_of(self.lines, start, lineno - 1),
            whole_file=True,
            format=self.format,
            line_number=start,
            end_line=lineno,
            raw_block=text_of(self.lines, start - 1, lineno),
        )

    def close(self, lineno: int) -> list[ParseItem]:
        state = self._state
        self._state = _OUTSIDE
        if state == _IN:
            return [
                ParseWarning(
                    self._start,
                    f"reply ends inside the file block started at line {self._start}; the reply looks truncated, block ignored",
                    self.format,
                )
            ]
        return []


class WholeFormat(EditFormat):
    """Whole files: a path line, then a fence holding the complete new file."""

    name: ClassVar[str] = FORMAT
    description: ClassVar[str] = (
        "whole files: path line, then a fence with the complete new content (only with --format whole)"
    )
    family: ClassVar[str] = FORMAT
    auto: ClassVar[bool] = False
    markers: ClassVar[str] = "`~"
    content: ClassVar[str | None] = "the file's complete content"

    def parser(self) -> LineParser:
        return WholeParser()

    def detect(self, text: str) -> float:
        """How many fences have a path line of their own. Auto-detection never picks this format
        (``auto`` is False; see the module documentation): the score only describes a reply."""
        blocks, _ = self.parse_lines(text.split("\n"))
        return 0.0 if not blocks else min(0.9, 0.3 + 0.1 * len(blocks))

    def render(self, block: EditBlock) -> str:
        content = block.replace_text
        fence = choose_fence(content)
        return f"{block.file_path}\n{fence}\n{content}{fence}\n"
