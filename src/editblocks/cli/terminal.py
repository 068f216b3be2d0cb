"""Showing parse and apply results in a terminal (rich)."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.syntax import Syntax
from rich.table import Table

from editblocks.models import ApplyResult, EditStatus, ParsedResponse, ParseWarning

_STATUS_STYLE = {
    EditStatus.APPLIED: "bold green",
    EditStatus.FAILED: "bold red",
    EditStatus.SKIPPED: "yellow",
}


def print_apply_result(console: Console, result: ApplyResult, *, show_diffs: bool = True) -> None:
    """The results table, the diffs, warnings, shell suggestions and a one-line summary."""
    table = Table(title="Edit blocks", show_lines=False, expand=False)
    table.add_column("#", justify="right", style="dim")
    table.add_column("file")
    table.add_column("status")
    table.add_column("how")
    table.add_column("file line", justify="right")
    table.add_column("reply line", justify="right", style="dim")
    for i, r in enumerate(result.results, start=1):
        how = r.strategy or ""
        if r.score is not None:
            how += f" {r.score:.0%}"
        status = f"[{_STATUS_STYLE[r.status]}]{r.status.value}[/]"
        if r.already_applied:
            status += " (already applied)"
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
            console.print(f"[{style}]block {i}[/] ({escape(r.file_path)}): " + escape("; ".join(lines)), highlight=False)
    if show_diffs:
        for path, diff in result.diffs.items():
            if diff:
                console.rule(f"[bold]{escape(path)}")
                console.print(Syntax(diff, "diff", theme="ansi_dark", background_color="default", word_wrap=True))
    print_warnings(console, result.warnings)
    if result.shell_suggestions:
        console.print("[bold]Shell commands suggested by the reply (not run):[/]")
        for cmd in result.shell_suggestions:
            console.print(f"  $ {escape(cmd)}", highlight=False)
    print_summary(console, result)


def print_summary(console: Console, result: ApplyResult) -> None:
    applied, failed, skipped = len(result.applied), len(result.failed), len(result.skipped)
    verb = "would change" if result.dry_run else "changed"
    files = ", ".join(result.files_modified) or "none"
    style = "green" if failed == 0 and skipped == 0 else "red"
    console.print(
        f"[{style}]{applied} applied, {failed} failed, {skipped} skipped[/]; "
        f"files {verb}: {escape(files)}",
        highlight=False,
    )


MAX_SHOWN_WARNINGS = 20
"""Warnings printed for one reply; the rest are counted (``--json`` keeps every one)."""


def more_warnings(count: int) -> str:
    """The line that stands for warnings not printed."""
    return f"... and {count} more warning{'s' if count != 1 else ''} (--json lists every one)"


def print_warnings(console: Console, warnings: list[ParseWarning]) -> None:
    """The first :data:`MAX_SHOWN_WARNINGS` warnings, and a count of the rest."""
    for w in warnings[:MAX_SHOWN_WARNINGS]:
        where = f"reply line {w.line}: " if w.line else ""
        console.print(f"[yellow]warning:[/] {where}{escape(w.message)}", highlight=False)
    if len(warnings) > MAX_SHOWN_WARNINGS:
        console.print(f"[yellow]{more_warnings(len(warnings) - MAX_SHOWN_WARNINGS)}[/]", highlight=False)


def print_parsed(console: Console, parsed: ParsedResponse) -> None:
    """The blocks found in a reply, without applying them."""
    table = Table(title=f"Edit blocks ({parsed.format or 'no format detected'})")
    table.add_column("reply line", justify="right", style="dim")
    table.add_column("format")
    table.add_column("file")
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
    print_warnings(console, parsed.warnings)
    if parsed.shell_suggestions:
        console.print("[bold]Shell commands suggested (not run):[/]")
        for cmd in parsed.shell_suggestions:
            console.print(f"  $ {escape(cmd)}", highlight=False)
