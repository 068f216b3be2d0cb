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

from editblocks.errors import EditblocksError
from editblocks.files.workspace import Workspace, WorkspaceError
from editblocks.formats import FORMATS, get_format
from editblocks.matching import find_all
from editblocks.models import ApplyResult, EditBlock, EditStatus
from editblocks.pipeline.placer import ApplyOptions, BlockApplier, checked_sketch
from editblocks.quoting import choose_fence
from editblocks.reading.reader import parse_reply, split_reply


class ConversionError(EditblocksError, ValueError):
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
    fence: bool = True,
) -> Conversion:
    """Convert the reply ``text`` (read in ``format``, or each block in its own format) to ``to``.

    ``root`` is the project folder the reply is for (see the module documentation); ``match``
    the matching level used to locate blocks there (default as for ``apply_edits``).

    ``udiff`` with a ``root`` is a patch that ``git apply`` and ``patch -p1`` accept: the
    changes the blocks make to the files, with three lines of context where the file has them,
    the file's own line endings, ``a/`` and ``b/`` paths and true line numbers; in a ``diff``
    Markdown fence unless ``fence=False``.
    """
    target = get_format(to)
    if to == "udiff" and root is not None:
        return _patch(text, Workspace(root), format, match, fence=fence)
    parsed = parse_reply(text, format)
    done = Conversion("", format=parsed.format)
    blocks = list(parsed.blocks)
    if root is not None:
        resolver = _Resolver(Workspace(root), match)
        if to == "whole":
            blocks = _whole_files(blocks, resolver, done)
        elif to == "lazy":
            blocks = _sketches(blocks, resolver, done)
        else:
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


def _able(capability: str) -> str:
    """The formats that have ``capability``, as words: "patch and udiff"."""
    names = [name for name, fmt in FORMATS.items() if getattr(fmt, capability)]
    return " and ".join(names) if len(names) <= 2 else ", ".join(names[:-1]) + " and " + names[-1]


def _inexpressible(block: EditBlock, to: str) -> str | None:
    """Why ``to`` cannot express ``block`` at all, or None."""
    if block.other_splits:
        return (
            "it has several '=======' lines, and which one separates its parts is decided against the file; "
            "give --root to decide it"
        )
    target = get_format(to)
    if block.delete and not target.can_delete:
        return f"it deletes the file, which {to} cannot express ({_able('can_delete')} can)"
    if block.move_to is not None and not target.can_move:
        return f"it moves the file, which {to} cannot express ({_able('can_move')} can)"
    if block.sketch and to != "lazy":
        return (
            f"it is a lazy sketch, merged against the file only when applied; {to} cannot express it (apply it instead)"
        )
    if to == "lazy" and not block.sketch:
        return "a sketch is written against the file: converting to lazy needs the project (--root)"
    if block.whole_file and to != "whole":
        return f"it replaces the whole file; converting it to {to} needs the project (--root) to know what it replaces"
    if to == "whole" and not block.whole_file and not (block.is_create and not block.search_text.strip()):
        return (
            "whole files need the project (--root) to know the rest of the file"
            if not block.delete
            else "whole cannot delete a file"
        )
    if not block.search_text and (block.scope or block.at_end) and not target.can_scope:
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
    """Places blocks in the project's files in reply order through the apply's own placer
    (:class:`~editblocks.pipeline.placer.BlockApplier`, in memory: nothing is written), and rewrites each
    as the edit it made there."""

    def __init__(self, workspace: Workspace, match: str | None) -> None:
        self.workspace = workspace
        self.applier = BlockApplier(
            workspace, ApplyResult(), ApplyOptions(dry_run=True, continue_after_failure=True, match=match)
        )
        self.ends_without_newline: set[int] = set()
        """``id`` of each resolved block that edits the last line of a file without a final newline."""
        self.text_before: str = ""
        """The file's text as the last resolved block met it (LF, whole lines)."""

    def resolve(self, blocks: list[EditBlock], notes: list[str]) -> list[EditBlock]:
        out = []
        for block in blocks:
            try:
                resolved, why = self._one(block)
            except WorkspaceError as exc:
                resolved, why = block, str(exc)
            if why is not None:
                notes.append(
                    f"block at reply line {block.line_number} for {block.file_path}: {why}; converted as written"
                )
            out.append(resolved)
        return out

    def _one(self, block: EditBlock) -> tuple[EditBlock, str | None]:
        if block.sketch:
            return block, "a sketch is merged against the file only when applied"
        res = self.applier.add(block)
        if res.status is EditStatus.FAILED:
            return block, res.reason
        if res.already_applied:
            return block, "it is already applied in the project"
        path = res.file_path
        if block.delete or block.whole_file or res.strategy == "create":
            return replace(block, file_path=path), None
        resolved = block
        if res.span is not None:
            # The file's text as the block met it: its text now, with the block's change taken back.
            after = self.applier.text_of(res.moved_to or path) or ""
            start, end = res.span
            text = after[:start] + res.replaced + after[start + len(res.replacement) :]
            self.text_before = text
            first, last = _unique_region(text, start, end)
            old = text[first:last]
            new = text[first:start] + res.replacement + text[end:last]
            line = (res.estimated_line or 1) - text.count("\n", first, start)
            resolved = replace(
                block,
                file_path=path,
                anchor="",
                trailing_anchor="",
                old_lines=old,
                new_lines=new,
                hint_line=line,
                scope=(),
                at_end=False,
                other_splits=(),
                split_balanced=False,
                whole_file=False,
            )
            if last >= len(text) and self.applier.ends_without_newline(res.moved_to or path):
                self.ends_without_newline.add(id(resolved))
        if res.moved_to is not None:
            resolved = replace(resolved, file_path=path, move_to=res.moved_to)
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


def _sketches(blocks: list[EditBlock], resolver: _Resolver, done: Conversion) -> list[EditBlock]:
    """Each edit as a sketch of its file: its region's new lines between elision comments in the
    file's comment syntax. A sketch is kept only when merging it into the file as the edit met it
    gives exactly the edit's result (the merge is the one ``apply --format lazy`` makes)."""
    from editblocks.matching.lazy import comment_styles

    out: list[EditBlock] = []
    for block in blocks:
        where = f"block at reply line {block.line_number} for {block.file_path}"
        if block.sketch:
            done.notes.append(f"{where}: a sketch is merged against the file only when applied; converted as written")
            out.append(block)
            continue
        resolved, why = resolver._one(block)
        if why is not None:
            done.problems.append(f"{where}: {why}")
            continue
        if block.delete or block.move_to is not None or resolved.whole_file or resolved.is_create:
            done.problems.append(
                f"{where}: it creates, replaces, deletes or moves a whole file, which a sketch does not express"
            )
            continue
        text = resolver.text_before
        lines = text.split("\n")[:-1]
        start = (resolved.hint_line or 1) - 1
        old = resolved.old_lines.split("\n")[:-1]
        new = resolved.new_lines.split("\n")[:-1]
        expected = "".join(x + "\n" for x in [*lines[:start], *new, *lines[start + len(old) :]])
        opener, closer = comment_styles(resolved.file_path)[0]
        sketch_text = None
        # The region's new lines with a few of the file's own lines around them, so that the
        # sketch's lines anchor in the file; the fewest that merge to exactly the edit's result.
        for context in range(6):
            lo, hi = max(0, start - context), min(len(lines), start + len(old) + context)
            sketch = [*lines[lo:start], *new, *lines[start + len(old) : hi]]
            if lo > 0:
                sketch.insert(0, _elision(lines[lo], opener, closer))
            if hi < len(lines):
                sketch.append(_elision(lines[hi - 1], opener, closer))
            candidate = "".join(x + "\n" for x in sketch)
            if checked_sketch(text, candidate, resolved.file_path) == expected:
                sketch_text = candidate
                break
        if sketch_text is None:
            done.problems.append(f"{where}: as a sketch of the file, this edit would not merge only where it belongs")
            continue
        out.append(
            EditBlock(
                resolved.file_path, new_lines=sketch_text, sketch=True, format="lazy", line_number=block.line_number
            )
        )
    return out


def _elision(near: str, opener: str, closer: str) -> str:
    """An elision comment indented as the line ``near`` it."""
    indent = near[: len(near) - len(near.lstrip())]
    return f"{indent}{opener} ... existing code ...{' ' + closer if closer else ''}"


def _whole_files(blocks: list[EditBlock], resolver: _Resolver, done: Conversion) -> list[EditBlock]:
    """Each file the blocks leave in place, as one whole-file block with its final content."""
    order: list[str] = []
    first: dict[str, EditBlock] = {}
    for block in blocks:
        if block.delete or block.move_to is not None:
            done.problems.append(
                f"block at reply line {block.line_number} for {block.file_path}: whole cannot delete or move a file"
            )
            continue
        if block.sketch:
            done.problems.append(
                f"block at reply line {block.line_number} for {block.file_path}: {_inexpressible(block, 'whole')}"
            )
            continue
        resolved, why = resolver._one(block)
        if why is not None:
            done.problems.append(f"block at reply line {block.line_number} for {block.file_path}: {why}")
            continue
        path = resolved.file_path
        if path not in first:
            first[path] = block
            order.append(path)
    out = []
    for path in order:
        final = resolver.applier.text_of(path)
        if final is None:
            continue
        out.append(
            EditBlock(path, new_lines=final, whole_file=True, format="whole", line_number=first[path].line_number)
        )
    return out


def _patch(text: str, workspace: Workspace, format: str | None, match: str | None, *, fence: bool) -> Conversion:
    """The reply as one patch of the project under ``workspace`` (see :func:`convert_reply`)."""
    from editblocks.files.textfile import TextFile
    from editblocks.pipeline.api import apply_edits
    from editblocks.pipeline.diffs import unified_diff

    result = apply_edits(text, workspace.root, format=format, dry_run=True, continue_after_failure=True, match=match)
    done = Conversion("", format=result.format)
    for r in result.results:
        if r.status is EditStatus.FAILED or (r.status is EditStatus.SKIPPED and not r.already_applied):
            done.problems.append(f"block at reply line {r.reply_line} for {r.file_path}: {r.reason}")
        elif r.already_applied:
            done.notes.append(
                f"block at reply line {r.reply_line} for {r.file_path}: it is already applied in the project; left out"
            )
    sections: list[str] = []
    for path in result.files_modified:
        try:
            data: bytes | None = workspace.read_bytes(path)[1]
        except WorkspaceError:
            data = None
        deleted = path in result.files_deleted
        if data is None:
            before, after = "", result.after.get(path, "")
        else:
            file = TextFile.from_bytes(path, data)
            before = data[len(file.bom) :].decode(file.encoding)
            after = "" if deleted else file.encode(result.after[path])[len(file.bom) :].decode(file.encoding)
        diff = unified_diff(before, after, path)
        if not diff:
            continue
        body = diff.split("\n", 2)[2]  # the hunks, under headers that say what the file was and becomes
        # As git writes them: a name with a space ends with a tab, so that patch reads it whole.
        end = "\t" if " " in path else ""
        old = f"--- a/{path}{end}" if data is not None else "--- /dev/null"
        new = "+++ /dev/null" if deleted else f"+++ b/{path}{end}"
        sections.append(f"{old}\n{new}\n{body}")
    if not sections:
        return done
    patch = "".join(sections)
    marker = choose_fence(patch)
    done.text = f"{marker}diff\n{patch}{marker}\n" if fence else patch
    done.blocks, _ = get_format("udiff").parse_lines(split_reply(done.text))
    return done


__all__ = ["Conversion", "ConversionError", "convert", "convert_reply", "same_meaning"]
