"""``file-sections``: ``### File: path`` headings over SEARCH/REPLACE blocks, and NEW_FILE blocks.

::

    ### File: src/app.ts
    <<<<<<< SEARCH
    const a = 1;
    =======
    const a = 10;
    >>>>>>> REPLACE

    <<<<<<< NEW_FILE
    content of a new file
    >>>>>>> NEW_FILE
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from editblocks.formats.base import EditFormat, LineParser
from editblocks.formats.common import heading_path
from editblocks.formats.search_replace import SEARCH, SearchReplaceParser
from editblocks.models import EditBlock


class FileSectionsFormat(EditFormat):
    """Blocks grouped under ``### File:`` headings (parsed by the SEARCH/REPLACE parser)."""

    name: ClassVar[str] = "file-sections"
    description: ClassVar[str] = "### File: path headings with SEARCH/REPLACE and NEW_FILE blocks under them"
    family: ClassVar[str] = "search-replace"
    markers: ClassVar[str] = "#<=>"

    def parser(self) -> LineParser:
        return SearchReplaceParser()

    def detect(self, text: str) -> float:
        lines = text.split("\n")
        headings = sum(1 for line in lines if heading_path(line))
        if not headings:
            return 0.0
        blocks = sum(1 for line in lines if SEARCH.match(line) or "NEW_FILE" in line)
        return min(1.0, 0.7 + 0.1 * headings) if blocks else 0.2

    def _body(self, block: EditBlock) -> str:
        if block.is_create and not block.search_text:
            return f"<<<<<<< NEW_FILE\n{block.replace_text}>>>>>>> NEW_FILE\n"
        return f"<<<<<<< SEARCH\n{block.search_text}=======\n{block.replace_text}>>>>>>> REPLACE\n"

    def render(self, block: EditBlock) -> str:
        return f"### File: {block.file_path}\n\n{self._body(block)}"

    def render_blocks(self, blocks: Iterable[EditBlock]) -> str:
        out: list[str] = []
        current: str | None = None
        for block in blocks:
            if block.file_path != current:
                if out:
                    out.append("\n")
                out.append(f"### File: {block.file_path}\n\n")
                current = block.file_path
            else:
                out.append("\n")
            out.append(self._body(block))
        return "".join(out)
