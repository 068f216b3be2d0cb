"""The review page's web application: the page, a JSON API, and a Server-Sent Events stream.

API (all JSON; every ``POST`` needs ``Content-Type: application/json`` and is refused when it
comes from another origin). When the server has a token, every request carries it: as
``?token=`` (the page's link; the page then keeps it in a cookie), the cookie, or an
``Authorization: Bearer`` header; without it the answer is 401 and nothing runs.

``GET  /api/state``                          root, options, the live reply, undo availability
``POST /api/reviews``                        ``{reply, format?, match?}``: a dry-run review of a reply
``GET  /api/reviews/{id}?page=N``            the review again (re-checked against the files now), page ``N`` of its blocks
``POST /api/reviews/{id}/apply``             ``{all: true}`` | ``{file: path}`` | ``{blocks: [i, ...]}``
``POST /api/reviews/{id}/blocks/{i}``        ``{text}``: edit block ``i`` by hand (null: back to the reply's)
``POST /api/reviews/{id}/blocks/{i}/choose`` ``{line, digest?}``: apply ambiguous block ``i`` at the candidate place at ``line``
``POST /api/reviews/{id}/cancel``            forget the review; nothing is written
``GET  /api/reviews/{id}/file?path=P``       file ``P``'s diff (pending, applied, or its text)
``GET  /api/reviews/{id}/feedback?block=I``  the message for the model as the files are now (block ``I``'s alone)
``POST /api/undo``                           ``{review?}``: undo the last apply (the undo journal)
``POST /api/done``                           ``{review?}``: the person is done (``apply --review`` exits: 0 when all applied)
``POST /api/live``                           ``{chunk?, done?, reset?, format?}``: push a reply as it arrives
``GET  /api/live/events``                    Server-Sent Events: the live reply and its review
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from http.cookies import SimpleCookie
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from editblocks import __version__
from editblocks.files.workspace import DEFAULT_MAX_REPLY_BYTES, PathError, Workspace, WorkspaceError, check_reply_size
from editblocks.formats import FORMATS
from editblocks.matching import LEVELS
from editblocks.pipeline.placer import ApplyOptions
from editblocks.web.highlight import pygments_css
from editblocks.web.live import LiveReply
from editblocks.web.recording import UndoUnavailable, undo_last, undo_status
from editblocks.web.review import Review, ReviewError

MAX_REVIEWS = 20
MAX_BODY_BYTES = DEFAULT_MAX_REPLY_BYTES + 1024 * 1024
BODY_IDLE_SECONDS = 30.0
"""A request body that sends nothing for this long is given up."""
LIVE_ID = "live"
KEEPALIVE_SECONDS = 15.0

_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


class AppState:
    """What the server knows: the root, the options, the reviews and the live reply."""

    def __init__(
        self,
        root: str | Path,
        *,
        options: ApplyOptions | None = None,
        allowed_hosts: list[str] | None = None,
        token: str | None = None,
        echo: Callable[[str], None] | None = None,
        exit_on_done: bool = False,
    ) -> None:
        self.root = Workspace(root).root
        self.echo = echo
        self.exit_on_done = exit_on_done
        self.on_done: Callable[[], None] | None = None
        self.exit_status: int | None = None
        self.token = token or None
        self.options = options or ApplyOptions()
        self.allowed_hosts = {h.lower() for h in (allowed_hosts or ["127.0.0.1", "localhost"])}
        self.reviews: OrderedDict[str, Review] = OrderedDict()
        self.live = LiveReply(self.options.format)
        self.closing = False
        self._lock = threading.RLock()
        self._live_cache: tuple[tuple[Any, ...], dict[str, Any] | None] | None = None

    def report(self, message: str) -> None:
        """Tell the terminal that started the server what the page did (``apply --review``)."""
        if self.echo is not None:
            try:
                self.echo(message)
            except Exception:  # a closed terminal must not break the page
                pass

    # -- reviews -----------------------------------------------------------------------------

    def new_review(self, reply: str, format: str | None, match: str | None) -> Review:
        review = Review(self.root, reply, options=replace(self.options, format=format, match=match))
        with self._lock:
            self.reviews[review.id] = review
            while len(self.reviews) > MAX_REVIEWS:
                self.reviews.popitem(last=False)
        return review

    def review(self, review_id: str) -> Review:
        if review_id == LIVE_ID:
            self.live_view()  # brings the live review up to date with the reply
        with self._lock:
            found = self.reviews.get(review_id)
        if found is None:
            raise ReviewError("no such review (it was cancelled, or the server restarted); paste the reply again", 404)
        return found

    def cancel(self, review_id: str) -> None:
        with self._lock:
            if self.reviews.pop(review_id, None) is None:
                raise ReviewError("no such review", 404)
        if review_id == LIVE_ID:
            self.reset_live()

    # -- the live reply ------------------------------------------------------------------------

    def reset_live(self, format: str | None = None) -> LiveReply:
        """Start receiving a new reply; pages watching the old one switch to it."""
        with self._lock:
            old = self.live
            self.live = LiveReply(format or self.options.format)
            self.reviews.pop(LIVE_ID, None)
            self._live_cache = None
        old.wake()
        return self.live

    def live_view(self) -> dict[str, Any]:
        """The live reply and its review, as the page's SSE stream sends it."""
        with self._lock:
            live = self.live
            snap = live.snapshot()
            review = self.reviews.get(LIVE_ID)
            if snap.active and review is None:
                review = Review(self.root, options=self.options, review_id=LIVE_ID, parse=False)
                self.reviews[LIVE_ID] = review
            if review is not None and (
                len(review.slots) != len(snap.blocks) or review.done != snap.done or review.reply != snap.text
            ):
                review.sync(snap.text, snap.blocks, snap.warnings, snap.shell_suggestions, snap.format, done=snap.done)
            key = (snap.session, len(snap.blocks), snap.done, review.revision if review else None)
            if self._live_cache is not None and self._live_cache[0] == key:
                view = self._live_cache[1]
            else:
                view = review.view() if review is not None else None
                self._live_cache = (key, view)
        return {
            "session": snap.session,
            "version": snap.version,
            "active": snap.active,
            "done": snap.done,
            "size": snap.size,
            "error": snap.error,
            "in_progress": snap.in_progress,
            "review": view,
        }


# -- security --------------------------------------------------------------------------------


class GuardMiddleware:
    """Refuses requests for another host name (DNS rebinding) and writes from other origins (CSRF);
    adds security headers to every response."""

    SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

    def __init__(self, app: ASGIApp, state: AppState) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        problem = self.check(scope["method"], headers)
        if problem is None and self.state.token is not None:
            denied = self._authenticate(scope, headers)
            if denied is not None:
                await denied(scope, receive, self._with_headers(send))
                return
        if problem is not None:
            response = JSONResponse({"error": problem}, status_code=403)
            await response(scope, receive, self._with_headers(send))
            return
        await self.app(scope, receive, self._with_headers(send))

    def _authenticate(self, scope: Scope, headers: dict[str, str]) -> Response | None:
        """None when the request carries the server's token; else the answer to send instead.

        The page's link holds the token as ``?token=``: it is then kept in a cookie (HttpOnly,
        SameSite=Strict) and the browser is sent on to the same address without it."""
        token = self.state.token
        assert token is not None
        cookie_name = token_cookie_name(token)
        given: list[str] = []
        authorization = headers.get("authorization", "")
        if authorization[:7].lower() == "bearer ":
            given.append(authorization[7:].strip())
        if "cookie" in headers:
            jar: SimpleCookie = SimpleCookie()
            try:
                jar.load(headers["cookie"])
            except Exception:  # a malformed cookie header is no token
                pass
            if cookie_name in jar:
                given.append(jar[cookie_name].value)
        query = _query_token(scope.get("query_string", b""))
        if any(hmac.compare_digest(g.encode(), token.encode()) for g in given):
            return None
        if query is not None and hmac.compare_digest(query.encode(), token.encode()):
            if scope["method"] == "GET" and scope["path"] == "/":
                response: Response = RedirectResponse("/", status_code=303)
                response.set_cookie(cookie_name, token, httponly=True, samesite="strict", path="/")
                return response
            return None
        if scope["method"] == "GET" and scope["path"] == "/":
            return HTMLResponse(_NEEDS_TOKEN_PAGE, status_code=401)
        return JSONResponse(
            {"error": "this server needs its token: open the link printed where editblocks was started"},
            status_code=401,
            headers={"WWW-Authenticate": "Bearer"},
        )

    def check(self, method: str, headers: dict[str, str]) -> str | None:
        host = headers.get("host", "").lower()
        if not self._host_allowed(host):
            return (
                f"this server answers only for {', '.join(sorted(self.state.allowed_hosts))}, not {host or 'no host'}"
            )
        if method in self.SAFE_METHODS:
            return None
        origin = headers.get("origin")
        if origin is not None:
            if origin.lower() != f"http://{host}":
                return f"request from another origin ({origin}) refused"
        else:
            site = headers.get("sec-fetch-site")
            if site not in (None, "same-origin", "none"):
                return f"request from another site ({site}) refused"
        content_type = headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if content_type != "application/json":
            return "write requests must be JSON (Content-Type: application/json)"
        return None

    def _host_allowed(self, host: str) -> bool:
        return host in self.state.allowed_hosts

    @staticmethod
    def _with_headers(send: Send) -> Send:
        async def wrapped(message: Message) -> None:
            if message["type"] == "http.response.start":
                extra = [
                    (b"content-security-policy", _CSP.encode()),
                    (b"x-content-type-options", b"nosniff"),
                    (b"x-frame-options", b"DENY"),
                    (b"referrer-policy", b"no-referrer"),
                    (b"cache-control", b"no-store"),
                ]
                message = dict(message)
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        return wrapped


def token_cookie_name(token: str) -> str:
    """The cookie that keeps ``token`` for the page: one name per token, so two servers on one
    machine (cookies ignore the port) do not overwrite each other's."""
    return "editblocks_token_" + hashlib.sha256(token.encode()).hexdigest()[:12]


def _query_token(query_string: bytes) -> str | None:
    values = parse_qs(query_string.decode("latin-1")).get("token")
    return values[-1] if values else None


_NEEDS_TOKEN_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>editblocks</title></head>
<body><h1>This review page needs its link</h1>
<p>Open the link that editblocks printed in the terminal where it was started: it ends with
<code>?token=</code> and a secret, so that no other program on this machine can write files through
this page.</p></body></html>
"""


# -- handlers --------------------------------------------------------------------------------


def _state(request: Request) -> AppState:
    return request.app.state.editblocks  # type: ignore[no-any-return]


async def _json_body(request: Request) -> dict[str, Any]:
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > MAX_BODY_BYTES:
        raise ReviewError("request too large", 413)
    # Counted while it arrives (a chunked body has no length): reading stops at the limit, and a
    # body that stops arriving is given up after BODY_IDLE_SECONDS.
    parts: list[bytes] = []
    size = 0
    stream = request.stream().__aiter__()
    while True:
        try:
            chunk = await asyncio.wait_for(stream.__anext__(), BODY_IDLE_SECONDS)
        except StopAsyncIteration:
            break
        except TimeoutError:
            raise ReviewError("the request body stopped arriving", 408) from None
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise ReviewError("request too large", 413)
        parts.append(chunk)
    body = b"".join(parts)
    if not body:
        return {}
    try:
        data = json.loads(body)
    except ValueError:
        raise ReviewError("request body is not valid JSON") from None
    if not isinstance(data, dict):
        raise ReviewError("request body must be a JSON object")
    return data


def _option(data: dict[str, Any], name: str, allowed: Any) -> str | None:
    value = data.get(name)
    if value in (None, ""):
        return None
    if not isinstance(value, str) or value not in allowed:
        raise ReviewError(f"unknown {name}: {value!r}")
    return value


async def index(request: Request) -> Response:
    page = (resources.files("editblocks.web") / "static" / "index.html").read_text(encoding="utf-8")
    return Response(page, media_type="text/html; charset=utf-8")


async def pygments_stylesheet(request: Request) -> Response:
    return Response(pygments_css(), media_type="text/css; charset=utf-8")


async def get_state(request: Request) -> Response:
    state = _state(request)
    live = state.live
    return JSONResponse(
        {
            "version": __version__,
            "root": str(state.root),
            "format": state.options.format,
            "match": state.options.match,
            "allow_delete": state.options.allow_delete,
            "formats": list(FORMATS),
            "match_levels": list(LEVELS),
            "live": {"active": live.active, "done": live.done, "session": live.session},
            "exit_on_done": state.exit_on_done,
            "undo": await run_in_threadpool(undo_status, state.root),
        }
    )


async def create_review(request: Request) -> Response:
    state = _state(request)
    data = await _json_body(request)
    reply = data.get("reply")
    if not isinstance(reply, str) or not reply.strip():
        raise ReviewError("the reply is empty: paste a model's reply")
    check_reply_size(reply)
    fmt = _option(data, "format", FORMATS)
    match = _option(data, "match", LEVELS) or state.options.match
    review = await run_in_threadpool(state.new_review, reply, fmt or state.options.format, match)
    view = await run_in_threadpool(review.view)
    return JSONResponse(view, status_code=201)


async def get_review(request: Request) -> Response:
    review = await run_in_threadpool(_state(request).review, request.path_params["review_id"])
    page = request.query_params.get("page")
    if page is not None and not page.isdigit():
        raise ReviewError("page must be a page number (0-based)")
    return JSONResponse(await run_in_threadpool(review.view, int(page) if page is not None else None))


async def apply_review(request: Request) -> Response:
    state = _state(request)
    data = await _json_body(request)
    review = await run_in_threadpool(state.review, request.path_params["review_id"])
    blocks = data.get("blocks")
    if blocks is not None and (not isinstance(blocks, list) or not all(isinstance(i, int) for i in blocks)):
        raise ReviewError("blocks must be a list of block numbers (0-based)")
    file = data.get("file")
    if file is not None and not isinstance(file, str):
        raise ReviewError("file must be a path")
    result = await run_in_threadpool(lambda: review.apply(all=data.get("all") is True, file=file, blocks=blocks))
    _report_apply(state, result)
    return JSONResponse(result)


def _report_apply(state: AppState, result: dict[str, Any]) -> None:
    applied = result["applied"]
    if applied["blocks"]:
        numbers = ", ".join(str(i + 1) for i in applied["blocks"])
        state.report(
            f"Applied block{'s' if len(applied['blocks']) != 1 else ''} {numbers}: wrote {', '.join(applied['files']) or 'no file'}"
            + (f" (undo: editblocks undo, entry {applied['entry']})" if applied["entry"] is not None else "")
        )
    else:
        state.report(f"Apply wrote nothing: {applied['counts']['failed']} block(s) failed")


async def edit_block(request: Request) -> Response:
    state = _state(request)
    data = await _json_body(request)
    review = await run_in_threadpool(state.review, request.path_params["review_id"])
    text = data.get("text")
    if text is not None and not isinstance(text, str):
        raise ReviewError("text must be a string or null")
    if text is not None:
        check_reply_size(text)
    index_ = request.path_params["index"]
    await run_in_threadpool(review.set_text, index_, text)
    return JSONResponse(await run_in_threadpool(review.view))


async def choose_place(request: Request) -> Response:
    state = _state(request)
    data = await _json_body(request)
    review = await run_in_threadpool(state.review, request.path_params["review_id"])
    line = data.get("line")
    if not isinstance(line, int) or isinstance(line, bool) or line < 1:
        raise ReviewError("line must be the first line (1-based) of one of the block's places")
    digest = data.get("digest")
    if digest is not None and not isinstance(digest, str):
        raise ReviewError("digest must be the text the page was given")
    index_ = request.path_params["index"]
    result = await run_in_threadpool(review.choose, index_, line, digest)
    _report_apply(state, result)
    return JSONResponse(result)


async def cancel_review(request: Request) -> Response:
    state = _state(request)
    await _json_body(request)
    review_id = request.path_params["review_id"]
    with state._lock:
        review = state.reviews.get(review_id)
    written = review is not None and any(not b.undone for b in review._batches)
    await run_in_threadpool(state.cancel, review_id)
    state.report(
        "Closed the review; the edits applied stay (editblocks undo puts them back)"
        if written
        else "Cancelled the review: nothing was written"
    )
    return JSONResponse({"cancelled": True})


async def done(request: Request) -> Response:
    """The person is done with the page: ``apply --review`` reports and exits (0: every block applied)."""
    state = _state(request)
    data = await _json_body(request)
    if not state.exit_on_done:
        raise ReviewError("this server keeps running (editblocks serve); stop it with Ctrl-C", 409)
    status = 1
    review_id = data.get("review")
    summary = "no reply was reviewed"
    if isinstance(review_id, str):
        try:
            review = await run_in_threadpool(state.review, review_id)
            view = await run_in_threadpool(review.view)
            counts = view["summary"]["counts"]
            total = view["summary"]["total"]
            finished = counts["applied"] + counts["already_applied"]
            status = 0 if total and finished == total else 1
            summary = f"{counts['applied']} of {total} block{'s' if total != 1 else ''} applied"
            if counts["already_applied"]:
                summary += f", {counts['already_applied']} already applied"
        except ReviewError:
            summary = "the review was closed"
    state.exit_status = status
    state.report(f"Done on the page: {summary}; exiting with status {status}")
    if state.on_done is not None:
        state.on_done()
    return JSONResponse({"done": True, "exit_status": status})


async def file_view(request: Request) -> Response:
    review = await run_in_threadpool(_state(request).review, request.path_params["review_id"])
    path = request.query_params.get("path", "")
    return JSONResponse(await run_in_threadpool(review.file_view, path))


async def feedback(request: Request) -> Response:
    review = await run_in_threadpool(_state(request).review, request.path_params["review_id"])
    block = request.query_params.get("block")
    if block is not None and not block.isdigit():
        raise ReviewError("block must be a block number (0-based)")
    index_ = int(block) if block is not None else None
    return JSONResponse({"feedback": await run_in_threadpool(review.feedback, index_)})


async def undo(request: Request) -> Response:
    state = _state(request)
    data = await _json_body(request)
    try:
        done = await run_in_threadpool(undo_last, state.root)
    except UndoUnavailable as exc:
        raise ReviewError(str(exc), 409) from None
    with state._lock:
        reviews = list(state.reviews.values())
    for review in reviews:
        review.undone(done.entry)
    parts = [
        f"restored {', '.join(done.restored)}" if done.restored else "",
        f"deleted {', '.join(done.deleted)}" if done.deleted else "",
    ]
    state.report(f"Undid apply #{done.entry}: {'; '.join(p for p in parts if p) or 'nothing to put back'}")
    payload: dict[str, Any] = {"undone": done.to_dict()}
    review_id = data.get("review")
    if isinstance(review_id, str):
        try:
            review = state.review(review_id)
            payload["view"] = await run_in_threadpool(review.view)
        except ReviewError:
            pass
    return JSONResponse(payload)


async def push_live(request: Request) -> Response:
    state = _state(request)
    data = await _json_body(request)
    if data.get("reset"):
        fmt = _option(data, "format", FORMATS)
        state.reset_live(fmt)
    chunk = data.get("chunk")
    if chunk is not None:
        if not isinstance(chunk, str):
            raise ReviewError("chunk must be text")
        try:
            state.live.feed(chunk)
        except ValueError as exc:
            raise ReviewError(f"{exc}; send reset first to start a new reply", 409) from None
    if data.get("done"):
        state.live.finish()
    live = state.live
    return JSONResponse({"session": live.session, "version": live.version, "done": live.done})


async def live_events(request: Request) -> Response:
    state = _state(request)
    loop = asyncio.get_running_loop()
    wake = asyncio.Event()

    def changed() -> None:
        loop.call_soon_threadsafe(wake.set)

    live = state.live
    token = live.subscribe(changed)

    async def stream() -> AsyncIterator[str]:
        nonlocal live, token
        last: tuple[Any, ...] | None = None
        try:
            while not state.closing:
                if state.live is not live:
                    live.unsubscribe(token)
                    live = state.live
                    token = live.subscribe(changed)
                wake.clear()
                payload = await run_in_threadpool(state.live_view)
                key = (
                    payload["session"],
                    payload["version"],
                    payload["review"]["revision"] if payload["review"] else -1,
                )
                if key != last:
                    last = key
                    yield f"event: live\ndata: {json.dumps(payload)}\n\n"
                try:
                    await asyncio.wait_for(wake.wait(), timeout=KEEPALIVE_SECONDS)
                    await asyncio.sleep(0.05)  # gather a burst of chunks into one update
                except TimeoutError:
                    yield ": keep-alive\n\n"
        finally:
            live.unsubscribe(token)

    return StreamingResponse(stream(), media_type="text/event-stream", headers={"X-Accel-Buffering": "no"})


async def _review_error(request: Request, exc: Exception) -> Response:
    if isinstance(exc, ReviewError):
        return JSONResponse({"error": exc.message}, status_code=exc.status)
    if isinstance(exc, PathError):
        return JSONResponse({"error": str(exc)}, status_code=403)
    return JSONResponse({"error": str(exc)}, status_code=400)


def create_app(
    root: str | Path = ".",
    *,
    options: ApplyOptions | None = None,
    allowed_hosts: list[str] | None = None,
    token: str | None = None,
    echo: Callable[[str], None] | None = None,
    exit_on_done: bool = False,
) -> Starlette:
    """The review application for the files under ``root``.

    ``options`` are how the page's previews and applies read and place blocks (the reply's
    format, the match level, continuing after a failure, ``git add``; ``allow_delete=False``:
    blocks that delete or move files fail, in the preview and when applied).
    ``allowed_hosts`` are the ``Host`` header values the server answers to (``host:port``);
    the page's own origin is ``http://`` one of them. ``token``: every request must
    carry it (see the module's docstring); None serves anyone who can reach the address.
    ``echo``: told what the page applies, undoes and cancels. ``exit_on_done``: the page shows
    Done, and ``POST /api/done`` calls ``state.on_done`` (``apply --review`` then exits).
    """
    state = AppState(
        root,
        options=options,
        allowed_hosts=allowed_hosts,
        token=token,
        echo=echo,
        exit_on_done=exit_on_done,
    )
    static = StaticFiles(directory=str(Path(str(resources.files("editblocks.web") / "static"))))
    routes = [
        Route("/", index),
        Route("/pygments.css", pygments_stylesheet),
        Route("/api/state", get_state),
        Route("/api/reviews", create_review, methods=["POST"]),
        Route("/api/reviews/{review_id}", get_review),
        Route("/api/reviews/{review_id}/apply", apply_review, methods=["POST"]),
        Route("/api/reviews/{review_id}/blocks/{index:int}", edit_block, methods=["POST"]),
        Route("/api/reviews/{review_id}/blocks/{index:int}/choose", choose_place, methods=["POST"]),
        Route("/api/reviews/{review_id}/cancel", cancel_review, methods=["POST"]),
        Route("/api/reviews/{review_id}/file", file_view),
        Route("/api/reviews/{review_id}/feedback", feedback),
        Route("/api/undo", undo, methods=["POST"]),
        Route("/api/done", done, methods=["POST"]),
        Route("/api/live", push_live, methods=["POST"]),
        Route("/api/live/events", live_events),
        Mount("/static", app=static, name="static"),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={ReviewError: _review_error, WorkspaceError: _review_error},
    )
    app.state.editblocks = state
    app.add_middleware(GuardMiddleware, state=state)
    return app
