"""``apply_edits``: the one pipeline from a reply to written files and a result per block."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from contextlib import nullcontext
from dataclasses import dataclass

from .formats import EXACT_FORMATS
from .matching import LEVELS, Match, MatchFailure, choose_reading, locate
from .matching.text import remember_line
from .models import ApplyResult, EditBlock, EditResult, EditStatus, ParsedResponse, ParseWarning
from .parsing import parse_response
from .drift import DriftCheck, occurrences
from .lock import DEFAULT_LOCK_TIMEOUT, RootLock
from .workspace import (
    DEFAULT_MAX_FILE_BYTES,
    DEFAULT_MAX_REPLY_BYTES,
    BinaryFileError,
    FileMissingError,
    PathError,
    TextFile,
    Workspace,
    WorkspaceError,
    check_reply_size,
)
from .writing import Change, commit

SKIP_AFTER_FAILURE = "previous edit to this file failed"
ALREADY_APPLIED = "already applied"


@dataclass
class _FileState:
    """One file during an apply: as read, and as edited so far (LF text, always whole lines)."""

    file: TextFile
    existed: bool
    original: str
    text: str
    final_newline: bool

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
    snapshot: dict[str, tuple[str, bool]],
    drift: DriftCheck,
    refuse: bool,
) -> None:
    """An applied block to a file that changed since the model saw it: keep it only where certain.

    Certain means the block's text occurs exactly once in the file as it was before the block.
    Otherwise, or when drift is refused, the block is taken back and fails with the reason.
    """
    path = res.file_path
    state = states.get(path)
    if res.status is EditStatus.SKIPPED or state is None:
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
    elif not block.is_create and occurrences(text_before, block.search_text) != 1:
        reason = (
            f"{path} has changed since the model saw it ({why}), and the block's text does not occur "
            "exactly once in the file as it is now, so where it goes is not certain"
        )
    else:
        res.notes.append(f"{path} had changed since the model saw it ({why}); the block's text occurs exactly once there")
        return
    if before is None:
        del states[path]
    else:
        state.text, state.final_newline = before
    res.status = EditStatus.FAILED
    res.reason = reason


class _Failure(Exception):
    def __init__(self, reason: str, line: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line


def apply_edits(
    source: str | bytes | ParsedResponse | Iterable[EditBlock] | Iterable[str | bytes],
    root: str | os.PathLike[str] = ".",
    *,
    format: str | None = None,
    dry_run: bool = False,
    git_add: bool = False,
    continue_after_failure: bool = False,
    match: str | None = None,
    atomic: bool = False,
    base: Mapping[str, str | bytes | None] | None = None,
    refuse_drift: bool = False,
    journal: bool = True,
    max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
) -> ApplyResult:
    """Apply the edit blocks of a reply to the files under ``root``.

    ``source`` is the reply text, a :class:`ParsedResponse`, or a list of blocks. Blocks apply
    in reply order, each seeing the result of the earlier ones; every file is written once at
    the end, atomically. After a failed block, later blocks to the same file are skipped unless
    ``continue_after_failure``. With ``dry_run`` nothing is written and ``result.diffs`` shows
    what would change.

    ``source`` may also be the reply arriving as an iterable of chunks (``str`` or UTF-8
    ``bytes``, split anywhere): each block is then applied as soon as it completes, and the
    result is the same as for the whole text (see :mod:`editblocks.incremental`).

    ``match`` is the matching level, ``"exact"``, ``"tolerant"`` or ``"fuzzy"``; by default
    ``fuzzy`` for SEARCH/REPLACE formats and ``exact`` for ``edit-v2``/``edit-v3``, whose
    formats require exact matching.

    Files are never damaged: each keeps its encoding, byte order mark, every untouched line's
    own line ending and its final-newline state; a file is written only if it still holds what
    was read, and atomically (entirely old or entirely new after a crash). With ``atomic``
    nothing is written unless every block applied. Every apply that writes is recorded in the
    undo journal under ``root/.editblocks/`` (see :func:`editblocks.undo`) unless
    ``journal=False``. Applies under one root take turns on a lock (waiting up to
    ``lock_timeout`` seconds); a dry run takes no lock.

    ``base`` maps paths to what the model saw (text, bytes, None for absent, or a SHA-256; see
    :mod:`editblocks.drift`). A block for a file that has changed since then applies only where
    its text occurs exactly once, with a note saying so; with ``refuse_drift`` it fails.

    A reply over ``max_reply_bytes`` raises :class:`~editblocks.workspace.TooLargeError`; a file
    over ``max_file_bytes`` fails its blocks.
    """
    if match is not None and match not in LEVELS:
        raise ValueError(f"unknown match level {match!r}; use one of {', '.join(LEVELS)}")
    if isinstance(source, str):
        check_reply_size(source, max_reply_bytes)
        parsed = parse_response(source, format)
    elif isinstance(source, ParsedResponse):
        parsed = source
    else:
        from .incremental import apply_stream, split_source

        blocks, chunks = split_source(source)
        if chunks is not None:
            return apply_stream(
                chunks,
                root,
                format=format,
                dry_run=dry_run,
                git_add=git_add,
                continue_after_failure=continue_after_failure,
                match=match,
                atomic=atomic,
                base=base,
                refuse_drift=refuse_drift,
                journal=journal,
                max_reply_bytes=max_reply_bytes,
                max_file_bytes=max_file_bytes,
                lock_timeout=lock_timeout,
            )
        parsed = ParsedResponse(blocks=blocks or [], format=format)
    workspace = Workspace(root, max_file_bytes=max_file_bytes)
    drift = DriftCheck(base, workspace) if base is not None else None
    with nullcontext() if dry_run else RootLock(workspace.root, timeout=lock_timeout):
        return _apply(
            parsed,
            workspace,
            dry_run=dry_run,
            git_add=git_add,
            continue_after_failure=continue_after_failure,
            match=match,
            atomic=atomic,
            drift=drift,
            refuse_drift=refuse_drift,
            journal=journal,
        )


def _apply(
    parsed: ParsedResponse,
    workspace: Workspace,
    *,
    dry_run: bool,
    git_add: bool,
    continue_after_failure: bool,
    match: str | None,
    atomic: bool,
    drift: DriftCheck | None,
    refuse_drift: bool,
    journal: bool,
) -> ApplyResult:
    result = ApplyResult(
        shell_suggestions=list(parsed.shell_suggestions),
        warnings=list(parsed.warnings),
        format=parsed.format,
        dry_run=dry_run,
    )
    applier = BlockApplier(
        workspace,
        result,
        dry_run=dry_run,
        git_add=git_add,
        continue_after_failure=continue_after_failure,
        match=match,
        atomic=atomic,
        drift=drift,
        refuse_drift=refuse_drift,
        journal=journal,
    )
    for block in parsed.blocks:
        applier.add(block)
    return applier.write()


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
        *,
        dry_run: bool,
        git_add: bool,
        continue_after_failure: bool,
        match: str | None,
        atomic: bool,
        drift: DriftCheck | None,
        refuse_drift: bool,
        journal: bool,
    ) -> None:
        self.workspace = workspace
        self.result = result
        self.dry_run = dry_run
        self.git_add = git_add
        self.continue_after_failure = continue_after_failure
        self.match = match
        self.atomic = atomic
        self.drift = drift
        self.refuse_drift = refuse_drift
        self.journal = journal
        self._states: dict[str, _FileState] = {}
        self._failed_files: set[str] = set()
        self._owners: dict[str, list[EditResult]] = {}

    def add(self, block: EditBlock) -> EditResult:
        """Apply ``block`` in memory; its result is also appended to ``result.results``."""
        states, drift = self._states, self.drift
        snapshot = {p: (s.text, s.final_newline) for p, s in states.items()} if drift is not None else {}
        res = _apply_block(block, self.workspace, states, self._failed_files, self.continue_after_failure, self.match)
        if drift is not None:
            _review_drift(res, block, states, snapshot, drift, self.refuse_drift)
        self.result.results.append(res)
        if res.status is EditStatus.FAILED:
            self._failed_files.add(res.file_path)
        elif res.status is EditStatus.APPLIED:
            self._owners.setdefault(res.file_path, []).append(res)
        return res

    def write(self) -> ApplyResult:
        """Write every changed file (nothing in a dry run) and return the result."""
        result, workspace, owners = self.result, self.workspace, self._owners
        changes: list[Change] = []
        for path, state in self._states.items():
            new_text = state.result_text()
            if new_text == state.original and state.existed:
                continue
            if not state.existed and path not in owners:
                continue
            changes.append(Change(path, state.file, state.existed, state.original, new_text, owners.get(path, [])))
        commit(workspace, changes, result, atomic=self.atomic, dry_run=self.dry_run, journal=self.journal)

        if self.git_add and not self.dry_run and result.files_modified:
            error = workspace.git_add(result.files_modified)
            if error:
                result.warnings.append(ParseWarning(0, f"git add: {error}"))
        return result


def _apply_block(
    block: EditBlock,
    workspace: Workspace,
    states: dict[str, _FileState],
    failed_files: set[str],
    continue_after_failure: bool,
    level: str | None,
) -> EditResult:
    res = EditResult(file_path=block.file_path, status=EditStatus.FAILED, block=block)
    try:
        path, requested = _resolve(block, workspace, states)
        res.file_path = path
        if requested:
            res.requested_path = requested
            res.notes.append(f"path {requested!r} does not exist; resolved to {path!r}")
        if path in failed_files and not continue_after_failure:
            res.status = EditStatus.SKIPPED
            res.reason = SKIP_AFTER_FAILURE
            return res
        state = _state(path, block, workspace, states)
        if block.is_create:
            if state.text.strip():
                if state.text.rstrip("\n") == block.replace_text.rstrip("\n"):
                    res.status, res.reason, res.already_applied = EditStatus.SKIPPED, ALREADY_APPLIED, True
                    res.strategy = "create"
                    return res
                raise _Failure(f"file exists: {path}; use an edit with an anchor to change it")
            state.text = block.replace_text
            state.final_newline = True
            res.strategy = "create"
            res.estimated_line = 1
        else:
            old_lines, new_lines, block_level = block.old_lines, block.new_lines, level
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
                    res.notes.append("the block has several '=======' lines; the file shows which one separates SEARCH from REPLACE")
            found = locate(
                state.text,
                old_lines,
                new_lines,
                leading=block.anchor,
                trailing=block.trailing_anchor,
                level=block_level or ("exact" if block.format in EXACT_FORMATS else "fuzzy"),
            )
            if not isinstance(found, Match):
                res.estimated_line = found.line
                res.closest_region = found.region
                res.closest_text = found.region_text
                res.candidates = list(found.candidates)
                raise _Failure(found.reason, found.line)
            res.strategy = found.strategy
            res.score = found.score
            res.estimated_line = found.line
            if found.already_applied:
                res.status = EditStatus.SKIPPED
                res.reason = ALREADY_APPLIED
                res.already_applied = True
                return res
            _splice(state, found)
        res.status = EditStatus.APPLIED
    except _Failure as exc:
        res.reason = exc.reason
    except WorkspaceError as exc:
        res.reason = str(exc)
    return res


def _splice(state: _FileState, match: Match) -> None:
    touches_end = match.end >= len(state.text)
    text = state.text
    state.text = "".join((text[: match.start], match.replacement, text[match.end :]))
    # The text before the edit is unchanged: later line numbers can be counted from here.
    remember_line(state.text, match.start, match.line)
    if touches_end:
        # The edit changed the last line: the file ends with a newline from now on.
        state.final_newline = True


def _resolve(block: EditBlock, workspace: Workspace, states: dict[str, _FileState]) -> tuple[str, str | None]:
    """(path to use, path the model wrote when it had to be resolved to another file)."""
    try:
        rel, full = workspace.resolve(block.file_path)
    except PathError as exc:
        raise _Failure(str(exc)) from None
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
    raise _Failure(f"File not found: {rel}")


def _state(path: str, block: EditBlock, workspace: Workspace, states: dict[str, _FileState]) -> _FileState:
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
    states[path] = state
    return state
