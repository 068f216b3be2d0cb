"""``patch``: the apply_patch envelope of OpenAI's Codex CLI.

::

    *** Begin Patch
    *** Update File: src/app.py
    *** Move to: src/main.py          (optional)
    @@ def handle(request):           (optional, several nest)
         context line
    -    removed line
    +    added line
    *** End of File                   (optional: the chunk ends the file)
    *** Add File: src/new.py
    +every line of the new file
    *** Delete File: src/old.py
    *** End Patch

Each chunk of an update is one block: its context and removed lines are the text searched for,
its context and added lines the replacement, found through the matching chain and only where it
is unique (never "the first match after the previous chunk"). The ``@@`` lines are the chunk's
``scope``: they choose among places the chunk matches equally well, and a chunk that only adds
lines goes right after the last of them; with ``*** End of File`` instead, it is appended. A
chunk that only adds lines and says neither is refused. ``*** Add File`` never overwrites a file
with content; ``*** Delete File`` deletes; ``*** Move to`` moves the file once its last chunk
applied (not at all when a chunk fails).

A line inside an update that is no chunk line (``' '``, ``'-'``, ``'+'`` or empty) makes the chunk
invalid; a reply that ends before ``*** End Patch`` loses the operation it was in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import ClassVar

from editblocks.formats.base import EditFormat, LineParser, OpenBlock, ParseItem, text_of
from editblocks.formats.common import parse_fence
from editblocks.formats.udiff import hunk_lines
from editblocks.models import EditBlock, ParseWarning
from editblocks.quoting import quote

FORMAT = "patch"
BEGIN = re.compile(r"^\s*\*\*\* Begin Patch\s*$")
END = re.compile(r"^\s*\*\*\* End Patch\s*$")
ADD = re.compile(r"^\*\*\* Add File:\s*(.*?)\s*$")
DELETE = re.compile(r"^\*\*\* Delete File:\s*(.*?)\s*$")
UPDATE = re.compile(r"^\*\*\* Update File:\s*(.*?)\s*$")
MOVE = re.compile(r"^\*\*\* Move to:\s*(.*?)\s*$")
EOF_MARK = re.compile(r"^\*\*\* End of File\s*$")
SCOPE = re.compile(r"^@@(?:[ \t](.*))?$")
_SPACED_MARKER = re.compile(
    r"^\s+\*\*\* (?:Begin Patch|End Patch|End of File|Add File:|Delete File:|Update File:|Move to:)"
)

_OUTSIDE, _ENVELOPE, _ADD, _DELETE, _UPDATE, _CHUNK, _SKIP = range(7)


def _path(raw: str) -> str:
    path = raw.strip()
    for q in ("`", '"', "'"):
        if len(path) >= 2 and path[0] == path[-1] == q:
            path = path[1:-1].strip()
    return path


class _Op:
    """The file operation being read: its kind, path, start line and chunk in progress."""

    __slots__ = (
        "blanks",
        "chunk_start",
        "chunks",
        "context",
        "kind",
        "last",
        "move_to",
        "new",
        "old",
        "path",
        "refused",
        "scope",
        "scope_start",
        "start",
    )

    def __init__(self, kind: str, path: str, start: int) -> None:
        self.kind = kind
        self.path = path
        self.start = start
        self.move_to: str | None = None
        self.chunks = 0
        self.scope: list[str] = []
        self.scope_start = 0
        self.old: list[str] = []
        self.new: list[str] = []
        self.blanks: list[int] = []
        self.chunk_start = 0
        self.last = start
        self.context = False
        self.refused = 0
        """The line of a refused chunk of this file (0: none)."""


class PatchParser(LineParser):
    """Reads apply_patch envelopes line by line from the line store (context lines are not fed)."""

    wake = BEGIN
    wake_words = ("*** Begin Patch",)

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._cursor = 0
        self._state = _OUTSIDE
        self._op: _Op | None = None
        self._envelope = 0
        self._out: list[ParseItem] = []

    # -- the parser interface --------------------------------------------------------------

    def feed(self, line: str, lineno: int) -> list[ParseItem]:
        if self.owns_lines:
            self.store(line, lineno)
        self._advance(lineno)
        out, self._out = self._out, []
        return out

    def close(self, lineno: int) -> list[ParseItem]:
        self._advance(lineno)
        if self._state != _OUTSIDE:
            op = self._op
            if op is not None:
                what = {"add": "adding", "delete": "deleting", "update": "updating"}[op.kind]
                # On a line of the open part: the file's earlier chunks are kept blocks.
                where = op.chunk_start or op.scope_start or (op.start if op.chunks == 0 else min(op.last + 1, lineno))
                self._warn(
                    where,
                    f"reply ends before '*** End Patch', inside the part {what} {op.path}; the reply looks truncated, "
                    "that part ignored",
                )
            else:
                self._warn(self._envelope, "reply ends before '*** End Patch'; the patch looks truncated")
            self._op = None
            self._state = _OUTSIDE
        out, self._out = self._out, []
        return out

    def in_block(self) -> bool:
        return self._op is not None

    def open_block(self) -> OpenBlock | None:
        op = self._op
        if op is None:
            return None
        if op.kind == "add":
            return OpenBlock(op.start, op.path, FORMAT, (), op.new)
        if op.kind == "update" and self._state == _CHUNK:
            return OpenBlock(self._chunk_block_start(op), op.path, FORMAT, op.old, op.new)
        return OpenBlock(self._chunk_block_start(op) if op.kind == "update" else op.start, op.path, FORMAT, (), ())

    # -- reading lines -----------------------------------------------------------------------

    def _advance(self, lineno: int) -> None:
        lines = self.lines
        while self._cursor < lineno:
            n = self._cursor + 1
            self._cursor = n
            self._line(lines[n - 1], n)

    def _line(self, line: str, n: int) -> None:
        state = self._state
        if line[:1] in " \t" and _SPACED_MARKER.match(line):
            # As Codex reads a patch: a marker with white space around it is the marker
            # (' *** End Patch' is not a context line).
            line = line.strip()
        if state == _OUTSIDE:
            if BEGIN.match(line):
                self._state = _ENVELOPE
                self._envelope = n
            return
        op = self._op
        if state == _CHUNK and op is not None:
            first = line[:1]
            if first in (" ", "-", "+") or not line.strip():
                if not line.strip() and first != " ":
                    op.blanks.append(n)
                    return
                for _ in op.blanks:
                    op.old.append("")
                    op.new.append("")
                    op.context = True
                op.blanks = []
                if first == " ":
                    op.old.append(line[1:])
                    op.new.append(line[1:])
                    op.context = True
                elif first == "-":
                    op.old.append(line[1:])
                else:
                    op.new.append(line[1:])
                op.last = n
                return
            if EOF_MARK.match(line):
                op.last = n
                self._end_chunk(op, last=False, at_end=True)
                self._state = _UPDATE
                return
        if state == _ADD and op is not None:
            if line.startswith("+"):
                for _ in op.blanks:
                    op.new.append("")
                op.blanks = []
                op.new.append(line[1:])
                op.last = n
                return
            if not line.strip():
                op.blanks.append(n)
                return
        if state == _DELETE and op is not None:
            # The line after '*** Delete File' arrived: that line was complete.
            self._emit_delete(op)
            self._op = None
            self._state = _ENVELOPE
            self._line(line, n)
            return
        if state in (_UPDATE, _CHUNK, _SKIP) and op is not None:
            m = SCOPE.match(line)
            if m:
                if state == _CHUNK:
                    self._end_chunk(op, last=False)
                elif state == _SKIP:
                    op.scope = []
                if not op.scope:
                    op.scope_start = n
                if m.group(1) and m.group(1).strip():
                    op.scope.append(m.group(1))
                op.last = n
                self._state = _UPDATE
                return
            if state == _UPDATE:
                m2 = MOVE.match(line)
                if m2 and op.chunks == 0 and not op.scope and op.move_to is None:
                    op.move_to = _path(m2.group(1))
                    op.last = n
                    return
                first = line[:1]
                if first in (" ", "-", "+"):
                    op.chunk_start = op.scope_start or n
                    op.old, op.new, op.blanks, op.context = [], [], [], False
                    self._state = _CHUNK
                    self._line(line, n)
                    return
                if not line.strip():
                    return
        if line.startswith("***") or END.match(line):
            self._marker(line, n)
            return
        fence = parse_fence(line) if line[:1] in "`~" else None
        if fence is not None:
            self._finish_op(n - 1)
            self._warn(self._envelope, f"the patch has no '*** End Patch' line (a fence at line {n} closes it)")
            self._state = _OUTSIDE
            return
        if state == _SKIP:
            return
        if state == _CHUNK and op is not None:
            self._warn(
                op.chunk_start,
                f"line {n} inside the chunk for {op.path} is not a context (' '), removed ('-') or added ('+') line; "
                "chunk ignored",
                group=op.start,
            )
            op.old, op.new, op.blanks = [], [], []
            op.chunks += 1
            op.refused = op.chunk_start
            self._state = _SKIP
            return
        if state == _ADD and op is not None:
            self._warn(op.start, f"line {n} of the new file {op.path} does not start with '+'; the new file is ignored")
            self._op = None
            self._state = _SKIP
            return
        if state == _UPDATE and op is not None:
            self._warn(n, f"line {n} in the update of {op.path} is no chunk line; ignored")
            return
        if state == _ENVELOPE and line.strip():
            self._warn(n, f"line {n} inside the patch is not a '*** ' file operation; ignored")

    def _marker(self, line: str, n: int) -> None:
        """A ``***`` line: ends the operation in progress, and starts the next one or the envelope's end."""
        if EOF_MARK.match(line):
            return
        self._finish_op(n - 1)
        if END.match(line):
            self._state = _OUTSIDE
            return
        if BEGIN.match(line):
            self._warn(n, "'*** Begin Patch' inside a patch: the patch before it has no '*** End Patch'")
            return
        for pattern, kind in ((ADD, "add"), (DELETE, "delete"), (UPDATE, "update")):
            m = pattern.match(line)
            if m:
                path = _path(m.group(1))
                if not path:
                    self._warn(n, f"'{line.strip()}' names no file; ignored")
                    self._state = _SKIP
                    return
                self._op = _Op(kind, path, n)
                self._state = {"add": _ADD, "delete": _DELETE, "update": _UPDATE}[kind]
                return
        what = (
            "a '*** Move to' line must follow its '*** Update File' line"
            if MOVE.match(line)
            else f"unknown patch line {quote(line.strip(), 60)}"
        )
        self._warn(n, f"{what}; ignored")
        self._state = _SKIP

    def _finish_op(self, last: int) -> None:
        """The operation in progress ends before line ``last + 1``."""
        op, state = self._op, self._state
        self._op = None
        self._state = _ENVELOPE
        if op is None:
            return
        if op.kind == "add":
            end = max(op.last, op.start)
            self._emit(
                EditBlock(
                    file_path=op.path,
                    new_lines="".join(x + "\n" for x in op.new),
                    new_file=True,
                    format=FORMAT,
                    line_number=op.start,
                    end_line=end,
                    raw_block=text_of(self.lines, op.start - 1, end),
                )
            )
        elif op.kind == "delete":
            self._emit_delete(op)
        elif op.kind == "update":
            if state == _CHUNK:
                self._end_chunk(op, last=True)
            if op.move_to is not None:
                if op.chunks == 0:
                    end = max(op.last, op.start)
                    self._emit(
                        EditBlock(
                            file_path=op.path,
                            move_to=op.move_to,
                            format=FORMAT,
                            line_number=op.start,
                            end_line=end,
                            raw_block=text_of(self.lines, op.start - 1, end),
                        )
                    )
                else:
                    self._warn(
                        op.refused or op.start,
                        f"{op.path} is not moved to {op.move_to}, since a chunk of it was refused",
                    )
            elif op.chunks == 0:
                self._warn(op.start, f"'*** Update File: {op.path}' has no chunks; nothing to do")

    def _chunk_block_start(self, op: _Op) -> int:
        """The first chunk's block also covers the ``*** Update File`` and ``*** Move to`` lines."""
        if op.chunks == 0:
            return op.start
        return op.chunk_start or op.scope_start or op.last + 1

    def _end_chunk(self, op: _Op, *, last: bool, at_end: bool = False) -> None:
        start = self._chunk_block_start(op)
        end = max(op.last, start)
        scope = tuple(op.scope)
        old, new = op.old, op.new
        op.chunks += 1
        op.scope, op.scope_start, op.chunk_start = [], 0, 0
        op.old, op.new, op.blanks = [], [], []
        move_to = op.move_to if last and not op.refused else None
        if not old and not new:
            self._warn(start, f"empty chunk for {op.path}; ignored")
            return
        if not old and not scope and not at_end:
            # A chunk that only adds lines and names no place: appended at the end of the file,
            # as Codex's own apply_patch does.
            at_end = True
        self._emit(
            EditBlock(
                file_path=op.path,
                old_lines="".join(x + "\n" for x in old),
                new_lines="".join(x + "\n" for x in new),
                scope=scope,
                at_end=at_end,
                move_to=move_to,
                format=FORMAT,
                line_number=start,
                end_line=end,
                raw_block=text_of(self.lines, start - 1, end),
                group=op.start,
            )
        )
        if move_to is not None:
            op.move_to = None

    def _emit_delete(self, op: _Op) -> None:
        """The block of a '*** Delete File' line."""
        self._emit(
            EditBlock(
                file_path=op.path,
                delete=True,
                format=FORMAT,
                line_number=op.start,
                end_line=op.start,
                raw_block=self.lines[op.start - 1] + "\n",
            )
        )

    def _emit(self, block: EditBlock) -> None:
        self._out.append(block)

    def _warn(self, line: int, message: str, group: int = 0) -> None:
        self._out.append(ParseWarning(line, message, FORMAT, group))


class PatchFormat(EditFormat):
    """The apply_patch envelope: ``*** Begin Patch`` ... ``*** End Patch``."""

    name: ClassVar[str] = FORMAT
    description: ClassVar[str] = (
        "Codex apply_patch: *** Begin Patch, *** Update/Add/Delete File, @@ chunks, *** End Patch"
    )
    family: ClassVar[str] = "patch"
    can_delete: ClassVar[bool] = True
    can_move: ClassVar[bool] = True
    can_scope: ClassVar[bool] = True
    markers: ClassVar[str] = "*@"

    def parser(self) -> LineParser:
        return PatchParser()

    def detect(self, text: str) -> float:
        lines = text.split("\n")
        if not any(BEGIN.match(line) for line in lines):
            return 0.0
        ops = sum(1 for line in lines if ADD.match(line) or DELETE.match(line) or UPDATE.match(line))
        return min(1.0, 0.7 + 0.1 * ops)

    def render(self, block: EditBlock) -> str:
        return self.render_blocks([block])

    def render_blocks(self, blocks: Iterable[EditBlock]) -> str:
        """One envelope; consecutive chunks of one file share its ``*** Update File`` line."""
        blocks = list(blocks)
        out = ["*** Begin Patch\n"]
        current: str | None = None
        for i, block in enumerate(blocks):
            path = block.file_path
            if block.delete:
                out.append(f"*** Delete File: {path}\n")
                current = None
                continue
            if block.is_create and not block.search_text and block.move_to is None:
                out.append(f"*** Add File: {path}\n")
                out.extend("+" + x + "\n" for x in _lines(block.replace_text))
                current = None
                continue
            if block.move_to is not None and not block.search_text and not block.replace_text:
                out.append(f"*** Update File: {path}\n*** Move to: {block.move_to}\n")
                current = None
                continue
            if path != current:
                out.append(f"*** Update File: {path}\n")
                current = path
                move = _move_of_run(blocks, i)
                if move is not None:
                    out.append(f"*** Move to: {move}\n")
            if block.move_to is not None:
                current = None
            out.append("".join(f"@@ {s.rstrip()}\n" for s in block.scope if s.strip()) or "@@\n")
            out.extend(x + "\n" for x in hunk_lines(_lines(block.search_text), _lines(block.replace_text)))
            if block.at_end:
                out.append("*** End of File\n")
        out.append("*** End Patch\n")
        return "".join(out)


def _move_of_run(blocks: list[EditBlock], i: int) -> str | None:
    """Where the chunks of one file starting at ``blocks[i]`` move the file (their last one says)."""
    path = blocks[i].file_path
    for block in blocks[i:]:
        if (
            block.file_path != path
            or block.delete
            or (block.is_create and not block.search_text and block.move_to is None)
        ):
            return None
        if block.move_to is not None and not block.search_text and not block.replace_text:
            return None  # a move of its own, in its own section
        if block.move_to is not None:
            return block.move_to
    return None


def _lines(text: str) -> list[str]:
    return text[:-1].split("\n") if text else []
