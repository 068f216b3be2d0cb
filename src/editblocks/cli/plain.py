"""Output to a pipe or a log: plain lines, drawn without the terminal library.

A command whose output does not go to a terminal (an editor or an agent calling it, a log)
prints plain lines: no table, no colour. :class:`PlainConsole` prints them without importing
rich, so such a call does not pay for loading it. It reads the same console markup as rich
(``[green]text[/]``, with ``\\[`` for a literal bracket) and drops the styles, as rich does
when its output is not a terminal; and like rich it removes the control characters that
move the cursor or ring the bell from what it prints. Unlike rich it keeps tabs (a printed
diff still applies) and never turns ``:name:`` into an emoji.
"""

from __future__ import annotations

import re
import sys
from typing import IO, Any, Protocol

_TAG = re.compile(r"(\\*)\[([a-z#/@][^[]*?)]")
"""A markup tag, with the backslashes before it (an odd number escapes the tag)."""

_ESCAPABLE = re.compile(r"(\\*)(\[[a-z#/@][^[]*?])")
_CONTROL = str.maketrans("", "", "\x07\x08\x0b\x0c\x0d")
"""Bell, backspace, vertical tab, form feed and carriage return: dropped, as rich drops them."""


class Out(Protocol):
    """What the commands print through: a rich ``Console`` or a :class:`PlainConsole`."""

    @property
    def file(self) -> IO[str]: ...

    def print(
        self,
        *objects: Any,
        end: str = "\n",
        style: str | None = None,
        emoji: bool | None = None,
        markup: bool | None = None,
        highlight: bool | None = None,
        soft_wrap: bool | None = None,
    ) -> None: ...

    def rule(self, title: str = "") -> None: ...


def escape(text: str) -> str:
    """``text`` with every bracket that would read as a markup tag escaped (as ``rich.markup.escape``)."""
    text = _ESCAPABLE.sub(lambda m: m.group(1) * 2 + "\\" + m.group(2), text)
    if text.endswith("\\") and not text.endswith("\\\\"):
        return text + "\\"
    return text


def render_markup(text: str) -> str:
    """``text`` with its markup tags dropped and escaped brackets made literal."""
    if "[" not in text:
        return text
    out: list[str] = []
    position = 0
    for m in _TAG.finditer(text):
        out.append(text[position : m.start()].replace("\\[", "["))
        halves, escaped = divmod(len(m.group(1)), 2)
        out.append("\\" * halves)
        if escaped:
            out.append("[" + m.group(2) + "]")
        position = m.end()
    out.append(text[position:].replace("\\[", "["))
    return "".join(out)


class PlainConsole:
    """Plain lines to standard output (or standard error): see the module documentation."""

    def __init__(self, *, stderr: bool = False) -> None:
        self._stderr = stderr

    @property
    def file(self) -> IO[str]:
        return sys.stderr if self._stderr else sys.stdout

    def print(
        self,
        *objects: Any,
        end: str = "\n",
        style: str | None = None,
        emoji: bool | None = None,
        markup: bool | None = None,
        highlight: bool | None = None,
        soft_wrap: bool | None = None,
    ) -> None:
        """Print ``objects`` as text, separated by spaces; ``style`` and ``highlight`` are ignored."""
        text = " ".join(str(x) for x in objects)
        if markup is not False:
            text = render_markup(text)
        self.file.write(text.translate(_CONTROL) + end)

    def rule(self, title: str = "") -> None:
        """A title line (a rule, in a terminal)."""
        self.print(f"-- {title} --" if title else "--")
