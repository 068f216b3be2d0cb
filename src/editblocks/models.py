"""Data model shared by parsing, matching and applying: blocks, warnings, results."""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from typing import Any

from editblocks.pipeline.diffs import unified_diff
from editblocks.status import EditStatus as EditStatus

PREVIEW_CHARS = 50


def _preview(text: str) -> str:
    """First non-empty line of ``text``, cut to 50 characters."""
    for line in text.split("\n"):
        if line.strip():
            return line[:PREVIEW_CHARS]
    return ""


@dataclass(frozen=True)
class EditBlock:
    """One edit proposed by the model.

    Every section is a string of whole lines, each ending in ``"\\n"`` (or empty).
    The text that must be found is ``anchor + old_lines + trailing_anchor``; it is
    replaced by ``anchor + new_lines + trailing_anchor``. SEARCH/REPLACE formats
    leave both anchors empty; ``edit-v2`` uses both; ``edit-v3`` uses ``anchor``.
    """

    file_path: str
    old_lines: str = ""
    new_lines: str = ""
    anchor: str = ""
    trailing_anchor: str = ""
    format: str = "diff"
    line_number: int = 0
    end_line: int = 0
    raw_block: str = ""
    new_file: bool = False
    """The block was written as an explicit new-file block (``NEW_FILE``, ``*** Add File``)."""
    hint_line: int | None = None
    """Where the model says the searched text starts (1-based line of the file as the block
    meets it): a unified diff's hunk line, Roo's ``:start_line:``. Only a hint: it chooses among
    places the text matches equally well, near it, and never makes a match by itself."""
    scope: tuple[str, ...] = ()
    """Lines that enclose the edit, outermost first (an apply_patch ``@@ def name():`` line):
    they narrow where the searched text may match; an insertion with nothing to search for goes
    right after the last of them."""
    at_end: bool = False
    """The searched text ends at the end of the file (apply_patch ``*** End of File``); with
    nothing to search for, the new lines are appended."""
    delete: bool = False
    """The block deletes the file. A non-empty ``old_lines`` is the content the file must have."""
    move_to: str | None = None
    """The block moves (renames) the file to this path."""
    whole_file: bool = False
    """``new_lines`` is the complete new content of the file, which it replaces (or creates)."""
    sketch: bool = False
    """``new_lines`` is a sketch of the file (format ``lazy``): its elision comments stand for the
    file's own lines, and its other lines are anchored to the file (see :mod:`editblocks.matching.lazy`)."""
    no_final_newline: bool = False
    """When the replacing text ends the file, the file ends without a final newline (a unified
    diff's ``\\ No newline at end of file`` after its last kept or added line)."""
    other_splits: tuple[tuple[str, str], ...] = ()
    """Other readings of a block with several ``=======`` lines: (old, new) when the next one or
    two are the separator (each reading's old text is a prefix of the next one's, so no later
    reading can fit a file the first two do not tell apart). A line of the file can look like a
    separator (an .rst underline); which one is meant is decided against the file, and only
    when that is certain."""
    group: int = 0
    """Blocks with the same non-zero group apply all or none: the chunks of one apply_patch
    ``*** Update File`` (the group is that line's number)."""
    split_balanced: bool = False
    """The block has an odd number of ``=======`` lines and ``other_splits[0]`` is the reading
    with as many of them in SEARCH as in REPLACE (an edit inside underlined text): the only
    reading allowed, and only when it matches exactly. ``old_lines``/``new_lines`` stay the
    reading at the first separator, as a streaming reader saw the block arrive."""

    @property
    def leading_anchor(self) -> str:
        """Alias of ``anchor`` (the name some tools use)."""
        return self.anchor

    @property
    def search_text(self) -> str:
        """The whole text that must occur in the file."""
        return self.anchor + self.old_lines + self.trailing_anchor

    @property
    def replace_text(self) -> str:
        """The text the found region becomes."""
        return self.anchor + self.new_lines + self.trailing_anchor

    @property
    def is_create(self) -> bool:
        """True when the block creates a file: nothing to search for (blank-only counts as nothing).

        A whole-file block counts as one too (it creates the file when it is missing); a delete,
        a move, and an insertion placed by ``scope`` or ``at_end`` do not.
        """
        if self.delete or self.move_to is not None:
            return False
        if self.new_file or self.whole_file or self.sketch:
            return True
        return not self.search_text.strip() and not self.scope and not self.at_end

    @property
    def kind(self) -> str:
        """``create``, ``edit``, ``whole`` (replaces the whole file), ``sketch`` (a lazy sketch of the
        file), ``delete`` or ``move``."""
        if self.delete:
            return "delete"
        if self.move_to is not None:
            return "move"
        if self.whole_file:
            return "whole"
        if self.sketch:
            return "sketch"
        return "create" if self.is_create else "edit"

    def same_edit(self, other: EditBlock) -> bool:
        """True when both blocks describe the same edit (path and sections), whatever their position."""
        return (
            self.file_path,
            self.anchor,
            self.old_lines,
            self.new_lines,
            self.trailing_anchor,
            self.delete,
            self.move_to,
            self.whole_file,
            self.sketch,
        ) == (
            other.file_path,
            other.anchor,
            other.old_lines,
            other.new_lines,
            other.trailing_anchor,
            other.delete,
            other.move_to,
            other.whole_file,
            other.sketch,
        )


_BLOCK_DEFAULTS = {f.name: f.default for f in fields(EditBlock) if f.default is not MISSING}
_BLOCK_FIELDS = frozenset(f.name for f in fields(EditBlock))


def make_block(file_path: str, **values: Any) -> EditBlock:
    """``EditBlock(file_path, **values)``, made without the frozen dataclass's assignment of
    each field one by one (a parser makes thousands). The block is the same in every way."""
    if not _BLOCK_FIELDS.issuperset(values):
        raise TypeError(f"EditBlock has no field {sorted(set(values) - _BLOCK_FIELDS)[0]!r}")
    block = object.__new__(EditBlock)
    object.__setattr__(block, "__dict__", {**_BLOCK_DEFAULTS, "file_path": file_path, **values})
    return block


@dataclass(frozen=True)
class ParseWarning:
    """A malformed or suspicious part of the reply; ``line`` is 1-based in the reply."""

    line: int
    message: str
    format: str | None = None
    group: int = 0
    """For a refused chunk of an apply_patch update: the ``group`` of that file operation's
    blocks (see :attr:`EditBlock.group`), which then apply none of their chunks."""

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


@dataclass
class ParsedReply:
    """What :func:`editblocks.parse_reply` found in a reply."""

    blocks: list[EditBlock] = field(default_factory=list)
    warnings: list[ParseWarning] = field(default_factory=list)
    shell_suggestions: list[str] = field(default_factory=list)
    format: str | None = None

    @property
    def format_label(self) -> str | None:
        """The reply's format as a title: ``diff``, or ``mixed (diff, udiff)`` when its blocks
        come in several formats."""
        return format_label([b.format for b in self.blocks], self.format)


def format_label(formats: list[str], default: str | None) -> str | None:
    """``mixed (a, b)`` for several distinct formats (in order of appearance), else ``default``
    (or the one format)."""
    distinct = list(dict.fromkeys(formats))
    if len(distinct) > 1:
        return f"mixed ({', '.join(distinct)})"
    return distinct[0] if distinct and default is None else default


@dataclass(frozen=True)
class SketchPart:
    """One part of a merged lazy sketch and the file's lines it went to: a run of the sketch's
    own lines and the lines it was anchored to (``kind`` ``run``), or elision comments and the
    lines they kept as they are (``elision``). Lines are 1-based and inclusive, in the sketch and
    in the file as the block met it; a part with no file lines has ``file_last == file_first - 1``."""

    kind: str
    sketch_first: int
    sketch_last: int
    file_first: int
    file_last: int
    changed: bool = False
    """A run whose lines changed the file there."""
    shown: tuple[str, ...] = ()
    """The file's lines there: all of a run's, the first and last :data:`SKETCH_PART_SHOWN` of an elision's."""


SKETCH_PART_SHOWN = 2
"""An elision's part holds this many of its first and of its last kept lines."""


@dataclass
class EditResult:
    """What happened to one block, and why."""

    file_path: str
    status: EditStatus
    block: EditBlock
    reason: str | None = None
    strategy: str | None = None
    estimated_line: int | None = None
    score: float | None = None
    requested_path: str | None = None
    """The path as the model wrote it, when it was resolved to another file."""
    notes: list[str] = field(default_factory=list)
    closest_region: tuple[int, int] | None = None
    """For a failed block: first and last line of the most similar region of the file."""
    closest_text: str | None = None
    """For a failed block: the file's text of that region, to copy into a corrected block."""
    candidates: list[int] = field(default_factory=list)
    """For an ambiguous block: every line where it matches."""
    candidate_texts: list[str] = field(default_factory=list)
    """For an ambiguous block: the file's current lines at each of the first candidates, numbered
    (what the feedback shows so the model can tell the places apart)."""
    moved_to: str | None = None
    """For a move: the path the file is moved to."""
    span: tuple[int, int] | None = None
    """For an applied block that changed its file's text: the offsets of the text it replaced, in
    the file's text as the block met it (line endings as LF; whole lines)."""
    replaced: str = ""
    """That replaced text (the file's own lines, not the block's copy of them)."""
    replacement: str = ""
    """What the block put in its place."""
    matched_text: str | None = None
    """For a block located by a tolerant or fuzzy strategy: the file's whole lines it was matched
    to (from :attr:`estimated_line`), to show beside the block's SEARCH text."""
    sketch_parts: list[SketchPart] = field(default_factory=list)
    """For a merged lazy sketch: its runs and elisions and the file lines each went to, in order."""

    @property
    def reply_line(self) -> int:
        """Line of the reply where the block starts."""
        return self.block.line_number

    @property
    def anchor_preview(self) -> str:
        return _preview(self.block.anchor)

    @property
    def old_preview(self) -> str:
        return _preview(self.block.old_lines)

    @property
    def new_preview(self) -> str:
        return _preview(self.block.new_lines)

    @property
    def already_applied(self) -> bool:
        """The status is :attr:`EditStatus.ALREADY_APPLIED` (kept as a name of its own for callers of earlier versions)."""
        return self.status is EditStatus.ALREADY_APPLIED

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (the CLI's ``--json`` rows)."""
        return {
            "file_path": self.file_path,
            "status": self.status.value,
            "reason": self.reason,
            "strategy": self.strategy,
            "estimated_line": self.estimated_line,
            "reply_line": self.reply_line,
            "score": self.score,
            "requested_path": self.requested_path,
            "notes": list(self.notes),
            "already_applied": self.already_applied,
            "closest_region": list(self.closest_region) if self.closest_region else None,
            "candidates": list(self.candidates),
            "candidate_texts": list(self.candidate_texts),
            "kind": self.block.kind,
            "format": self.block.format,
            "moved_to": self.moved_to,
        }


@dataclass
class ApplyResult:
    """Outcome of :func:`editblocks.apply_edits` for a whole reply."""

    results: list[EditResult] = field(default_factory=list)
    files_modified: list[str] = field(default_factory=list)
    shell_suggestions: list[str] = field(default_factory=list)
    warnings: list[ParseWarning] = field(default_factory=list)
    format: str | None = None
    dry_run: bool = False
    before: dict[str, str] = field(default_factory=dict)
    """Text of each modified file before the edits ("" for a new file)."""
    after: dict[str, str] = field(default_factory=dict)
    """Text of each modified file after the edits ("" for a deleted file)."""
    files_deleted: list[str] = field(default_factory=list)
    """The files the apply deleted (a delete, or the old path of a move); also in ``files_modified``."""
    syntax_problems: dict[str, str] = field(default_factory=dict)
    """Files that parsed before the reply and no longer do after its blocks (path → what and where)."""
    _diffs: dict[str, str] | None = field(default=None, repr=False)

    @property
    def diffs(self) -> dict[str, str]:
        """Unified diff of every modified file, computed on first use."""
        if self._diffs is None:
            self._diffs = {
                path: unified_diff(self.before.get(path, ""), self.after[path], path) for path in self.files_modified
            }
        return self._diffs

    @property
    def applied(self) -> list[EditResult]:
        return [r for r in self.results if r.status is EditStatus.APPLIED]

    @property
    def failed(self) -> list[EditResult]:
        return [r for r in self.results if r.status is EditStatus.FAILED]

    @property
    def skipped(self) -> list[EditResult]:
        """Blocks not tried (an earlier block of their file failed)."""
        return [r for r in self.results if r.status is EditStatus.SKIPPED]

    @property
    def already_applied(self) -> list[EditResult]:
        """Blocks whose edit the files already held."""
        return [r for r in self.results if r.status is EditStatus.ALREADY_APPLIED]

    @property
    def reply_problems(self) -> list[ParseWarning]:
        """Warnings about the reply itself: a malformed or truncated block, unbalanced markers
        (warnings that name a format; those about writing name none)."""
        return [w for w in self.warnings if w.format is not None]

    @property
    def ok(self) -> bool:
        """True when there was at least one block, every block applied (or was already applied)
        and the reply had no malformed or truncated block."""
        return bool(self.results) and all(r.status.done for r in self.results) and not self.reply_problems

    def feedback_message(self) -> str:
        """A message for the model: failed blocks with reasons and the actual lines to copy, and
        the blocks that applied and must not be sent again ("" when every block applied)."""
        from editblocks.pipeline.feedback import feedback_message

        return feedback_message(self)

    @property
    def format_label(self) -> str | None:
        """The reply's format as a title: ``mixed (diff, udiff)`` when its blocks come in several."""
        return format_label([r.block.format for r in self.results], self.format)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the CLI's ``--json`` output)."""
        return {
            "format": self.format,
            "dry_run": self.dry_run,
            "results": [r.to_dict() for r in self.results],
            "files_modified": list(self.files_modified),
            "files_deleted": list(self.files_deleted),
            "shell_suggestions": list(self.shell_suggestions),
            "warnings": [
                {"line": w.line, "message": w.message, "in_reply": w.format is not None} for w in self.warnings
            ],
            "syntax_problems": dict(self.syntax_problems),
            "ok": self.ok,
            "feedback": self.feedback_message() or None,
        }
