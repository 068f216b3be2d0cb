"""The MCP server: ``editblocks mcp``, so any agent can apply edits through editblocks.

Speaks the Model Context Protocol over standard input and output, or the streamable HTTP
transport on 127.0.0.1, with the official MCP Python SDK (the ``mcp`` extra,
``pip install 'editblocks[mcp]'``, imported on first use: without it the rest of editblocks
works as before, and :func:`missing_dependency` says how to install it).

Tools: ``apply_edits``, ``preview``, ``edit``, ``undo``, ``read_file`` and ``formats``, plus ``context``
and ``summary`` when the ``ast`` extra is installed. Each format's instructions are an MCP
prompt named after the format, and a resource ``editblocks://formats/<name>``.

Over HTTP, every request must carry ``Authorization: Bearer <token>``, the token printed when the
server starts (``EDITBLOCKS_TOKEN``, or a new random one each run); without it the answer is 401
and nothing runs. A request body may be as large as a reply may be (see :data:`MAX_BODY_BYTES`);
a larger one is answered with a JSON-RPC error saying so.

Every tool works under one root folder fixed when the server starts, and every path goes
through :class:`~editblocks.files.workspace.Workspace`, so none leaves the root. A tool that cannot do
what was asked (a path outside the root, a missing or binary file, an empty reply, a reply
without edit blocks, an unknown format, ...) answers with a tool error whose message says why;
the server keeps running.
"""

from __future__ import annotations

import hmac
import importlib.util
import json
import os
import secrets
import socket
import sys
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from editblocks.files.workspace import DEFAULT_MAX_REPLY_BYTES
from editblocks.mcp_server.tools import MAX_READ_LINES, ToolFailure, syntax_available

MISSING_EXTRA = (
    "the MCP server needs the mcp extra: pip install 'editblocks[mcp]' (the official MCP Python SDK, version 2)"
)
HTTP_HOST = "127.0.0.1"
HTTP_PATH = "/mcp"
TOKEN_ENV = "EDITBLOCKS_TOKEN"
"""A fixed bearer token for the HTTP transport; without it each run makes a new one."""
MAX_BODY_BYTES = DEFAULT_MAX_REPLY_BYTES + DEFAULT_MAX_REPLY_BYTES // 4 + 1024 * 1024
"""Largest HTTP request body: a reply at the reply limit, with room for its JSON escapes and the
rest of the request (the SDK's own limit is 4 MiB)."""

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


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
    from editblocks.mcp_server.server import create_server as _create

    return _create(root)


def http_token() -> str:
    """The bearer token for the HTTP transport: ``EDITBLOCKS_TOKEN`` when set, else a new random one."""
    return os.environ.get(TOKEN_ENV, "").strip() or secrets.token_urlsafe(32)


def run(
    root: str | os.PathLike[str],
    *,
    http_port: int | None = None,
    echo: Callable[[str], None] | None = None,
    require_token: bool = True,
) -> None:
    """Serve the MCP server for ``root``: over standard input and output until the client
    disconnects, or with ``http_port`` the streamable HTTP transport on 127.0.0.1 at that port
    (0: any free port) under ``/mcp`` until Ctrl-C; ``echo`` receives the lines saying where and
    with which token (default: standard error). Over HTTP every request must carry the token
    (:func:`http_token`) unless ``require_token`` is false.
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

    token = http_token() if require_token else None
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((HTTP_HOST, http_port))
        # Listening before the URL is printed: a client may connect as soon as it reads it.
        sock.listen(128)
        port = sock.getsockname()[1]
        say = echo or (lambda line: print(line, file=sys.stderr, flush=True))
        say(
            f"editblocks MCP server for {os.path.abspath(root)} at http://{HTTP_HOST}:{port}{HTTP_PATH} (Ctrl-C stops it)"
        )
        if token is None:
            say(
                "warning: --no-token: any program on this computer can edit the files under the root through this server"
            )
        else:
            say(f"Clients must send the header: Authorization: Bearer {token}")
        try:
            anyio.run(_serve_http, server, sock, token)
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


async def _serve_http(server: Any, sock: socket.socket, token: str | None) -> None:
    import uvicorn

    app = server.streamable_http_app(
        streamable_http_path=HTTP_PATH, host=HTTP_HOST, max_request_body_size=MAX_BODY_BYTES
    )
    # As the review page: idle connections close, and a flood of connections is bounded.
    config = uvicorn.Config(
        http_guard(app, token),
        log_level="warning",
        timeout_keep_alive=5,
        limit_concurrency=64,
        h11_max_incomplete_event_size=64 * 1024,
    )
    await uvicorn.Server(config).serve(sockets=[sock])


def http_guard(app: ASGIApp, token: str | None, max_body: int = MAX_BODY_BYTES) -> ASGIApp:
    """``app`` behind the HTTP checks: a request without ``Authorization: Bearer <token>`` (when
    ``token`` is set) is answered 401 before its body is read, and one whose body is over
    ``max_body`` bytes 413; both with a JSON-RPC error a client shows as it is."""

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        if token is not None and not _authorized(scope, token):
            denied = (
                "unauthorized: this server needs the header 'Authorization: Bearer <token>' with the token "
                "it printed when it started"
            )
            await _refuse(send, 401, denied, [(b"www-authenticate", b'Bearer realm="editblocks"')])
            return
        too_large = (
            f"the request is too large: the limit is {max_body / (1024 * 1024):.1f} MB (a reply may be at most "
            f"{DEFAULT_MAX_REPLY_BYTES / (1024 * 1024):.1f} MB); send the edits in several smaller calls"
        )
        declared = _header(scope, b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > max_body:
            await _refuse(send, 413, too_large)
            return
        # Counted while it arrives (a chunked body has no length), then handed on whole.
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":
                await app(scope, _replay([message], receive), send)
                return
            body += message.get("body", b"")
            if len(body) > max_body:
                await _refuse(send, 413, too_large)
                return
            if not message.get("more_body", False):
                break
        await app(scope, _replay([{"type": "http.request", "body": bytes(body), "more_body": False}], receive), send)

    return guarded


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return str(value.decode("latin-1"))
    return None


def _authorized(scope: Scope, token: str) -> bool:
    scheme, _, given = (_header(scope, b"authorization") or "").strip().partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode())


def _replay(messages: list[Message], receive: Receive) -> Receive:
    async def replay() -> Message:
        return messages.pop(0) if messages else await receive()

    return replay


async def _refuse(send: Send, status: int, message: str, headers: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


__all__ = [
    "HTTP_HOST",
    "HTTP_PATH",
    "MAX_BODY_BYTES",
    "MAX_READ_LINES",
    "MISSING_EXTRA",
    "TOKEN_ENV",
    "ToolFailure",
    "create_server",
    "http_guard",
    "http_token",
    "missing_dependency",
    "run",
    "syntax_available",
]
