"""One reply under review: what each block would do, what was applied, and the page's view of it.

Everything is computed by the package's own pipeline: :func:`parse_reply` finds the blocks,
:func:`apply_edits` with ``dry_run=True`` says what each block would do and produces the diffs,
and :func:`~.recording.apply_recorded` writes. Nothing is written until :meth:`Review.apply`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import secrets
import threading
from dataclasses import dataclass, field, replace
from html import escape
from pathlib import Path
from typing import Any

from editblocks.files.workspace import BinaryFileError, FileMissingError, Workspace
from editblocks.models import ApplyResult, EditBlock, EditResult, EditStatus, ParseWarning
from editblocks.pipeline.api import apply_with_options
from editblocks.pipeline.feedback import feedback_message
from editblocks.pipeline.placer import ApplyOptions
from editblocks.quoting import percent
from editblocks.reading.reader import parse_reply, split_reply
from editblocks.status import Strategy
from editblocks.web.highlight import diff_rows, text_rows
from editblocks.web.recording import apply_recorded, undo_status, undone_entries

WILL_APPLY, APPLIED, FAILED, SKIPPED, ALREADY_APPLIED = "will_apply", "applied", "failed", "skipped", "already_applied"
STATUSES = (WILL_APPLY, APPLIED, FAILED, SKIPPED, ALREADY_APPLIED)
MAX_PLACES = 6
"""An ambiguous block shows at most this many of its candidate places."""
PLACE_CONTEXT = 3
"""Lines shown around each candidate place."""
MAX_EXTRA_CONTEXT = 8
"""A chosen place a line hint cannot single out is made unique with up to this many file lines around it."""
PAGE_SIZE = 100
"""Blocks shown in full (with their diffs) on one page of the review; the others only by status."""
MAX_LISTED_FAILURES = 20
"""Failures listed in the summary (with the similar lines); the rest are counted."""
"""Files with more blocks than this show each block's own text instead of its exact file diff."""


class ReviewError(Exception):
    """A request the review cannot carry out; ``status`` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def strategy_label(strategy: str | None, score: float | None) -> tuple[str | None, str | None]:
    if not strategy:
        return None, None
    try:
        known = Strategy(strategy)
    except ValueError:
        label, confidence = strategy.replace("-", " ").capitalize(), "medium"
    else:
        label, confidence = known.label, known.confidence
    if score is not None:
        label = f"{label} ({percent(score)})"
    return label, confidence


def editable_text(block: EditBlock, reply_lines: list[str]) -> str:
    """The text a person edits for ``block``: one that parses back into the same edit."""
    candidates = [f"{block.file_path}\n{block.raw_block}", block.raw_block]
    if reply_lines and block.line_number:
        first = max(block.line_number - 3, 0)
        candidates.append("\n".join(reply_lines[first : block.end_line]) + "\n")
    for text in candidates:
        if not text.strip():
            continue
        blocks = parse_reply(text).blocks
        if len(blocks) == 1 and blocks[0].same_edit(block):
            return text
    return candidates[0]


@dataclass
class _Slot:
    block: EditBlock
    reply_lines: list[str]
    """The reply's lines (shared by every slot), from which :attr:`text` is made when first needed."""
    edited: EditBlock | None = None
    edited_text: str | None = None
    placed: EditBlock | None = None
    """The block narrowed to the place a person chose among its candidates."""
    edit_error: str | None = None
    applied: EditResult | None = None
    applied_rows: list[dict[str, Any]] | None = None
    batch: int | None = None

    _text: str | None = None

    @property
    def current(self) -> EditBlock:
        return self.placed or self.edited or self.block

    @property
    def text(self) -> str:
        """The block's text as the reply has it (what Edit manually starts from)."""
        if self._text is None:
            self._text = editable_text(self.block, self.reply_lines)
        return self._text


@dataclass
class _Batch:
    """One apply from this review."""

    number: int
    entry: int | None
    blocks: list[int]
    files: list[str]
    before: dict[str, str] = field(default_factory=dict)
    after: dict[str, str] = field(default_factory=dict)
    undone: bool = False


class Review:
    """A reply, its blocks, and what has been applied of it. Thread-safe."""

    def __init__(
        self,
        root: str | Path,
        reply: str = "",
        *,
        options: ApplyOptions | None = None,
        review_id: str | None = None,
        parse: bool = True,
    ) -> None:
        self.id = review_id or secrets.token_hex(6)
        self.root = Workspace(root).root
        self.options = options or ApplyOptions()
        self.revision = 0
        self.page = 0
        self.done = True
        self._lock = threading.RLock()
        self._batches: list[_Batch] = []
        self.reply = ""
        self.slots: list[_Slot] = []
        self.warnings: list[ParseWarning] = []
        self.shell_suggestions: list[str] = []
        self.format: str | None = None
        if parse:
            parsed = parse_reply(reply, self.options.format)
            self.sync(reply, parsed.blocks, parsed.warnings, parsed.shell_suggestions, parsed.format)

    # -- the blocks ---------------------------------------------------------------------

    def sync(
        self,
        reply: str,
        blocks: list[EditBlock],
        warnings: list[ParseWarning],
        shell_suggestions: list[str],
        format: str | None,
        *,
        done: bool = True,
    ) -> None:
        """Take the blocks of ``reply`` (a reply still arriving grows); blocks already known keep their state."""
        with self._lock:
            lines = split_reply(reply)
            slots: list[_Slot] = []
            for i, block in enumerate(blocks):
                old = self.slots[i] if i < len(self.slots) else None
                if old is not None and old.block.same_edit(block) and old.block.line_number == block.line_number:
                    slots.append(old)
                else:
                    slots.append(_Slot(block, lines))
            self.reply = reply
            self.slots = slots
            self.warnings = list(warnings)
            self.shell_suggestions = list(shell_suggestions)
            self.format = format
            self.done = done
            self.revision += 1

    def set_text(self, index: int, text: str | None) -> None:
        """Replace block ``index`` by an edited text (None or the original text: back to the reply's)."""
        with self._lock:
            slot = self._slot(index)
            if slot.applied is not None:
                raise ReviewError(f"block {index + 1} is already applied; undo first to edit it", 409)
            slot.placed = None
            if text is None or text == slot.text:
                slot.edited, slot.edited_text, slot.edit_error = None, None, None
            else:
                slot.edited_text = text
                parsed = parse_reply(text, slot.block.format)
                if not parsed.blocks:
                    parsed = parse_reply(text)
                if len(parsed.blocks) == 1:
                    slot.edited, slot.edit_error = parsed.blocks[0], None
                else:
                    slot.edited = None
                    if parsed.blocks:
                        slot.edit_error = f"the text holds {len(parsed.blocks)} edit blocks; keep exactly one"
                    else:
                        why = "; ".join(w.message for w in parsed.warnings[:2])
                        slot.edit_error = "no complete edit block in the text" + (f" ({why})" if why else "")
            self.revision += 1

    def _slot(self, index: int) -> _Slot:
        if not 0 <= index < len(self.slots):
            raise ReviewError(f"no block {index + 1} in this reply", 404)
        return self.slots[index]

    def _pending(self) -> list[int]:
        return [i for i, s in enumerate(self.slots) if s.applied is None and s.edit_error is None]

    def _dry_run(self, blocks: list[EditBlock]) -> ApplyResult:
        if not blocks:
            return ApplyResult(dry_run=True)
        return apply_with_options(blocks, self.root, replace(self.options, dry_run=True))

    def _block_rows(
        self, blocks: list[EditBlock], dry: ApplyResult, wanted: set[int] | None = None
    ) -> list[list[dict[str, Any]] | None]:
        """Each applying block's own change, as it would land in its file (None: not known);
        with ``wanted``, only those blocks' (positions in ``blocks``)."""
        out: list[list[dict[str, Any]] | None] = [None] * len(blocks)
        groups: dict[str, list[int]] = {}
        for k, r in enumerate(dry.results):
            groups.setdefault(r.file_path, []).append(k)
        for path, ks in groups.items():
            applying = [k for k in ks if dry.results[k].status is EditStatus.APPLIED]
            if not applying or path not in dry.after:
                continue
            if wanted is not None and not wanted.intersection(ks):
                continue
            if len(applying) == 1:
                out[applying[0]] = diff_rows(dry.before[path], dry.after[path], path)
                continue
            # Each block's change, from the span and texts its result records, in the order
            # the blocks were placed: no dry run per block.
            text = _whole_lines(dry.before[path])
            rows: dict[int, list[dict[str, Any]]] = {}
            for k in ks:
                r = dry.results[k]
                if r.status is not EditStatus.APPLIED or r.span is None or r.moved_to is not None:
                    continue
                start, end = r.span
                after = text[:start] + r.replacement + text[end:]
                if wanted is None or k in wanted:
                    rows[k] = _span_rows(text, start, end, r.replacement, path)
                text = after
            if text == _whole_lines(dry.after[path]):  # the records add up to the file: show them
                for k, row in rows.items():
                    out[k] = row
        return out

    # -- the page's view ------------------------------------------------------------------

    def _evaluate(self) -> tuple[list[tuple[EditResult, str]], list[int], list[EditBlock], ApplyResult]:
        """Each block's result and status now (a dry run of the pending blocks against the files),
        the pending block indices, their blocks and the dry run."""
        self._notice_undos()
        pending = self._pending()
        blocks = [self.slots[i].current for i in pending]
        dry = self._dry_run(blocks)
        by_index = {i: dry.results[k] for k, i in enumerate(pending)}
        out: list[tuple[EditResult, str]] = []
        for i, slot in enumerate(self.slots):
            if slot.applied is not None:
                out.append((slot.applied, APPLIED))
            elif slot.edit_error is not None:
                out.append(
                    (EditResult(slot.block.file_path, EditStatus.FAILED, slot.block, reason=slot.edit_error), FAILED)
                )
            else:
                res = by_index[i]
                out.append((res, _status(res)))
        return out, pending, blocks, dry

    def _feedback(self, evaluated: list[tuple[EditResult, str]], only: int | None = None) -> str:
        combined = [res for res, _ in evaluated]
        waiting = [i for i, (_, status) in enumerate(evaluated) if status == WILL_APPLY]
        result = ApplyResult(results=combined, warnings=list(self.warnings), format=self.format)
        return feedback_message(result, pending=waiting, only=only)

    def feedback(self, index: int | None = None) -> str:
        """The message for the model as the files are now: for the whole reply, or block ``index``."""
        with self._lock:
            if index is not None:
                self._slot(index)
            evaluated, _, _, _ = self._evaluate()
            return self._feedback(evaluated, index)

    def view(self, page: int | None = None) -> dict[str, Any]:
        """What the page shows for this reply, as JSON-ready data: every block's status, and the
        blocks of one page (:data:`PAGE_SIZE` of them, in file order) in full with their diffs.

        ``page``: the page to show (0-based); None: the one shown last."""
        with self._lock:
            evaluated, pending, blocks, dry = self._evaluate()
            statuses = [status for _, status in evaluated]
            files = self._files(evaluated, dry)
            order = [i for f in files for i in f["blocks"]]
            pages = max(1, -(-len(order) // PAGE_SIZE))
            if page is not None:
                self.page = page
            number = min(max(self.page, 0), pages - 1)
            shown = sorted(order[number * PAGE_SIZE : (number + 1) * PAGE_SIZE])
            k_of = {i: k for k, i in enumerate(pending)}
            rows = self._block_rows(blocks, dry, {k_of[i] for i in shown if i in k_of})
            views: list[dict[str, Any]] = []
            for i in shown:
                slot = self.slots[i]
                res, status = evaluated[i]
                if status == APPLIED:
                    views.append(self._block_view(i, slot, res, APPLIED, slot.applied_rows))
                else:
                    views.append(self._block_view(i, slot, res, status, rows[k_of[i]] if i in k_of else None))
            counts = dict.fromkeys(STATUSES, 0)
            for status in statuses:
                counts[status] += 1
            failed = [i for i, status in enumerate(statuses) if status == FAILED]
            failures = []
            for i in failed[:MAX_LISTED_FAILURES]:
                res = evaluated[i][0]
                closest = []
                if res.closest_text and res.closest_region:
                    closest = text_rows(res.closest_text, res.file_path, res.closest_region[0])
                failures.append(
                    {
                        "index": i,
                        "file_path": res.file_path,
                        "reason": res.reason,
                        "similar_line": res.closest_region[0] if res.closest_region else None,
                        "closest": closest,
                    }
                )
            feedback = self._feedback(evaluated)
            applied_files = list(dict.fromkeys(f for b in self._batches if not b.undone for f in b.files))
            return {
                "id": self.id,
                "revision": self.revision,
                "root": str(self.root),
                "format": self.format,
                "match": self.options.match,
                "done": self.done,
                "blocks": views,
                "statuses": statuses,
                "page": {"number": number, "count": pages, "size": PAGE_SIZE},
                "files": files,
                "summary": {
                    "total": len(statuses),
                    "counts": counts,
                    "files_pending": list(dry.files_modified),
                    "files_applied": applied_files,
                    "failures": failures,
                    "more_failures": max(0, len(failed) - MAX_LISTED_FAILURES),
                },
                "warnings": [{"line": w.line, "message": w.message} for w in self.warnings],
                "shell_suggestions": list(self.shell_suggestions),
                "feedback": feedback,
                "undo": undo_status(self.root),
                "applies": [
                    {"number": b.number, "entry": b.entry, "blocks": b.blocks, "files": b.files, "undone": b.undone}
                    for b in self._batches
                ],
            }

    def _block_view(
        self, index: int, slot: _Slot, res: EditResult, status: str, rows: list[dict[str, Any]] | None
    ) -> dict[str, Any]:
        block = slot.current
        label, confidence = strategy_label(res.strategy, res.score)
        diff_kind = "file"
        if rows is None:
            rows = diff_rows(block.search_text, block.replace_text, block.file_path, context=None, numbers=False)
            diff_kind = "block"
        closest: list[dict[str, Any]] = []
        if res.closest_text and res.closest_region:
            closest = text_rows(res.closest_text, res.file_path, res.closest_region[0])
        matched: dict[str, Any] | None = None
        if res.matched_text is not None and status in (WILL_APPLY, APPLIED) and res.estimated_line:
            matched = {
                "search": diff_rows(block.search_text, block.search_text, block.file_path, numbers=False),
                "file": text_rows(res.matched_text, res.file_path, res.estimated_line),
            }
        places: list[dict[str, Any]] = []
        if status == FAILED and _ambiguous(res):
            places = self._places(res)
        anchors = _anchors(block, res) if status in (WILL_APPLY, APPLIED) else []
        reason = res.reason
        if status == ALREADY_APPLIED:
            reason = "the file already contains this change"
        return {
            "index": index,
            "file_path": res.file_path,
            "requested_path": res.requested_path,
            "format": block.format,
            "reply_line": slot.block.line_number,
            "status": status,
            "reason": reason,
            "strategy": res.strategy,
            "strategy_label": label,
            "confidence": confidence,
            "score": res.score,
            "line": res.estimated_line,
            "closest_region": list(res.closest_region) if res.closest_region else None,
            "closest": closest,
            "candidates": list(res.candidates),
            "places": places,
            "matched": matched,
            "anchors": anchors,
            "place_length": _line_count(block.search_text),
            "new_length": _line_count(block.replace_text),
            "notes": list(res.notes),
            "is_create": block.is_create,
            "text": slot.edited_text if slot.edited_text is not None else slot.text,
            "original_text": slot.text,
            "edited": slot.edited_text is not None,
            "edit_error": slot.edit_error,
            "diff": rows,
            "diff_kind": diff_kind,
            "apply": slot.batch,
        }

    def _places(self, res: EditResult) -> list[dict[str, Any]]:
        """An ambiguous block's candidate places, each with the file's lines around it."""
        try:
            text = Workspace(self.root).read(res.file_path).text
        except Exception:  # the file cannot be read now: no places to show
            return []
        lines = text.splitlines(keepends=True)
        digest = _digest(text)
        length = max(1, _line_count(res.block.search_text))
        places = []
        for line in res.candidates[:MAX_PLACES]:
            first = max(1, line - PLACE_CONTEXT)
            last = min(len(lines), line + length - 1 + PLACE_CONTEXT)
            rows = text_rows("".join(lines[first - 1 : last]), res.file_path, first)
            for row in rows:
                row["m"] = line <= row["n"] < line + length
            places.append({"line": line, "end": line + length - 1, "rows": rows, "digest": digest})
        return places

    def choose(self, index: int, line: int, digest: str | None = None) -> dict[str, Any]:
        """Apply ambiguous block ``index`` at the candidate place starting at ``line``.

        The place must be one of the block's candidates in the file as it is now, and the file
        must be the one the page showed (``digest``, when given). The block is narrowed to that
        place (a line hint; else the file's lines around it as context) and applied like any other.
        """
        with self._lock:
            slot = self._slot(index)
            if slot.applied is not None:
                raise ReviewError(f"block {index + 1} is already applied", 409)
            evaluated, _, _, _ = self._evaluate()
            res, status = evaluated[index]
            if status != FAILED or not _ambiguous(res):
                raise ReviewError(
                    f"block {index + 1} has no places to choose from (it is {status.replace('_', ' ')})", 409
                )
            if line not in res.candidates:
                listed = ", ".join(str(c) for c in res.candidates)
                raise ReviewError(
                    f"line {line} is not one of the places block {index + 1} matches (lines {listed})", 409
                )
            try:
                text = Workspace(self.root).read(res.file_path).text
            except Exception as exc:
                raise ReviewError(f"{res.file_path} cannot be read: {exc}", 409) from None
            if digest is not None and digest != _digest(text):
                raise ReviewError(f"{res.file_path} changed since the page showed it; look at the places again", 409)
            narrowed = self._narrow(slot.current, text, line)
            if narrowed is None:
                raise ReviewError(f"block {index + 1} cannot be placed at line {line} alone", 409)
            slot.placed = narrowed
            self.revision += 1
            try:
                return self.apply(blocks=[index])
            finally:
                if slot.applied is None:
                    slot.placed = None

    def _narrow(self, block: EditBlock, text: str, line: int) -> EditBlock | None:
        """``block`` made to match only at ``line`` (checked by a dry run), or None."""
        tries = [dataclasses.replace(block, hint_line=line)]
        lines = text.splitlines(keepends=True)
        length = max(1, _line_count(block.search_text))
        for k in range(1, MAX_EXTRA_CONTEXT + 1):
            before = "".join(lines[max(0, line - 1 - k) : line - 1])
            after = "".join(lines[line - 1 + length : line - 1 + length + k])
            if not block.search_text.endswith("\n"):
                break
            tries.append(
                dataclasses.replace(
                    block, anchor=before + block.anchor, trailing_anchor=block.trailing_anchor + after, hint_line=None
                )
            )
        for candidate in tries:
            dry = self._dry_run([candidate])
            if not dry.results or dry.results[0].status is not EditStatus.APPLIED:
                continue
            start = dry.results[0].estimated_line
            lead = _line_count(candidate.anchor) - _line_count(block.anchor)
            if start is not None and start + lead == line:
                return candidate
        return None

    def _files(self, evaluated: list[tuple[EditResult, str]], dry: ApplyResult) -> list[dict[str, Any]]:
        files: dict[str, dict[str, Any]] = {}
        for i, (res, status) in enumerate(evaluated):
            f = files.setdefault(
                res.file_path,
                {"path": res.file_path, "blocks": [], "counts": dict.fromkeys(STATUSES, 0)},
            )
            f["blocks"].append(i)
            f["counts"][status] += 1
        for f in files.values():
            f["will_change"] = f["path"] in dry.files_modified
        return list(files.values())

    # -- writing ------------------------------------------------------------------------------

    def apply(self, *, all: bool = False, file: str | None = None, blocks: list[int] | None = None) -> dict[str, Any]:
        """Write the chosen pending blocks: all of them, those of one ``file``, or the ``blocks`` listed."""
        with self._lock:
            if not self.done:
                raise ReviewError("the reply is still arriving; apply once it is complete", 409)
            self._notice_undos()
            pending = self._pending()
            current = [self.slots[i].current for i in pending]
            if all:
                chosen = pending
            elif file is not None:
                dry = self._dry_run(current)
                chosen = [i for k, i in enumerate(pending) if dry.results[k].file_path == file]
                if not chosen:
                    raise ReviewError(f"no block left to apply for {file}", 409)
            elif blocks:
                for i in blocks:
                    slot = self._slot(i)
                    if slot.applied is not None:
                        raise ReviewError(f"block {i + 1} is already applied", 409)
                    if slot.edit_error is not None:
                        raise ReviewError(f"block {i + 1} cannot be applied: {slot.edit_error}", 409)
                chosen = sorted(set(blocks))
            else:
                raise ReviewError("say what to apply: all, a file, or blocks")
            if not chosen:
                raise ReviewError("no block left to apply", 409)
            chosen_blocks = [self.slots[i].current for i in chosen]
            planned = self._dry_run(chosen_blocks)
            planned_rows = self._block_rows(chosen_blocks, planned)
            result, entry = apply_recorded(chosen_blocks, self.root, self.options)
            batch = _Batch(
                number=len(self._batches) + 1,
                entry=entry,
                blocks=[],
                files=list(result.files_modified),
                before=dict(result.before),
                after=dict(result.after),
            )
            for k, (i, res) in enumerate(zip(chosen, result.results)):
                if res.status is not EditStatus.APPLIED:
                    continue
                slot = self.slots[i]
                rows = planned_rows[k]
                if planned.after.get(res.file_path) != result.after.get(res.file_path):
                    rows = None  # the file changed between the preview and the write
                slot.applied, slot.applied_rows, slot.batch = res, rows, batch.number
                batch.blocks.append(i)
            if batch.files or batch.blocks:
                self._batches.append(batch)
            self.revision += 1
            applied = {
                "number": batch.number,
                "entry": entry,
                "files": batch.files,
                "blocks": batch.blocks,
                "counts": {
                    APPLIED: len(result.applied),
                    FAILED: len(result.failed),
                    SKIPPED: len(result.skipped),
                    ALREADY_APPLIED: len(result.already_applied),
                },
                "warnings": [{"line": w.line, "message": w.message} for w in result.warnings],
            }
            return {"applied": applied, "view": self.view()}

    def _notice_undos(self) -> None:
        """Applies undone elsewhere (``editblocks undo``) make their blocks pending again."""
        if any(b.entry is not None and not b.undone for b in self._batches):
            for entry in undone_entries(self.root):
                self.undone(entry)

    def undone(self, entry: int) -> bool:
        """The apply recorded as journal entry ``entry`` was undone: its blocks are pending again."""
        with self._lock:
            changed = False
            for batch in self._batches:
                if batch.entry == entry and not batch.undone:
                    batch.undone = True
                    for slot in self.slots:
                        if slot.batch == batch.number:
                            slot.applied, slot.applied_rows, slot.batch = None, None, None
                    changed = True
            if changed:
                self.revision += 1
            return changed

    # -- a file's diff ------------------------------------------------------------------------

    def file_view(self, path: str) -> dict[str, Any]:
        """One file under the root: its pending diff, else what this review applied, else its text."""
        workspace = Workspace(self.root)
        rel, _ = workspace.resolve(path)
        with self._lock:
            self._notice_undos()
            pending = self._pending()
            dry = self._dry_run([self.slots[i].current for i in pending])
            marks = [
                {"index": i, "line": s.applied.estimated_line if s.applied else None}
                for i, s in enumerate(self.slots)
                if (s.applied.file_path if s.applied else s.current.file_path) == rel
            ]
            if rel in dry.after:
                return {
                    "path": rel,
                    "kind": "pending",
                    "rows": diff_rows(dry.before.get(rel, ""), dry.after[rel], rel, context=None),
                    "marks": marks,
                }
            for batch in reversed(self._batches):
                if not batch.undone and rel in batch.after:
                    return {
                        "path": rel,
                        "kind": "applied",
                        "rows": diff_rows(batch.before.get(rel, ""), batch.after[rel], rel, context=None),
                        "marks": marks,
                    }
        try:
            text = workspace.read(rel).text
        except FileMissingError:
            return {"path": rel, "kind": "missing", "rows": [], "marks": marks}
        except BinaryFileError:
            raise ReviewError(f"{rel} is a binary file", 415) from None
        return {"path": rel, "kind": "current", "rows": text_rows(text, rel), "marks": marks}


def _ambiguous(res: EditResult) -> bool:
    """The block failed because its text matches at several places (its candidates)."""
    return len(res.candidates) > 1 and "ambiguous" in (res.reason or "")


def _line_count(text: str) -> int:
    return text.count("\n") + (0 if not text or text.endswith("\n") else 1)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _status(res: EditResult) -> str:
    if res.status is EditStatus.APPLIED:
        return WILL_APPLY
    if res.status is EditStatus.FAILED:
        return FAILED
    return ALREADY_APPLIED if res.already_applied else SKIPPED


def _whole_lines(text: str) -> str:
    """``text`` ending with a line ending, as the placer holds a file's text."""
    return text if not text or text.endswith("\n") else text + "\n"


def _anchors(block: EditBlock, res: EditResult) -> list[dict[str, Any]]:
    """A merged lazy sketch's parts for the page: each run of the sketch's lines beside the file
    lines it was anchored to, each elision beside the file lines it kept (the first and last few)."""
    if not res.sketch_parts:
        return []
    sketch = block.replace_text.split("\n")
    path = res.file_path
    out = []
    for part in res.sketch_parts:
        count = part.file_last - part.file_first + 1
        file_rows = []
        if part.kind == "elision" and count > len(part.shown):
            half = len(part.shown) // 2
            file_rows = text_rows(_joined(part.shown[:half]), path, part.file_first)
            gap = count - len(part.shown)
            file_rows.append(
                {
                    "t": "hunk",
                    "o": None,
                    "n": None,
                    "h": escape(f"\u22ef {gap} more line{'s' if gap != 1 else ''} kept \u22ef"),
                }
            )
            file_rows += text_rows(_joined(part.shown[half:]), path, part.file_last - (len(part.shown) - half) + 1)
        elif part.shown:
            file_rows = text_rows(_joined(part.shown), path, part.file_first)
        out.append(
            {
                "kind": part.kind,
                "sketch_first": part.sketch_first,
                "sketch_last": part.sketch_last,
                "file_first": part.file_first,
                "file_last": part.file_last,
                "changed": part.changed,
                "sketch": text_rows(_joined(sketch[part.sketch_first - 1 : part.sketch_last]), path, part.sketch_first),
                "file": file_rows,
            }
        )
    return out


def _joined(lines: list[str] | tuple[str, ...]) -> str:
    return "".join(x + "\n" for x in lines)


def _span_rows(text: str, start: int, end: int, replacement: str, path: str, context: int = 3) -> list[dict[str, Any]]:
    """The diff rows of replacing ``text[start:end]`` (whole lines) by ``replacement``, with
    ``context`` lines around it, numbered as in the file: the work is the change's, not the file's."""
    lo = start
    for _ in range(context):
        if lo == 0:
            break
        lo = text.rfind("\n", 0, lo - 1) + 1
    hi = end
    for _ in range(context):
        if hi >= len(text):
            break
        hi = text.find("\n", hi) + 1 or len(text)
    first = text.count("\n", 0, lo) + 1
    return diff_rows(text[lo:hi], text[lo:start] + replacement + text[end:hi], path, first_line=first)
