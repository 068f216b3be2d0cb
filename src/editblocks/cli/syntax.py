"""``editblocks context`` and ``editblocks summary``: syntax-aware views of files for a model.

Both work without the ``ast`` extra, in plain text, and say so on standard error.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import click

from editblocks.errors import UsageError
from editblocks.syntax.budget import CHARS_PER_TOKEN, DEFAULT_MAX_TOKENS

EXIT_OK, EXIT_NOTHING, EXIT_USAGE = 0, 1, 2


def _note(message: str) -> None:
    click.echo(f"note: {message}", err=True)


@click.command("context")
@click.argument("file")
@click.option(
    "--line",
    "-l",
    "line_numbers_wanted",
    type=click.IntRange(min=1),
    multiple=True,
    metavar="N",
    help="A line of interest, 1-based (repeatable).",
)
@click.option(
    "--grep",
    "-g",
    "pattern",
    default=None,
    metavar="PATTERN",
    help="Lines matching this regular expression are of interest.",
)
@click.option("--ignore-case", "-i", is_flag=True, help="Match PATTERN without regard to letter case.")
@click.option(
    "--pad",
    type=click.IntRange(min=0),
    default=1,
    show_default=True,
    help="Lines shown either side of each line of interest.",
)
@click.option("--line-numbers", "-n", is_flag=True, help="Show line numbers.")
@click.option(
    "--root", type=click.Path(file_okay=False), default=".", show_default=True, help="Folder FILE is read under."
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def context_cmd(
    file: str,
    line_numbers_wanted: tuple[int, ...],
    pattern: str | None,
    ignore_case: bool,
    pad: int,
    line_numbers: bool,
    root: str,
    as_json: bool,
) -> None:
    """Show the lines of interest of FILE with the definitions around them (class, then method),
    the rest elided with ⋮; lines of interest are marked █.

    Exit status: 0 when lines were shown, 1 when --grep matched nothing, 2 for a usage error.
    """
    from editblocks.files.workspace import Workspace, WorkspaceError
    from editblocks.syntax.context import file_context

    if not line_numbers_wanted and pattern is None:
        raise UsageError("say which lines: --line N or --grep PATTERN")
    if not Path(root).is_dir():
        raise UsageError(f"root folder not found: {root}")
    if pattern is not None:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise UsageError(f"--grep: not a valid regular expression: {exc}") from None
    try:
        workspace = Workspace(root)
        rel = _under_root(file, workspace.root)
        text = workspace.read(rel).text
    except WorkspaceError as exc:
        raise UsageError(str(exc)) from None
    result = file_context(
        text, rel, lines=line_numbers_wanted, grep=pattern, ignore_case=ignore_case, pad=pad, line_numbers=line_numbers
    )
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
    else:
        for note in result.notes:
            _note(note)
        if result.text:
            click.echo(result.render(), nl=False)
    if not result.lines_of_interest:
        if not as_json:
            _note(
                "no line of interest: "
                + ("nothing matches the pattern" if pattern is not None else "the lines are past the end of the file")
            )
        sys.exit(EXIT_NOTHING)


@click.command("summary")
@click.argument("paths", nargs=-1)
@click.option(
    "--root", type=click.Path(file_okay=False), default=".", show_default=True, help="Folder PATHS are relative to."
)
@click.option(
    "--max-tokens",
    type=click.IntRange(min=0),
    default=DEFAULT_MAX_TOKENS,
    show_default=True,
    help=f"Token budget, estimated as one token per {CHARS_PER_TOKEN} characters; 0 for no limit.",
)
@click.option(
    "--exclude",
    multiple=True,
    metavar="FILE",
    help="A file to leave out, e.g. one the messages carry in full (repeatable).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the outlines as JSON, with the notes.")
def summary_cmd(paths: tuple[str, ...], root: str, max_tokens: int, exclude: tuple[str, ...], as_json: bool) -> None:
    """Summarise the source files under PATHS (default: all of --root) for a model: each file's
    classes, functions and methods with their signatures, most referenced first, cut to the
    token budget. Files git ignores are left out.
    """
    from editblocks.syntax.summary import summarize

    if not Path(root).is_dir():
        raise UsageError(f"root folder not found: {root}")
    try:
        result = summarize(list(paths) or None, root, max_tokens or None, exclude=exclude)
    except (ValueError, FileNotFoundError) as exc:
        raise UsageError(str(exc)) from None
    if as_json:
        payload = {
            "files": dict(result.files),
            "notes": list(result.notes),
            "tokens": result.tokens,
            "definitions": result.definitions,
            "shown": result.shown,
        }
        click.echo(json.dumps(payload, indent=2, ensure_ascii=False))
        return
    for note in result.notes:
        _note(note)
    if result.text:
        click.echo(result.text)


def _under_root(path: str, root: Path) -> str:
    """``path`` relative to ``root`` (an absolute path inside it is accepted)."""
    p = Path(path)
    if not p.is_absolute():
        return path
    try:
        return p.resolve().relative_to(root).as_posix()
    except ValueError:
        raise UsageError(f"{path} is not inside the root folder {root}") from None
