"""Applying a reply while it arrives: each block is applied as soon as it is complete.

:class:`ApplyStream` feeds the reply's chunks to a :class:`~editblocks.StreamParser` and hands
every completed block at once to the apply pipeline (:class:`editblocks.pipeline.placer.BlockApplier`,
the same steps :func:`editblocks.apply_edits` runs), so each block's status is known while the
rest of the reply is still arriving. Blocks apply in reply order, each seeing the earlier ones'
results, to the files held in memory. The files are written at the end, by
:meth:`ApplyStream.write`, as :func:`editblocks.apply_edits` writes them: each changed file
once, atomically, only if it still holds what was read, and recorded for undo.

A reply that stops early (an error, Ctrl-C) writes nothing: :meth:`ApplyStream.abort` (or leaving
the ``with`` block on an exception) drops what was applied in memory and every file stays as it
was. Ctrl-C while the files are being written is held until the last one is written, so an
apply is never left half-written; :attr:`ApplyStream.interrupted` then says it happened.

>>> import editblocks
>>> chunks = iter(["a.py\\n<<<<<<< SEA", "RCH\\nx = 1\\n=======\\nx = 2\\n>>>>>>> REPLACE\\n"])
>>> result = editblocks.apply_edits(chunks, root=".")   # doctest: +SKIP
"""

from __future__ import annotations

import codecs
import os
import signal
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from itertools import chain
from types import TracebackType
from typing import Any

from editblocks.files.drift import DriftCheck
from editblocks.files.journal import root_lock
from editblocks.files.workspace import TooLargeError, Workspace
from editblocks.models import ApplyResult, EditBlock, EditResult, EditStatus
from editblocks.pipeline.placer import ApplyOptions, BlockApplier
from editblocks.reading.reader import parse_reply
from editblocks.reading.stream import BlockCompleted, Event, ParseWarningEvent, StreamParser

Chunk = str | bytes


@dataclass(slots=True)
class BlockApplied:
    """A completed block was applied (in memory; files are written at the end).

    Follows the block's :class:`~editblocks.BlockCompleted` event. ``index`` is the block's
    number in the reply, from 1. ``result`` is the block's :class:`EditResult`; writing can
    still change it (a file that cannot be written, an all-or-nothing apply held back).
    """

    result: EditResult
    index: int

    @property
    def block(self) -> EditBlock:
        return self.result.block

    @property
    def path(self) -> str:
        return self.result.file_path

    @property
    def status(self) -> EditStatus:
        return self.result.status


StreamEvent = Event | BlockApplied


class ApplyStream:
    """One reply applied while it arrives: :meth:`feed` chunks, then :meth:`close` and :meth:`write`.

    The options are those of :func:`editblocks.apply_edits`. The root's lock (none in a dry run)
    is taken when the first block completes, when files start being read, and released once the
    files are written or the apply is abandoned. Use it as a context manager so an exception
    abandons it::

        with ApplyStream(root) as stream:
            for chunk in chunks:
                for event in stream.feed(chunk):
                    show(event)
            for event in stream.close():
                show(event)
            result = stream.write()
    """

    def __init__(
        self, root: str | os.PathLike[str] = ".", options: ApplyOptions | None = None, **keywords: Any
    ) -> None:
        """``options``, or the same given as keywords (see :class:`ApplyOptions`)."""
        if options is None:
            options = ApplyOptions(**keywords)
        elif keywords:
            options = replace(options, **keywords)
        format, dry_run, base = options.format, options.dry_run, options.base
        max_file_bytes, max_reply_bytes, lock_timeout = (
            options.max_file_bytes,
            options.max_reply_bytes,
            options.lock_timeout,
        )
        self.workspace = Workspace(root, max_file_bytes=max_file_bytes)
        drift = DriftCheck(base, self.workspace) if base is not None else None
        self.result = ApplyResult(format=format, dry_run=dry_run)
        """The results so far; complete after :meth:`write`."""
        self._applier = BlockApplier(self.workspace, self.result, options, drift)
        self.parser = StreamParser(format)
        self.format = format
        self.max_reply_bytes = max_reply_bytes
        self.size = 0
        """Bytes of reply received so far (as UTF-8)."""
        self.interrupted = False
        """Ctrl-C arrived while the files were being written (they were all written first)."""
        self._lock = None if dry_run else root_lock(self.workspace.root, timeout=lock_timeout)
        # The reply's text is kept until its first block completes: a reply without blocks is
        # given the format parse_reply would guess from its whole text.
        self._kept: list[str] | None = [] if format is None else None
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._locked = False
        self._closed = False
        self._finished = False

    # -- receiving ---------------------------------------------------------------------------

    def feed(self, chunk: Chunk) -> list[StreamEvent]:
        """Read the next piece of the reply; returns its events, each completed block's
        :class:`~editblocks.BlockCompleted` followed by its :class:`BlockApplied`.

        Raises :class:`~editblocks.files.workspace.TooLargeError` once the reply exceeds
        ``max_reply_bytes`` (nothing is written then).
        """
        if self._finished:
            raise ValueError("feed() after the apply was written or abandoned")
        if isinstance(chunk, str):
            self.size += len(chunk) if chunk.isascii() else len(chunk.encode("utf-8", "surrogatepass"))
        else:
            self.size += len(chunk)
        if self.size > self.max_reply_bytes:
            raise TooLargeError(f"reply is too large (more than {_size(self.max_reply_bytes)}, the limit)")
        if self._kept is not None:
            self._kept.append(chunk if isinstance(chunk, str) else self._decoder.decode(bytes(chunk)))
        return self._apply(self.parser.feed(chunk))

    def close(self) -> list[StreamEvent]:
        """The reply has ended: returns the last events; the result gets the reply's warnings,
        shell suggestions and format."""
        if self._closed:
            return []
        events = self._apply(self.parser.close())
        self._closed = True
        parsed = self.parser.reply()
        self.result.warnings[:0] = parsed.warnings
        self.result.shell_suggestions = list(parsed.shell_suggestions)
        self.result.format = parsed.format
        if parsed.format is None and self._kept is not None:
            self._kept.append(self._decoder.decode(b"", final=True))
            self.result.format = parse_reply("".join(self._kept)).format
        self._kept = None
        return events

    def _apply(self, events: list[Event]) -> list[StreamEvent]:
        if not any(e.__class__ is BlockCompleted or e.__class__ is ParseWarningEvent for e in events):
            return events  # type: ignore[return-value]
        for event in events:
            # A refused chunk's file operation applies none of its chunks: known before the
            # blocks that come with it are applied.
            if isinstance(event, ParseWarningEvent):
                self._applier.refuse_group(event.warning)
        out: list[StreamEvent] = []
        for event in events:
            out.append(event)
            if isinstance(event, BlockCompleted):
                self._kept = None
                self._take_lock()
                res = self._applier.add(event.block)
                out.append(BlockApplied(res, len(self.result.results)))
        return out

    def replay(self, blocks: Iterable[EditBlock]) -> list[EditResult]:
        """Apply ``blocks`` before the reply, as an earlier reply that was applied but not written
        (a dry run over several replies). Their results are returned, not kept in :attr:`result`,
        whose diffs then show the changes of both."""
        if self.blocks:
            raise ValueError("replay() must come before the reply's first block")
        self._take_lock()
        replayed = [self._applier.add(block) for block in blocks]
        del self.result.results[: len(replayed)]
        return replayed

    @property
    def blocks(self) -> int:
        """How many blocks were applied (in memory) so far."""
        return len(self.result.results)

    # -- ending ------------------------------------------------------------------------------

    def write(self) -> ApplyResult:
        """Close the reply if needed, write every changed file (nothing in a dry run), and
        return the result. Ctrl-C during the writing is held until it is done."""
        if self._finished:
            raise ValueError("write() after the apply was written or abandoned")
        try:
            if not self._closed:
                self.close()
            with _interrupts_held() as held:
                try:
                    return self._applier.write()
                finally:
                    self.interrupted = bool(held)
        finally:
            self._finished = True
            self._release_lock()

    def abort(self) -> None:
        """Abandon the apply: nothing is written."""
        self._finished = True
        self._release_lock()

    def __enter__(self) -> ApplyStream:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if not self._finished:
            self.abort()

    def _take_lock(self) -> None:
        if self._lock is not None and not self._locked:
            self._lock.acquire()
            self._locked = True

    def _release_lock(self) -> None:
        if self._lock is not None and self._locked:
            self._lock.release()
            self._locked = False


def apply_stream(
    chunks: Iterable[Chunk],
    root: str | os.PathLike[str] = ".",
    *,
    on_event: Callable[[StreamEvent], Any] | None = None,
    options: ApplyOptions | None = None,
    **keywords: Any,
) -> ApplyResult:
    """Apply a reply arriving as ``chunks`` (str or bytes, split anywhere), each block as soon as
    it completes; ``on_event`` sees every event as it happens (the parser's events and a
    :class:`BlockApplied` after each completed block). ``options`` (or the same as keywords) are
    those of :func:`editblocks.apply_edits`, and the result equals that of ``apply_edits`` on
    the whole reply. If reading ``chunks`` raises, nothing is written and the exception
    propagates; Ctrl-C while the files are written is raised once they all are.
    """
    with ApplyStream(root, options, **keywords) as stream:
        for chunk in chunks:
            events = stream.feed(chunk)
            if on_event is not None:
                for event in events:
                    on_event(event)
        events = stream.close()
        if on_event is not None:
            for event in events:
                on_event(event)
        result = stream.write()
    if stream.interrupted:
        raise KeyboardInterrupt  # held while the files were written; they all were
    return result


def split_source(source: Any) -> tuple[list[EditBlock] | None, Iterator[Chunk] | None]:
    """(blocks, None) for an iterable of :class:`EditBlock`, (None, chunks) for reply chunks
    (``str``/``bytes`` items, or a whole reply given as ``bytes``)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return None, iter([bytes(source)])
    items = iter(source)
    for first in items:
        if isinstance(first, EditBlock):
            return [first, *items], None
        if isinstance(first, (str, bytes, bytearray, memoryview)):
            return None, chain([first], items)
        raise TypeError(f"apply_edits: expected edit blocks or reply chunks (str or bytes), not {type(first).__name__}")
    return [], None


@contextmanager
def _interrupts_held() -> Iterator[list[int]]:
    """Hold Ctrl-C (SIGINT) until the block ends; the list yielded records whether it came.

    Only the main thread receives signals; elsewhere nothing is held.
    """
    received: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield received
        return
    try:
        previous = signal.signal(signal.SIGINT, lambda signum, frame: received.append(signum))
    except (ValueError, OSError):
        yield received
        return
    try:
        yield received
    finally:
        signal.signal(signal.SIGINT, previous)


def _size(n: int) -> str:
    return f"{n / (1024 * 1024):g} MB" if n >= 1024 * 1024 else f"{n:,} bytes"


__all__ = ["ApplyStream", "BlockApplied", "StreamEvent", "apply_stream", "split_source"]
