"""The MCP server: ``editblocks mcp``, so any agent can apply edits through editblocks.

Speaks the Model Context Protocol over standard input and output, or the streamable HTTP
transport on 127.0.0.1, with the official MCP Python SDK (the ``mcp`` extra,
``pip install 'editblocks[mcp]'``, imported on first use: without it the rest of editblocks
works as before, and :func:`missing_dependency` says how to install it).

Tools: ``apply_edits``, ``preview``, ``undo``, ``read_file`` and ``formats``, plus ``context``
and ``summary`` when the ``ast`` extra is installed. Each format's instructions are an MCP
prompt named after the format, and a resource ``editblocks://formats/<name>``.

Every tool works under one root folder fixed when the server starts, and every path goes
through :class:`~editblocks.workspace.Workspace`, so none leaves the root. A tool that cannot do
what was asked (a path outside the root, a missing or binary file, an empty reply, a reply
without edit blocks, an unknown format, ...) answers with a tool error whose message says why;
the server keeps running.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import sys
from collections.abc import Callable
from typing import Any

from .tools import MAX_READ_LINES, ToolFailure, syntax_available

MISSING_EXTRA = "the MCP server needs the mcp extra: pip install 'editblocks[mcp]' (the official MCP Python SDK, version 2)"
HTTP_HOST = "127.0.0.1"
HTTP_PATH = "/mcp"


def missing_dependency() -> str | None:
    """None when the mcp extra is installed, else the message saying how to install it."""
    try:
        spec = importlib.util.find_spec("mcp")
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        return f"{MISSING_EXTRA}; mcp is not installed"
    try:
        import mcp.server.mcpserver  # noqa: F401
    except ImportError:
        try:
            from importlib.metadata import version

            installed = f"mcp {version('mcp')} is installed"
        except Exception:
            installed = "an older mcp is installed"
        return f"{MISSING_EXTRA}; {installed}: pip install -U 'editblocks[mcp]'"
    return None


def create_server(root: str | os.PathLike[str]) -> Any:
    """The MCP server (an ``mcp.server.mcpserver.MCPServer``) whose tools work under ``root``.

    Raises :class:`ToolFailure` when ``root`` is not a folder, and ``ImportError`` without the
    mcp extra.
    """
    from .server import create_server as _create

    return _create(root)


def run(root: str | os.PathLike[str], *, http_port: int | None = None, echo: Callable[[str], None] | None = None) -> None:
    """Serve the MCP server for ``root``: over standard input and output until the client
    disconnects, or with ``http_port`` the streamable HTTP transport on 127.0.0.1 at that port
    (0: any free port) under ``/mcp`` until Ctrl-C; ``echo`` receives the line saying where
    (default: standard error).
    """
    server = create_server(root)
    if http_port is None:
        try:
            server.run("stdio")
        except KeyboardInterrupt:
            pass
        except BaseException as exc:
            if not _client_gone(exc):
                raise
            # The client closed its end: nothing more can be said to it.
            _silence_stdout()
        return
    import anyio

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((HTTP_HOST, http_port))
        port = sock.getsockname()[1]
        say = echo or (lambda line: print(line, file=sys.stderr, flush=True))
        say(f"editblocks MCP server for {os.path.abspath(root)} at http://{HTTP_HOST}:{port}{HTTP_PATH} (Ctrl-C stops it)")
        try:
            anyio.run(_serve_http, server, sock)
        except KeyboardInterrupt:
            pass
    finally:
        sock.close()


def _client_gone(exc: BaseException) -> bool:
    """True for a closed pipe to the client (possibly inside exception groups)."""
    if isinstance(exc, BaseExceptionGroup):
        return all(_client_gone(e) for e in exc.exceptions)
    return isinstance(exc, (BrokenPipeError, ConnectionResetError))


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


async def _serve_http(server: Any, sock: socket.socket) -> None:
    import uvicorn

    app = server.streamable_http_app(streamable_http_path=HTTP_PATH, host=HTTP_HOST)
    # As the review page: idle connections close, and a flood of connections is bounded.
    config = uvicorn.Config(app, log_level="warning", timeout_keep_alive=5, limit_concurrency=64, h11_max_incomplete_event_size=64 * 1024)
    await uvicorn.Server(config).serve(sockets=[sock])


__all__ = [
    "HTTP_HOST",
    "HTTP_PATH",
    "MAX_READ_LINES",
    "MISSING_EXTRA",
    "ToolFailure",
    "create_server",
    "missing_dependency",
    "run",
    "syntax_available",
]
