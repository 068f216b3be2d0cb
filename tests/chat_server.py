"""A small OpenAI-compatible chat-completions server on 127.0.0.1 that replays scripted replies.

It speaks the streaming protocol the ``openai`` client expects: ``POST /v1/chat/completions``
with ``"stream": true`` answers ``text/event-stream`` (HTTP/1.1, chunked), one
``data: {...}`` event per piece of the reply with the text in ``choices[0].delta.content``,
then the usage event when ``stream_options.include_usage`` was asked, then ``data: [DONE]``.
Every request body is recorded.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Scripted:
    """One reply: its text in pieces (sent as they are, ``delay`` seconds apart).

    ``status`` other than 200 answers that HTTP error with an OpenAI-style error body, for this
    request and every later one. ``error_after`` sends an error event after that many pieces
    instead of the rest. ``usage`` False leaves out the usage event.

    ``once`` answers a ``status`` other than 200 for this request only (with ``headers``, e.g.
    ``retry-after-ms``). After that many pieces: ``cut_after`` closes the connection in the middle
    of the chunked body, ``malformed_after`` sends an event that is not JSON, ``stall_after``
    sends nothing for ``stall`` seconds before going on. ``wait`` seconds pass before the answer
    starts (before its headers). ``finish_reason`` ends the reply.
    """

    pieces: Sequence[str] = ()
    delay: float = 0.0
    status: int = 200
    error_after: int | None = None
    usage: bool = True
    prompt_tokens: int = 100
    completion_tokens: int = 20
    once: bool = False
    headers: dict[str, str] = field(default_factory=dict)
    cut_after: int | None = None
    malformed_after: int | None = None
    mistyped_after: int | None = None
    """After that many pieces, an event that is JSON but whose content is a number, not text."""
    stall_after: int | None = None
    stall: float = 0.0
    finish_reason: str = "stop"
    wait: float = 0.0


@dataclass
class ChatServer:
    replies: list[Scripted] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    httpd: ThreadingHTTPServer | None = None
    thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        assert self.httpd is not None
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def script(self, *replies: Scripted | str) -> None:
        """The replies to give, in order, to the next requests (a str is one piece)."""
        self.replies = [Scripted([r]) if isinstance(r, str) else r for r in replies]
        self.requests.clear()
        self.headers.clear()

    def _next(self) -> Scripted:
        if not self.replies:
            return Scripted(status=500)
        reply = self.replies[0]
        if reply.status == 200 or reply.once:
            self.replies.pop(0)
        return reply

    def start(self) -> ChatServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                server.requests.append(body)
                server.headers.append({k.lower(): v for k, v in self.headers.items()})
                if self.path.rstrip("/") != "/v1/chat/completions":
                    return self._error(404, f"no route {self.path}")
                reply = server._next()
                if reply.wait:
                    time.sleep(reply.wait)
                if reply.status != 200:
                    return self._error(reply.status, "the scripted server failed on purpose", reply.headers)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.send_header("Connection", "close")
                self.end_headers()
                model = body.get("model", "scripted")
                created = int(time.time())

                def event(payload: Any) -> None:
                    data = f"data: {payload if isinstance(payload, str) else json.dumps(payload)}\n\n".encode()
                    self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                    self.wfile.flush()

                def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
                    return {
                        "id": "chatcmpl-scripted",
                        "object": "chat.completion.chunk",
                        "created": created,
                        "model": model,
                        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                    }

                try:
                    event(chunk({"role": "assistant", "content": ""}))
                    for i, piece in enumerate(reply.pieces):
                        if reply.error_after is not None and i >= reply.error_after:
                            event(
                                {
                                    "error": {
                                        "message": "the scripted server broke off the reply",
                                        "type": "server_error",
                                    }
                                }
                            )
                            break
                        if reply.cut_after is not None and i >= reply.cut_after:
                            self.connection.shutdown(socket.SHUT_RDWR)
                            self.close_connection = True
                            return
                        if reply.malformed_after is not None and i >= reply.malformed_after:
                            event('{"id": "chatcmpl-scripted", "choices": [{"index": 0, "delta": {"content": "x"')
                            break
                        if reply.mistyped_after is not None and i >= reply.mistyped_after:
                            event(chunk({"content": 5}))
                            break
                        if reply.stall_after is not None and i == reply.stall_after:
                            time.sleep(reply.stall)
                        if reply.delay and i:
                            time.sleep(reply.delay)
                        event(chunk({"content": piece}))
                    else:
                        event(chunk({}, reply.finish_reason))
                        if reply.usage and (body.get("stream_options") or {}).get("include_usage"):
                            event(
                                {
                                    "id": "chatcmpl-scripted",
                                    "object": "chat.completion.chunk",
                                    "created": created,
                                    "model": model,
                                    "choices": [],
                                    "usage": {
                                        "prompt_tokens": reply.prompt_tokens,
                                        "completion_tokens": reply.completion_tokens,
                                        "total_tokens": reply.prompt_tokens + reply.completion_tokens,
                                    },
                                }
                            )
                    event("[DONE]")
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError, OSError):
                    pass  # the client went away (e.g. stopped by Ctrl-C, or timed out)

            def _error(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
                data = json.dumps({"error": {"message": message, "type": "server_error", "code": None}}).encode()
                self.send_response(status)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        if self.httpd is not None:
            self.httpd.shutdown()
            self.httpd.server_close()
        if self.thread is not None:
            self.thread.join(timeout=5)
