"""The ``editblocks`` command: a thin layer over :func:`editblocks.apply_edits`."""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

import click
from rich.console import Console

from . import __version__
from .apply import apply_edits
from .formats import FORMATS
from .parsing import parse_response
from .terminal import print_apply_result, print_parsed
from .workspace import WorkspaceError

MAX_REPLY_BYTES = 50 * 1024 * 1024

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class UsageError(click.ClickException):
    """A bad invocation or an unusable reply: message on stderr, exit code 2."""

    exit_code = EXIT_USAGE


def _stdout() -> Console:
    return Console(highlight=False)


def _read_reply(reply: str) -> str:
    """The reply text from a file or ``-`` (stdin), refusing empty, binary and huge input."""
    if reply == "-":
        if sys.stdin is None or sys.stdin.isatty():
            raise UsageError("no reply given: pass a reply file, or pipe the reply into 'editblocks apply -'")
        data = sys.stdin.buffer.read(MAX_REPLY_BYTES + 1)
        name = "standard input"
    else:
        path = Path(reply)
        if not path.exists():
            raise UsageError(f"reply file not found: {reply}")
        if not path.is_file():
            raise UsageError(f"reply is not a file: {reply}")
        if path.stat().st_size > MAX_REPLY_BYTES:
            raise UsageError(f"reply file is larger than {MAX_REPLY_BYTES // (1024 * 1024)} MB: {reply}")
        data = path.read_bytes()
        name = reply
    if len(data) > MAX_REPLY_BYTES:
        raise UsageError(f"reply is larger than {MAX_REPLY_BYTES // (1024 * 1024)} MB")
    if b"\x00" in data:
        raise UsageError(f"reply in {name} is binary data, not text")
    text = data.decode("utf-8", errors="replace")
    if not text.strip():
        raise UsageError(f"reply in {name} is empty")
    return text


_format_option = click.option(
    "--format",
    "fmt",
    type=click.Choice(list(FORMATS)),
    default=None,
    help="Edit format of the reply (default: detect per block).",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="editblocks")
def main() -> None:
    """Apply the edit blocks of a language model's reply to files, safely, and say what happened."""


@main.command()
@click.argument("reply", default="-")
@click.option("--root", type=click.Path(file_okay=False), default=".", show_default=True, help="Folder the edits apply under.")
@_format_option
@click.option("--dry-run", is_flag=True, help="Compute and show everything; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--git-add", is_flag=True, help="Stage the modified files with git.")
@click.option("--continue-after-failure", is_flag=True, help="Keep applying blocks to a file after one of its blocks failed.")
@click.option("--no-diff", is_flag=True, help="Do not print the diffs.")
@click.option(
    "--match",
    "match_level",
    type=click.Choice(["exact", "tolerant", "fuzzy"]),
    default=None,
    help="How tolerant locating edits is (default: fuzzy for SEARCH/REPLACE, exact for edit-v2/v3).",
)
def apply(
    reply: str,
    root: str,
    fmt: str | None,
    dry_run: bool,
    as_json: bool,
    git_add: bool,
    continue_after_failure: bool,
    no_diff: bool,
    match_level: str | None,
) -> None:
    """Apply the edit blocks in REPLY (a file, or - for standard input) to files under --root.

    Exit status: 0 when every block applied, 1 when any failed or was skipped, 2 for a usage
    error or a reply without edit blocks.
    """
    if not Path(root).is_dir():
        raise UsageError(f"root folder not found: {root}")
    text = _read_reply(reply)
    parsed = parse_response(text, fmt)
    if not parsed.blocks:
        if as_json:
            click.echo(json.dumps({"format": parsed.format, "results": [], "files_modified": [], "shell_suggestions": parsed.shell_suggestions, "warnings": [{"line": w.line, "message": w.message} for w in parsed.warnings]}, indent=2))
        err = Console(stderr=True, highlight=False)
        for w in parsed.warnings:
            err.print(f"warning: reply line {w.line}: {w.message}")
        raise UsageError("no edit blocks found in the reply")
    try:
        result = apply_edits(
            parsed,
            root,
            dry_run=dry_run,
            git_add=git_add,
            continue_after_failure=continue_after_failure,
            match=match_level,
        )
    except WorkspaceError as exc:
        raise UsageError(str(exc)) from None
    if as_json:
        payload = result.to_dict()
        if dry_run or not no_diff:
            payload["diffs"] = result.diffs
        click.echo(json.dumps(payload, indent=2))
    else:
        print_apply_result(_stdout(), result, show_diffs=not no_diff)
    sys.exit(EXIT_OK if result.ok else EXIT_FAILED)


@main.command()
@click.argument("reply", default="-")
@_format_option
@click.option("--json", "as_json", is_flag=True, help="Print the blocks as JSON.")
def check(reply: str, fmt: str | None, as_json: bool) -> None:
    """Parse REPLY and list its edit blocks and warnings, without touching any file.

    Exit status: 0 when blocks were found and nothing was malformed, 1 when there were
    warnings, 2 when no edit block was found.
    """
    parsed = parse_response(_read_reply(reply), fmt)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "format": parsed.format,
                    "blocks": [
                        {
                            "file_path": b.file_path,
                            "format": b.format,
                            "reply_line": b.line_number,
                            "kind": "create" if b.is_create else "edit",
                            "anchor": b.anchor,
                            "old_lines": b.old_lines,
                            "new_lines": b.new_lines,
                            "trailing_anchor": b.trailing_anchor,
                        }
                        for b in parsed.blocks
                    ],
                    "warnings": [{"line": w.line, "message": w.message} for w in parsed.warnings],
                    "shell_suggestions": parsed.shell_suggestions,
                },
                indent=2,
            )
        )
    else:
        print_parsed(_stdout(), parsed)
    if not parsed.blocks:
        sys.exit(EXIT_USAGE)
    sys.exit(EXIT_FAILED if parsed.warnings else EXIT_OK)


@main.command()
def formats() -> None:
    """List the edit formats editblocks reads."""
    console = _stdout()
    width = max(len(n) for n in FORMATS)
    for name, fmt in FORMATS.items():
        console.print(f"[bold]{name.ljust(width)}[/]  {fmt.description}", highlight=False)


@main.command()
@click.option("--keep", is_flag=True, help="Keep the demo folder and print its path.")
def demo(keep: bool) -> None:
    """Apply a sample reply to a copy of a small sample project, and show the result."""
    console = _stdout()
    data = resources.files("editblocks") / "demo"
    reply = (data / "reply.md").read_text(encoding="utf-8")
    workdir = Path(tempfile.mkdtemp(prefix="editblocks-demo-"))
    try:
        _copy_tree(data / "project", workdir)
        console.rule("[bold]editblocks demo")
        console.print(
            f"A sample project was copied to [cyan]{workdir}[/]. This is the model's reply "
            "(one block in it is deliberately stale, to show how a failure is reported):\n",
            highlight=False,
        )
        from rich.markdown import Markdown

        console.print(Markdown(reply))
        console.rule("[bold]editblocks apply")
        result = apply_edits(reply, workdir)
        print_apply_result(console, result)
        feedback = result.feedback_message()
        if feedback:
            console.rule("[bold]what editblocks tells the model about the failure")
            console.print(feedback, highlight=False, markup=False)
        if keep:
            console.print(f"The edited project is in {workdir}", highlight=False)
    finally:
        if not keep:
            shutil.rmtree(workdir, ignore_errors=True)


def _copy_tree(src: Traversable, dest: Path) -> None:
    for item in src.iterdir():
        target = dest / item.name
        if item.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            _copy_tree(item, target)
        else:
            target.write_bytes(item.read_bytes())


if __name__ == "__main__":
    main()
