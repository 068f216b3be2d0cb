"""Showing a reply in a terminal while it arrives: its text, and each block's status as it is applied.

Output is plain lines, printed and flushed as things happen, so it reads the same in a terminal,
a log file or a pipe: the reply's text line by line (when asked), a status line right after the
line that completes each block, warnings, and shell suggestions.
"""

from __future__ import annotations

from editblocks.cli.plain import Out, escape
from editblocks.cli.terminal import MAX_SHOWN_WARNINGS, describe, more_warnings, print_diff
from editblocks.models import EditResult, EditStatus
from editblocks.pipeline.stream import BlockApplied, StreamEvent
from editblocks.reading.stream import ParseWarningEvent

STATUS_STYLE = {
    EditStatus.APPLIED: "bold green",
    EditStatus.FAILED: "bold red",
    EditStatus.SKIPPED: "yellow",
    EditStatus.ALREADY_APPLIED: "cyan",
}


def status_markup(index: int, result: EditResult, *, prefix: str = "", applied: str = "applied") -> str:
    style = STATUS_STYLE[result.status]
    return (
        f"{prefix}[{style}]block {index}[/] {escape(result.file_path)}: [{style}]{escape(describe(result, applied))}[/]"
    )


class ProgressPrinter:
    """Prints the events of a reply being applied (see :class:`editblocks.pipeline.stream.ApplyStream`).

    With ``show_reply`` the reply's text is printed too, a line at a time, each block's status
    line following the reply line that completes the block. ``applied`` is the word shown for a
    block that applied in memory (``editblocks run`` says ``ready``: nothing is written yet).
    """

    def __init__(self, console: Out, *, show_reply: bool = False, applied: str = "applied") -> None:
        self.console = console
        self.show_reply = show_reply
        self.applied = applied
        self.statuses: dict[int, tuple[EditStatus, str | None]] = {}
        """Each block's status and reason as shown live, by its number in the reply."""
        self._pending = ""
        self._lines: list[str] = []
        self._printed = 0
        self.warnings = 0
        """Warnings seen; only the first :data:`MAX_SHOWN_WARNINGS` are printed."""

    # -- the reply's text -------------------------------------------------------------------

    def reply_text(self, text: str) -> None:
        """The next piece of the reply; complete lines are printed by :meth:`flush_lines`."""
        if not self.show_reply or not text:
            return
        parts = (self._pending + text).split("\n")
        self._pending = parts.pop()
        self._lines.extend(parts)

    def flush_lines(self, upto: int | None = None) -> None:
        """Print the reply's complete lines not printed yet, up to reply line ``upto`` (1-based)."""
        if not self.show_reply:
            return
        # self._lines holds the complete lines not printed yet; self._printed counts the others.
        count = len(self._lines) if upto is None else min(upto - self._printed, len(self._lines))
        if count <= 0:
            return
        taken, self._lines = self._lines[:count], self._lines[count:]
        self._printed += count
        for line in taken:
            self.console.print(line, style="dim", markup=False, emoji=False, highlight=False, soft_wrap=True)

    def end_reply(self) -> None:
        """The reply has ended: print what is left of it."""
        if not self.show_reply:
            return
        self.flush_lines()
        if self._pending:
            self.console.print(self._pending, style="dim", markup=False, emoji=False, highlight=False, soft_wrap=True)
        self._pending = ""
        self._lines = []
        self._printed = 0

    # -- events ---------------------------------------------------------------------------

    def event(self, event: StreamEvent) -> None:
        if isinstance(event, BlockApplied):
            self.flush_lines(event.block.end_line or None)
            res = event.result
            self.statuses[event.index] = (res.status, res.reason)
            self.console.print(status_markup(event.index, res, prefix="  ==> ", applied=self.applied), highlight=False)
        elif isinstance(event, ParseWarningEvent):
            self.flush_lines(event.line or None)
            self.warnings += 1
            if self.warnings > MAX_SHOWN_WARNINGS:
                return
            where = f"reply line {event.line}: " if event.line else ""
            self.console.print(f"  ==> [yellow]warning:[/] {where}{escape(event.message)}", highlight=False)

    def close(self) -> None:
        """Say how many warnings were not printed."""
        if self.warnings > MAX_SHOWN_WARNINGS:
            self.console.print(f"  ==> [yellow]{more_warnings(self.warnings - MAX_SHOWN_WARNINGS)}[/]", highlight=False)

    def changed_after_writing(self, results: list[EditResult]) -> None:
        """Print the blocks whose status changed when the files were written."""
        for i, res in enumerate(results, start=1):
            shown = self.statuses.get(i)
            if shown is not None and shown != (res.status, res.reason):
                self.console.print(status_markup(i, res, prefix="  ==> now: "), highlight=False)


# -- editblocks run ------------------------------------------------------------------------------


class RunDisplay:
    """Shows :func:`editblocks.run_request` as it happens: pass it as ``on_event``."""

    def __init__(
        self, console: Out, *, model: str = "", max_retries: int = 0, dry_run: bool = False, show_reply: bool = True
    ) -> None:
        self.console = console
        self.model = model
        self.max_retries = max_retries
        self.dry_run = dry_run
        self.show_reply = show_reply
        self.printer = ProgressPrinter(console, show_reply=show_reply)

    def __call__(self, event: object) -> None:
        from editblocks.run import ContinuationSent, FeedbackSent, ReplyChunk, RoundFinished, RoundStarted

        console = self.console
        if isinstance(event, ReplyChunk):
            # Lines completed by earlier chunks are printed now, after their blocks' status lines.
            self.printer.flush_lines()
            self.printer.reply_text(event.text)
        elif isinstance(event, RoundStarted):
            self.printer = ProgressPrinter(console, show_reply=self.show_reply, applied="ready")
            if event.continuation:
                title = "asking the model to continue its cut-off reply"
            elif event.round == 1:
                title = f"asking {self.model}" if self.model else "asking the model"
            else:
                title = f"retry {event.round - 1} of {self.max_retries}: asking for corrected blocks"
            if self.dry_run:
                title += " (dry run: nothing is written)"
            console.rule(escape(title))
        elif isinstance(event, RoundFinished):
            self.printer.end_reply()
            self.printer.close()
            result = event.result
            self.printer.changed_after_writing(result.results)
            if not result.dry_run:
                for i, res in enumerate(result.results, start=1):
                    if res.status is EditStatus.APPLIED and res.file_path in result.files_modified:
                        console.print(status_markup(i, res, prefix="  ==> ", applied="written"), highlight=False)
            verb = "would change" if result.dry_run else "written"
            files = ", ".join(result.files_modified) or "none"
            console.print(
                f"reply {event.round}: {len(result.applied)} applied, {len(result.failed)} failed, "
                f"{len(result.skipped)} skipped"
                + (f", {len(result.already_applied)} already applied" if result.already_applied else "")
                + f"; files {verb}: {escape(files)}",
                highlight=False,
            )
        elif isinstance(event, ContinuationSent):
            self.printer.end_reply()
            self.printer.close()
            blocks = f"{event.blocks} complete block{'' if event.blocks == 1 else 's'}"
            console.print(
                f"[bold yellow]reply {event.round} was cut off at the model's output limit[/] after {blocks}; "
                "nothing of it was written",
                highlight=False,
            )
        elif isinstance(event, FeedbackSent):
            failed = event.text.split("\n", 1)[0]
            console.print(f"[bold]sending the failures back to the model:[/] {escape(failed)}", highlight=False)
        else:
            self.printer.event(event)  # type: ignore[arg-type]

    def interrupted(self) -> None:
        """The loop stopped early: show what had arrived of the reply."""
        self.printer.end_reply()


def print_run_summary(console: Out, summary: object, *, show_diffs: bool = True, review_url: str | None = None) -> None:
    """The end of ``editblocks run``: diffs, then blocks, tokens, files and shell suggestions."""
    from editblocks.run import RunSummary

    assert isinstance(summary, RunSummary)
    if show_diffs:
        for path, diff in summary.diffs.items():
            if diff:
                console.rule(f"[bold]{escape(path)}")
                print_diff(console, diff)
    console.rule("[bold]summary")
    requests = len(summary.rounds)
    retries, continuations = summary.retries, summary.continuations
    notes = [f"{retries} with feedback on failed blocks"] if retries else []
    if continuations:
        notes.append(f"{continuations} to continue a reply cut off at the output limit")
    console.print(
        f"model {escape(summary.model)}: {requests} request{'s' if requests != 1 else ''}"
        + (f" ({', '.join(notes)})" if notes else ""),
        highlight=False,
    )
    applied, failed, skipped = len(summary.applied), len(summary.failed), len(summary.skipped)
    style = "green" if summary.ok else "red"
    extra = f" ({len(summary.already_applied)} already applied)" if summary.already_applied else ""
    console.print(f"blocks: [{style}]{applied} applied, {failed} failed, {skipped} skipped[/]{extra}", highlight=False)
    usage = summary.usage
    if usage is None:
        console.print("tokens used: unknown (the endpoint did not report usage)", highlight=False)
    else:
        some = "" if summary.usage_complete else "at least "
        note = "" if summary.usage_complete else " (some replies did not report usage)"
        console.print(
            f"tokens used: {some}{usage.total_tokens:,} (prompt {usage.prompt_tokens:,}, "
            f"completion {usage.completion_tokens:,}){note}",
            highlight=False,
        )
    files = ", ".join(summary.files_changed) or "none"
    if review_url is not None:
        console.print(f"files changed: none (review the blocks and apply them at {review_url})", highlight=False)
    elif summary.dry_run:
        console.print(f"files that would change (dry run, nothing written): {escape(files)}", highlight=False)
    else:
        console.print(f"files changed: {escape(files)}", highlight=False)
    still = [*summary.failed, *summary.skipped]
    if still:
        console.print("[bold red]still not applied:[/]", highlight=False)
        for res in still:
            console.print(
                f"  {escape(res.file_path)} (reply line {res.reply_line}): {escape(describe(res))}", highlight=False
            )
        if summary.exhausted:
            console.print(
                f"[red]gave up after {summary.retries} retr{'y' if summary.retries == 1 else 'ies'} (--max-retries)[/]",
                highlight=False,
            )
    elif summary.cut_off:
        console.print(
            "[red]the reply stopped at the model's output limit and never completed "
            f"({summary.continuations} continuation{'' if summary.continuations == 1 else 's'} asked for, --max-retries): "
            "nothing of it was written[/]",
            highlight=False,
        )
    elif summary.blocks == 0 and summary.error is None and not summary.interrupted:
        console.print("[yellow]the model's reply had no edit blocks[/]", highlight=False)
    if summary.shell_suggestions:
        console.print("[bold]shell commands suggested by the model (not run; run them yourself if you want):[/]")
        for cmd in summary.shell_suggestions:
            console.print(f"  $ {escape(cmd)}", highlight=False)
    if summary.error is not None:
        console.print(f"[bold red]error:[/] {escape(summary.error)}", highlight=False)
        if summary.files_changed and not summary.dry_run:
            console.print(
                "the reply being received then was not applied; files written before it stay as they are",
                highlight=False,
            )
        else:
            console.print("nothing was written", highlight=False)
    if summary.interrupted:
        console.print(
            "[bold yellow]stopped (Ctrl-C):[/] the reply being received was not applied; files written by "
            "earlier replies stay as they are ('editblocks undo' puts them back)",
            highlight=False,
        )
