"""The command line's live parts: ``editblocks apply -`` applying a piped reply as it arrives, and
``editblocks run``. :mod:`editblocks.cli` declares the commands; the work is done here."""

from __future__ import annotations

import json
import os
import stat
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from editblocks.cli.progress import ProgressPrinter, RunDisplay, print_run_summary
from editblocks.cli.terminal import make_console, print_apply_result, print_warnings
from editblocks.errors import UsageError
from editblocks.files.workspace import TooLargeError, WorkspaceError
from editblocks.pipeline.stream import ApplyStream
from editblocks.reading.decode import ReplyDecodeError

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_ENDPOINT, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
READ_SIZE = 65536


def _usage_error(message: str) -> UsageError:
    return UsageError(message)


# -- editblocks apply - -----------------------------------------------------------------------------


def _stdin_reader() -> tuple[Callable[[], bytes], bool]:
    """A function returning the next bytes of standard input as soon as they arrive (b"" at
    its end), and whether standard input is a pipe or terminal rather than a regular file."""
    stream = sys.stdin
    if stream is None or stream.isatty():
        raise _usage_error("no reply given: pass a reply file, or pipe the reply into 'editblocks apply -'")
    binary = getattr(stream, "buffer", stream)
    try:
        fd = binary.fileno()
    except (AttributeError, OSError, ValueError):
        read1 = getattr(binary, "read1", None) or binary.read

        def read() -> bytes:
            data = read1(READ_SIZE)
            return data.encode("utf-8") if isinstance(data, str) else bytes(data)

        return read, False
    try:
        piped = not stat.S_ISREG(os.fstat(fd).st_mode)
    except OSError:
        piped = True
    return (lambda: os.read(fd, READ_SIZE)), piped


def apply_stdin(
    root: str,
    *,
    as_json: bool,
    no_diff: bool,
    max_reply_bytes: int,
    quiet: bool = False,
    commit: str | None = None,
    **options: Any,
) -> int:
    """Apply the reply on standard input, each block as soon as it is complete; returns the
    exit status. When the reply comes through a pipe, each block's status is printed as it is
    applied; the files are written when the reply has ended (nothing when it is cut short)."""
    read, piped = _stdin_reader()
    console = make_console()
    printer = ProgressPrinter(console) if piped and not as_json and not quiet else None
    seen_text = False
    received: list[bytes] = []
    try:
        with ApplyStream(root, max_reply_bytes=max_reply_bytes, **options) as stream:
            while True:
                data = read()
                if not data:
                    break
                if b"\x00" in data:
                    raise _usage_error("reply in standard input is binary data, not text")
                seen_text = seen_text or bool(data.strip())
                received.append(data)
                for event in stream.feed(data):
                    if printer is not None:
                        printer.event(event)
            for event in stream.close():
                if printer is not None:
                    printer.event(event)
            if printer is not None:
                printer.close()
            if not seen_text:
                raise _usage_error("reply in standard input is empty")
            if not stream.blocks:
                _no_blocks(stream, as_json, b"".join(received), options.get("format"))
            result = stream.write()
    except ReplyDecodeError as exc:
        raise _usage_error(f"{exc} (in standard input); nothing was written") from None
    except TooLargeError:
        raise _usage_error(
            f"reply is larger than {max_reply_bytes / (1024 * 1024):g} MB (the limit; see --max-reply-mb)"
        ) from None
    except WorkspaceError as exc:
        raise _usage_error(str(exc)) from None
    except KeyboardInterrupt:
        make_console(stderr=True).print("stopped (Ctrl-C) before the reply ended: nothing was written", markup=False)
        return EXIT_INTERRUPTED
    from editblocks.cli.common import finish_apply, reply_label

    text = b"".join(received[:4])[:4096].decode("utf-8", "replace")
    commit_error = finish_apply(root, result, reply_label("-", text), commit)
    if as_json:
        payload = result.to_dict()
        if result.dry_run or not no_diff:
            payload["diffs"] = result.diffs
        if commit_error:
            payload["commit_error"] = commit_error
        click.echo(json.dumps(payload, indent=2))
    else:
        if printer is not None:
            printer.changed_after_writing(result.results)
        print_apply_result(console, result, show_diffs=not no_diff, quiet=quiet)
    if commit_error:
        click.echo(f"error: {commit_error}", err=True)
    if stream.interrupted:
        return EXIT_INTERRUPTED
    return EXIT_OK if result.ok and not commit_error else EXIT_FAILED


def _no_blocks(stream: ApplyStream, as_json: bool, data: bytes, fmt: str | None) -> None:
    parsed = stream.parser.reply()
    if as_json:
        from editblocks.cli.common import no_blocks_json

        click.echo(no_blocks_json(parsed))
    err = make_console(stderr=True)
    print_warnings(err, parsed.warnings)
    from editblocks.cli.common import no_blocks_message
    from editblocks.reading.decode import decode_reply

    raise _usage_error(no_blocks_message(decode_reply(data), fmt))


# -- editblocks run -------------------------------------------------------------------------------


def _under_root(root: str, path: str) -> str:
    """``path`` relative to ``root``; an absolute path must lie inside it."""
    if not Path(path).is_absolute():
        return path
    try:
        return Path(path).resolve().relative_to(Path(root).resolve()).as_posix()
    except ValueError:
        raise _usage_error(f"{path} is not inside the root folder {root}") from None


def run_command(
    request: str,
    files: Sequence[str],
    *,
    root: str,
    fmt: str,
    model: str | None,
    base_url: str | None,
    api_key: str | None,
    max_retries: int,
    dry_run: bool,
    read_only: Sequence[str],
    match: str | None,
    review: bool,
    no_diff: bool,
    as_json: bool,
    allow_delete: bool = True,
    port: int | None = None,
    timeout: float | None = None,
    token: bool = True,
) -> int:
    """``editblocks run``: returns the exit status. ``allow_delete=False`` (``--no-delete``) fails
    the blocks that delete or move files, here and on the review page; ``port`` is the review
    page's (see :class:`~editblocks.web.server.ReviewServer`); ``timeout`` the seconds the
    endpoint may send nothing (default :data:`~editblocks.run.DEFAULT_TIMEOUT`); ``token=False``
    serves the review page without its secret token (``--no-token``)."""
    from editblocks.run import (
        DEFAULT_TIMEOUT,
        ReplyChunk,
        RoundFinished,
        RunError,
        make_client,
        resolve_model,
        run_request,
    )

    if not Path(root).is_dir():
        raise _usage_error(f"root folder not found: {root}")
    if request == "-":
        request = sys.stdin.read() if sys.stdin is not None else ""
    if not request.strip():
        raise _usage_error("the request is empty")
    try:
        client = make_client(api_key, base_url)
        model = resolve_model(model)
    except RunError as exc:
        raise _usage_error(str(exc)) from None

    server = None
    if review:
        from editblocks.web import missing_dependency

        problem = missing_dependency()
        if problem:
            raise _usage_error(problem)
        from editblocks.pipeline.placer import ApplyOptions
        from editblocks.web.server import ReviewServer

        options = ApplyOptions(format=fmt, match=match, allow_delete=allow_delete)
        try:
            server = ReviewServer(root, port=port, options=options, token=token).start()
        except (OSError, RuntimeError) as exc:
            raise _usage_error(f"cannot start the review page: {exc}") from None
        # Nothing is written here: the person applies the blocks from the page.
        dry_run, max_retries = True, 0

    console = make_console()
    if server is not None and not as_json:
        console.print(
            f"The reply is shown as it arrives at {server.url} ; nothing is written until you press Apply there."
        )
    display = None if as_json else RunDisplay(console, model=model, max_retries=max_retries, dry_run=dry_run)

    def on_event(event: object) -> None:
        if display is not None:
            display(event)
        if server is not None:
            if isinstance(event, ReplyChunk):
                server.feed(event.text)
            elif isinstance(event, RoundFinished):
                server.finish()

    try:
        summary = run_request(
            request,
            [_under_root(root, f) for f in files],
            root=root,
            format=fmt,
            model=model,
            client=client,
            max_retries=max_retries,
            dry_run=dry_run,
            read_only=[_under_root(root, f) for f in read_only],
            match=match,
            allow_delete=allow_delete,
            timeout=DEFAULT_TIMEOUT if timeout is None else timeout,
            on_event=on_event,
        )
    except (WorkspaceError, ValueError) as exc:
        if server is not None:
            server.stop()
        raise _usage_error(str(exc)) from None
    if display is not None and (summary.error is not None or summary.interrupted):
        display.interrupted()
    if as_json:
        click.echo(json.dumps(summary.to_dict(), indent=2))
    else:
        print_run_summary(
            console, summary, show_diffs=not no_diff, review_url=server.url if server is not None else None
        )
    if server is not None:
        server.finish()
        if not summary.interrupted and summary.error is None:
            # With --json, standard output holds the summary alone.
            (make_console(stderr=True) if as_json else console).print(
                f"Review and apply the blocks at {server.url} ; press Ctrl-C to stop."
            )
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                pass
        server.stop()
    if summary.interrupted:
        return EXIT_INTERRUPTED
    if summary.error is not None:
        return EXIT_ENDPOINT
    return EXIT_OK if summary.ok else EXIT_FAILED
