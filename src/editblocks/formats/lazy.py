"""``lazy``: a path line and a fence holding a sketch of the file, Cursor/Continue style.

::

    src/app.py
    ```python
    # ... existing code ...
    def load(path):
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    # ... existing code ...
    ```

Elision comments (``# ... existing code ...``, ``// rest of the file``, ``<!-- ... -->``) stand
for the file's own lines; the sketch's other lines are anchored to the file and carry the change
(see :mod:`editblocks.matching.lazy` for the merge and its refusals). A sketch without elision
is one or a few whole definitions, or the complete file.

Like ``whole``, this format is **never detected** (any code fence with a path above it would
look like a sketch): it is read only when asked for (``--format lazy``,
``parse_reply(text, "lazy")``), and only fences whose path is on the line just before them
(or in their info string, or a ``### File:`` heading) count.
"""

from __future__ import annotations

from typing import ClassVar

from editblocks.formats.base import LineParser, text_of
from editblocks.formats.whole import WholeFormat, WholeParser
from editblocks.models import EditBlock

FORMAT = "lazy"


class LazyParser(WholeParser):
    """Reads fenced blocks that have their own path line; each is a sketch of its file."""

    format: ClassVar[str] = FORMAT

    def _block(self, path: str, start: int, lineno: int) -> EditBlock:
        return EditBlock(
            file_path=path,
            new_lines=text_of(self.lines, start, lineno - 1),
            sketch=True,
            format=FORMAT,
            line_number=start,
            end_line=lineno,
            raw_block=text_of(self.lines, start - 1, lineno),
        )


class LazyFormat(WholeFormat):
    """Lazy sketches: a path line, then a fence with the file's changed parts and elision comments.
    Read, detected and written as ``whole`` is; only the parser's blocks are sketches."""

    name: ClassVar[str] = FORMAT
    description: ClassVar[str] = (
        "lazy sketches: path line, then a fence with the changed parts and '... existing code ...' comments "
        "(only with --format lazy)"
    )
    family: ClassVar[str] = FORMAT
    content: ClassVar[str | None] = "a sketch of the file"

    def parser(self) -> LineParser:
        return LazyParser()
