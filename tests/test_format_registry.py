"""A new edit format is one module plus one registry line: a small format defined here, with
its own marker character, is read (alone and in a mixed reply, whole and streamed), applied,
converted to and from, and prompted for, with nothing else of the package changed."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest

import editblocks
import editblocks.prompts
from editblocks.formats import FORMATS, EditFormat, LineParser, default_level, get_format, loud_characters, register
from editblocks.formats.base import ParseItem
from editblocks.models import EditBlock, ParseWarning, make_block
from editblocks.prompts import MissingPromptError


class PercentParser(LineParser):
    """``%%% path`` / old lines / ``%%% with`` / new lines / ``%%% end``."""

    wake = re.compile(r"\s*%%%")

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._start = 0
        self._sep = 0
        self._path = ""

    def in_block(self) -> bool:
        return self._start > 0

    def feed(self, line: str, lineno: int) -> list[ParseItem]:
        self.store(line, lineno)
        if not line.lstrip().startswith("%%%"):
            return []
        word = line.strip()[3:].strip()
        if not self._start:
            self._start, self._sep, self._path = lineno, 0, word
            return []
        if word == "with":
            self._sep = lineno
            return []
        if word == "end" and self._sep:
            old = "".join(x + "\n" for x in self.lines[self._start : self._sep - 1])
            new = "".join(x + "\n" for x in self.lines[self._sep : lineno - 1])
            block = make_block(
                self._path, old_lines=old, new_lines=new, format="percent", line_number=self._start, end_line=lineno
            )
            self._start = 0
            return [block]
        return []

    def close(self, lineno: int) -> list[ParseItem]:
        if not self._start:
            return []
        start, self._start = self._start, 0
        return [ParseWarning(start, "percent block not closed with '%%% end'; block ignored", "percent")]


class PercentFormat(EditFormat):
    name: ClassVar[str] = "percent"
    description: ClassVar[str] = "%%% path, old lines, %%% with, new lines, %%% end"
    family: ClassVar[str] = "percent"
    markers: ClassVar[str] = "%"
    exact_only: ClassVar[bool] = True
    can_delete: ClassVar[bool] = False

    def parser(self) -> LineParser:
        return PercentParser()

    def detect(self, text: str) -> float:
        return 0.9 if "\n%%% with" in text else 0.0

    def render(self, block: EditBlock) -> str:
        return f"%%% {block.file_path}\n{block.search_text}%%% with\n{block.replace_text}%%% end\n"


@pytest.fixture
def percent() -> Iterator[EditFormat]:
    """The format, registered by its one line; the registry is as before afterwards."""
    saved = dict(FORMATS)
    fmt = PercentFormat()
    register(fmt)
    try:
        yield fmt
    finally:
        FORMATS.clear()
        FORMATS.update(saved)


REPLY = """Here is the change.

%%% calc.py
def add(a, b):
    return a - b
%%% with
def add(a, b):
    return a + b
%%% end
"""


def test_a_registered_format_is_read_applied_and_converted(tmp_path: Path, percent: EditFormat) -> None:
    # '%' starts no marker of the built-in formats: the reader now looks at such lines.
    assert "%" in loud_characters()
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    parsed = editblocks.parse_reply(REPLY, format="percent")
    [block] = parsed.blocks
    assert (block.file_path, block.search_text, block.replace_text) == (
        "calc.py",
        "def add(a, b):\n    return a - b\n",
        "def add(a, b):\n    return a + b\n",
    )
    # Detected and read in a reply that does not name its format, beside another format's block.
    mixed = REPLY + "\nnotes.txt\n```\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n```\n"
    assert [(b.format, b.file_path) for b in editblocks.parse_reply(mixed).blocks] == [
        ("percent", "calc.py"),
        ("diff", "notes.txt"),
    ]
    # Streamed in small pieces, the same block.
    from editblocks.reading.stream import StreamParser

    stream = StreamParser()
    for i in range(0, len(REPLY), 3):
        stream.feed(REPLY[i : i + 3])
    stream.close()
    assert [b.replace_text for b in stream.reply().blocks] == [block.replace_text]
    # Its declared capabilities are what the pipeline uses: exact placement by default.
    assert default_level("percent") == "exact"
    result = editblocks.apply_edits(REPLY, tmp_path, format="percent")
    assert result.ok and (tmp_path / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    # Converted to another format and back.
    as_diff = editblocks.convert_reply(REPLY, "diff", format="percent").text
    assert "<<<<<<< SEARCH" in as_diff and "return a + b" in as_diff
    back = editblocks.convert_reply(as_diff, "percent").text
    assert editblocks.parse_reply(back, format="percent").blocks[0].replace_text == block.replace_text
    # A deletion it cannot express is refused by its own declaration.
    deleting = "*** Begin Patch\n*** Delete File: calc.py\n*** End Patch\n"
    refused = editblocks.convert_reply(deleting, "percent")
    assert (
        refused.text == ""
        and "deletes the file, which percent cannot express (patch and udiff can)" in refused.problems[0]
    )
    # No prompt texts were written for it: asking for them says so.
    with pytest.raises(MissingPromptError):
        editblocks.prompts.system_prompt("percent")
    assert get_format("percent") is percent


def test_the_registry_is_as_before_without_it() -> None:
    assert "percent" not in FORMATS
    assert "%" not in loud_characters()
    # The built-in formats' declarations.
    assert {n for n, f in FORMATS.items() if f.exact_only} == {"edit-v2", "edit-v3"}
    assert {n for n, f in FORMATS.items() if f.can_delete} == {"patch", "udiff"}
    assert {n for n, f in FORMATS.items() if f.can_scope} == {"patch"}
    assert loud_characters() == "".join(sorted("<=>-«═»+`~#*@"))


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_every_line_that_wakes_a_parser_holds_one_of_its_wake_words(name: str) -> None:
    """The reader skips a dormant parser's wake search when no wake word is in the text, so a
    wake line without one would leave the parser asleep and its blocks unread."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    parser = FORMATS[name].parser()
    if parser.wake is None or not parser.wake_words:
        return
    words = parser.wake_words

    @settings(max_examples=300, deadline=None)
    @given(st.from_regex(parser.wake))
    def check(text: str) -> None:
        assert any(word in text for word in words), (text, words)

    check()
