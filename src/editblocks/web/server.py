"""Running the review page: a uvicorn server on a socket bound here (127.0.0.1 by default)."""

from __future__ import annotations

import errno
import os
import secrets
import socket
import sys
import threading
import time
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import IO

import uvicorn

from editblocks.pipeline.placer import ApplyOptions
from editblocks.web.app import AppState, create_app

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
NO_BROWSER_ENV = "EDITBLOCKS_NO_BROWSER"
TOKEN_ENV = "EDITBLOCKS_TOKEN"
"""A token to use instead of a new random one for each run (e.g. for a bookmark)."""


def new_token() -> str:
    """The token for one run: ``$EDITBLOCKS_TOKEN`` when set, else a fresh random secret."""
    return os.environ.get(TOKEN_ENV) or secrets.token_urlsafe(32)


def _host_names(host: str, port: int) -> list[str]:
    names = {host}
    if host in ("127.0.0.1", "localhost", "::1", "0.0.0.0", "::"):
        names |= {"127.0.0.1", "localhost", "::1"}
    if host in ("0.0.0.0", "::"):  # every interface: also the machine's own names
        names |= {socket.gethostname(), socket.getfqdn()}
    names = {f"[{n}]" if ":" in n and not n.startswith("[") else n for n in names}
    return sorted(f"{n}:{port}" for n in names)


def bind_socket(host: str = DEFAULT_HOST, port: int = DEFAULT_PORT) -> socket.socket:
    """A listening socket on ``host:port``; port 0 takes any free port."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    if os.name != "nt":
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


class _Server(uvicorn.Server):
    """uvicorn's server, telling open event streams to end when it is asked to stop."""

    def __init__(self, config: uvicorn.Config, state: AppState) -> None:
        super().__init__(config)
        self._state = state

    def handle_exit(self, sig: int, frame: object) -> None:
        self._state.closing = True
        super().handle_exit(sig, frame)  # type: ignore[arg-type]


class ReviewServer:
    """The review page for the files under ``root``, served on ``host:port``.

    ``port=None`` tries :data:`DEFAULT_PORT` and takes any free port when it is busy; 0 always
    takes a free port. ``options``: how blocks are read and placed. Every request must carry
    the run's secret ``token`` (see :attr:`url`, which holds it), so that other programs and
    users on the machine cannot write through the page; ``token=False`` serves anyone who can
    reach the address.
    """

    def __init__(
        self,
        root: str | Path = ".",
        *,
        host: str = DEFAULT_HOST,
        port: int | None = None,
        options: ApplyOptions | None = None,
        token: str | bool = True,
        echo: Callable[[str], None] | None = None,
        exit_on_done: bool = False,
    ) -> None:
        self.token: str | None = new_token() if token is True else (token or None)
        if port is None:
            try:
                self.socket = bind_socket(host, DEFAULT_PORT)
            except OSError as exc:
                if exc.errno != errno.EADDRINUSE:
                    raise
                self.socket = bind_socket(host, 0)
        else:
            self.socket = bind_socket(host, port)
        self.host = host
        self.port = self.socket.getsockname()[1]
        self.app = create_app(
            root,
            options=options,
            allowed_hosts=_host_names(host, self.port),
            token=self.token,
            echo=echo,
            exit_on_done=exit_on_done,
        )
        self.state: AppState = self.app.state.editblocks
        self.state.on_done = self._done
        config = uvicorn.Config(
            self.app,
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=2,
            lifespan="off",
            # Idle connections are closed, and a flood of connections (half-sent requests
            # included) is answered 503 instead of held open without bound.
            timeout_keep_alive=5,
            limit_concurrency=64,
            h11_max_incomplete_event_size=64 * 1024,
        )
        self.server = _Server(config, self.state)
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """The page's address without the token."""
        shown = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{shown}:{self.port}/"

    @property
    def url(self) -> str:
        """The link to open: the page's address with the token, when the server has one."""
        return self.base_url if self.token is None else f"{self.base_url}?token={self.token}"

    def _done(self) -> None:
        """The page said Done: stop serving once the answer is sent."""
        self.state.closing = True
        self.server.should_exit = True

    def serve_forever(self) -> None:
        """Serve until Ctrl-C (in the calling thread)."""
        try:
            self.server.run(sockets=[self.socket])
        finally:
            self.state.closing = True
            self.socket.close()

    def start(self) -> ReviewServer:
        """Serve in a background thread; returns once the server accepts connections."""
        self._thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 15
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the review server did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self.state.closing = True
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        self.socket.close()

    def feed(self, chunk: str | bytes) -> None:
        """Show the next piece of a reply arriving live (e.g. from a model being streamed)."""
        self.state.live.feed(chunk)

    def finish(self) -> None:
        """The live reply is complete: its blocks can now be applied from the page."""
        self.state.live.finish()

    def feed_from(self, stream: IO[bytes], chunk_size: int = 65536) -> threading.Thread:
        """Read a reply from ``stream`` in a background thread into the live view, as it arrives."""
        live = self.state.live
        fd = stream.fileno() if hasattr(stream, "fileno") else None

        def pump() -> None:
            try:
                while True:
                    data = os.read(fd, chunk_size) if fd is not None else stream.read(chunk_size)
                    if not data:
                        break
                    live.feed(data)
                live.finish()
            except (OSError, ValueError) as exc:
                live.finish(error=f"reading the reply stopped: {exc}")

        thread = threading.Thread(target=pump, daemon=True)
        thread.start()
        return thread


def can_open_browser() -> bool:
    """Whether opening a browser is likely to show a page to the person (not a text browser)."""
    if os.environ.get(NO_BROWSER_ENV):
        return False
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def run_review(
    root: str | Path,
    *,
    reply_text: str | None = None,
    reply_stream: IO[bytes] | None = None,
    host: str = DEFAULT_HOST,
    port: int | None = None,
    options: ApplyOptions | None = None,
    browser: bool | None = None,
    token: str | bool = True,
    echo: Callable[[str], None] = print,
    exit_on_done: bool = False,
) -> int | None:
    """Serve the review page until Ctrl-C, showing ``reply_text``, or a reply read from
    ``reply_stream`` as it arrives. ``browser``: True opens one, None opens one when a desktop
    is there, False never does. ``options``: how blocks are read and placed (see
    :func:`~editblocks.web.app.create_app`). ``token``: as for :class:`ReviewServer`.

    What the page applies, undoes and cancels is told to ``echo``. ``exit_on_done``: the page
    has a Done button that stops the server; the answer is then 0 when every block of the
    reply was applied, else 1 (None: stopped by Ctrl-C)."""
    server = ReviewServer(
        root,
        host=host,
        port=port,
        options=options,
        token=token,
        echo=echo,
        exit_on_done=exit_on_done,
    )
    if reply_stream is not None:
        server.feed_from(reply_stream)
    elif reply_text is not None:
        server.feed(reply_text)
        server.finish()
    echo(f"editblocks: reviewing edits under {server.state.root}")
    echo(f"Open {server.url} in a browser. Nothing is written until you press Apply there.")
    if server.token is None:
        echo(
            "Warning: the page has no token (--no-token): any program or user on this machine can write files under the root through it."
        )
    if host not in ("127.0.0.1", "localhost", "::1"):
        echo(
            f"Warning: listening on {host}, not only on this machine; anyone who can reach it can write files under the root."
        )
    echo("Press Done on the page when finished, or Ctrl-C to stop." if exit_on_done else "Press Ctrl-C to stop.")
    if browser or (browser is None and can_open_browser()):
        try:
            webbrowser.open(server.url, new=2)
        except webbrowser.Error:
            pass
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return server.state.exit_status
