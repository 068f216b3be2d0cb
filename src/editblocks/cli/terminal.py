"""Showing parse and apply results in a terminal (rich), or as plain lines in a pipe or log."""

from __future__ import annotations

import os
import sys

import click

from editblocks.cli.common import COLOR_KEY
from editblocks.cli.plain import Out, PlainConsole, escape, visible
from editblocks.models import ApplyResult, EditResult, EditStatus, ParsedReply, ParseWarning
from editblocks.quoting import percent

_STATUS_STYLE = {
    EditStatus.APPLIED: "bold green",
    EditStatus.FAILED: "bold red",
    EditStatus.SKIPPED: "yellow",
    EditStatus.ALREADY_APPLIED: "cyan",
}


def color_choice() -> bool | None:
    """``--color`` (True), ``--no-color`` (False), or neither given (None)."""
    ctx = click.get_current_context(silent=True)
    return None if ctx is None else ctx.meta.get(COLOR_KEY)


def make_console(*, stderr: bool = False) -> Out:
    """A console for the command's output: ``--color`` styles even in a pipe; ``--no-color`` or
    the ``NO_COLOR`` variable drop every style (bold and italic too, not only colours). Output
    that does not go to a terminal is plain lines, printed without loading the terminal library
    (unless ``--color`` or rich's ``FORCE_COLOR`` asks for styles there)."""
    choice = color_choice()
    if choice is None and os.environ.get("NO_COLOR"):
        choice = False
    if (
        choice is not True
        and not _to_terminal(stderr)
        and not os.environ.get("FORCE_COLOR")
        and not os.environ.get("TTY_COMPATIBLE")
    ):
        return PlainConsole(stderr=stderr)
    from rich.console import Console

    if choice is False:
        return Console(stderr=stderr, highlight=False, color_system=None, no_color=True)
    if choice is True:
        return Console(stderr=stderr, highlight=False, force_terminal=True)
    return Console(stderr=stderr, highlight=False)


def _to_terminal(stderr: bool) -> bool:
    isatty = getattr(sys.stderr if stderr else sys.stdout, "isatty", None)
    try:
        return isatty is not None and bool(isatty())
    except ValueError:
        return False


def is_plain(console: Out) -> bool:
    """True when the output does not go to a terminal: plain lines with full paths, no tables."""
    if isinstance(console, PlainConsole):
        return True
    isatty = getattr(console.file, "isatty", None)
    try:
        return not (isatty is not None and isatty())
    except ValueError:
        return True


def block_line(index: int, result: EditResult) -> str:
    """One plain line for a block: ``block 1 src/a.py: applied (exact, line 12)``."""
    return f"block {index} {result.file_path}: {describe(result)}"


def describe(result: EditResult, applied: str = "applied") -> str:
    """``applied (exact, line 12)``, ``failed: <reason>``, ``already applied (line 12)``;
    ``applied`` is the word for an applied block (``ready`` while its reply is not written yet)."""
    if result.status is EditStatus.APPLIED:
        how = [result.strategy or ""]
        if result.score is not None:
            how.append(f"{percent(result.score)}")
        if result.estimated_line is not None:
            how.append(f"line {result.estimated_line}")
        detail = ", ".join(h for h in how if h)
        text = f"{applied} ({detail})" if detail else applied
        if result.notes:
            text += "; " + "; ".join(result.notes)
        return text
    if result.status is EditStatus.ALREADY_APPLIED:
        return "already applied" + ("" if result.estimated_line is None else f" (line {result.estimated_line})")
    return f"{result.status.value}: {result.reason or 'no reason given'}"


def print_apply_result(console: Out, result: ApplyResult, *, show_diffs: bool = True, quiet: bool = False) -> None:
    """The results table, the diffs, warnings, shell suggestions and a one-line summary.

    ``quiet``: one line per block and nothing else. Outside a terminal, plain lines replace the
    table, so paths and reasons are never cut to a column's width.
    """
    if quiet:
        for i, r in enumerate(result.results, start=1):
            _plain(console, block_line(i, r), _STATUS_STYLE[r.status])
        return
    if is_plain(console):
        _print_plain_result(console, result, show_diffs)
        return
    from rich.table import Table

    label = result.format_label
    table = Table(title=f"Edit blocks ({label})" if label else "Edit blocks", show_lines=False, expand=False)
    table.add_column("#", justify="right", style="dim")
    table.add_column("file", overflow="fold")
    table.add_column("status")
    table.add_column("how")
    table.add_column("file line", justify="right")
    table.add_column("reply line", justify="right", style="dim")
    for i, r in enumerate(result.results, start=1):
        how = r.strategy or ""
        if r.score is not None:
            how += f" {percent(r.score)}"
        status = f"[{_STATUS_STYLE[r.status]}]{'already applied' if r.already_applied else r.status.value}[/]"
        table.add_row(
            str(i),
            escape(r.file_path),
            status,
            escape(how),
            "" if r.estimated_line is None else str(r.estimated_line),
            str(r.reply_line),
        )
    console.print(table)
    for i, r in enumerate(result.results, start=1):
        lines = [*r.notes]
        if r.reason and not r.already_applied:
            lines.append(r.reason)
        if lines:
            style = _STATUS_STYLE[r.status] if r.status is not EditStatus.APPLIED else "cyan"
            console.print(
                f"[{style}]block {i}[/] ({escape(r.file_path)}): " + escape("; ".join(lines)), highlight=False
            )
    if show_diffs:
        for path, diff in result.diffs.items():
            if diff:
                console.rule(f"[bold]{escape(path)}")
                print_diff(console, diff)
    print_warnings(console, result.warnings)
    if result.shell_suggestions:
        console.print("[bold]Shell commands suggested by the reply (not run):[/]")
        for cmd in result.shell_suggestions:
            console.print(f"  $ {escape(cmd)}", highlight=False)
    print_summary(console, result)


def print_diff(console: Out, diff: str) -> None:
    """A unified diff: coloured in a terminal, as it is elsewhere."""
    if is_plain(console):
        _plain(console, diff.rstrip("\n"))
        return
    from rich.syntax import Syntax

    console.print(Syntax(visible(diff), "diff", theme="ansi_dark", background_color="default", word_wrap=True))


def _plain(console: Out, text: str, style: str | None = None) -> None:
    console.print(text, style=style, markup=False, highlight=False, emoji=False, soft_wrap=True)


def _print_plain_result(console: Out, result: ApplyResult, show_diffs: bool) -> None:
    label = result.format_label
    _plain(console, f"edit blocks ({label})" if label else "edit blocks", "bold")
    for i, r in enumerate(result.results, start=1):
        line = block_line(i, r) + f" [reply line {r.reply_line}]"
        if r.notes and r.status is not EditStatus.APPLIED:
            line += "; " + "; ".join(r.notes)
        _plain(console, line, _STATUS_STYLE[r.status])
    if show_diffs:
        for diff in result.diffs.values():
            if diff:
                _plain(console, diff.rstrip("\n"))
    print_warnings(console, result.warnings)
    if result.shell_suggestions:
        _plain(console, "Shell commands suggested by the reply (not run):", "bold")
        for cmd in result.shell_suggestions:
            _plain(console, f"  $ {cmd}")
    print_summary(console, result)


def print_summary(console: Out, result: ApplyResult) -> None:
    applied, failed, skipped = len(result.applied), len(result.failed), len(result.skipped)
    verb = "would change" if result.dry_run else "changed"
    files = ", ".join(result.files_modified) or "none"
    style = "green" if failed == 0 and skipped == 0 else "red"
    already = f", {len(result.already_applied)} already applied" if result.already_applied else ""
    console.print(
        f"[{style}]{applied} applied, {failed} failed, {skipped} skipped{already}[/]; files {verb}: {escape(files)}",
        highlight=False,
        soft_wrap=is_plain(console),
    )


MAX_SHOWN_WARNINGS = 20
"""Warnings printed for one reply; the rest are counted (``--json`` keeps every one)."""


def more_warnings(count: int) -> str:
    """The line that stands for warnings not printed."""
    return f"... and {count} more warning{'s' if count != 1 else ''} (--json lists every one)"


def print_warnings(console: Out, warnings: list[ParseWarning]) -> None:
    """The first :data:`MAX_SHOWN_WARNINGS` warnings, and a count of the rest."""
    for w in warnings[:MAX_SHOWN_WARNINGS]:
        where = f"reply line {w.line}: " if w.line else ""
        console.print(f"[yellow]warning:[/] {where}{escape(w.message)}", highlight=False, soft_wrap=is_plain(console))
    if len(warnings) > MAX_SHOWN_WARNINGS:
        console.print(f"[yellow]{more_warnings(len(warnings) - MAX_SHOWN_WARNINGS)}[/]", highlight=False)


def print_parsed(console: Out, parsed: ParsedReply) -> None:
    """The blocks found in a reply, without applying them."""
    label = parsed.format_label or "no format detected"
    if is_plain(console):
        _plain(console, f"edit blocks ({label})", "bold")
        for b in parsed.blocks:
            _plain(
                console,
                f"reply line {b.line_number}: {b.format} {b.kind} {b.file_path} "
                f"({b.search_text.count(chr(10))} search lines, {b.replace_text.count(chr(10))} replace lines)",
            )
    else:
        _print_parsed_table(console, parsed, label)
    print_warnings(console, parsed.warnings)
    if parsed.shell_suggestions:
        console.print("[bold]Shell commands suggested (not run):[/]")
        for cmd in parsed.shell_suggestions:
            console.print(f"  $ {escape(cmd)}", highlight=False, soft_wrap=is_plain(console))


def _print_parsed_table(console: Out, parsed: ParsedReply, label: str) -> None:
    from rich.table import Table

    table = Table(title=f"Edit blocks ({label})")
    table.add_column("reply line", justify="right", style="dim")
    table.add_column("format")
    table.add_column("file", overflow="fold")
    table.add_column("kind")
    table.add_column("search lines", justify="right")
    table.add_column("replace lines", justify="right")
    for b in parsed.blocks:
        table.add_row(
            str(b.line_number),
            b.format,
            escape(b.file_path),
            b.kind,
            str(b.search_text.count("\n")),
            str(b.replace_text.count("\n")),
        )
    console.print(table)
