"""The ``editblocks`` command: a thin layer over :func:`editblocks.apply_edits`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource

from editblocks import __version__
from editblocks.cli.common import (
    COLOR_KEY,
    finish_apply,
    git_top_root,
    no_blocks_json,
    no_blocks_message,
    reply_label,
)
from editblocks.errors import UsageError, WorkspaceError
from editblocks.formats import FORMATS

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

    from editblocks.cli.plain import Out

# Each command imports what it needs when it runs: --help and a one-block apply load little.

MAX_REPLY_BYTES = 50 * 1024 * 1024

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class _ClickUsageError(click.ClickException):
    """:class:`~editblocks.errors.UsageError` as click reports it: message on stderr, exit code 2."""

    exit_code = EXIT_USAGE


def _escape_unwritable() -> None:
    """Standard output and error in an encoding that lacks some characters (a legacy code page):
    those characters are written as escapes, never a crash after the files were written."""
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "").replace("_", "")
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and encoding not in ("utf8", "utf8sig"):
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):
                pass


ROOT_GIVEN_KEY = "editblocks.root_given"


def _root_given(args: list[str]) -> str | None:
    """The folder a command's ``--root`` names in ``args`` (None when none is given)."""
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg == "--root" and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--root="):
            return arg[len("--root=") :]
    return None


class _Commands(click.Group):
    """The command group: a usage error raised by any command (or the faces below it) is
    reported by click with exit status 2."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta[ROOT_GIVEN_KEY] = _root_given(args)
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        _escape_unwritable()
        try:
            return super().invoke(ctx)
        except UsageError as exc:
            raise _ClickUsageError(str(exc)) from None


def _stdout() -> Out:
    from editblocks.cli.terminal import make_console

    return make_console()


def make_console(*, stderr: bool = False) -> Out:
    from editblocks.cli.terminal import make_console

    return make_console(stderr=stderr)


def _set_color(ctx: click.Context, param: click.Parameter, value: bool | None) -> None:
    if value is not None:
        ctx.meta[COLOR_KEY] = value


_color_option = click.option(
    "--color/--no-color",
    default=None,
    expose_value=False,
    is_eager=True,
    callback=_set_color,
    help="Style the output even when it is not a terminal, or never (NO_COLOR set: never, bold and italic too).",
)

_quiet_option = click.option("-q", "--quiet", is_flag=True, help="One line per block, nothing else.")


def _read_reply(reply: str, limit: int = MAX_REPLY_BYTES) -> str:
    """The reply text from a file or ``-`` (stdin), refusing empty, binary and huge input."""
    from editblocks.reading.decode import ReplyDecodeError, decode_reply

    if reply == "-":
        if sys.stdin is None or sys.stdin.isatty():
            raise UsageError("no reply given: pass a reply file, or pipe the reply into 'editblocks apply -'")
        data = sys.stdin.buffer.read(limit + 1)
        name = "standard input"
    else:
        path = Path(reply)
        if not path.exists():
            raise UsageError(f"reply file not found: {reply}")
        if not path.is_file():
            raise UsageError(f"reply is not a file: {reply}")
        if path.stat().st_size > limit:
            raise UsageError(
                f"reply file is larger than {limit / (1024 * 1024):g} MB (the limit; see --max-reply-mb): {reply}"
            )
        data = path.read_bytes()
        name = reply
    if len(data) > limit:
        raise UsageError(f"reply is larger than {limit / (1024 * 1024):g} MB (the limit; see --max-reply-mb)")
    if b"\x00" in data:
        raise UsageError(f"reply in {name} is binary data, not text")
    try:
        text = decode_reply(data)
    except ReplyDecodeError as exc:
        raise UsageError(f"{exc} (in {name}); nothing was applied") from None
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

_match_option = click.option(
    "--match",
    "match_level",
    type=click.Choice(["exact", "tolerant", "fuzzy", "ast"]),
    default=None,
    help="How tolerant locating edits is (default: fuzzy for SEARCH/REPLACE, exact for edit-v2/v3); ast: fuzzy, then a SEARCH that is one whole definition placed by its name (needs editblocks[ast]).",
)

_no_delete_option = click.option(
    "--no-delete",
    is_flag=True,
    help="Refuse blocks that delete or move files (patch, udiff); they fail with the reason.",
)


_review_port_option = click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=None,
    help="With --review: the review page's port (default 8765, or a free port when it is busy; 0: any free port).",
)


_no_token_option = click.option(
    "--no-token",
    is_flag=True,
    help="Serve the review page without its secret token: any program or user on this machine can then write through it.",
)


def check_match_level(level: str | None) -> None:
    """``--match ast`` needs the ast extra: a usage error naming it when it is missing."""
    if level != "ast":
        return
    from editblocks.syntax.tree import INSTALL_HINT, missing

    if missing():
        raise UsageError(f"--match ast needs syntax support, which is not installed: {INSTALL_HINT}")


def _port_needs_review(port: int | None, review: bool) -> None:
    if port is not None and not review:
        raise UsageError("--port is the review page's port: use it with --review")


def _refuse_with_review(*names: str) -> None:
    """``--review`` leaves the writing to the review page: the options named (parameter names)
    that it does not honour are refused when given, rather than silently ignored."""
    ctx = click.get_current_context()
    given = [
        max(param.opts, key=len)
        for param in ctx.command.params
        if param.name in names
        and ctx.get_parameter_source(param.name) not in (None, ParameterSource.DEFAULT, ParameterSource.DEFAULT_MAP)
    ]
    if given:
        raise UsageError(f"--review cannot be combined with {', '.join(given)}")


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="editblocks")
@_color_option
@click.pass_context
def main(ctx: click.Context) -> None:
    """Apply the edit blocks of a language model's reply to files, safely, and say what happened.

    Defaults come from [tool.editblocks] in pyproject.toml or .editblocks.toml (in --root or the
    nearest folder above it that has one; without --root, from the current folder), then
    EDITBLOCKS_* variables; options given override both ('editblocks config' shows the
    effective settings).
    """
    from editblocks.cli.config import load

    given = ctx.meta.get(ROOT_GIVEN_KEY)
    start = Path(given) if given and Path(given).is_dir() else None
    settings = load(start)
    ctx.meta["editblocks.settings"] = settings
    ctx.default_map = {**settings.default_map(), **(ctx.default_map or {})}


@main.command("config")
def config_cmd() -> None:
    """Print the effective settings and where each came from (a file, a variable, or the default)."""
    from editblocks.cli.config import KEYS, Settings, env_name, find_files

    settings: Settings = click.get_current_context().meta["editblocks.settings"]
    width = max(len(k) for k in KEYS)
    for key in KEYS:
        if key in settings.values:
            value = settings.values[key]
            shown = str(value).lower() if isinstance(value, bool) else str(value)
            click.echo(f"{key.ljust(width)}  {shown}  ({settings.sources[key]})")
        else:
            click.echo(f"{key.ljust(width)}  (default)  (set it in [tool.editblocks] or {env_name(key)})")
    files = find_files()
    click.echo("configuration files: " + (", ".join(str(f) for f in files) if files else "none"))


@main.command()
@click.argument("reply", default="-")
@click.option(
    "--root", type=click.Path(file_okay=False), default=".", show_default=True, help="Folder the edits apply under."
)
@_format_option
@click.option("--dry-run", is_flag=True, help="Compute and show everything; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--git-add", is_flag=True, help="Stage the modified files with git.")
@click.option(
    "--continue-after-failure/--stop-after-failure",
    default=False,
    help="Keep applying blocks to a file after one of its blocks failed (default: skip its later blocks).",
)
@click.option("--no-diff", is_flag=True, help="Do not print the diffs.")
@_match_option
@click.option("--atomic/--no-atomic", default=False, help="All or nothing: write no file unless every block applies.")
@click.option(
    "--verify-syntax",
    is_flag=True,
    help="A file that parsed before the reply and would not after it is left untouched and its blocks fail "
    "(Python always; other languages with editblocks[ast]). Without it, such a file gets a note.",
)
@click.option(
    "--base-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Folder with the files as the model saw them; blocks for files that changed since apply only where certain, with a note.",
)
@click.option(
    "--refuse-drift",
    is_flag=True,
    help="With --base-dir: fail the blocks of files that changed since the model saw them.",
)
@click.option(
    "--max-reply-mb",
    type=click.FloatRange(min=0, min_open=True),
    default=50,
    show_default=True,
    help="Refuse larger replies.",
)
@click.option(
    "--max-file-mb",
    type=click.FloatRange(min=0, min_open=True),
    default=20,
    show_default=True,
    help="Refuse to edit larger files.",
)
@click.option(
    "--review",
    is_flag=True,
    help="Instead of applying, serve this reply on the review page (a piped reply is shown as it arrives); "
    "with --root, --format, --match, --continue-after-failure, --git-add, --no-delete and --port only; needs editblocks[web].",
)
@_no_delete_option
@_review_port_option
@_no_token_option
@click.option(
    "--commit",
    "commit",
    is_flag=False,
    flag_value="",
    default=None,
    metavar="[MESSAGE]",
    help="Commit exactly the files the apply wrote (MESSAGE, or one listing the blocks); 'editblocks undo' removes the commit while it is HEAD. Put it after REPLY, or write --commit=MESSAGE.",
)
@_quiet_option
@_color_option
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
    atomic: bool,
    base_dir: str | None,
    refuse_drift: bool,
    max_reply_mb: float,
    max_file_mb: float,
    review: bool,
    no_delete: bool = False,
    port: int | None = None,
    verify_syntax: bool = False,
    no_token: bool = False,
    quiet: bool = False,
    commit: str | None = None,
) -> None:
    """Apply the edit blocks in REPLY (a file, or - for standard input) to files under --root.

    Exit status: 0 when every block applied, 1 when any failed or was skipped, 2 for a usage
    error or a reply without edit blocks.
    """
    from editblocks.files.drift import FolderBase
    from editblocks.pipeline.api import apply_edits
    from editblocks.reading.reader import parse_reply

    if not Path(root).is_dir():
        raise UsageError(f"root folder not found: {root}")
    check_match_level(match_level)
    _port_needs_review(port, review)
    if no_token and not review:
        raise UsageError("--no-token is for the review page: use it with --review")
    if review:
        _refuse_with_review(
            "dry_run",
            "as_json",
            "no_diff",
            "atomic",
            "base_dir",
            "refuse_drift",
            "max_reply_mb",
            "max_file_mb",
            "verify_syntax",
            "commit",
            "quiet",
        )
        status = _serve_review(
            root,
            reply,
            None,
            port,
            fmt,
            match_level,
            continue_after_failure,
            git_add,
            None,
            allow_delete=not no_delete,
            token=not no_token,
            exit_on_done=True,
        )
        if status is not None:
            sys.exit(status)
        return
    if refuse_drift and base_dir is None:
        raise UsageError("--refuse-drift needs --base-dir (the files as the model saw them)")
    if base_dir is not None and not Path(base_dir).is_dir():
        raise UsageError(f"base folder not found: {base_dir}")
    base = None if base_dir is None else FolderBase(base_dir)
    if reply == "-":
        # Standard input is applied as it arrives: each block as soon as it is complete.
        from editblocks.cli.live import apply_stdin

        sys.exit(
            apply_stdin(
                root,
                as_json=as_json,
                no_diff=no_diff,
                max_reply_bytes=int(max_reply_mb * 1024 * 1024),
                max_file_bytes=int(max_file_mb * 1024 * 1024),
                format=fmt,
                dry_run=dry_run,
                git_add=git_add,
                continue_after_failure=continue_after_failure,
                match=match_level,
                atomic=atomic,
                allow_delete=not no_delete,
                base=base,
                refuse_drift=refuse_drift,
                verify_syntax=verify_syntax,
                quiet=quiet,
                commit=commit,
            )
        )
    text = _read_reply(reply, int(max_reply_mb * 1024 * 1024))
    parsed = parse_reply(text, fmt)
    if click.get_current_context().get_parameter_source("root") is ParameterSource.DEFAULT:
        top = git_top_root([b.file_path for b in parsed.blocks])
        if top is not None:
            root = str(top)
            click.echo(
                f"note: the reply's paths are relative to the repository's top level; applying under {root} (--root)",
                err=True,
            )
    if not parsed.blocks:
        if as_json:
            click.echo(no_blocks_json(parsed))
        from editblocks.cli.terminal import print_warnings

        print_warnings(make_console(stderr=True), parsed.warnings)
        raise UsageError(no_blocks_message(text, fmt))
    try:
        result = apply_edits(
            parsed,
            root,
            dry_run=dry_run,
            git_add=git_add,
            continue_after_failure=continue_after_failure,
            match=match_level,
            atomic=atomic,
            base=base,
            refuse_drift=refuse_drift,
            max_reply_bytes=int(max_reply_mb * 1024 * 1024),
            max_file_bytes=int(max_file_mb * 1024 * 1024),
            allow_delete=not no_delete,
            verify_syntax=verify_syntax,
        )
    except WorkspaceError as exc:
        raise UsageError(str(exc)) from None
    commit_error = finish_apply(root, result, reply_label(reply, text), commit)
    if as_json:
        payload = result.to_dict()
        if dry_run or not no_diff:
            payload["diffs"] = result.diffs
        if commit_error:
            payload["commit_error"] = commit_error
        click.echo(json.dumps(payload, indent=2))
    else:
        from editblocks.cli.terminal import print_apply_result

        print_apply_result(_stdout(), result, show_diffs=not no_diff, quiet=quiet)
    if commit_error:
        click.echo(f"error: {commit_error}", err=True)
    sys.exit(EXIT_OK if result.ok and not commit_error else EXIT_FAILED)


@main.command()
@click.argument("reply", default="-")
@_format_option
@click.option("--json", "as_json", is_flag=True, help="Print the blocks as JSON.")
@_color_option
def check(reply: str, fmt: str | None, as_json: bool) -> None:
    """Parse REPLY and list its edit blocks and warnings, without touching any file.

    Exit status: 0 when blocks were found and nothing was malformed, 1 when there were
    warnings, 2 when no edit block was found.
    """
    from editblocks.cli.terminal import print_parsed
    from editblocks.reading.reader import parse_reply

    text = _read_reply(reply)
    parsed = parse_reply(text, fmt)
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
                            "kind": b.kind,
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
        click.echo(f"error: {no_blocks_message(text, fmt)}", err=True)
        sys.exit(EXIT_USAGE)
    sys.exit(EXIT_FAILED if parsed.warnings else EXIT_OK)


@main.command()
@click.argument("reply", default="-")
@click.option(
    "--to", "target", type=click.Choice(list(FORMATS)), required=True, help="Edit format to write the blocks in."
)
@_format_option
@click.option(
    "--root",
    type=click.Path(file_okay=False),
    default=None,
    help="Project folder: blocks are located in its files, so elisions are resolved, line numbers computed, and edits can become whole files.",
)
@click.option(
    "--match",
    "match_level",
    type=click.Choice(["exact", "tolerant", "fuzzy"]),
    default=None,
    help="With --root: how tolerant locating the blocks is.",
)
@click.option(
    "--fence",
    is_flag=True,
    help="With --to udiff --root: put the patch in a ```diff Markdown fence (without it, git apply and patch -p1 take the output as it is).",
)
def convert(
    reply: str, target: str, fmt: str | None, root: str | None, match_level: str | None, fence: bool = False
) -> None:
    """Rewrite the edit blocks of REPLY (a file, or - for standard input) in another format.

    The converted reply goes to standard output and what could not be converted to standard
    error. Exit status: 0 when every block was converted, 1 when some could not be, 2 for a
    usage error or a reply without edit blocks.
    """
    from editblocks.pipeline.conversion import ConversionError, convert_reply

    if root is not None and not Path(root).is_dir():
        raise UsageError(f"root folder not found: {root}")
    text = _read_reply(reply)
    try:
        done = convert_reply(text, target, root=root, format=fmt, match=match_level, fence=fence)
    except (ConversionError, WorkspaceError) as exc:
        raise UsageError(str(exc)) from None
    if not done.blocks and not done.problems:
        raise UsageError(no_blocks_message(text, fmt))
    # As bytes: a patch keeps each file's own line endings (CRLF too).
    sys.stdout.flush()
    sys.stdout.buffer.write(done.text.encode("utf-8"))
    sys.stdout.buffer.flush()
    err = make_console(stderr=True)
    for note in done.notes:
        err.print(f"note: {note}", markup=False)
    for problem in done.problems:
        err.print(f"not converted: {problem}", markup=False)
    sys.exit(EXIT_FAILED if done.problems else EXIT_OK)


@main.command()
def formats() -> None:
    """List the edit formats editblocks reads."""
    width = max(len(n) for n in FORMATS)
    for name, fmt in FORMATS.items():
        click.echo(f"{click.style(name.ljust(width), bold=True)}  {fmt.description}")


@main.command()
@click.option(
    "--root",
    type=click.Path(file_okay=False),
    default=".",
    show_default=True,
    help="Folder the edits were applied under.",
)
@click.option("--list", "as_list", is_flag=True, help="Show the recorded applies, newest first, instead of undoing.")
@click.option("--json", "as_json", is_flag=True, help="Print the outcome as JSON.")
@_color_option
def undo(root: str, as_list: bool, as_json: bool) -> None:
    """Restore the files of the last apply under --root; files it created are deleted.

    Refuses, restoring nothing, when a file changed since that apply wrote it. Run it again to
    undo the apply before. Exit status: 0 when restored, 1 when refused or nothing to undo,
    2 for a usage error.
    """
    from editblocks.files.journal import history as undo_history
    from editblocks.files.journal import undo as undo_last

    if not Path(root).is_dir():
        raise UsageError(f"root folder not found: {root}")
    console = _stdout()
    if as_list:
        entries = undo_history(root, existing=True)
        if as_json:
            click.echo(json.dumps([e.to_dict() for e in entries], indent=2))
        elif not entries:
            console.print("no apply has been recorded under this root", highlight=False, markup=False)
        for entry in [] if as_json else entries:
            console.print(entry.describe(), highlight=False, markup=False, soft_wrap=True)
        return
    try:
        done = undo_last(root)
    except WorkspaceError as exc:
        if as_json:
            click.echo(json.dumps({"undone": None, "error": str(exc)}, indent=2))
        make_console(stderr=True).print(f"error: {exc}", markup=False)
        sys.exit(EXIT_FAILED)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "undone": done.entry.id,
                    "restored": done.restored,
                    "deleted": done.deleted,
                    "unchanged": done.unchanged,
                    "notes": list(done.notes),
                },
                indent=2,
            )
        )
        return
    for note in done.notes:
        console.print(f"note: {note}", highlight=False, markup=False)
    console.print(f"undid apply #{done.entry.id} of {done.entry.time}", highlight=False, markup=False)
    for path in done.restored:
        console.print(f"  restored {path}", highlight=False, markup=False)
    for path in done.deleted:
        console.print(f"  deleted  {path} (the apply created it)", highlight=False, markup=False)
    for path in done.unchanged:
        console.print(f"  already as before: {path}", highlight=False, markup=False)


@main.command()
@click.argument("reply", required=False)
@click.option(
    "--root", type=click.Path(file_okay=False), default=".", show_default=True, help="Folder the edits apply under."
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on; keep the default so only this machine can reach the page.",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=None,
    help="Port to listen on (default 8765, or a free port when it is busy; 0: any free port).",
)
@_format_option
@_match_option
@click.option("--open/--no-open", "open_browser", default=False, help="Open the page in a browser.")
@_no_delete_option
@_no_token_option
def serve(
    reply: str | None,
    root: str,
    host: str,
    port: int | None,
    fmt: str | None,
    match_level: str | None,
    open_browser: bool,
    no_delete: bool = False,
    no_token: bool = False,
) -> None:
    """Review edits in the browser: a local page to paste a reply into, see every block's status
    and diff, and apply, cancel or undo.

    REPLY (a file, or - for standard input, shown as it arrives) is opened on the page at once.
    The link printed holds a secret token that every request must carry (the page keeps it in a
    cookie), so that other programs on the machine cannot write through the page; set
    EDITBLOCKS_TOKEN to choose it, or --no-token to serve without one.
    Needs the web extra: pip install 'editblocks[web]'.
    """
    if not Path(root).is_dir():
        raise UsageError(f"root folder not found: {root}")
    check_match_level(match_level)
    _serve_review(
        root,
        reply,
        host,
        port,
        fmt,
        match_level,
        False,
        False,
        open_browser,
        allow_delete=not no_delete,
        token=not no_token,
    )


def _serve_review(
    root: str,
    reply: str | None,
    host: str | None,
    port: int | None,
    fmt: str | None,
    match_level: str | None,
    continue_after_failure: bool,
    git_add: bool,
    open_browser: bool | None,
    *,
    allow_delete: bool = True,
    token: bool = True,
    exit_on_done: bool = False,
) -> int | None:
    """Run the review page (``serve`` and ``apply --review``) until Ctrl-C, or until the page
    says Done (with ``exit_on_done``: then 0 when every block applied, else 1)."""
    from editblocks.web import missing_dependency

    problem = missing_dependency()
    if problem:
        raise UsageError(problem)
    from editblocks.pipeline.placer import ApplyOptions
    from editblocks.web.server import run_review

    stream = None
    text = None
    if reply == "-":
        if sys.stdin is None or sys.stdin.isatty():
            raise UsageError("no reply given: pipe the reply in, e.g. 'editblocks apply --review - < reply.md'")
        stream = sys.stdin.buffer
    elif reply is not None:
        text = _read_reply(reply)
    try:
        return run_review(
            root,
            reply_text=text,
            reply_stream=stream,
            host=host or "127.0.0.1",
            port=port,
            options=ApplyOptions(
                format=fmt,
                match=match_level,
                continue_after_failure=continue_after_failure,
                git_add=git_add,
                allow_delete=allow_delete,
            ),
            browser=open_browser,
            token=token,
            echo=lambda line: click.echo(line, err=False),
            exit_on_done=exit_on_done,
        )
    except OSError as exc:
        raise UsageError(
            f"cannot start the review page on {host or '127.0.0.1'}:{port}: {exc.strerror or exc}"
        ) from None


@main.command("mcp")
@click.option(
    "--root",
    type=click.Path(file_okay=False),
    default=".",
    show_default=True,
    help="Folder the tools read and edit; nothing outside it is reachable.",
)
@click.option(
    "--http",
    "http_port",
    type=click.IntRange(0, 65535),
    default=None,
    metavar="PORT",
    help="Serve the streamable HTTP transport on 127.0.0.1:PORT (0: any free port) instead of standard input and output.",
)
@click.option(
    "--no-token",
    "no_token",
    is_flag=True,
    help="With --http: accept requests without the bearer token (any program on this computer can then edit the files).",
)
def mcp_cmd(root: str, http_port: int | None, no_token: bool) -> None:
    """Run an MCP server so any agent can apply edits with editblocks: tools apply_edits,
    preview, edit, undo, read_file, formats (and context and summary with the ast extra), and
    each format's instructions as a prompt.

    Speaks over standard input and output, or with --http on http://127.0.0.1:PORT/mcp, where
    every request must send "Authorization: Bearer TOKEN" with the token printed on start
    ($EDITBLOCKS_TOKEN, or a new random one each run).
    Needs the mcp extra: pip install 'editblocks[mcp]'.
    """
    if not Path(root).is_dir():
        raise UsageError(f"root folder not found: {root}")
    from editblocks.mcp_server import ToolFailure, missing_dependency, run

    problem = missing_dependency()
    if problem:
        raise UsageError(problem)
    try:
        run(root, http_port=http_port, require_token=not no_token)
    except ToolFailure as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        where = "" if http_port is None else f" on 127.0.0.1:{http_port}"
        raise UsageError(f"cannot start the MCP server{where}: {exc.strerror or exc}") from None


@main.command()
@click.argument("files", nargs=-1)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(list(FORMATS)),
    default="diff",
    show_default=True,
    help="Edit format the prompt asks for.",
)
@click.option(
    "--root", type=click.Path(file_okay=False), default=".", show_default=True, help="Folder FILES are read under."
)
@click.option(
    "--read-only",
    "read_only",
    multiple=True,
    metavar="FILE",
    help="A file the model may read but not edit (repeatable).",
)
@click.option(
    "--messages", "as_messages", is_flag=True, help="Print the whole message list as JSON instead of the system prompt."
)
@click.option("--request", default="", help="The request that ends the messages; - reads it from standard input.")
def prompt(
    files: tuple[str, ...], fmt: str, root: str, read_only: tuple[str, ...], as_messages: bool, request: str
) -> None:
    """Print the system prompt for --format, or with --messages the chat messages for a request.

    FILES, relative to --root, are the files the model may edit: the messages carry their full
    contents, and the fence the prompt asks for is longer than any fence inside them.
    """
    from editblocks.prompts import build_messages

    if not Path(root).is_dir():
        raise UsageError(f"root folder not found: {root}")
    if as_messages and not request:
        raise UsageError(
            "--messages needs --request (the request that ends the messages; - reads it from standard input)"
        )

    def under_root(path: str) -> str:
        # An absolute path inside the root is accepted and shown relative to it.
        if not Path(path).is_absolute():
            return path
        try:
            return Path(path).resolve().relative_to(Path(root).resolve()).as_posix()
        except ValueError:
            raise UsageError(f"{path} is not inside the root folder {root}") from None

    if request == "-":
        request = sys.stdin.read()
    try:
        messages = build_messages(
            fmt,
            request,
            files=[under_root(f) for f in files],
            read_only=[under_root(f) for f in read_only],
            root=root,
        )
    except (WorkspaceError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    if as_messages:
        click.echo(json.dumps(messages, indent=2, ensure_ascii=False))
    else:
        click.echo(messages[0]["content"], nl=False)


@main.command("run")
@click.argument("request")
@click.argument("files", nargs=-1)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(list(FORMATS)),
    default="diff",
    show_default=True,
    help="Edit format the model is asked for (a reply in another format is read too, per block).",
)
@click.option("--model", default=None, help="Model name (default: $EDITBLOCKS_MODEL, else $OPENAI_MODEL).")
@click.option(
    "--base-url",
    default=None,
    help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (default: $OPENAI_BASE_URL, else OpenAI's).",
)
@click.option(
    "--api-key",
    default=None,
    help="API key (default: $OPENAI_API_KEY; prefer the variable, a command line is visible to other users).",
)
@click.option(
    "--max-retries",
    type=click.IntRange(min=0),
    default=3,
    show_default=True,
    help="How often failed blocks are sent back for corrections (not with --review).",
)
@click.option("--dry-run", is_flag=True, help="Show what would change; write nothing (not with --review).")
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=120,
    show_default=True,
    metavar="SECONDS",
    help="Give up on the endpoint when it sends nothing for this long (exit 3).",
)
@click.option(
    "--root",
    type=click.Path(file_okay=False),
    default=".",
    show_default=True,
    help="Folder FILES are read and edited under.",
)
@click.option(
    "--read-only",
    "read_only",
    multiple=True,
    metavar="FILE",
    help="A file the model may read but not edit (repeatable).",
)
@click.option(
    "--match",
    "match_level",
    type=click.Choice(["exact", "tolerant", "fuzzy", "ast"]),
    default=None,
    help="How tolerant locating edits is.",
)
@click.option(
    "--review",
    is_flag=True,
    help="Stream the reply into the review page and apply from there (nothing written here); needs editblocks[web].",
)
@click.option("--no-diff", is_flag=True, help="Do not print the diffs at the end.")
@click.option("--json", "as_json", is_flag=True, help="Print only the summary, as JSON.")
@_no_delete_option
@_review_port_option
@_no_token_option
@_color_option
def run_cmd(
    request: str,
    files: tuple[str, ...],
    fmt: str,
    model: str | None,
    base_url: str | None,
    api_key: str | None,
    max_retries: int,
    dry_run: bool,
    timeout: float,
    root: str,
    read_only: tuple[str, ...],
    match_level: str | None,
    review: bool,
    no_diff: bool,
    as_json: bool,
    no_delete: bool = False,
    port: int | None = None,
    no_token: bool = False,
) -> None:
    """Ask a model for REQUEST (- reads it from standard input) on FILES, apply its edit blocks
    as they arrive, and send failed blocks back for corrections.

    Talks to any OpenAI-compatible chat-completions endpoint; needs the run extra:
    pip install 'editblocks[run]'. Each reply is written when it has ended; Ctrl-C stops,
    writing nothing of the reply being received. A reply cut off at the model's output limit is
    continued, and written once complete. Shell commands the model suggests are listed, never
    run. Exit status: 0 when every block applied, 1 when blocks still failed (or the reply had
    none, or never completed), 2 for a usage error, 3 when the endpoint or its stream failed
    (or sent nothing for --timeout seconds), 130 after Ctrl-C.
    """
    from editblocks.cli.live import run_command

    check_match_level(match_level)
    _port_needs_review(port, review)
    if no_token and not review:
        raise UsageError("--no-token is for the review page: use it with --review")
    if review:
        # The page applies the blocks, once, when the person says so: no retries, no dry run here.
        _refuse_with_review("max_retries", "dry_run")
    sys.exit(
        run_command(
            request,
            files,
            root=root,
            fmt=fmt,
            model=model,
            base_url=base_url,
            api_key=api_key,
            max_retries=max_retries,
            dry_run=dry_run,
            read_only=read_only,
            match=match_level,
            review=review,
            no_diff=no_diff,
            as_json=as_json,
            allow_delete=not no_delete,
            port=port,
            timeout=timeout,
            token=not no_token,
        )
    )


@main.command()
@click.option("--keep", is_flag=True, help="Keep the demo folder and print its path.")
@_color_option
def demo(keep: bool) -> None:
    """Apply a sample reply to a copy of a small sample project, and show the result."""
    import shutil
    import tempfile
    from importlib import resources

    from editblocks.cli.terminal import print_apply_result
    from editblocks.pipeline.api import apply_edits

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
        from editblocks.cli.terminal import is_plain

        if is_plain(console):
            console.print(reply.rstrip("\n"), markup=False)
        else:
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


# Syntax-aware views of files for a model (better with the ast extra).
from editblocks.cli.syntax import context_cmd, summary_cmd  # noqa: E402

main.add_command(context_cmd)
main.add_command(summary_cmd)


if __name__ == "__main__":
    main()
