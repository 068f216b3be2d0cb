"""``udiff``: unified diffs, in a ```diff fence or bare.

::

    ```diff
    --- a/src/app.py
    +++ b/src/app.py
    @@ -10,7 +10,8 @@
     context line
    -removed line
    +added line
     context line
    ```

Every hunk is one block: its context and removed lines are the text searched for, its context and
added lines the replacement, found through the matching chain like any other block. Line numbers
are hints, not truth: ``hint_line`` is the hunk's old start plus what the earlier hunks of the
same file added or removed, and it only chooses among places the hunk matches equally well.
``/dev/null`` as the old file creates the file; as the new file it deletes it, and only when the
file holds exactly the removed lines. ``a/``/``b/`` prefixes are dropped. A git rename
(``rename from``/``rename to`` before the ``---`` line) moves the file after its last hunk; a
rename without hunks is read inside a ```diff fence (bare, it has no line the reader feeds).

How a hunk ends: at the next ``@@``, file header, fence or line that is no hunk line. An empty
line is a blank context line when hunk lines follow it; once the hunk's counts are met it ends
the hunk. A hunk that only adds lines, without context, cannot be placed by its content and is
refused (unless its old start is 0: then it creates the file). A reply that ends inside a hunk
whose counts are not met, or inside an unclosed fence, is truncated: that hunk is refused.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from difflib import SequenceMatcher
from typing import ClassVar

from editblocks.formats.base import EditFormat, LineParser, OpenBlock, ParseItem, text_of
from editblocks.formats.common import PathLookback, parse_fence
from editblocks.models import EditBlock, ParseWarning

FORMAT = "udiff"
MINUS = re.compile(r"^---[ \t]+(\S.*?)\s*$")
PLUS = re.compile(r"^\+\+\+[ \t]+(\S.*?)\s*$")
HUNK = re.compile(r"^@@(?:(?P<mid>[^@]*)@@(?P<tail>.*)|\s*)$")
RANGES = re.compile(r"^\s*-(\d{1,9})(?:,(\d{1,9}))?\s+\+(\d{1,9})(?:,(\d{1,9}))?\s*$")
GIT = re.compile(r"^diff --git\s+(\S+)\s+(\S+)\s*$")
GIT_META = re.compile(
    r"^(?:index |similarity index |dissimilarity index |old mode |new mode |new file mode |deleted file mode |"
    r"copy from |copy to |rename from |rename to |Binary files )"
)
PATCH_BEGIN = re.compile(r"^\s*\*\*\* Begin Patch\s*$")
PATCH_END = re.compile(r"^\s*\*\*\* End Patch\s*$")
DEV_NULL = "/dev/null"

_OUTSIDE, _GIT, _MINUS, _HEADER, _HUNK = range(5)


def clean_diff_path(raw: str) -> str | None:
    """The path of a ``---``/``+++``/``rename`` line: no timestamp, no quotes; None for /dev/null."""
    path = raw.split("\t", 1)[0].strip()
    if len(path) >= 2 and path[0] == path[-1] == '"':
        path = path[1:-1]
    if path == DEV_NULL or not path:
        return None
    return path


def _strip_prefix(old: str | None, new: str | None) -> tuple[str | None, str | None]:
    """Drop git's ``a/`` and ``b/`` prefixes: from both paths when both have them, else from the one side."""
    if old is not None and new is not None:
        if old.startswith("a/") and new.startswith("b/"):
            return old[2:], new[2:]
        return old, new
    if old is not None and old.startswith("a/"):
        old = old[2:]
    if new is not None and new.startswith("b/"):
        new = new[2:]
    return old, new


class _Section:
    """One file of the diff: its paths, where it started, and what its hunks did so far."""

    __slots__ = ("bad", "delta", "fenced", "hunks", "move_from", "move_to", "new", "old", "refused", "removed", "start")

    def __init__(self, start: int, old: str | None, new: str | None, fenced: bool) -> None:
        self.start = start
        self.old = old
        self.new = new
        self.move_from: str | None = None
        self.move_to: str | None = None
        self.fenced = fenced
        self.delta = 0
        self.removed: list[str] = []
        self.hunks = 0
        self.bad = False
        self.refused = 0
        """The line of a refused hunk of this file (0: none)."""

    @property
    def creates(self) -> bool:
        return self.old is None and self.new is not None

    @property
    def deletes(self) -> bool:
        return self.new is None and self.old is not None

    @property
    def path(self) -> str | None:
        if self.move_from is not None:
            return self.move_from
        return self.new if self.new is not None else self.old


class _Hunk:
    __slots__ = (
        "blanks",
        "has_context",
        "last",
        "maybe_header",
        "maybe_pair",
        "new",
        "new_count",
        "new_tail",
        "no_eol",
        "old",
        "old_count",
        "old_start",
        "start",
    )

    def __init__(self, start: int, old_start: int | None, old_count: int | None, new_count: int | None) -> None:
        self.start = start
        self.old_start = old_start
        self.old_count = old_count
        self.new_count = new_count
        self.old: list[str] = []
        self.new: list[str] = []
        self.blanks: list[int] = []
        """Empty lines read since the last hunk line: context if hunk lines follow."""
        self.maybe_header: tuple[int, str] | None = None
        """A ``--- x`` line that is a removed line, unless ``+++ y`` follows."""
        self.maybe_pair: tuple[int, str, int, str] | None = None
        """``--- x`` then ``+++ y``: the next file's header, unless hunk lines follow (then a
        removed and an added line)."""
        self.last = start
        self.has_context = False
        self.new_tail = False
        """The last hunk line read was a kept or added line (one of the new text)."""
        self.no_eol = False
        """``\\ No newline at end of file`` followed the new text's last line."""

    def counts_met(self) -> bool:
        return (
            self.old_count is not None
            and self.new_count is not None
            and len(self.old) >= self.old_count
            and len(self.new) >= self.new_count
        )


class UdiffParser(LineParser):
    """Reads unified diffs line by line from the line store (context lines are not fed to it)."""

    # File headers and hunks, and a ```diff fence (a git rename alone has no line the parser is fed).
    wake = re.compile(r"(?:---[ \t]+\S|\+\+\+[ \t]+\S|@@|\s*(?:`{3,}|~{3,})\s*(?:diff|patch)\s*$)")
    wake_words = ("---", "+++", "@@", "diff", "patch")

    def __init__(self) -> None:
        self._paths = PathLookback()
        self.lines = self._paths.lines
        self._cursor = 0
        self._state = _OUTSIDE
        self._fence: str | None = None
        self._in_patch = False
        self._git: tuple[int, str | None, str | None] | None = None
        self._git_rename: list[str | None] = [None, None]
        self._minus: tuple[int, str] | None = None
        self._section: _Section | None = None
        self._hunk: _Hunk | None = None
        self._out: list[ParseItem] = []

    def bind(self, lines: list[str]) -> None:
        super().bind(lines)
        self._paths.lines = lines

    # -- the parser interface --------------------------------------------------------------

    def feed(self, line: str, lineno: int) -> list[ParseItem]:
        if self.owns_lines:
            self.store(line, lineno)
        self._advance(lineno)
        out, self._out = self._out, []
        return out

    def close(self, lineno: int) -> list[ParseItem]:
        self._advance(lineno)
        hunk = self._hunk
        if hunk is not None and hunk.maybe_pair is not None:
            at, minus, _, plus = hunk.maybe_pair
            hunk.maybe_pair = None
            self._next_file(at, minus, plus)
            hunk = None
        if hunk is not None:
            section = self._section
            assert section is not None
            truncated = section.fenced and self._fence is not None
            if hunk.old_count is None or hunk.new_count is None:
                truncated = truncated or not section.fenced
            elif not hunk.counts_met():
                truncated = True
            if truncated:
                self._warn(
                    hunk.start,
                    f"reply ends inside the hunk started at line {hunk.start}; the reply looks truncated, hunk ignored",
                )
                self._hunk = None
                section.bad = True
                self._end_section(lineno)
            else:
                self._end_hunk(last=True)
                self._end_section(lineno)
        elif self._state == _GIT:
            self._finish_git(lineno)
        elif self._state == _HEADER:
            self._end_section(lineno)
        self._state = _OUTSIDE
        out, self._out = self._out, []
        return out

    def in_block(self) -> bool:
        return self._state != _OUTSIDE

    def open_block(self) -> OpenBlock | None:
        if self._state == _OUTSIDE:
            return None
        hunk, section = self._hunk, self._section
        if hunk is not None and section is not None:
            return OpenBlock(self._block_start(hunk), section.path, FORMAT, hunk.old, hunk.new)
        if self._state == _GIT and self._git is not None:
            return OpenBlock(self._git[0], None, FORMAT, (), ())
        if self._state == _MINUS and self._minus is not None:
            return OpenBlock(self._minus_start(), None, FORMAT, (), ())
        if section is not None:
            return OpenBlock(section.start, section.path, FORMAT, (), ())
        return None

    # -- reading lines -------------------------------------------------------------------------

    def _advance(self, lineno: int) -> None:
        lines = self.lines
        while self._cursor < lineno:
            n = self._cursor + 1
            self._cursor = n
            self._line(lines[n - 1], n)

    def _line(self, line: str, n: int) -> None:
        state = self._state
        if state == _HUNK:
            self._hunk_line(line, n)
        elif state == _OUTSIDE:
            self._outside(line, n)
        elif state == _GIT:
            if GIT_META.match(line):
                if line.startswith("rename from "):
                    self._git_rename[0] = clean_diff_path(line[len("rename from ") :])
                elif line.startswith("rename to "):
                    self._git_rename[1] = clean_diff_path(line[len("rename to ") :])
                return
            if MINUS.match(line):
                self._state = _MINUS
                self._minus = (n, line)
                return
            # A git header with no '---' line: a rename (or a mode change) alone.
            self._state = _OUTSIDE
            self._finish_git(n - 1)
            self._line(line, n)
        elif state == _MINUS:
            m = PLUS.match(line)
            if m and self._minus is not None:
                self._open_section(self._minus_start(), MINUS.match(self._minus[1]).group(1), m.group(1))  # type: ignore[union-attr]
                return
            # The '---' line was not a file header: read both again as ordinary lines.
            self._state = _OUTSIDE
            self._git = None
            minus = self._minus
            self._minus = None
            if minus is not None:
                self._paths.note(minus[1], minus[0])
            self._line(line, n)
        elif state == _HEADER:
            self._header_line(line, n)

    def _outside(self, line: str, n: int) -> None:
        if PATCH_BEGIN.match(line):
            self._in_patch = True
            return
        if PATCH_END.match(line):
            self._in_patch = False
            return
        if line.startswith("diff --git"):
            self._finish_git(n - 1)
            m = GIT.match(line)
            self._git = (n, m.group(1) if m else None, m.group(2) if m else None)
            self._git_rename = [None, None]
            self._state = _GIT
            return
        if line.startswith("---") and MINUS.match(line):
            self._state = _MINUS
            self._minus = (n, line)
            return
        if line.startswith("@@") and not self._in_patch and HUNK.match(line):
            path, source = self._paths.find(n)
            if path is None:
                self._warn(n, "diff hunk has no file path; put '--- a/path' and '+++ b/path' lines before it")
                return
            section = _Section(n, path, path, self._fence is not None)
            self._section = section
            self._state = _HEADER
            self._header_line(line, n)
            return
        if line[:1] in "`~<":
            fence = parse_fence(line)
            if fence is not None and not fence.marker.startswith("<"):
                if self._fence is None:
                    self._fence = fence.marker
                elif not fence.info and fence.marker[0] == self._fence[0] and len(fence.marker) >= len(self._fence):
                    self._fence = None
        self._paths.note(line, n)

    def _finish_git(self, last: int) -> None:
        """A git header with a rename and no ``---`` line: the rename alone."""
        git = self._git
        if git is None:
            return
        self._git = None
        old, new = self._git_rename
        self._git_rename = [None, None]
        if old and new and old != new:
            self._emit(
                EditBlock(
                    file_path=old,
                    move_to=new,
                    format=FORMAT,
                    line_number=git[0],
                    end_line=max(last, git[0]),
                    raw_block=text_of(self.lines, git[0] - 1, max(last, git[0])),
                )
            )

    def _minus_start(self) -> int:
        git = self._git
        minus = self._minus
        assert minus is not None
        return git[0] if git is not None else minus[0]

    def _open_section(self, start: int, old_raw: str, new_raw: str) -> None:
        old, new = _strip_prefix(clean_diff_path(old_raw), clean_diff_path(new_raw))
        section = _Section(start, old, new, self._fence is not None)
        rename_from, rename_to = self._git_rename
        if self._git is not None and rename_from and rename_to and rename_from != rename_to:
            section.move_from, section.move_to = rename_from, rename_to
        self._git = None
        self._git_rename = [None, None]
        self._minus = None
        self._section = section
        self._state = _HEADER
        if old is None and new is None:
            section.bad = True
            self._warn(start, "diff names /dev/null as both the old and the new file; section ignored")

    def _header_line(self, line: str, n: int) -> None:
        section = self._section
        assert section is not None
        m = HUNK.match(line) if line.startswith("@@") else None
        if m is None:
            self._end_section(n - 1)
            self._line(line, n)
            return
        old_start = old_count = new_count = None
        ranges = RANGES.match(m.group("mid") or "")
        if ranges:
            old_start = int(ranges.group(1))
            old_count = int(ranges.group(2)) if ranges.group(2) is not None else 1
            new_count = int(ranges.group(4)) if ranges.group(4) is not None else 1
        self._hunk = _Hunk(n, old_start, old_count, new_count)
        self._state = _HUNK

    def _hunk_line(self, line: str, n: int) -> None:
        hunk, section = self._hunk, self._section
        assert hunk is not None and section is not None
        if hunk.maybe_pair is not None:
            at, minus, at_plus, plus = hunk.maybe_pair
            hunk.maybe_pair = None
            first = line[:1]
            if first in (" ", "+", "\\") or (first == "-" and not MINUS.match(line)):
                # Hunk lines follow: '-- x' was removed and '++ y' added.
                hunk.old.append(minus[1:])
                hunk.new.append(plus[1:])
                hunk.new_tail, hunk.no_eol = True, False
                hunk.last = at_plus
            else:
                self._next_file(at, minus, plus)
                self._line(line, n)
                return
        if hunk.maybe_header is not None:
            at, minus = hunk.maybe_header
            hunk.maybe_header = None
            if PLUS.match(line):
                hunk.maybe_pair = (at, minus, n, line)
                return
            hunk.old.append(minus[1:])
            hunk.new_tail = False
            hunk.last = at
        first = line[:1]
        if first == "" or (not line.strip() and first != " "):
            if hunk.counts_met() and not section.fenced:
                self._end_hunk(last=True)
                self._end_section(n - 1)
                return
            hunk.blanks.append(n)
            return
        if first in " -+\\":
            if first != "\\" and hunk.counts_met() and hunk.blanks and not section.fenced:
                # The counts are met and an empty line came: that ended the hunk.
                self._end_hunk(last=True)
                self._end_section(n - 1)
                self._line(line, n)
                return
            for _ in hunk.blanks:
                hunk.old.append("")
                hunk.new.append("")
                hunk.has_context = True
                hunk.new_tail, hunk.no_eol = True, False
            hunk.blanks = []
            if first == " ":
                hunk.old.append(line[1:])
                hunk.new.append(line[1:])
                hunk.has_context = True
                hunk.new_tail, hunk.no_eol = True, False
            elif first == "-":
                if line.startswith("--- ") or line.startswith("---\t"):
                    hunk.maybe_header = (n, line)
                    return
                hunk.old.append(line[1:])
                hunk.new_tail = False
            elif first == "+":
                hunk.new.append(line[1:])
                hunk.new_tail, hunk.no_eol = True, False
            elif hunk.new_tail:
                # '\ No newline at end of file' after a line of the new text: the file ends there.
                hunk.no_eol = True
            hunk.last = n
            return
        if line.startswith("@@") and HUNK.match(line):
            self._end_hunk(last=False)
            self._header_line(line, n)
            return
        # Anything else ends the hunk and the file: read it again outside.
        self._end_hunk(last=True)
        self._end_section(n - 1)
        self._line(line, n)

    def _next_file(self, at: int, minus: str, plus: str) -> None:
        """``--- x`` on line ``at`` and ``+++ y`` after it were the next file's header."""
        self._end_hunk(last=True)
        self._end_section(at - 1)
        self._minus = (at, minus)
        self._open_section(at, MINUS.match(minus).group(1), PLUS.match(plus).group(1))  # type: ignore[union-attr]

    def _block_start(self, hunk: _Hunk) -> int:
        section = self._section
        return section.start if section is not None and section.hunks == 0 else hunk.start

    def _end_hunk(self, *, last: bool) -> None:
        hunk, section = self._hunk, self._section
        self._hunk = None
        self._state = _HEADER
        if hunk is None or section is None:
            return
        if hunk.maybe_header is not None:
            at, minus = hunk.maybe_header
            hunk.old.append(minus[1:])
            hunk.last = at
        start = self._block_start(hunk)
        section.hunks += 1
        old, new = hunk.old, hunk.new
        if section.bad:
            return
        if not old and not new:
            if section.creates:
                self._emit(self._block(section.path, start, hunk.last, new_file=True))  # type: ignore[arg-type]
            else:
                self._warn(hunk.start, "diff hunk has no lines; hunk ignored")
            return
        path = section.path
        assert path is not None
        end = hunk.last
        if section.deletes:
            if hunk.has_context or new:
                section.bad = True
                self._warn(
                    hunk.start,
                    f"the diff deletes {path}, but its hunk at line {hunk.start} keeps or adds lines; section ignored",
                )
                return
            section.removed.extend(old)
            if last:
                self._emit(self._block(path, start, end, old_lines=section.removed, delete=True))
            return
        if section.creates:
            if old:
                section.bad = True
                self._warn(
                    hunk.start,
                    f"the diff creates {path}, but its hunk at line {hunk.start} removes or keeps lines; section ignored",
                )
                return
            self._emit(self._block(path, start, end, new_lines=new, new_file=True, no_final_newline=hunk.no_eol))
            return
        hint = None
        if hunk.old_start is not None and hunk.old_start > 0:
            hint = hunk.old_start + section.delta
        section.delta += len(new) - len(old)
        if not old:
            if hunk.old_start == 0:
                self._emit(self._block(path, start, end, new_lines=new, no_final_newline=hunk.no_eol))
            elif hunk.old_start is None and last and section.hunks == 1:
                # The file's only hunk, with neither context nor line numbers: appended at the
                # end of the file, as aider's own udiff applier does.
                self._emit(self._block(path, start, end, new_lines=new, at_end=True, no_final_newline=hunk.no_eol))
            else:
                section.refused = hunk.start
                self._warn(
                    hunk.start,
                    f"the hunk at line {hunk.start} only adds lines and has no context lines to place them by "
                    "(line numbers alone are not trusted); hunk ignored. Include a few unchanged lines around the addition",
                )
            return
        move_to = section.move_to if last and not section.refused else None
        self._emit(
            self._block(
                path,
                start,
                end,
                old_lines=old,
                new_lines=new,
                hint_line=hint,
                move_to=move_to,
                no_final_newline=hunk.no_eol,
            )
        )
        if move_to is not None:
            section.move_to = None

    def _end_section(self, last: int) -> None:
        section = self._section
        self._state = _OUTSIDE
        self._hunk = None
        if section is None:
            return
        self._section = None
        if section.bad:
            return
        path = section.path
        if section.hunks == 0 and path is not None:
            if section.deletes:
                self._emit(self._block(path, section.start, max(last, section.start), delete=True))
            elif section.creates:
                self._emit(self._block(path, section.start, max(last, section.start), new_file=True))
            elif section.move_to is not None:
                self._emit(self._block(path, section.start, max(last, section.start), move_to=section.move_to))
            else:
                self._warn(section.start, f"diff header for {path} has no hunks ('@@' lines); nothing to apply")
        elif section.move_to is not None and path is not None:
            # A hunk was refused: the file is not moved either.
            self._warn(
                section.refused or section.start,
                f"{path} is not moved to {section.move_to}, since a hunk of it was refused",
            )

    def _block(
        self,
        path: str,
        start: int,
        end: int,
        *,
        old_lines: list[str] = (),  # type: ignore[assignment]
        new_lines: list[str] = (),  # type: ignore[assignment]
        **extra: object,
    ) -> EditBlock:
        end = max(end, start)
        return EditBlock(
            file_path=path,
            old_lines="".join(x + "\n" for x in old_lines),
            new_lines="".join(x + "\n" for x in new_lines),
            format=FORMAT,
            line_number=start,
            end_line=end,
            raw_block=text_of(self.lines, start - 1, end),
            **extra,  # type: ignore[arg-type]
        )

    def _emit(self, block: EditBlock) -> None:
        self._out.append(block)
        self._paths.reset_after_block(block.file_path, "line", block.end_line)

    def _warn(self, line: int, message: str) -> None:
        self._out.append(ParseWarning(line, message, FORMAT))


# -- rendering --------------------------------------------------------------------------------


def hunk_lines(old: list[str], new: list[str]) -> list[str]:
    """The hunk body from ``old`` to ``new``: context, removed and added lines, in order."""
    out: list[str] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            out.extend(" " + x for x in old[i1:i2])
        else:
            out.extend("-" + x for x in old[i1:i2])
            out.extend("+" + x for x in new[j1:j2])
    return out


def _split(text: str) -> list[str]:
    return text[:-1].split("\n") if text else []


def render_section(blocks: list[EditBlock], numbered: bool = True) -> str:
    """One file's blocks as a ``---``/``+++`` section (a rename, creation or deletion on its own)."""
    first = blocks[0]
    path = first.file_path
    if first.delete:
        old = _split(first.old_lines)
        body = f"--- a/{path}\n+++ {DEV_NULL}\n"
        if old:
            body += f"@@ -1,{len(old)} +0,0 @@\n" + "".join("-" + x + "\n" for x in old)
        return body
    if first.is_create and not first.search_text and first.move_to is None:
        new = _split(first.replace_text)
        body = f"--- {DEV_NULL}\n+++ b/{path}\n@@ -0,0 +1,{len(new)} @@\n" + "".join("+" + x + "\n" for x in new)
        return body + (NO_NEWLINE if first.no_final_newline and new else "")
    last = blocks[-1]
    target = last.move_to or path
    head = ""
    if last.move_to is not None:
        head = f"diff --git a/{path} b/{target}\nrename from {path}\nrename to {target}\n"
    edits = [b for b in blocks if b.search_text or b.replace_text]
    if not edits:
        return head
    out = [head, f"--- a/{path}\n+++ b/{target}\n"]
    delta = 0
    for block in edits:
        old, new = _split(block.search_text), _split(block.replace_text)
        if numbered and block.hint_line is not None:
            start = block.hint_line - delta
            out.append(f"@@ -{start},{len(old)} +{block.hint_line},{len(new)} @@\n")
        else:
            out.append("@@ ... @@\n")
        delta += len(new) - len(old)
        lines = hunk_lines(old, new)
        out.extend(x + "\n" for x in lines)
        if block.no_final_newline:
            _mark_no_newline(out, len(lines))
    return "".join(out)


NO_NEWLINE = "\\ No newline at end of file\n"


def _mark_no_newline(out: list[str], count: int) -> None:
    """Put the no-final-newline mark after the new text's last line among the ``count`` hunk lines
    that end ``out``."""
    for k in range(len(out) - 1, len(out) - 1 - count, -1):
        if out[k][:1] in (" ", "+"):
            out.insert(k + 1, NO_NEWLINE)
            return


def group_sections(blocks: Iterable[EditBlock]) -> list[list[EditBlock]]:
    """Consecutive edits of one file form one section (in file order when they have line hints);
    a rename ends it."""
    groups: list[list[EditBlock]] = []
    for block in blocks:
        if groups and _joins(groups[-1][-1], block):
            groups[-1].append(block)
        else:
            groups.append([block])
    return groups


def _joins(prev: EditBlock, block: EditBlock) -> bool:
    if prev.file_path != block.file_path or prev.kind != "edit" or not prev.search_text:
        return False
    if block.kind not in ("edit", "move") or not block.search_text:
        return False
    if (prev.hint_line is None) != (block.hint_line is None):
        return False
    return prev.hint_line is None or block.hint_line > prev.hint_line  # type: ignore[operator]


class UdiffFormat(EditFormat):
    """Unified diffs; line numbers are hints, hunks are found by their content."""

    name: ClassVar[str] = FORMAT
    description: ClassVar[str] = "unified diff (```diff or bare): --- a/path, +++ b/path, @@ hunks located by content"
    family: ClassVar[str] = "udiff"
    can_delete: ClassVar[bool] = True
    can_move: ClassVar[bool] = True
    markers: ClassVar[str] = "-+@`~"

    def parser(self) -> LineParser:
        return UdiffParser()

    def detect(self, text: str) -> float:
        lines = text.split("\n")
        headers = sum(1 for a, b in zip(lines, lines[1:]) if MINUS.match(a) and PLUS.match(b))
        hunks = sum(1 for line in lines if line.startswith("@@") and HUNK.match(line))
        if not hunks and not headers:
            return 0.0
        if headers:
            return min(1.0, 0.6 + 0.1 * headers)
        fenced = any(line.strip().lower() in ("```diff", "```patch", "~~~diff") for line in lines)
        return 0.5 if fenced else 0.2

    def render(self, block: EditBlock) -> str:
        return f"```diff\n{render_section([block])}```\n"

    def render_blocks(self, blocks: Iterable[EditBlock]) -> str:
        sections = [render_section(group) for group in group_sections(blocks)]
        return "```diff\n" + "".join(sections) + "```\n" if sections else ""
