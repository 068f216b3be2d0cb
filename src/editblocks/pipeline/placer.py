"""``apply_edits``: the one pipeline from a reply to written files and a result per block."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING

from editblocks.files.drift import DriftCheck, occurrences
from editblocks.files.journal import Journal, sha256
from editblocks.files.lock import DEFAULT_LOCK_TIMEOUT
from editblocks.files.workspace import (
    DEFAULT_MAX_FILE_BYTES,
    DEFAULT_MAX_REPLY_BYTES,
    BinaryFileError,
    FileMissingError,
    PathError,
    TextFile,
    Workspace,
    WorkspaceError,
)
from editblocks.formats import FORMATS, default_level
from editblocks.matching import LEVELS, Match, MatchFailure, choose_reading, locate, searched_elsewhere
from editblocks.matching.elision import expand_replace_elisions
from editblocks.matching.narrowing import HINT_WINDOW
from editblocks.matching.strategies import FileView, is_elision, split_elisions
from editblocks.matching.text import remember_line
from editblocks.models import ApplyResult, EditBlock, EditResult, EditStatus, ParsedReply, ParseWarning
from editblocks.pipeline.feedback import numbered_regions
from editblocks.pipeline.lines import FileLines
from editblocks.pipeline.verifier import (
    check_already_applied,
    check_edit,
    check_file,
    check_markers,
    check_sketch,
    check_span,
    marker_lines,
)
from editblocks.pipeline.writer import Change, commit
from editblocks.status import Strategy
from editblocks.syntax.check import SyntaxProblem, SyntaxUnavailable, syntax_problem
from editblocks.syntax.languages import is_document, language_for

if TYPE_CHECKING:
    from editblocks.matching.lazy import SketchMerge

SKIP_AFTER_FAILURE = "previous edit to this file failed"


@dataclass(frozen=True)
class ApplyOptions:
    """Every option of an apply, in one place: the keyword arguments of :func:`apply_edits`,
    :class:`~editblocks.pipeline.stream.ApplyStream` and
    :func:`~editblocks.pipeline.stream.apply_stream` (see :func:`apply_edits` for each)."""

    format: str | None = None
    dry_run: bool = False
    git_add: bool = False
    continue_after_failure: bool = False
    match: str | None = None
    atomic: bool = False
    refuse_drift: bool = False
    journal: bool = True
    allow_delete: bool = True
    verify_syntax: bool = False
    """A file that parsed before its blocks and does not after them is not written; its blocks fail."""
    base: Mapping[str, str | bytes | None] | None = None
    max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT

    def __post_init__(self) -> None:
        if self.match is not None and self.match not in LEVELS:
            raise ValueError(f"unknown match level {self.match!r}; use one of {', '.join(LEVELS)}")


ALREADY_APPLIED = "already applied"


class _FileState:
    """One file during an apply: as read, and as edited so far (LF text, always whole lines).

    The text as edited is held as indexed lines (see :mod:`editblocks.pipeline.lines`): a block
    found through the index is spliced in without rebuilding the text."""

    __slots__ = ("deleted", "doc", "existed", "file", "final_newline", "original")

    def __init__(
        self, file: TextFile, existed: bool, original: str, text: str, final_newline: bool, deleted: bool = False
    ) -> None:
        self.file = file
        self.existed = existed
        self.original = original
        self.doc = FileLines(text)
        self.final_newline = final_newline
        self.deleted = deleted
        """An earlier block of this reply deleted the file (or moved it away)."""

    @property
    def text(self) -> str:
        return self.doc.text

    @text.setter
    def text(self, text: str) -> None:
        self.doc.replace_text(text)

    @classmethod
    def load(cls, file: TextFile, existed: bool) -> _FileState:
        text = file.text
        final_newline = text.endswith("\n") or not text
        if text and not final_newline:
            text += "\n"
        return cls(file, existed, file.text, text, final_newline)

    def result_text(self) -> str:
        if not self.final_newline and self.text.endswith("\n"):
            return self.text[:-1]
        return self.text


def _review_drift(
    res: EditResult,
    block: EditBlock,
    states: dict[str, _FileState],
    snapshot: dict[str, tuple[str, bool, bool]],
    drift: DriftCheck,
    refuse: bool,
) -> None:
    """An applied block to a file that changed since the model saw it: keep it only where certain.

    Certain means the block's text occurs exactly once in the file as it was before the block.
    Otherwise, or when drift is refused, the block is taken back and fails with the reason.
    """
    path = res.file_path
    state = states.get(path)
    if res.status in (EditStatus.SKIPPED, EditStatus.ALREADY_APPLIED) or state is None:
        return
    why = drift.drift(path, state.file if state.existed else None)
    if why is None:
        return
    if res.status is EditStatus.FAILED:
        res.notes.append(f"{path} had changed since the model saw it ({why})")
        return
    before = snapshot.get(path)
    text_before = before[0] if before is not None else _FileState.load(state.file, state.existed).text
    if refuse:
        reason = f"{path} has changed since the model saw it ({why}); refused (refuse drift)"
    elif block.kind in ("delete", "move", "whole", "sketch"):
        what = {"delete": "deleted", "move": "moved", "whole": "replaced as a whole", "sketch": "merged from a sketch"}[
            block.kind
        ]
        reason = f"{path} has changed since the model saw it ({why}); a file that changed is not {what}"
    elif not block.is_create and occurrences(text_before, block.search_text) != 1:
        reason = (
            f"{path} has changed since the model saw it ({why}), and the block's text does not occur "
            "exactly once in the file as it is now, so where it goes is not certain"
        )
    else:
        res.notes.append(
            f"{path} had changed since the model saw it ({why}); the block's text occurs exactly once there"
        )
        return
    _restore(states, snapshot)
    res.status = EditStatus.FAILED
    res.reason = reason
    res.moved_to = None


_MADE = (
    "already applied: this reply's last apply (undo entry #{entry}) made this block, and the files it wrote are "
    "unchanged since"
)


def _made_result(block: EditBlock, path: str, entry: int) -> EditResult:
    """``block`` already applied on the journal's evidence (undo entry ``entry``), in ``path``."""
    res = EditResult(file_path=path, status=EditStatus.ALREADY_APPLIED, block=block)
    res.reason = _MADE.format(entry=entry)
    res.strategy = Strategy.JOURNAL.value
    return res


class _Failure(Exception):
    def __init__(self, reason: str, line: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line


def apply_parsed(
    parsed: ParsedReply, workspace: Workspace, options: ApplyOptions, drift: DriftCheck | None
) -> ApplyResult:
    """Apply the blocks of ``parsed`` under ``workspace`` and write the files (the caller holds the root's lock)."""
    result = ApplyResult(
        shell_suggestions=list(parsed.shell_suggestions),
        warnings=list(parsed.warnings),
        format=parsed.format,
        dry_run=options.dry_run,
    )
    applier = BlockApplier(workspace, result, options, drift)
    for block in parsed.blocks:
        applier.expected.setdefault(block.file_path, []).append(block)
    applier.blocks = blocks_digest(parsed.blocks) if options.journal and parsed.blocks else None
    made = applier.made_before(parsed.blocks)
    for warning in parsed.warnings:
        applier.refuse_group(warning)
    for i, block in enumerate(parsed.blocks):
        if i in made:
            applier.made(block, *made[i])
        else:
            applier.add(block)
    return applier.write()


def blocks_digest(blocks: list[EditBlock]) -> str:
    """A digest of what ``blocks`` say (paths, texts, hints and operations; not where in the
    reply they stand): the same reply applied again has the same digest."""
    said = [
        [
            b.file_path,
            b.old_lines,
            b.new_lines,
            b.anchor,
            b.trailing_anchor,
            b.format,
            b.new_file,
            b.hint_line,
            list(b.scope),
            b.at_end,
            b.delete,
            b.move_to,
            b.whole_file,
            b.sketch,
            b.no_final_newline,
            [list(x) for x in b.other_splits],
            b.group,
        ]
        for b in blocks
    ]
    return hashlib.sha256(json.dumps(said, ensure_ascii=False).encode("utf-8", "surrogatepass")).hexdigest()


class BlockApplier:
    """The steps of an apply, one block at a time: :meth:`add` applies a block to the files held
    in memory (in reply order, each block seeing the earlier ones' results) and returns its
    result at once; :meth:`write` then writes every changed file as :func:`apply_edits` does.

    ``result`` collects the block results; its warnings, shell suggestions and format are the
    caller's to fill. A block's status can still change in :meth:`write` (a file that cannot be
    written, or an all-or-nothing apply held back).
    """

    def __init__(
        self,
        workspace: Workspace,
        result: ApplyResult,
        options: ApplyOptions,
        drift: DriftCheck | None = None,
    ) -> None:
        self.workspace = workspace
        self.result = result
        self.options = options
        self.drift = drift
        self._states: dict[str, _FileState] = {}
        self._failed_files: set[str] = set()
        self._owners: dict[str, list[EditResult]] = {}
        self._groups: dict[int, tuple[dict[str, tuple[str, bool, bool]], list[EditResult]]] = {}
        """Blocks that apply all or none (an apply_patch file operation's chunks), by group: the
        files before the group's first block, and the group's results so far."""
        self._failed_groups: set[int] = set()
        self._refused: dict[int, str] = {}
        """Why a group failed before any of its blocks came (a chunk the reader refused)."""
        self._paths: dict[str, tuple[str, Path]] = {}
        """Paths as blocks name them, resolved (the tree is not changed until the write)."""
        self.blocks: str | None = None
        """The digest of the whole reply's blocks, when known: recorded in the journal, and
        what tells a reply applied again (see :meth:`made_before`)."""
        self._vouched: dict[str, str | None] = {}
        """What the journal says the reply's last apply left in each file it wrote (SHA-256)."""
        self._read_as_vouched: dict[str, bool] = {}
        self.expected: dict[str, list[EditBlock]] = {}
        """The blocks that will come for each path as blocks name it, when known (a whole reply):
        a file that gets many is indexed at its first search, counting the lines they name (see
        :meth:`FileLines.expect`)."""

    def made_before(self, blocks: list[EditBlock]) -> dict[int, tuple[int, frozenset[str]]]:
        """The ``blocks`` (this reply's) that its last apply made (applied or found applied) in
        a file it wrote, by index, with that apply's journal entry and the paths the block acted
        on, when the files it wrote still
        hold exactly what it wrote: applying them again would find the files as they left them,
        so they are already applied, whatever their text looks like now (a later block may have
        changed the lines an earlier one wrote). A block it found applied in a file it did not
        write is judged on the text again (that file may have changed since)."""
        if self.blocks is None:
            return {}
        try:
            entry = Journal(self.workspace.root).unchanged_since(self.blocks, self.workspace)
            if entry is None or not isinstance(entry.done, list):
                return {}
            written = {f.path for f in entry.files}
            self._vouched = {f.path: f.after for f in entry.files}
            made: dict[int, tuple[int, frozenset[str]]] = {}
            for item in entry.done:
                i, paths = item
                if (
                    type(i) is int
                    and 0 <= i < len(blocks)
                    and isinstance(paths, list)
                    and paths
                    and all(isinstance(p, str) and p in written for p in paths)
                ):
                    made[i] = (entry.id, frozenset(paths))
            return made
        except (WorkspaceError, OSError, ValueError, TypeError, AttributeError):
            # No journal to read, or an entry damaged: the blocks are judged on the text (a write
            # says why the journal cannot be used).
            return {}

    def made(self, block: EditBlock, entry: int, paths: frozenset[str]) -> EditResult:
        """Report ``block``, which the reply's last apply (journal entry ``entry``) made in
        ``paths``, already applied on the journal's evidence, the files left as they are. An edit
        of lines in a file is not searched for (the evidence holds whatever the text would show,
        and the file is read only to prove it is still reached as before); a file operation
        (create, delete, move, whole file) is reported as the text shows it when it does. A block
        whose path now leads to another file than those, or whose file an earlier block of this
        apply changed, or whose file as read now is not what the journal vouches for (changed in
        between), is judged on the text alone."""
        states = self._states
        snapshot = {p: (s.text, s.final_newline, s.deleted) for p, s in states.items()}
        group = block.group
        if group and group not in self._groups:
            self._groups[group] = (snapshot, [])
        if not (block.is_create or block.delete or block.move_to is not None):
            done = self._made_edit(block, entry, paths)
            if done is not None:
                return self._settle(block, done)
        elif (block.delete or block.move_to is not None) and self._made_removal(block, paths):
            return self._settle(block, _made_result(block, block.file_path, entry))
        res = _apply_block(
            block,
            self.workspace,
            states,
            set(),
            True,
            self.options.match,
            allow_delete=self.options.allow_delete,
            paths=self._paths,
            expected=self.expected.get(block.file_path, ()),
        )
        state = states.get(res.file_path)
        readable = state is not None and (not state.deleted or block.delete or block.move_to is not None)
        if (
            res.status is not EditStatus.ALREADY_APPLIED
            and (res.status is EditStatus.APPLIED or readable)
            and res.file_path in paths
            and self._vouches(res.file_path)
        ):
            # (A block that failed before its file could be read keeps that failure: the journal
            # vouches for the file's content, not for reaching it now.)
            _restore(states, snapshot)
            state = states.get(res.file_path)
            text = state.text if state is not None and not state.deleted else ""
            res = _made_result(block, res.file_path, entry)
            # Where the block's text stands, when it stands once (for the reader; the journal decided).
            made = block.replace_text
            at = text.find(made) if made.strip() else -1
            if at != -1 and text.find(made, at + 1) == -1:
                res.estimated_line = text.count("\n", 0, at) + 1
        return self._settle(block, res)

    def _vouches(self, path: str) -> bool:
        """Whether the journal's evidence still holds for ``path`` in this apply: no earlier block
        of it changed the file, and the file as read (when it was) is what the last apply wrote."""
        if path in self._owners:
            return False
        state = self._states.get(path)
        if state is None or state.file.data is None or state.deleted:
            return True  # not read by this apply: the journal's own check of it stands
        read = self._read_as_vouched.get(path)
        if read is None:
            # (Once per file: what it was read as does not change during the apply.)
            read = self._read_as_vouched[path] = sha256(state.file.data) == self._vouched.get(path)
        return read

    def _made_removal(self, block: EditBlock, paths: frozenset[str]) -> bool:
        """Whether ``block``, a delete or a move its reply's last apply made in ``paths``, finds
        its file gone as that apply left it (and, for a move, the new file it wrote): the path
        still leads inside the root to where that apply deleted a file, nothing is there now,
        and no earlier block of this apply touched it."""
        try:
            rel, full = self.workspace.resolve(block.file_path)
            moved = self.workspace.resolve(block.move_to)[0] if block.move_to is not None else None
        except (PathError, WorkspaceError):
            return False
        if rel not in paths or rel in self._states or rel not in self._vouched or self._vouched[rel] is not None:
            return False
        if os.path.lexists(full) or os.path.lexists(self.workspace.root / rel):
            return False  # (a link left there, even one leading nowhere, is something there)
        if moved is not None:
            # The new file is one that apply wrote, still as it wrote it (the journal checked it).
            return moved in paths and self._vouched.get(moved) is not None and moved not in self._states
        return True

    def _made_edit(self, block: EditBlock, entry: int, paths: frozenset[str]) -> EditResult | None:
        """``block``, an edit of lines its reply's last apply made in ``paths``, reported already
        applied once its file is reached and read as any block's is; None when that fails, when
        the path had to be resolved to another file, or leads to a file not in ``paths`` (then the
        block goes the whole way, and says why)."""
        try:
            path, requested = _resolve(block, self.workspace, self._states, self._paths)
            if requested or path not in paths:
                return None
            state = _state(path, block, self.workspace, self._states, self.expected.get(block.file_path, ()))
        except (_Failure, WorkspaceError):
            return None
        if state.deleted or not self._vouches(path):
            return None
        res = _made_result(block, path, entry)
        made = block.replace_text
        if made.endswith("\n") and made.strip() and state.doc.indexable:
            # Where the block's text stands, when it stands once (for the reader; the journal decided).
            hits = state.doc.find(made[:-1].split("\n"))
            if len(hits) == 1:
                res.estimated_line = hits[0] + 1
        return res

    def add(self, block: EditBlock) -> EditResult:
        """Apply ``block`` in memory; its result is also appended to ``result.results``."""
        states, drift = self._states, self.drift
        snapshot = {p: (s.text, s.final_newline, s.deleted) for p, s in states.items()} if drift is not None else {}
        group = block.group
        if group and group in self._failed_groups:
            res = EditResult(file_path=block.file_path, status=EditStatus.FAILED, block=block)
            res.reason = self._refused.get(
                group, f"another chunk of the same file operation (reply line {group}) failed"
            )
            res.reason += "; a file's chunks apply all or none"
            self._failed_files.add(block.file_path)
            self.result.results.append(res)
            return res
        if group and group not in self._groups:
            self._groups[group] = ({p: (s.text, s.final_newline, s.deleted) for p, s in states.items()}, [])
        res = _apply_block(
            block,
            self.workspace,
            states,
            self._failed_files,
            self.options.continue_after_failure,
            self.options.match,
            allow_delete=self.options.allow_delete,
            paths=self._paths,
            expected=self.expected.get(block.file_path, ()),
        )
        if drift is not None:
            _review_drift(res, block, states, snapshot, drift, self.options.refuse_drift)
        return self._settle(block, res)

    def _settle(self, block: EditBlock, res: EditResult) -> EditResult:
        """Record ``res``, ``block``'s result, with its group and its file: a failure fails the
        group's other chunks and skips the file's later blocks; an applied block owns its files."""
        self.result.results.append(res)
        if block.group:
            self._groups[block.group][1].append(res)
            if res.status is EditStatus.FAILED:
                self._fail_group(block.group, f"the chunk at reply line {block.line_number} failed: {res.reason}")
        if res.status is EditStatus.FAILED:
            self._failed_files.add(res.file_path)
        elif res.status is EditStatus.APPLIED:
            self._owners.setdefault(res.file_path, []).append(res)
            if res.moved_to is not None:
                self._owners.setdefault(res.moved_to, []).append(res)
        return res

    def text_of(self, path: str) -> str | None:
        """The text of ``path`` (a path as results name it) as the blocks so far leave it: LF line
        endings, whole lines; None when it does not exist or was deleted. Files no block has
        touched are read from the workspace."""
        state = self._states.get(path)
        if state is None:
            try:
                file = self.workspace.read(path)
            except FileMissingError:
                return None
            text = file.text
            return text + "\n" if text and not text.endswith("\n") else text
        return None if state.deleted else state.text

    def ends_without_newline(self, path: str) -> bool:
        """Whether ``path`` (as the blocks so far leave it) ends without a final newline."""
        state = self._states.get(path)
        return state is not None and not state.final_newline

    def refuse_group(self, warning: ParseWarning) -> None:
        """The reply reader refused a chunk of a file operation (``warning.group``): none of that
        operation's chunks apply. Its chunks applied so far are taken back at once, before any
        later block meets the files they changed."""
        group = warning.group
        if group and group not in self._failed_groups:
            why = f"a chunk of this file operation could not be read (reply line {warning.line}: {warning.message})"
            if group in self._groups:
                self._fail_group(group, why)
            else:
                self._failed_groups.add(group)
                self._refused[group] = why

    def _fail_group(self, group: int, why: str) -> None:
        """Take back every block of ``group`` (their files as before its first block) and fail
        them, with every later block that changed one of those files (its change is undone by
        putting the files back)."""
        before, members = self._groups[group]
        self._failed_groups.add(group)
        results = self.result.results
        own = {id(r) for r in members}
        first = next((i for i, r in enumerate(results) if id(r) in own), len(results))
        taken = list(members)
        paths = {r.file_path for r in members} | {r.moved_to for r in members if r.moved_to}
        later = [r for r in results[first:] if id(r) not in own and r.status.done]
        grew = True
        while grew:
            grew = False
            for r in later:
                if all(r is not t for t in taken) and ({r.file_path, r.moved_to} & paths):
                    taken.append(r)
                    paths |= {p for p in (r.file_path, r.moved_to) if p}
                    grew = True
        for path in paths:
            if path in before:
                state = self._states[path]
                state.text, state.final_newline, state.deleted = before[path]
            else:
                self._states.pop(path, None)
            self._failed_files.add(path)
        for r in taken:
            if r.status.done:
                for owned in (r.file_path, r.moved_to):
                    if owned and r in self._owners.get(owned, []):
                        self._owners[owned].remove(r)
                r.status, r.moved_to = EditStatus.FAILED, None
                if id(r) in own:
                    r.reason = f"not applied: {why}; a file's chunks apply all or none"
                else:
                    r.reason = f"not applied: an earlier file operation on {r.file_path} was taken back ({why})"

    def write(self) -> ApplyResult:
        """Write every changed file (nothing in a dry run) and return the result."""
        result, workspace, owners = self.result, self.workspace, self._owners
        changes: list[Change] = []
        for path, state in self._states.items():
            if state.deleted:
                if state.existed:
                    changes.append(
                        Change(path, state.file, True, state.original, "", owners.get(path, []), delete=True)
                    )
                continue
            new_text = state.result_text()
            if new_text == state.original and state.existed:
                continue
            if not state.existed and path not in owners:
                continue
            if not self._syntax_holds(path, state, new_text):
                continue
            changes.append(Change(path, state.file, state.existed, state.original, new_text, owners.get(path, [])))
        commit(
            workspace,
            changes,
            result,
            atomic=self.options.atomic,
            dry_run=self.options.dry_run,
            journal=self.options.journal,
            blocks=self.blocks,
        )

        if self.options.git_add and not self.options.dry_run and result.files_modified:
            index = workspace.git_index(result.files_modified)
            error = workspace.git_add(result.files_modified)
            if error:
                result.warnings.append(ParseWarning(0, f"git add: {error}"))
            elif index is not None and self.options.journal:
                _record_index(workspace, result.files_modified, index)
        return result

    def _syntax_holds(self, path: str, state: _FileState, new_text: str) -> bool:
        """Syntax as a second opinion: False when ``verify_syntax`` refuses the file's new text."""
        problem = syntax_broken(
            state.original if state.existed else None, new_text, path, always=self.options.verify_syntax
        )
        if problem is None:
            return True
        owners = [r for r in self._owners.get(path, []) if r.status is EditStatus.APPLIED]
        if state.existed:
            message = f"{path} parsed before this reply and no longer does after its blocks ({problem})"
        else:
            message = f"{path} as created does not parse ({problem})"
        self.result.syntax_problems[path] = message
        if not self.options.verify_syntax or not state.existed:
            for r in owners:
                r.notes.append(message)
            return True
        for r in owners:
            r.status = EditStatus.FAILED
            r.reason = f"{message}; the file is left untouched (verify syntax). Fix the edit so the file still parses"
        self._failed_files.add(path)
        return False


def _record_index(workspace: Workspace, written: list[str], index: dict[str, str | None]) -> None:
    """Keep the index entries ``git add`` changed with this apply's journal entry, for undo."""
    book = Journal(workspace.root)
    entry = book.last_entry()
    if entry is not None and {f.path for f in entry.files} == set(written):
        book.record_git_index(entry, index)


def syntax_broken(before: str | None, after: str, path: str, *, always: bool = False) -> SyntaxProblem | None:
    """The syntax problem ``after`` has that ``before`` did not (None also when the language
    cannot be checked here). Without ``always``, texts over 1 MB are not checked."""
    if not always and len(after) > SYNTAX_CHECK_MAX_CHARS:
        return None
    try:
        problem = syntax_problem(after, path)
        if problem is None or (before is not None and syntax_problem(before, path) is not None):
            return None
    except SyntaxUnavailable:
        return None
    return problem


SYNTAX_CHECK_MAX_CHARS = 1_000_000


def _apply_block(
    block: EditBlock,
    workspace: Workspace,
    states: dict[str, _FileState],
    failed_files: set[str],
    continue_after_failure: bool,
    level: str | None,
    *,
    allow_delete: bool = True,
    paths: dict[str, tuple[str, Path]] | None = None,
    expected: Sequence[EditBlock] = (),
) -> EditResult:
    res = EditResult(file_path=block.file_path, status=EditStatus.FAILED, block=block)
    try:
        path, requested = _resolve(block, workspace, states, paths)
        res.file_path = path
        if requested:
            res.requested_path = requested
            res.notes.append(f"path {requested!r} does not exist; resolved to {path!r}")
        if path in failed_files and not continue_after_failure:
            res.status = EditStatus.SKIPPED
            res.reason = SKIP_AFTER_FAILURE
            return res
        state = _state(path, block, workspace, states, expected)
        if _file_operation(block, res, path, requested, workspace, states, state, allow_delete):
            return res
        aider = _aider_reading(block)
        if aider and block.is_create and not block.new_file and state.text.strip():
            _append(block, res, state, path)
            if res.status is EditStatus.ALREADY_APPLIED:
                return res
        elif block.is_create:
            if state.text.strip():
                if state.text.rstrip("\n") == block.replace_text.rstrip("\n"):
                    res.status, res.reason = EditStatus.ALREADY_APPLIED, ALREADY_APPLIED
                    res.strategy = "create"
                    return res
                if not block.new_file and block.format in ("patch", "udiff"):
                    raise _Failure(
                        f"the chunk for {path} has no line with text around its change (its context is blank "
                        "lines or none), so where it goes in the file is not known; include a context line from the file"
                    )
                raise _Failure(f"file exists: {path}; {_how_to_change(block.format)}")
            verdict = check_file(state.text, block.replace_text, path)
            if not verdict:
                raise _Failure(verdict.reason)
            _record(res, state.text, 0, len(state.text), block.replace_text)
            state.text = block.replace_text
            state.final_newline = not block.no_final_newline
            res.strategy = "create"
            res.estimated_line = 1
        else:
            block_level = level
            reading = block_reading(block, state.doc, path)
            if isinstance(reading, str):
                raise _Failure(reading)
            old_lines, new_lines = reading
            if old_lines == new_lines:
                res.notes.append("SEARCH and REPLACE are the same: the block changes nothing")
            if new_lines != block.new_lines and any(is_elision(x) for x in block.new_lines.split("\n")):
                res.notes.append("REPLACE's elision lines were read as the SEARCH lines they stand for")
            if block.other_splits:
                # Several '=======' lines: the file decides which one separates, exactly or not at all.
                if block.split_balanced:
                    readings = [block.other_splits[0]]
                else:
                    readings = [(old_lines, new_lines), *block.other_splits]
                chosen = choose_reading(state.text, readings)
                if isinstance(chosen, MatchFailure):
                    res.estimated_line = chosen.line
                    res.candidates = list(chosen.candidates)
                    raise _Failure(chosen.reason, chosen.line)
                old_lines, new_lines = readings[chosen]
                block_level = "exact"
                if (old_lines, new_lines) != (block.old_lines, block.new_lines):
                    res.notes.append(
                        "the block has several '=======' lines; the file shows which one separates SEARCH from REPLACE"
                    )
                try:
                    kept = without_stray_dividers(old_lines, new_lines, state.text, path)
                except ValueError as exc:
                    raise _Failure(str(exc)) from None
                if kept != new_lines:
                    new_lines = kept
                    res.notes.append(
                        "a '=======' line doubled after the divider or left at the end of REPLACE is not text; it was left out"
                    )
            indexed = _indexed_exact(state, block, old_lines, new_lines)
            if indexed is not None:
                exact, first, search = indexed
                res.strategy, res.score, res.estimated_line = exact.strategy, exact.score, exact.line
                _splice_lines(state, block, res, exact, first, search, path)
                if block.move_to is not None:
                    _move(block, res, path, workspace, states, state)
                res.status = EditStatus.APPLIED
                return res
            block_level = block_level or default_level(block.format)
            found = _indexed_applied(state, block, old_lines, new_lines, block_level) or locate(
                state.text,
                old_lines,
                new_lines,
                leading=block.anchor,
                trailing=block.trailing_anchor,
                hint_line=block.hint_line,
                scope=block.scope,
                at_end=block.at_end,
                level=block_level,
                language=language_for(path, state.text),
            )
            if not isinstance(found, Match):
                res.estimated_line = found.line
                res.closest_region = found.region
                res.closest_text = found.region_text
                res.candidates = list(found.candidates)
                if found.kind == "ambiguous":
                    res.candidate_texts = numbered_regions(
                        state.text, res.candidates, (block.anchor + old_lines).count("\n")
                    )
                raise _Failure(found.reason, found.line)
            res.strategy = found.strategy
            res.score = found.score
            res.estimated_line = found.line
            if found.strategy != "exact":
                res.matched_text = _whole_lines(state.text, found.start, found.end)
            search, replace = (
                block.anchor + old_lines + block.trailing_anchor,
                block.anchor + new_lines + block.trailing_anchor,
            )
            if found.already_applied:
                verdict = check_already_applied(state.text, search, replace)
                if not verdict:
                    raise _Failure(
                        f"the edit looks applied already, but {verdict.reason}; copy the current lines exactly into SEARCH",
                        found.line,
                    )
            if found.already_applied and block.move_to is None:
                res.status = EditStatus.ALREADY_APPLIED
                res.reason = ALREADY_APPLIED
                return res
            if found.already_applied:
                # Moved with its edit already made: nothing to change in the text.
                found = Match(found.start, found.end, state.text[found.start : found.end], "exact", found.line)
                search = replace = found.replacement
            if found.note:
                res.notes.append(found.note)
            before, final_newline = state.text, state.final_newline
            _splice(state, found, block.no_final_newline, _ensures_final_newline(block))
            verdict = check_edit(before, state.text, found.start, found.end, search, replace, found.strategy)
            if verdict:
                verdict = check_markers(before, before[found.start : found.end], found.replacement, path)
            if not verdict:
                state.text, state.final_newline = before, final_newline
                raise _Failure(verdict.reason, found.line)
            if state.text == before and search != replace and block.move_to is None:
                # Placed tolerantly and changing nothing: the edit is there already, or the lines it
                # changes have no counterpart in the file; never reported as applied.
                done = check_already_applied(before, search, replace)
                if not done:
                    raise _Failure(
                        f"the block changes nothing where it was found ({found.strategy}): the lines it changes are "
                        "not in the file as SEARCH has them; copy the current lines exactly into SEARCH",
                        found.line,
                    )
                res.status, res.reason = EditStatus.ALREADY_APPLIED, ALREADY_APPLIED
                return res
            if found.start != found.end or found.replacement:
                _record(res, before, found.start, found.end, found.replacement)
        if block.move_to is not None:
            _move(block, res, path, workspace, states, state)
        res.status = EditStatus.APPLIED
    except _Failure as exc:
        res.reason = exc.reason
    except WorkspaceError as exc:
        res.reason = str(exc)
    return res


def _ensures_final_newline(block: EditBlock) -> bool:
    """The block says the file ends with a newline when it edits the end: edit-v3 always does
    (its rules ensure one), a unified diff when it marks the old text's end as having none."""
    return block.format == "edit-v3" or (block.format == "udiff" and "\\ No newline at end of file" in block.raw_block)


_DIVIDER = re.compile(r"^\s*={5,9}\s*$")


def without_stray_dividers(old: str, new: str, text: str, path: str) -> str:
    """REPLACE (``new``) without a doubled divider at its start or a stray one at its end: neither
    is text. Certain only in a file with no divider-like line of its own, and when a stray last
    line could not be a title's underline; otherwise :class:`ValueError` says why the block is
    not read either way."""
    lines = new.split("\n")[:-1]
    first = bool(lines) and bool(_DIVIDER.match(lines[0]))
    s_lines = old.split("\n")[:-1]
    last = len(lines) > first and bool(_DIVIDER.match(lines[-1])) and not (s_lines and _DIVIDER.match(s_lines[-1]))
    if not first and not last:
        return new
    underline = last and len(lines) > 1 and not marker_lines(lines[-2] + "\n" + lines[-1], path)["divider"]
    if underline or marker_lines(text, path)["divider"]:
        raise ValueError(
            "REPLACE starts or ends with a '=======' line, and it could be text (a title's underline, or the file "
            "has such lines) as well as a doubled divider, so the block is not read either way; write one divider "
            "between SEARCH and REPLACE"
        )
    return "".join(x + "\n" for x in lines[int(first) : len(lines) - int(last)])


def _whole_lines(text: str, start: int, end: int) -> str:
    """The lines of ``text`` that characters ``start:end`` touch, whole."""
    first = text.rfind("\n", 0, start) + 1
    stop = text.find("\n", max(start, end - 1))
    return text[first : len(text) if stop < 0 else stop + 1]


def _drop_empty_end(text: str) -> str:
    """``text`` without one trailing empty line (``"a\\n\\n"`` → ``"a\\n"``, ``"\\n"`` → ``""``)."""
    return text[:-1] if text.endswith("\n\n") or text == "\n" else text


def _aider_read(old: str, new: str, text: str | FileLines) -> tuple[str, str] | str:
    """SEARCH and REPLACE as aider reads them (one trailing empty line of each is not text),
    except where that reading would not do what the block's text says; then as written, or a
    reason to refuse.

    - Nothing left to change (the empty line is the edit's whole change): as written when the
      file holds SEARCH or REPLACE so; refused otherwise, never reported done.
    - Only REPLACE ends with an empty line, or REPLACE's last line is white space: dropping it
      would delete a line REPLACE writes, so as written when the file holds SEARCH so.
    - Both end with one: as written when the file holds SEARCH so and the shorter reading's
      REPLACE would pass for an edit already made, or holds REPLACE so and not SEARCH.
    - Otherwise (a deletion whose SEARCH ends with an empty line, as aider's own example
      writes it) aider's reading: the empty line stays.
    """
    dropped_old, dropped_new = _drop_empty_end(old), _drop_empty_end(new)
    if (dropped_old, dropped_new) == (old, new) or not old.strip():
        return dropped_old, dropped_new
    holds_old = _holds_lines(text, old)
    holds_new = bool(new.strip()) and _holds_lines(text, new)
    if dropped_old == dropped_new and old != new:
        if holds_old or holds_new:
            return old, new
        return (
            "the block only adds or removes the empty line at the end of SEARCH or REPLACE, and the file "
            "holds neither SEARCH nor REPLACE as written (with its empty lines); copy SEARCH from the file, and "
            "put a line of code after an empty line to add or remove"
        )
    old_dropped, new_dropped = dropped_old != old, dropped_new != new
    if new_dropped and not old_dropped and holds_old:
        return old, new
    if old_dropped and not new_dropped and new and not new.split("\n")[-2].strip() and holds_old:
        return old, new
    if old_dropped and new_dropped:
        if holds_old and not holds_new and _holds_lines(text, dropped_new):
            return old, new
        if holds_new and not holds_old:
            return old, new
    return dropped_old, dropped_new


def _holds_lines(text: str | FileLines, part: str) -> bool:
    """Whether ``text`` holds ``part`` (whole lines ending with a newline) starting at a line start
    (through the index when the text is whole lines)."""
    if not part:
        return True
    if not isinstance(text, str) and text.indexable:
        return bool(text.find(part[:-1].split("\n")))
    whole = text if isinstance(text, str) else text.text
    return whole.startswith(part) or ("\n" + part) in whole


def block_reading(block: EditBlock, text: str | FileLines, path: str) -> tuple[str, str] | str:
    """The (old, new) lines a block is applied with to ``path``, whose text is ``text``, or the
    reason it cannot be read with certainty.

    A block read from a reply in one of aider's formats is read as aider reads it (one trailing
    empty line of SEARCH or of REPLACE is not part of the text). Elision lines in REPLACE only
    (``# ... existing code ...``) stand for the SEARCH lines they keep (see
    :mod:`editblocks.matching.elision`).
    """
    old, new = block.old_lines, block.new_lines
    if block.raw_block and _aider_reading(block):
        aider = _aider_read(old, new, text)
        if isinstance(aider, str):
            return aider
        old, new = aider
    numbered = strip_line_numbers(old, new, text)
    if isinstance(numbered, str):
        return numbered
    old, new = numbered
    lowered = path.lower()
    doc = text
    expanded = expand_replace_elisions(
        doc if isinstance(doc, str) else (lambda: doc.text),
        block.anchor + old,
        block.anchor + new,
        ellipsis_is_code=lowered.endswith((".py", ".pyi")),
        document=is_document(path),
    )
    if isinstance(expanded, MatchFailure):
        return expanded.reason
    return old, expanded[len(block.anchor) :]


_NUMBERED = (
    re.compile(r"^\s*(\d{1,7})\s*\|(?: |$)"),  # "12 | code"
    re.compile(r"^\s*(\d{1,7}):(?: |$)"),  # "12: code"
    re.compile(r"^L(\d{1,7})(?: |$)"),  # "L12 code"
    re.compile(r"^\s*(\d{1,7})\t"),  # "12<TAB>code"
)


def strip_line_numbers(old: str, new: str, text: str | FileLines) -> tuple[str, str] | str:
    """SEARCH and REPLACE without line-number prefixes copied from a numbered listing
    (``12 | code``, ``12: code``, ``L12 code``, ``12<TAB>code``): stripped when every SEARCH line
    has one, of one shape, with rising numbers, and the file holds SEARCH without them (not as written).
    REPLACE lines lose the same prefix; a REPLACE where only some lines have it is refused
    (a reason is returned). Unchanged otherwise."""
    lines = old.split("\n")[:-1]
    if not lines:
        return old, new
    pattern = next((p for p in _NUMBERED if _numbered_throughout(lines, p)), None)
    if pattern is None or _holds(text, old):
        return old, new
    r_lines = new.split("\n")[:-1]
    r_numbered = [pattern.match(x) is not None for x in r_lines if x.strip()]
    if any(r_numbered) and not all(r_numbered):
        return (
            "SEARCH's lines start with line numbers copied from a numbered listing, and only some REPLACE lines do; "
            "write the lines without their numbers"
        )
    numbered = pattern

    def strip(x: str) -> str:
        m = numbered.match(x)
        return x[m.end() :] if m else x

    s_text = "".join(strip(x) + "\n" for x in lines)
    if not _holds(text, s_text):
        return old, new  # only when the file shows the numbers were not its own text
    r_text = "".join(strip(x) + "\n" for x in r_lines) if all(r_numbered) else new
    return s_text, r_text


def _holds(text: str | FileLines, part: str) -> bool:
    """Whether ``part`` occurs in ``text`` (through the index when it is whole lines found there)."""
    if isinstance(text, str):
        return part in text
    if part.endswith("\n") and _holds_lines(text, part):
        return True
    return part in text.text


def _numbered_throughout(lines: list[str], pattern: re.Pattern[str]) -> bool:
    """Every line starts with ``pattern``'s line number, and the numbers rise."""
    numbers = []
    for line in lines:
        m = pattern.match(line)
        if m is None:
            if line.strip():
                return False
            continue
        numbers.append(int(m.group(1)))
    return bool(numbers) and all(b > a for a, b in zip(numbers, numbers[1:]))


def _aider_reading(block: EditBlock) -> bool:
    fmt = FORMATS.get(block.format)
    return fmt is not None and fmt.aider_reading


def _append(block: EditBlock, res: EditResult, state: _FileState, path: str) -> None:
    """An empty SEARCH on an existing file, read as aider reads it: REPLACE goes at the end.

    Already applied when REPLACE already ends the file; refused when REPLACE repeats much of
    the file (a new file written over an existing one)."""
    new = _drop_empty_end(block.replace_text) if block.raw_block else block.replace_text
    if not new.strip():
        raise _Failure(f"the block for {path} has nothing to search for and nothing to add")
    text = state.text
    if block.search_text and any(not line.strip() for line in text.split("\n")[:-1]):
        # SEARCH's blank lines, where the file has blank lines, may be meant as the place.
        raise _Failure(
            f"SEARCH holds only blank lines, which do not say where in {path} the lines go; leave SEARCH "
            "empty to add them at the end of the file, or copy the lines around the place into SEARCH"
        )
    if text.endswith(new) and (len(text) == len(new) or text[-len(new) - 1] == "\n"):
        verdict = check_already_applied(text, "", new)
        if not verdict:
            raise _Failure(f"the lines to append already end {path}, but {verdict.reason}")
        res.status, res.reason, res.strategy = EditStatus.ALREADY_APPLIED, ALREADY_APPLIED, "append"
        return
    have = {line.strip() for line in text.split("\n") if len(line.strip()) > 3}
    added = [line.strip() for line in new.split("\n") if len(line.strip()) > 3]
    repeated = sum(1 for line in added if line in have)
    if repeated * 2 >= len(added):
        raise _Failure(
            f"file exists: {path}, and the block's empty SEARCH with a REPLACE that repeats {repeated} of its lines "
            "reads as a new file written over it; to change it, put the lines to replace in SEARCH"
        )
    res.strategy = "append"
    res.estimated_line = text.count("\n") + 1
    res.notes.append(f"SEARCH is empty: the lines are appended at the end of {path}")
    before = text
    state.text = text + new
    verdict = check_edit(before, state.text, len(before), len(before), "", new, "append")
    if verdict:
        verdict = check_markers(before, "", new, path)
    if not verdict:
        state.text = before
        raise _Failure(verdict.reason)
    _record(res, before, len(before), len(before), new)


def _record(res: EditResult, before: str, start: int, end: int, replacement: str) -> None:
    """Note in ``res`` where its block changed the text ``before`` and what it put there."""
    res.span = (start, end)
    res.replaced = before[start:end]
    res.replacement = replacement


def _indexed_exact(state: _FileState, block: EditBlock, old: str, new: str) -> tuple[Match, int, str] | None:
    """The exact match of the block's text, found through the file's line index, and its first
    line (0-based); None when the text is not there exactly once or the block needs the whole
    matching chain (an enclosing scope, the end of the file, a hint far from the place, an
    insertion that may be applied already): :func:`locate` then decides, with the same outcome."""
    if block.scope or block.at_end or not state.doc.indexable:
        return None
    search = block.anchor + old + block.trailing_anchor
    replace = block.anchor + new + block.trailing_anchor
    if not search.endswith("\n") or (replace and not replace.endswith("\n")):
        return None
    doc = state.doc
    hits = doc.find(search[:-1].split("\n"))
    if len(hits) != 1:
        return None
    first = hits[0]
    if block.hint_line is not None and abs(first + 1 - block.hint_line) > HINT_WINDOW:
        return None
    if len(replace) > len(search) and search in replace:
        return None  # an insertion around SEARCH, which may stand there already
    start = doc.offset(first)
    return Match(start, start + len(search), replace, "exact", first + 1), first, search


def _indexed_applied(state: _FileState, block: EditBlock, old: str, new: str, level: str) -> Match | None:
    """The block's REPLACE, found through the file's line index where its SEARCH is not: an edit
    applied before. None unless the index proves what :func:`locate` would find: SEARCH nowhere
    exactly, and (above the exact level) some SEARCH line in no file line even with its white
    space stripped, no elision in SEARCH and no non-ASCII text (so no tolerant strategy finds a
    place); then REPLACE exactly once."""
    doc = state.doc
    if block.move_to is not None or not doc.indexable:
        return None
    search = block.anchor + old + block.trailing_anchor
    replace = block.anchor + new + block.trailing_anchor
    if not search.endswith("\n") or not replace.endswith("\n") or not replace.strip() or replace == search:
        return None
    s_lines, r_lines = search[:-1].split("\n"), replace[:-1].split("\n")
    if doc.find(s_lines):
        return None
    hits = doc.find(r_lines)
    if len(hits) != 1:
        return None
    if level != "exact":
        if split_elisions(s_lines) is not None or not doc.isascii() or not all(x.isascii() for x in s_lines):
            return None
        # The lines the edit changes are the likely ones to be gone; a line still there exactly is not.
        kept = set(r_lines)
        ordered = [x for x in s_lines if x not in kept] + [x for x in s_lines if x in kept]
        # The similarity search's index of stripped lines answers at once where it was built.
        known = FileView.of(doc.text).built_positions()
        has_stripped = known.__contains__ if known is not None else doc.has_stripped
        if not any(x.strip() and not (doc.indexed and doc.count(x)) and not has_stripped(x.strip()) for x in ordered):
            return None
    start = doc.offset(hits[0])
    applied = Match(start, start + len(replace), replace, "exact", hits[0] + 1, already_applied=True)
    # A region like SEARCH elsewhere says the edit may never have been made: the whole matching
    # chain then decides (and explains).
    return None if searched_elsewhere(FileView.of(doc.text), s_lines, applied) else applied


def _splice_lines(
    state: _FileState, block: EditBlock, res: EditResult, found: Match, first: int, search: str, path: str
) -> None:
    """Splice an exact match found through the index into the file's lines, and verify it on the
    lines around it: the splice leaves every other line as it was, and the file's length must
    change by exactly what the span did."""
    doc, replace = state.doc, found.replacement
    s_lines = search[:-1].split("\n")
    r_lines = replace[:-1].split("\n") if replace else []
    size_before = len(doc)
    touches_end = found.end >= size_before
    markers = check_markers(lambda: doc.text, search, replace, path)
    # The span and one line on each side (the verifier compares lines REPLACE adds at its edges
    # with the file's lines there).
    context = max(0, first - 1)
    around = doc.lines(context, first + len(s_lines) + 1)
    before = "".join(x + "\n" for x in around)
    base = found.start - (len(around[0]) + 1 if first > 0 else 0)
    doc.splice(first, first + len(s_lines), r_lines)
    after = doc.window(context, first + len(r_lines) + 1)
    verdict = check_span(
        before,
        after,
        found.start - base,
        found.end - base,
        search,
        replace,
        found.strategy,
        sizes=(size_before, len(doc)),
    )
    if verdict:
        verdict = markers
    if not verdict:
        doc.splice(first, first + len(r_lines), s_lines)
        raise _Failure(verdict.reason, found.line)
    if touches_end and (block.no_final_newline or _ensures_final_newline(block)):
        state.final_newline = not block.no_final_newline
    res.span = (found.start, found.end)
    res.replaced = search
    res.replacement = replace


def _splice(
    state: _FileState, match: Match, no_final_newline: bool = False, ensure_final_newline: bool = False
) -> None:
    touches_end = match.end >= len(state.text)
    text = state.text
    state.text = "".join((text[: match.start], match.replacement, text[match.end :]))
    # The text before the edit is unchanged: later line numbers can be counted from here.
    remember_line(state.text, match.start, match.line)
    if touches_end and (no_final_newline or ensure_final_newline):
        # The file keeps its final-newline state, unless the block says otherwise (a unified
        # diff's "no newline" mark; edit-v3 ensures a final newline).
        state.final_newline = not no_final_newline


def _resolve(
    block: EditBlock,
    workspace: Workspace,
    states: dict[str, _FileState],
    paths: dict[str, tuple[str, Path]] | None = None,
) -> tuple[str, str | None]:
    """(path to use, path the model wrote when it had to be resolved to another file); ``paths``
    keeps what the workspace resolved, by the path as written."""
    known = paths.get(block.file_path) if paths is not None else None
    if known is not None:
        rel, full = known
    else:
        try:
            rel, full = workspace.resolve(block.file_path)
        except PathError as exc:
            raise _Failure(str(exc)) from None
        if paths is not None:
            paths[block.file_path] = (rel, full)
    if rel in states or full.exists() or block.is_create:
        return rel, None
    # By file name alone only when the model dropped leading folders, never when it named others.
    lowered = rel.lower()
    candidates = [c for c in workspace.similar_paths(rel) if c.lower() == lowered or c.lower().endswith("/" + lowered)]
    if len(candidates) == 1:
        return candidates[0], block.file_path
    if len(candidates) > 1:
        listed = ", ".join(candidates[:10])
        raise _Failure(f"file not found: {rel}; several files could be meant: {listed}. Use the full path")
    raise _Failure(f"File not found: {rel}" + _did_you_mean(rel, workspace))


def _how_to_change(fmt: str) -> str:
    """How a block of format ``fmt`` changes an existing file, in that format's own words."""
    if fmt in ("edit-v2", "edit-v3"):
        return "use an edit with an anchor to change it"
    if fmt == "patch":
        return "to change it use *** Update File with context lines around the change"
    if fmt == "udiff":
        return "to change it write a hunk (--- a/path, +++ b/path) with context lines around the change"
    if fmt == "whole":
        return "to replace it send the whole file with --format whole"
    return "to change it put the lines to change in SEARCH (an empty SEARCH creates a new file)"


def _did_you_mean(rel: str, workspace: Workspace) -> str:
    """``; did you mean src/click/utils.py?`` when files of that name exist in other folders
    (suggested in the reason, never applied)."""
    others = [c for c in workspace.similar_paths(rel) if c != rel]
    if not others:
        return ""
    if len(others) == 1:
        return f"; did you mean {others[0]}?"
    return f"; did you mean one of {', '.join(others[:5])}{', ...' if len(others) > 5 else ''}?"


def _state(
    path: str,
    block: EditBlock,
    workspace: Workspace,
    states: dict[str, _FileState],
    expected: Sequence[EditBlock] = (),
) -> _FileState:
    """The file ``path`` as this apply holds it, read when first needed (``expected``: the
    reply's blocks that name it, none when not known)."""
    state = states.get(path)
    if state is not None:
        return state
    try:
        file = workspace.read(path)
        existed = True
    except FileMissingError:
        if not block.is_create:
            raise _Failure(f"File not found: {path}") from None
        file = TextFile(path, "")
        existed = False
    except BinaryFileError as exc:
        raise _Failure(f"Binary file: {exc}") from None
    state = _FileState.load(file, existed)
    state.doc.expect(
        len(expected),
        chain.from_iterable((b.anchor + b.old_lines + b.trailing_anchor + b.new_lines).split("\n") for b in expected),
    )
    states[path] = state
    return state


# -- whole files, deletes and moves ---------------------------------------------------------------


def _restore(states: dict[str, _FileState], snapshot: dict[str, tuple[str, bool, bool]]) -> None:
    """Put every file held in memory back as it was before a block (a move touches two)."""
    for path in [p for p in states if p not in snapshot]:
        del states[path]
    for path, (text, final_newline, deleted) in snapshot.items():
        state = states.get(path)
        if state is not None:
            state.text, state.final_newline, state.deleted = text, final_newline, deleted


def _lines_loosely(text: str) -> list[str]:
    """The lines of ``text`` without trailing white space, trailing blank lines dropped."""
    lines = [line.rstrip() for line in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _file_operation(
    block: EditBlock,
    res: EditResult,
    path: str,
    requested: str | None,
    workspace: Workspace,
    states: dict[str, _FileState],
    state: _FileState,
    allow_delete: bool,
) -> bool:
    """Whole-file replacement, delete and move: done here (True, ``res`` filled) or checked for
    the edit that comes first (False). Raises :class:`_Failure` when the block cannot apply."""
    if state.deleted and not block.is_create:
        raise _Failure(f"{path} was deleted or moved away by an earlier block of this reply")
    if block.delete or block.move_to is not None:
        what = "deleting" if block.delete else "moving"
        if not allow_delete:
            raise _Failure(f"{what} files is not allowed in this apply (no-delete); {path} is left where it is")
        if requested:
            raise _Failure(f"{what} a file needs its exact path: {requested!r} does not exist (did you mean {path!r}?)")
        if (workspace.root / path).is_symlink():
            raise _Failure(
                f"{path} is a symbolic link; {what} it is left to you (it would act on the file it points to)"
            )
    if block.delete:
        if block.old_lines and _lines_loosely(state.text) != _lines_loosely(block.old_lines):
            raise _Failure(
                f"the block deletes {path}, but the file's content differs from the lines it removes; "
                "the file is not deleted. Remove exactly the lines the file has"
            )
        _record(res, state.text, 0, len(state.text), "")
        state.text, state.deleted = "", True
        res.strategy = "delete"
        res.status = EditStatus.APPLIED
        return True
    if block.move_to is not None:
        _move_target(block, path, workspace, states)
        if not block.search_text and not block.replace_text:
            _move(block, res, path, workspace, states, state)
            res.strategy = "move"
            res.status = EditStatus.APPLIED
            return True
        return False
    if block.whole_file:
        from editblocks.formats.whole import partial_reason

        new = block.replace_text
        if state.deleted:
            state.deleted = False
            state.text = ""
        if state.text.strip() and state.text.rstrip("\n") == new.rstrip("\n"):
            res.status, res.reason, res.strategy = EditStatus.ALREADY_APPLIED, ALREADY_APPLIED, "whole"
            return True
        if not new.strip() and state.text.strip():
            raise _Failure(
                f"the block for {path} is empty; it would empty the whole file. Write out the file's complete content"
            )
        why = partial_reason(new, state.text, path)
        if why is not None:
            raise _Failure(f"the block for {path} looks partial: {why}")
        verdict = check_file(state.text, new, path)
        if not verdict:
            raise _Failure(verdict.reason)
        # As for any edit: an existing file keeps its final-newline state.
        if not state.existed:
            state.final_newline = True
        _record(res, state.text, 0, len(state.text), new)
        state.text = new
        res.strategy = "whole"
        res.estimated_line = 1
        res.status = EditStatus.APPLIED
        return True
    if state.deleted:
        # Created again after an earlier block deleted it.
        state.deleted = False
        state.text = ""
    if block.sketch:
        _merge_sketch(block, res, path, state)
        return True
    return False


def _sketch_spans(before: str, merged: SketchMerge) -> tuple[list[tuple[int, int, int, int, str]], int]:
    """A merge's spans as the verifier takes them (offsets in the text before and after, and the
    sketch's part for each), and how much longer the text became."""
    starts = [0]
    for line in before.split("\n")[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    spans, delta = [], 0
    for span in merged.spans:
        start, end = starts[span.start], starts[span.end]
        size = sum(len(x) + 1 for x in span.lines)
        spans.append((start, end, start + delta, start + delta + size, "".join(x + "\n" for x in span.run)))
        delta += size - (end - start)
    return spans, delta


def checked_sketch(before: str, sketch: str, path: str) -> str | None:
    """The text ``sketch`` makes of ``before`` (both LF, whole lines) when it merges and the
    verifier accepts the merge, as an apply would place it; else None."""
    from editblocks.matching.lazy import SketchRefusal, merge_sketch  # only sketches need it

    merged = merge_sketch(before, sketch, path)
    if isinstance(merged, SketchRefusal):
        return None
    spans, _ = _sketch_spans(before, merged)
    if not check_sketch(before, merged.text, spans, path, definitions=merged.mode == "definition"):
        return None
    return merged.text


def _merge_sketch(block: EditBlock, res: EditResult, path: str, state: _FileState) -> None:
    """A lazy sketch merged into the file (see :mod:`editblocks.matching.lazy`), checked by the
    outcome verifier: only the anchored spans changed, each holds its part of the sketch, no
    elision line is written, and a file that parsed still parses."""
    from editblocks.matching.lazy import SketchRefusal, merge_sketch  # only sketches need it

    before = state.text
    merged = merge_sketch(before, block.replace_text, path)
    if isinstance(merged, SketchRefusal):
        res.candidates = list(merged.candidates)
        if merged.candidates:
            res.estimated_line = merged.candidates[0]
        raise _Failure(f"the sketch for {path} is not merged: {merged.reason}", res.estimated_line)
    res.strategy = {"merge": "sketch"}.get(merged.mode, merged.mode)
    res.estimated_line = merged.line
    if merged.text == before:
        if not before.strip():
            raise _Failure(f"the sketch for {path} is empty. Write the lines of the file")
        res.status, res.reason = EditStatus.ALREADY_APPLIED, ALREADY_APPLIED
        return
    spans, delta = _sketch_spans(before, merged)
    verdict = check_sketch(before, merged.text, spans, path, definitions=merged.mode == "definition")
    if not verdict:
        raise _Failure(f"the sketch for {path} is not merged: {verdict.reason}", merged.line)
    if state.existed and before.strip():
        problem = syntax_broken(before, merged.text, path, always=True)
        if problem is not None:
            raise _Failure(
                f"the sketch for {path} is not merged: the file parses now and would not after it ({problem}). "
                "Check the sketch's indentation and brackets, and that each elision comment stands for whole definitions "
                "or statements",
                problem.line,
            )
    if not state.existed or not before.strip():
        state.final_newline = True
    res.notes.extend(merged.notes)
    if merged.mode == "whole":
        res.notes.append(
            "the sketch has no elision comment and holds the file's definitions: it replaced the whole file"
        )
    # What the sketch changed, as one span: from its first anchored span to its last (the text
    # between them, outside the spans, is the file's own, as the verifier checked).
    if spans:
        first, last = spans[0][0], spans[-1][1]
        _record(res, before, first, last, merged.text[first : last + delta])
    else:
        _record(res, before, 0, len(before), merged.text)
    state.text = merged.text
    res.sketch_parts = list(merged.parts)
    res.status = EditStatus.APPLIED


def _move_target(block: EditBlock, path: str, workspace: Workspace, states: dict[str, _FileState]) -> str:
    """The path a move goes to, checked: inside the root, not the file itself, not an existing file."""
    assert block.move_to is not None
    try:
        dest, full = workspace.resolve(block.move_to)
    except PathError as exc:
        raise _Failure(f"cannot move {path}: {exc}") from None
    if dest == path:
        raise _Failure(f"cannot move {path} onto itself")
    held = states.get(dest)
    if held is not None:
        if not held.deleted:
            raise _Failure(f"cannot move {path} to {dest}: that file exists (moving never overwrites a file)")
    elif full.exists() or full.is_symlink():
        raise _Failure(f"cannot move {path} to {dest}: that path exists (moving never overwrites a file)")
    return dest


def _move(
    block: EditBlock, res: EditResult, path: str, workspace: Workspace, states: dict[str, _FileState], state: _FileState
) -> None:
    """Move ``path``'s text (as edited so far) to the block's target, in memory."""
    from dataclasses import replace

    dest = _move_target(block, path, workspace, states)
    held = states.get(dest)
    if held is not None:
        held.text, held.final_newline, held.deleted = state.text, state.final_newline, False
    else:
        file = replace(state.file, path=dest, data=None)
        states[dest] = _FileState(file, False, "", state.text, state.final_newline)
    state.text, state.deleted = "", True
    res.moved_to = dest
    res.notes.append(f"moved to {dest}")
