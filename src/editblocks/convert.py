"""Rewriting the blocks of a reply in another edit format.

>>> import editblocks
>>> editblocks.convert(reply_text, to="udiff")                 # doctest: +SKIP
>>> editblocks.convert(reply_text, to="whole", root=".")       # doctest: +SKIP

Each block is written in the target format and read back with that format's parser; a block is
converted only when what is read back is the same edit (same file, same text searched for and
put in its place, same kind: create, edit, whole file, delete, move). A block the target cannot
express is reported in :attr:`Conversion.problems` and left out, never approximated.

Without a root the blocks are converted as written. With ``root`` (the project the reply is
for) every block is first located in the files, in reply order as ``apply_edits`` would apply
them, without writing anything: a block then carries the file's exact lines (elisions such as
``...`` resolved, tolerant matches made exact), the line it starts at (unified diffs get true
line numbers), and an insertion placed by an enclosing line or the end of the file gets a line
of context, so formats without such places can express it. Whole-file targets need the root
for anything but new files: they are written from the files' final contents. A block that
cannot be located is converted as written, with a note.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace

from .apply import block_reading, without_stray_dividers
from .formats import EXACT_FORMATS, get_format
from .matching import Match, MatchFailure, choose_reading, find_all, locate
from .models import EditBlock
from .parsing import parse_response, split_reply
from .workspace import FileMissingError, PathError, Workspace, WorkspaceError

_CAN_DELETE = frozenset({"patch", "udiff"})
_CAN_MOVE = frozenset({"patch", "udiff"})
_CAN_SCOPE = frozenset({"patch"})


class ConversionError(ValueError):
    """The reply cannot be converted (an unknown format, or blocks the target cannot express)."""


@dataclass
class Conversion:
    """A reply rewritten in another format."""

    text: str
    """The converted reply ("" when no block could be converted)."""
    blocks: list[EditBlock] = field(default_factory=list)
    """The converted blocks, as the target format reads them back from :attr:`text`."""
    problems: list[str] = field(default_factory=list)
    """Blocks that were left out, and why."""
    notes: list[str] = field(default_factory=list)
    """Blocks that were converted as written because the root did not settle them, and why."""
    format: str | None = None
    """The format the reply was read in."""


def convert(
    text: str,
    to: str,
    root: str | os.PathLike[str] | None = None,
    *,
    format: str | None = None,
    match: str | None = None,
) -> str:
    """The blocks of the reply ``text`` written in the format ``to``.

    Raises :class:`ConversionError` when any block cannot be expressed in ``to`` (see
    :func:`convert_reply` for the details and a partial result).
    """
    done = convert_reply(text, to, root=root, format=format, match=match)
    if done.problems:
        raise ConversionError("; ".join(done.problems))
    return done.text


def convert_reply(
    text: str,
    to: str,
    *,
    root: str | os.PathLike[str] | None = None,
    format: str | None = None,
    match: str | None = None,
) -> Conversion:
    """Convert the reply ``text`` (read in ``format``, or each block in its own format) to ``to``.

    ``root`` is the project folder the reply is for (see the module documentation); ``match``
    the matching level used to locate blocks there (default as for ``apply_edits``).
    """
    target = get_format(to)
    parsed = parse_response(text, format)
    done = Conversion("", format=parsed.format)
    blocks = list(parsed.blocks)
    if root is not None:
        resolver = _Resolver(Workspace(root), match)
        blocks = resolver.resolve(blocks, done.notes)
        if to == "edit-v3":
            # edit-v3 ensures a final newline when it edits a file's last line.
            for block in blocks:
                if id(block) in resolver.ends_without_newline:
                    done.problems.append(
                        f"block at reply line {block.line_number} for {block.file_path}: it edits the last line of a file "
                        "without a final newline, and edit-v3 would add one"
                    )
            blocks = [b for b in blocks if id(b) not in resolver.ends_without_newline]
        if to == "whole":
            blocks = _whole_files(blocks, root, done)
    kept: list[EditBlock] = []
    for block in blocks:
        why = _inexpressible(block, to)
        if why is None:
            why = _round_trip_problem(block, to)
        if why is not None:
            done.problems.append(f"block at reply line {block.line_number} for {block.file_path}: {why}")
            continue
        kept.append(block)
    if not kept:
        return done
    done.text = target.render_blocks(kept)
    back, warnings = target.parse_lines(split_reply(done.text))
    if len(back) != len(kept) or any(not same_meaning(a, b, to) for a, b in zip(back, kept)) or warnings:
        # Each block read back alone, yet not together: render them one by one instead.
        done.text = "\n".join(target.render(b) for b in kept)
        back, warnings = target.parse_lines(split_reply(done.text))
        if len(back) != len(kept) or any(not same_meaning(a, b, to) for a, b in zip(back, kept)) or warnings:
            raise ConversionError(f"the converted blocks do not read back as written in {to}")
    done.blocks = back
    return done


def same_meaning(got: EditBlock, want: EditBlock, to: str | None = None) -> bool:
    """True when ``got`` does what ``want`` does: same file, kind and texts (positions and hints aside)."""
    if got.file_path != want.file_path:
        return False
    if got.other_splits != want.other_splits or got.split_balanced != want.split_balanced:
        # Read back with several possible '=======' separators: which part is searched for would
        # be decided against the file, not by what was written.
        return False
    if want.delete or got.delete:
        return got.delete and want.delete and (not got.old_lines or got.old_lines == want.old_lines)
    if to == "whole" and want.is_create and not want.search_text.strip():
        return got.whole_file and got.replace_text == want.replace_text
    if got.whole_file != want.whole_file or got.sketch != want.sketch or got.move_to != want.move_to:
        return False
    if got.is_create != want.is_create:
        return False
    if (got.scope or got.at_end or want.scope or want.at_end) and not want.search_text:
        # An insertion placed by its enclosing line or the end of the file.
        if (got.scope, got.at_end) != (want.scope, want.at_end):
            return False
    return got.search_text == want.search_text and got.replace_text == want.replace_text


def _inexpressible(block: EditBlock, to: str) -> str | None:
    """Why ``to`` cannot express ``block`` at all, or None."""
    if block.other_splits:
        return (
            "it has several '=======' lines, and which one separates its parts is decided against the file; "
            "give --root to decide it"
        )
    if block.delete and to not in _CAN_DELETE:
        return f"it deletes the file, which {to} cannot express (patch and udiff can)"
    if block.move_to is not None and to not in _CAN_MOVE:
        return f"it moves the file, which {to} cannot express (patch and udiff can)"
    if block.sketch and to != "lazy":
        return f"it is a lazy sketch, merged against the file only when applied; {to} cannot express it (apply it instead)"
    if to == "lazy" and not block.sketch:
        return "lazy sketches are written by a model against the file; other blocks are not converted to them"
    if block.whole_file and to != "whole":
        return f"it replaces the whole file; converting it to {to} needs the project (--root) to know what it replaces"
    if to == "whole" and not block.whole_file and not (block.is_create and not block.search_text.strip()):
        return "whole files need the project (--root) to know the rest of the file" if not block.delete else "whole cannot delete a file"
    if not block.search_text and (block.scope or block.at_end) and to not in _CAN_SCOPE:
        where = "at the end of the file" if block.at_end else "after its enclosing line"
        return f"it inserts lines {where} without context lines, which {to} cannot express; give --root to add context"
    return None


def _round_trip_problem(block: EditBlock, to: str) -> str | None:
    """Why ``block`` written in ``to`` does not read back as the same edit, or None."""
    target = get_format(to)
    back, warnings = target.parse_lines(split_reply(target.render(block)))
    if len(back) == 1 and same_meaning(back[0], block, to) and not warnings:
        return None
    return f"its text holds lines that {to} reads as its own markers, so it cannot be written in {to} unchanged"


class _Resolver:
    """Locates blocks in the project's files, in reply order, as an apply would, writing nothing."""

    def __init__(self, workspace: Workspace, match: str | None) -> None:
        self.workspace = workspace
        self.match = match
        self.texts: dict[str, str | None] = {}
        """Each file's text as the blocks so far leave it (None: absent)."""
        self.no_final_newline: set[str] = set()
        """Files that end without a final newline."""
        self.ends_without_newline: set[int] = set()
        """``id`` of each resolved block that edits the last line of such a file."""

    def text(self, path: str) -> str | None:
        if path not in self.texts:
            try:
                text = self.workspace.read(path).text
            except FileMissingError:
                text = None
            if text is not None and text and not text.endswith("\n"):
                text += "\n"
                self.no_final_newline.add(path)
            self.texts[path] = text
        return self.texts[path]

    def resolve(self, blocks: list[EditBlock], notes: list[str]) -> list[EditBlock]:
        out = []
        for block in blocks:
            try:
                resolved, why = self._one(block)
            except WorkspaceError as exc:
                resolved, why = block, str(exc)
            if why is not None:
                notes.append(f"block at reply line {block.line_number} for {block.file_path}: {why}; converted as written")
            out.append(resolved)
        return out

    def _one(self, block: EditBlock) -> tuple[EditBlock, str | None]:
        try:
            path, _ = self.workspace.resolve(block.file_path)
        except PathError as exc:
            return block, str(exc)
        text = self.text(path)
        if block.delete:
            if text is None:
                return block, "the file does not exist"
            self.texts[path] = None
            return replace(block, file_path=path, old_lines=block.old_lines), None
        if block.whole_file:
            self.texts[path] = block.replace_text
            return replace(block, file_path=path), None
        if block.sketch:
            return replace(block, file_path=path), None
        if block.is_create:
            if text is not None and text.strip():
                return block, "the file exists"
            self.texts[path] = block.replace_text
            return replace(block, file_path=path), None
        if text is None:
            return block, "the file does not exist"
        resolved = block
        if block.search_text or block.replace_text:
            level = self.match or ("exact" if block.format in EXACT_FORMATS else "fuzzy")
            reading = block_reading(block, text, path)
            if isinstance(reading, str):
                return block, reading
            old_lines, new_lines = reading
            if block.other_splits:
                # As apply does: the file decides which '=======' line separates, exactly or not at all.
                readings = [block.other_splits[0]] if block.split_balanced else [(old_lines, new_lines), *block.other_splits]
                chosen = choose_reading(text, readings)
                if isinstance(chosen, MatchFailure):
                    return block, chosen.reason
                (old_lines, new_lines), level = readings[chosen], "exact"
                try:
                    new_lines = without_stray_dividers(old_lines, new_lines, text, path)
                except ValueError as exc:
                    return block, str(exc)
            found = locate(
                text,
                old_lines,
                new_lines,
                leading=block.anchor,
                trailing=block.trailing_anchor,
                level=level,
                hint_line=block.hint_line,
                scope=block.scope,
                at_end=block.at_end,
            )
            if not isinstance(found, Match):
                return block, found.reason
            if found.already_applied:
                return block, "it is already applied in the project"
            start, end = _unique_region(text, found.start, found.end)
            old = text[start:end]
            new = text[start : found.start] + found.replacement + text[found.end : end]
            line = found.line - text.count("\n", start, found.start)
            self.texts[path] = text[: found.start] + found.replacement + text[found.end :]
            resolved = replace(
                block, file_path=path, anchor="", trailing_anchor="", old_lines=old, new_lines=new,
                hint_line=line, scope=(), at_end=False, other_splits=(), split_balanced=False,
            )
            if end >= len(text) and path in self.no_final_newline:
                self.ends_without_newline.add(id(resolved))
        if block.move_to is not None:
            try:
                dest, _ = self.workspace.resolve(block.move_to)
            except PathError as exc:
                return block, str(exc)
            self.texts[dest] = self.texts[path]
            self.texts[path] = None
            resolved = replace(resolved, file_path=path, move_to=dest)
        return resolved, None


def _unique_region(text: str, start: int, end: int, limit: int = 60) -> tuple[int, int]:
    """``start:end`` (whole lines of ``text``) grown by a line on each side until its text occurs
    only once, so that it needs no hint or enclosing line to be found (an insertion gets a line of
    context). Gives up after ``limit`` lines."""
    for _ in range(limit):
        if end > start and len(find_all(text, text[start:end], limit=2)) == 1:
            break
        if start > 0:
            start = text.rfind("\n", 0, start - 1) + 1
        if end < len(text) and (end == start or len(find_all(text, text[start:end], limit=2)) != 1):
            end = text.index("\n", end) + 1
        if start == 0 and end == len(text):
            break
    return start, end


def _whole_files(blocks: list[EditBlock], root: str | os.PathLike[str], done: Conversion) -> list[EditBlock]:
    """Each file the blocks leave in place, as one whole-file block with its final content."""
    resolver = _Resolver(Workspace(root), None)
    order: list[str] = []
    first: dict[str, EditBlock] = {}
    for block in blocks:
        if block.delete or block.move_to is not None:
            done.problems.append(f"block at reply line {block.line_number} for {block.file_path}: whole cannot delete or move a file")
            continue
        if block.sketch:
            done.problems.append(f"block at reply line {block.line_number} for {block.file_path}: {_inexpressible(block, 'whole')}")
            continue
        _, why = resolver._one(block)
        if why is not None:
            done.problems.append(f"block at reply line {block.line_number} for {block.file_path}: {why}")
            continue
        path = resolver.workspace.resolve(block.file_path)[0]
        if path not in first:
            first[path] = block
            order.append(path)
    out = []
    for path in order:
        final = resolver.texts.get(path)
        if final is None:
            continue
        out.append(EditBlock(path, new_lines=final, whole_file=True, format="whole", line_number=first[path].line_number))
    return out


__all__ = ["Conversion", "ConversionError", "convert", "convert_reply", "same_meaning"]
