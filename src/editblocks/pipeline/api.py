"""The pipeline's front door: :func:`apply_edits` takes a reply as text, bytes, parsed blocks or
arriving chunks and hands it to the placer (:mod:`editblocks.pipeline.placer`) or, for chunks,
to the stream (:mod:`editblocks.pipeline.stream`), which uses the same placer."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from contextlib import nullcontext

from editblocks.files.drift import DriftCheck
from editblocks.files.journal import root_lock
from editblocks.files.lock import DEFAULT_LOCK_TIMEOUT
from editblocks.files.workspace import DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_REPLY_BYTES, Workspace, check_reply_size
from editblocks.models import ApplyResult, EditBlock, ParsedReply
from editblocks.pipeline.placer import ApplyOptions, apply_parsed
from editblocks.reading.decode import decode_reply
from editblocks.reading.reader import parse_reply


def apply_edits(
    source: str | bytes | ParsedReply | Iterable[EditBlock] | Iterable[str | bytes],
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
    allow_delete: bool = True,
    verify_syntax: bool = False,
) -> ApplyResult:
    """Apply the edit blocks of a reply to the files under ``root``.

    ``source`` is the reply text, a :class:`ParsedReply`, or a list of blocks. Blocks apply
    in reply order, each seeing the result of the earlier ones; every file is written once at
    the end, atomically. After a failed block, later blocks to the same file are skipped unless
    ``continue_after_failure``. With ``dry_run`` nothing is written and ``result.diffs`` shows
    what would change.

    ``source`` may also be the reply arriving as an iterable of chunks (``str`` or UTF-8
    ``bytes``, split anywhere): each block is then applied as soon as it completes, and the
    result is the same as for the whole text (see :mod:`editblocks.pipeline.stream`).

    ``match`` is the matching level, ``"exact"``, ``"tolerant"``, ``"fuzzy"`` or ``"ast"``
    (fuzzy, then a SEARCH that is one whole definition placed by its name; needs the ``ast``
    extra); by default ``fuzzy`` for SEARCH/REPLACE formats and ``exact`` for
    ``edit-v2``/``edit-v3``, whose formats require exact matching.

    Files are never damaged: each keeps its encoding, byte order mark, every untouched line's
    own line ending and its final-newline state; a file is written only if it still holds what
    was read, and atomically (entirely old or entirely new after a crash). With ``atomic``
    nothing is written unless every block applied. Every apply that writes is recorded in the
    undo journal under ``root/.editblocks/`` (see :func:`editblocks.undo`) unless
    ``journal=False``. Applies under one root take turns on a lock (waiting up to
    ``lock_timeout`` seconds); a dry run takes no lock.

    ``base`` maps paths to what the model saw (text, bytes, None for absent, or a SHA-256; see
    :mod:`editblocks.files.drift`). A block for a file that has changed since then applies only where
    its text occurs exactly once, with a note saying so; with ``refuse_drift`` it fails.

    A reply over ``max_reply_bytes`` raises :class:`~editblocks.files.workspace.TooLargeError`; a file
    over ``max_file_bytes`` fails its blocks.

    Blocks that delete or move a file (``patch``, ``udiff``) do so in reply order, inside the
    root, recorded for undo like any write; with ``allow_delete=False`` they fail instead.

    Syntax is a second opinion: a file that parsed before its blocks and does not parse after
    them gets a note on its results and in the feedback message (``result.syntax_problems``);
    with ``verify_syntax`` its blocks fail and it is left untouched. Python is checked with the
    standard library, other languages with the ``ast`` extra; by default files over 1 MB are
    not checked.
    """
    options = ApplyOptions(
        format=format,
        dry_run=dry_run,
        git_add=git_add,
        continue_after_failure=continue_after_failure,
        match=match,
        atomic=atomic,
        refuse_drift=refuse_drift,
        journal=journal,
        allow_delete=allow_delete,
        verify_syntax=verify_syntax,
        base=base,
        max_reply_bytes=max_reply_bytes,
        max_file_bytes=max_file_bytes,
        lock_timeout=lock_timeout,
    )
    return apply_with_options(source, root, options)


def apply_with_options(
    source: str | bytes | ParsedReply | Iterable[EditBlock] | Iterable[str | bytes],
    root: str | os.PathLike[str],
    options: ApplyOptions,
) -> ApplyResult:
    """:func:`apply_edits` with its options in one :class:`ApplyOptions` (for callers that keep
    them, such as the review page)."""
    format, max_reply_bytes = options.format, options.max_reply_bytes
    if isinstance(source, (bytes, bytearray)):
        # A whole reply as bytes: UTF-8, or one legacy encoding throughout (ReplyDecodeError otherwise).
        source = decode_reply(bytes(source))
    if isinstance(source, str):
        check_reply_size(source, max_reply_bytes)
        parsed = parse_reply(source, format)
    elif isinstance(source, ParsedReply):
        parsed = source
    else:
        from editblocks.pipeline.stream import apply_stream, split_source  # loaded only for streams

        blocks, chunks = split_source(source)
        if chunks is not None:
            return apply_stream(chunks, root, options=options)
        parsed = ParsedReply(blocks=blocks or [], format=format)
    workspace = Workspace(root, max_file_bytes=options.max_file_bytes)
    drift = DriftCheck(options.base, workspace) if options.base is not None else None
    with nullcontext() if options.dry_run else root_lock(workspace.root, timeout=options.lock_timeout):
        return apply_parsed(parsed, workspace, options, drift)
