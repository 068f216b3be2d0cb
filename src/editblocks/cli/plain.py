"""Output to a pipe or a log: plain lines, drawn without the terminal library.

A command whose output does not go to a terminal (an editor or an agent calling it, a log)
prints plain lines: no table, no colour. :class:`PlainConsole` prints them without importing
rich, so such a call does not pay for loading it. It reads the same console markup as rich
(``[green]text[/]``, with ``\\[`` for a literal bracket) and drops the styles, as rich does
when its output is not a terminal. Control characters from a reply (an escape sequence in a
file name, a shell command or a diff) are written out, never sent to the terminal; tabs are
kept (a printed diff still applies), ``:name:`` never becomes an emoji, and characters the
output's encoding lacks are written as escapes.
"""

from __future__ import annotations

import re
import sys
from typing import IO, Any, Protocol

_TAG = re.compile(r"(\\*)\[([a-z#/@][^[]*?)]")
"""A markup tag, with the backslashes before it (an odd number escapes the tag)."""

_ESCAPABLE = re.compile(r"(\\*)(\[[a-z#/@][^[]*?])")
_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""Control characters but tab and line feed: a reply's text could move the cursor, retitle the
window or hide what follows with them."""


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


def visible(text: str) -> str:
    """``text`` with its control characters (but tab and line feed) written out as ``\\x1b``."""
    return _UNSAFE.sub(lambda m: f"\\x{ord(m.group()):02x}", text) if _UNSAFE.search(text) else text


def escape(text: str) -> str:
    """``text`` shown as it is: every bracket that would read as a markup tag escaped (as
    ``rich.markup.escape`` does) and its control characters written out (see :func:`visible`)."""
    text = _ESCAPABLE.sub(lambda m: m.group(1) * 2 + "\\" + m.group(2), text)
    if text.endswith("\\") and not text.endswith("\\\\"):
        text += "\\"
    return visible(text)


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
        out = visible(text) + end
        file = self.file
        try:
            file.write(out)
        except UnicodeEncodeError:
            # An output that cannot show every character (a legacy code page): the others as escapes.
            encoding = getattr(file, "encoding", None) or "ascii"
            file.write(out.encode(encoding, "backslashreplace").decode(encoding))

    def rule(self, title: str = "") -> None:
        """A title line (a rule, in a terminal)."""
        self.print(f"-- {title} --" if title else "--")
