"""The whole loop against a model: request → streamed reply → apply while it arrives → feedback → fixes.

:func:`run_request` builds the messages for a request (:func:`editblocks.build_messages`), asks
any OpenAI-compatible chat-completions endpoint for a streamed reply with the official ``openai``
client (the ``run`` extra: ``pip install 'editblocks[run]'``), and applies each edit block as
soon as it is complete (:class:`editblocks.pipeline.stream.ApplyStream`). When blocks fail, their
:meth:`~editblocks.ApplyResult.feedback_message` goes back to the model as the next user message
and the corrected blocks are applied, up to ``max_retries`` times. It returns a
:class:`RunSummary`.

Writing: each reply's blocks are written when that reply has ended, every changed file
atomically. A reply that is cut short, by Ctrl-C, the cancel hook, an error of the endpoint or
of its stream, or the timeout, writes nothing;
the files the earlier replies wrote stay written (``editblocks undo`` puts them back, one reply
at a time). Ctrl-C while files are being written waits until they all are.

In a dry run nothing is written; each later reply is checked against the files as the earlier
replies' blocks would have left them.

A reply cut off at the model's output limit (``finish_reason`` ``length``) is not done: the
model is asked to continue after its last complete block, and the reply is written once the
continuation completes it. :func:`arun_request` is the same loop for asyncio (``AsyncOpenAI``).

The key and the endpoint come from ``OPENAI_API_KEY`` and ``OPENAI_BASE_URL`` unless given; the
model from ``EDITBLOCKS_MODEL``, then ``OPENAI_MODEL``, unless given.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from editblocks.errors import EditblocksError
from editblocks.models import ApplyResult, EditBlock, EditResult, EditStatus
from editblocks.pipeline.diffs import unified_diff
from editblocks.pipeline.stream import ApplyStream, StreamEvent
from editblocks.prompts import build_messages
from editblocks.reading.stream import BlockCompleted

API_KEY_ENV = "OPENAI_API_KEY"
BASE_URL_ENV = "OPENAI_BASE_URL"
MODEL_ENV = "EDITBLOCKS_MODEL"
OPENAI_MODEL_ENV = "OPENAI_MODEL"
DEFAULT_MAX_RETRIES = 3
DEFAULT_TIMEOUT = 120.0
"""Seconds the endpoint may send nothing before the reply counts as stalled."""
POLL_SECONDS = 0.05

MISSING_EXTRA = "editblocks run needs the openai client library: pip install 'editblocks[run]'"
MISSING_KEY = (
    f"no API key: set {API_KEY_ENV} (for a local server that needs no key, any value such as 'none'), "
    "or pass one explicitly"
)
MISSING_MODEL = f"no model given: pass the model's name (--model NAME), or set {MODEL_ENV} or {OPENAI_MODEL_ENV}"


class RunError(EditblocksError):
    """The loop cannot start: the ``run`` extra, the API key or the model is missing."""


class _Settable(Protocol):
    def is_set(self) -> bool: ...


Cancel = _Settable | Callable[[], bool]
"""A cancel hook: an object with ``is_set()`` (``threading.Event``, ``asyncio.Event``) or a callable."""


# -- what happens, as it happens -----------------------------------------------------------------


@dataclass(slots=True)
class RoundStarted:
    """A request is being sent: ``round`` 1 is the request itself, later ones carry feedback or
    (``continuation``) ask for the rest of a reply cut off at the output limit."""

    round: int
    messages: list[dict[str, str]]
    continuation: bool = False


@dataclass(slots=True)
class ReplyChunk:
    """The next piece of the model's reply."""

    round: int
    text: str


@dataclass(slots=True)
class RoundFinished:
    """A reply has ended and its blocks were written (nothing in a dry run)."""

    round: int
    result: ApplyResult
    usage: Usage | None


@dataclass(slots=True)
class FeedbackSent:
    """The failed blocks of a reply are sent back to the model (``text`` is the message)."""

    round: int
    text: str


@dataclass(slots=True)
class ContinuationSent:
    """The reply of ``round`` was cut off at the output limit after ``blocks`` complete blocks;
    nothing of it was written, and the model is asked to continue it (``text`` is the message)."""

    round: int
    text: str
    blocks: int


RunEvent = RoundStarted | ReplyChunk | RoundFinished | FeedbackSent | ContinuationSent | StreamEvent
"""What :func:`run_request` reports to ``on_event``; the reply's parse and apply events
(:mod:`editblocks.reading.stream`, :class:`~editblocks.pipeline.stream.BlockApplied`) come between a
round's :class:`RoundStarted` and :class:`RoundFinished`."""


# -- the outcome -------------------------------------------------------------------------------


@dataclass
class Usage:
    """Tokens of one request (or of all of them), as the endpoint reported them."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.total_tokens + other.total_tokens,
        )


@dataclass
class Round:
    """One request and its reply."""

    number: int
    reply: str = ""
    """The text of this request's reply (a continuation's own text, without what it continues)."""
    result: ApplyResult | None = None
    """None when the reply did not end (an error, Ctrl-C, cut off at the output limit): nothing
    of it was written. For a continuation, the result of the whole joined reply."""
    usage: Usage | None = None
    finish_reason: str | None = None
    feedback: str = ""
    """The message sent back to the model after this reply ("" when none was sent)."""
    interrupted: bool = False
    """Ctrl-C came while this reply's files were written (they all were)."""
    continues: bool = False
    """This reply continues the previous one, which was cut off at the output limit."""
    continuation: str = ""
    """The message asking for the rest of this reply, cut off at the output limit ("" when none)."""

    @property
    def cut_off(self) -> bool:
        """The reply stopped at the model's output limit (``finish_reason`` ``length``)."""
        return self.finish_reason == "length" and self.result is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "continues": self.continues,
            "finish_reason": self.finish_reason,
            "written": self.result is not None and not self.result.dry_run,
            "tokens": None if self.usage is None else _tokens(self.usage),
            "feedback": self.feedback or None,
            "continuation": self.continuation or None,
        }


def _tokens(usage: Usage) -> dict[str, int]:
    return {"prompt": usage.prompt_tokens, "completion": usage.completion_tokens, "total": usage.total_tokens}


@dataclass
class RunSummary:
    """What :func:`run_request` did."""

    request: str
    model: str
    dry_run: bool = False
    max_retries: int = DEFAULT_MAX_RETRIES
    rounds: list[Round] = field(default_factory=list)
    messages: list[dict[str, str]] = field(default_factory=list)
    """The whole conversation: the messages sent, the replies and the feedback."""
    error: str | None = None
    """Why the loop stopped early: the endpoint's error, or a reply that could not be applied."""
    interrupted: bool = False
    """Stopped by Ctrl-C or the cancel hook; the reply being received then was not written."""
    cancelled: bool = False
    """Stopped by the cancel hook (``interrupted`` is set too)."""

    @property
    def results(self) -> list[ApplyResult]:
        return [r.result for r in self.rounds if r.result is not None]

    @property
    def blocks(self) -> int:
        """Blocks received in all the replies that ended."""
        return sum(len(r.results) for r in self.results)

    @property
    def applied(self) -> list[EditResult]:
        """Blocks applied (written unless a dry run), over all the replies."""
        return [res for r in self.results for res in r.applied]

    @property
    def already_applied(self) -> list[EditResult]:
        return [res for r in self.results for res in r.results if res.already_applied]

    def _outstanding(self) -> ApplyResult | None:
        for result in reversed(self.results):
            if result.results:
                return result
        return None

    @property
    def failed(self) -> list[EditResult]:
        """Blocks that still failed when the loop ended (those of the last reply with blocks)."""
        last = self._outstanding()
        return list(last.failed) if last is not None else []

    @property
    def skipped(self) -> list[EditResult]:
        """Blocks still skipped when the loop ended (after a failure; already applied ones not counted)."""
        last = self._outstanding()
        return [r for r in last.skipped if not r.already_applied] if last is not None else []

    @property
    def retries(self) -> int:
        """Feedback messages sent."""
        return sum(1 for r in self.rounds if r.feedback)

    @property
    def continuations(self) -> int:
        """Requests for the rest of a reply cut off at the output limit."""
        return sum(1 for r in self.rounds if r.continuation)

    @property
    def exhausted(self) -> bool:
        """Blocks still failed (or the reply never completed) after ``max_retries`` further requests."""
        return (
            bool(self.failed or self.skipped or self.cut_off)
            and self.retries + self.continuations >= self.max_retries
            and self.error is None
        )

    @property
    def cut_off(self) -> bool:
        """The last reply stopped at the model's output limit and was never completed (nothing of it written)."""
        return bool(self.rounds) and self.rounds[-1].cut_off and self.error is None and not self.interrupted

    @property
    def files_changed(self) -> list[str]:
        """Files written (in a dry run: that would be), in the order first changed."""
        seen: dict[str, None] = {}
        for result in self.results:
            for path in result.files_modified:
                seen.setdefault(path, None)
        return list(seen)

    @property
    def diffs(self) -> dict[str, str]:
        """For each changed file, one unified diff from before the first reply to after the last."""
        out: dict[str, str] = {}
        if self.dry_run:
            # Each dry-run reply is applied on top of the earlier ones: the last result holds it all.
            last = self.results[-1] if self.results else None
            return dict(last.diffs) if last is not None else {}
        for path in self.files_changed:
            before = next(r.before[path] for r in self.results if path in r.before)
            after = next(r.after[path] for r in reversed(self.results) if path in r.after)
            out[path] = unified_diff(before, after, path)
        return out

    @property
    def shell_suggestions(self) -> list[str]:
        """Shell commands the replies suggest for the user to run (never run here)."""
        seen: dict[str, None] = {}
        for result in self.results:
            for cmd in result.shell_suggestions:
                seen.setdefault(cmd, None)
        return list(seen)

    @property
    def usage(self) -> Usage | None:
        """Tokens used over every request that reported them; None when none did."""
        reported = [r.usage for r in self.rounds if r.usage is not None]
        if not reported:
            return None
        total = Usage()
        for u in reported:
            total = total + u
        return total

    @property
    def usage_complete(self) -> bool:
        """Every request reported its tokens."""
        return bool(self.rounds) and all(r.usage is not None for r in self.rounds)

    @property
    def truncated(self) -> bool:
        """The last reply had a block that could not be read (cut off, or malformed), or it
        stopped at the output limit and was never completed (:attr:`cut_off`)."""
        if self.cut_off:
            return True
        last = self.results[-1] if self.results else None
        return last is not None and bool(last.reply_problems)

    @property
    def ok(self) -> bool:
        """Blocks were received, every one applied (or was already applied) in the end, and the
        last reply had no block cut off or malformed."""
        return (
            self.error is None
            and not self.interrupted
            and self.blocks > 0
            and not self.failed
            and not self.skipped
            and not self.truncated
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``editblocks run --json``); the README documents its fields."""
        usage = self.usage
        return {
            "request": self.request,
            "model": self.model,
            "dry_run": self.dry_run,
            "ok": self.ok,
            "truncated": self.truncated,
            "cut_off": self.cut_off,
            "requests": len(self.rounds),
            "retries": self.retries,
            "continuations": self.continuations,
            "applied": [r.to_dict() for r in self.applied],
            "already_applied": [r.to_dict() for r in self.already_applied],
            "failed": [r.to_dict() for r in self.failed],
            "skipped": [r.to_dict() for r in self.skipped],
            "files_changed": self.files_changed,
            "diffs": self.diffs,
            "shell_suggestions": self.shell_suggestions,
            "tokens": None if usage is None else {**_tokens(usage), "complete": self.usage_complete},
            "rounds": [r.to_dict() for r in self.rounds],
            "error": self.error,
            "interrupted": self.interrupted,
            "cancelled": self.cancelled,
        }


# -- the client -------------------------------------------------------------------------------------


def make_client(
    api_key: str | None = None,
    base_url: str | None = None,
    *,
    max_retries: int = 2,
    timeout: float | None = None,
) -> Any:
    """An ``openai.OpenAI`` client; the key and the URL default to ``OPENAI_API_KEY`` and
    ``OPENAI_BASE_URL``. ``max_retries`` is how often the client itself retries a request that
    failed to connect or got a server error (or 429). Raises :class:`RunError` when the ``openai``
    library or the key is missing."""
    try:
        import openai
    except ImportError:
        raise RunError(MISSING_EXTRA) from None
    return openai.OpenAI(**_client_options(api_key, base_url, max_retries, timeout))


def make_async_client(
    api_key: str | None = None,
    base_url: str | None = None,
    *,
    max_retries: int = 2,
    timeout: float | None = None,
) -> Any:
    """:func:`make_client` for :func:`arun_request`: an ``openai.AsyncOpenAI`` client."""
    try:
        import openai
    except ImportError:
        raise RunError(MISSING_EXTRA) from None
    return openai.AsyncOpenAI(**_client_options(api_key, base_url, max_retries, timeout))


def _client_options(
    api_key: str | None, base_url: str | None, max_retries: int, timeout: float | None
) -> dict[str, Any]:
    key = api_key or os.environ.get(API_KEY_ENV)
    if not key:
        raise RunError(MISSING_KEY)
    url = base_url or os.environ.get(BASE_URL_ENV) or None
    options: dict[str, Any] = {"api_key": key, "base_url": url, "max_retries": max_retries}
    if timeout is not None:
        options["timeout"] = timeout
    return options


def describe_error(exc: BaseException, base_url: str | None = None, *, timeout: float | None = None) -> str:
    """A one-line explanation of an error talking to the endpoint (``timeout``: the seconds it had)."""
    try:
        import openai
    except ImportError:  # pragma: no cover - the client raised it, so it is installed
        return str(exc)
    where = f" at {base_url}" if base_url else ""
    if isinstance(exc, openai.APITimeoutError):
        within = "" if timeout is None else f" (within {timeout:g} s, --timeout)"
        return f"the model endpoint{where} did not answer in time{within}"
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc.__context__
        return f"cannot reach the model endpoint{where}: {cause or exc}"
    if isinstance(exc, openai.AuthenticationError):
        return f"the model endpoint{where} refused the API key (HTTP 401): {_message(exc)}"
    if isinstance(exc, openai.NotFoundError):
        return f"the model endpoint{where} answered 404 (wrong URL or model name?): {_message(exc)}"
    if isinstance(exc, openai.APIStatusError):
        return f"the model endpoint{where} answered HTTP {exc.status_code}: {_message(exc)}"
    if isinstance(exc, openai.APIError):
        return f"the model endpoint{where} reported an error: {_message(exc)}"
    if type(exc).__module__.split(".")[0] in ("httpx", "httpx2", "httpcore", "httpcore2", "h11"):
        return f"the connection to the model endpoint{where} broke while the reply arrived: {exc}"
    return f"{type(exc).__name__}: {exc}"


def _message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping) and inner.get("message"):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
    return str(getattr(exc, "message", None) or exc)


CONTINUE_AFTER_BLOCKS = (
    "Your reply was cut off: it reached the output limit. It is repeated above up to the end of its "
    "last complete edit block ({blocks}). Continue from there: send the remaining edit blocks, each "
    "one whole, in the same format, and do not repeat the blocks above."
)
CONTINUE_FROM_START = (
    "Your reply was cut off: it reached the output limit before its first edit block was complete. "
    "Send the whole reply again, shorter: only the edit blocks, each one whole, with no long explanations."
)


def no_blocks_feedback(format: str, result: ApplyResult | None = None) -> str:
    """The message for a reply without edit blocks: the format expected, with a short example."""
    from editblocks.prompts import example_messages, reminder

    parts = [f"Your reply has no edit blocks I can apply. Send the changes as edit blocks in the {format} format."]
    if result is not None and result.reply_problems:
        parts.append(
            "The reply has blocks that could not be read (cut off or malformed):\n"
            + "\n".join(f"- line {w.line}: {w.message}" for w in result.reply_problems[:10])
        )
    parts.append(reminder(format).strip())
    example = next((m["content"] for m in example_messages(format) if m["role"] == "assistant"), "")
    if example:
        parts.append("For example, a reply in this format:\n\n" + example.strip())
    return "\n\n".join(parts) + "\n"


def _parse_chunk(chunk: Any) -> tuple[str, str | None, Usage | None]:
    """The text, finish reason and usage one streamed chunk carries (choice 0 only).

    A chunk whose fields have the wrong types (content that is not text, token counts that are
    not numbers) is a malformed stream event: :class:`_StreamFailure`, as a broken stream is."""
    try:
        return _chunk_fields(chunk)
    except (TypeError, ValueError) as exc:
        raise _StreamFailure(ValueError(f"a stream event with fields of the wrong type: {exc}"), True) from None


def _chunk_fields(chunk: Any) -> tuple[str, str | None, Usage | None]:
    usage = None
    raw = getattr(chunk, "usage", None)
    if raw is not None:
        usage = Usage(
            int(getattr(raw, "prompt_tokens", 0) or 0),
            int(getattr(raw, "completion_tokens", 0) or 0),
            int(getattr(raw, "total_tokens", 0) or 0),
        )
    texts: list[str] = []
    finish = None
    for choice in getattr(chunk, "choices", None) or []:
        if getattr(choice, "index", 0) != 0:
            continue
        if getattr(choice, "finish_reason", None):
            finish = choice.finish_reason
            if not isinstance(finish, str):
                raise TypeError(f"finish_reason is {type(finish).__name__}, not text")
        delta = getattr(choice, "delta", None)
        text = getattr(delta, "content", None) if delta is not None else None
        if text:
            if not isinstance(text, str):
                raise TypeError(f"content is {type(text).__name__}, not text")
            texts.append(text)
    return "".join(texts), finish, usage


def _request(
    model: str, messages: list[dict[str, str]], options: Mapping[str, Any], timeout: float | None
) -> dict[str, Any]:
    request: dict[str, Any] = {"model": model, "messages": messages, "stream": True, **options}
    if timeout is not None:
        request["timeout"] = timeout
    return request


def _wants_no_stream_options(exc: BaseException) -> bool:
    """Some compatible servers do not know ``stream_options``: ask again without it."""
    import openai

    return (
        isinstance(exc, openai.APIStatusError) and exc.status_code in (400, 422) and "stream_options" in _message(exc)
    )


def _open(client: Any, request: dict[str, Any]) -> Any:
    try:
        return client.chat.completions.create(**request, stream_options={"include_usage": True})
    except Exception as exc:
        if _wants_no_stream_options(exc):
            return client.chat.completions.create(**request)
        raise


async def _aopen(client: Any, request: dict[str, Any]) -> Any:
    try:
        return await client.chat.completions.create(**request, stream_options={"include_usage": True})
    except Exception as exc:
        if _wants_no_stream_options(exc):
            return await client.chat.completions.create(**request)
        raise


class _StreamFailure(Exception):
    """Reading the reply failed: ``opened`` once the endpoint had answered (the reply was cut off)."""

    def __init__(self, error: BaseException, opened: bool) -> None:
        super().__init__(str(error))
        self.error = error
        self.opened = opened


class _Cancelled(Exception):
    """The embedder's cancel hook asked to stop."""


def _cancel_check(cancel: Cancel | None) -> Callable[[], bool]:
    if cancel is None:
        return lambda: False
    is_set = getattr(cancel, "is_set", None)
    if callable(is_set):
        return lambda: bool(is_set())
    if callable(cancel):
        return lambda: bool(cancel())
    raise TypeError("cancel must be a threading.Event, an asyncio.Event or a callable returning True to stop")


class _ThreadedReply:
    """One streamed reply read in a thread of its own, so the caller sees a cancel (or Ctrl-C) at
    once even while the endpoint sends nothing; the endpoint's silence ends with the client's
    read timeout."""

    def __init__(self, client: Any, request: dict[str, Any]) -> None:
        self._queue: queue.Queue[tuple[str, Any]] = queue.Queue()
        self._stop = threading.Event()
        self._stream: Any = None
        self.opened = False
        thread = threading.Thread(target=self._read, args=(client, request), name="editblocks-reply", daemon=True)
        thread.start()

    def _read(self, client: Any, request: dict[str, Any]) -> None:
        try:
            self._stream = _open(client, request)
            self._queue.put(("opened", None))
            for chunk in self._stream:
                if self._stop.is_set():
                    return
                self._queue.put(("chunk", chunk))
            self._queue.put(("end", None))
        except BaseException as exc:  # handed to the caller
            self._queue.put(("error", exc))
        finally:
            if self._stop.is_set():
                self.close()  # the caller stopped waiting: hang up rather than read the rest

    def chunks(self, cancelled: Callable[[], bool]) -> Iterator[Any]:
        """The reply's chunks; raises :class:`_StreamFailure` or :class:`_Cancelled`."""
        while True:
            if cancelled():
                raise _Cancelled
            try:
                kind, value = self._queue.get(timeout=POLL_SECONDS)
            except queue.Empty:
                continue
            if kind == "opened":
                self.opened = True
            elif kind == "chunk":
                yield value
            elif kind == "end":
                return
            else:
                raise _StreamFailure(value, self.opened)

    def close(self) -> None:
        self._stop.set()
        close = getattr(self._stream, "close", None)
        if close is not None:
            try:
                close()
            except Exception:  # closing a broken connection
                pass


# -- the loop ---------------------------------------------------------------------------------------


class _Loop:
    """The rounds of one run, whatever reads the replies (:func:`run_request`, :func:`arun_request`):
    :meth:`next_request`, then :meth:`chunk` for each piece and :meth:`end`, :meth:`fail` or
    :meth:`stop`."""

    def __init__(
        self,
        summary: RunSummary,
        format: str,
        emit: Callable[[RunEvent], Any],
        stream_options: Mapping[str, Any],
        base_url: str | None,
        timeout: float | None,
    ) -> None:
        self.summary = summary
        self.format = format
        self.emit = emit
        self.stream_options = stream_options
        self.base_url = base_url
        self.timeout = timeout
        self.messages = summary.messages
        self.outgoing: list[dict[str, str]] = list(self.messages)
        self.attempts = 0
        """Requests sent after the first: feedback and continuations (at most ``max_retries``)."""
        self.carried: list[EditBlock] = []  # dry run: the blocks earlier replies applied in memory
        self.prefix = ""  # the part kept of a reply cut off at the output limit
        self.continuing = False
        self.round: Round | None = None
        self.stream: ApplyStream | None = None
        self.parts: list[str] = []
        self.done = False
        self._complete_end = 0  # line of the joined reply where its last complete block ends

    def next_request(self) -> list[dict[str, str]] | None:
        """The messages of the next request, or None when the loop is over."""
        if self.done:
            return None
        number = len(self.summary.rounds) + 1
        self.round = Round(number, continues=self.continuing)
        self.summary.rounds.append(self.round)
        self.parts = []
        self._complete_end = 0
        self.stream = None
        try:
            self.stream = ApplyStream(**self.stream_options)
            if self.carried:
                self.stream.replay(self.carried)
            if self.prefix:
                self._feed(self.prefix, show=False)
        except Exception as exc:
            if not _is_round_error(exc):
                self._abort()
                raise
            self.fail(exc)
            return None
        except BaseException:
            self._abort()
            raise
        self.emit(RoundStarted(number, list(self.outgoing), continuation=self.continuing))
        return self.outgoing

    def _feed(self, text: str, *, show: bool) -> None:
        assert self.stream is not None
        for event in self.stream.feed(text):
            if isinstance(event, BlockCompleted):
                self._complete_end = event.block.end_line or (self.prefix + "".join(self.parts)).count("\n")
            if show:
                self.emit(event)

    def chunk(self, text: str, finish_reason: str | None, usage: Usage | None) -> None:
        """The next piece of the reply."""
        assert self.round is not None
        if usage is not None:
            self.round.usage = usage
        if finish_reason:
            self.round.finish_reason = finish_reason
        if text:
            self.parts.append(text)
            self.emit(ReplyChunk(self.round.number, text))
            self._feed(text, show=True)

    def end(self) -> None:
        """The reply has ended: write it, or ask for the rest of a reply cut at the output limit."""
        round_, stream = self.round, self.stream
        assert round_ is not None and stream is not None
        round_.reply = "".join(self.parts)
        joined = self.prefix + round_.reply
        if round_.finish_reason == "length":
            stream.abort()
            self._continue(round_, joined, stream.blocks)
            return
        for event in stream.close():
            self.emit(event)
        result = round_.result = stream.write()
        round_.interrupted = stream.interrupted
        self.prefix, self.continuing = "", False
        self.messages.append({"role": "assistant", "content": joined})
        if self.summary.dry_run:
            self.carried += [r.block for r in result.results if r.status is EditStatus.APPLIED]
        self.emit(RoundFinished(round_.number, result, round_.usage))
        if round_.interrupted:
            self.summary.interrupted = True
            self.done = True
            return
        feedback = result.feedback_message() if result.results else no_blocks_feedback(self.format, result)
        if not feedback or self.attempts >= self.summary.max_retries:
            self.done = True
            return
        self.attempts += 1
        round_.feedback = feedback
        self.messages.append({"role": "user", "content": feedback})
        self.outgoing = list(self.messages)
        self.emit(FeedbackSent(round_.number, feedback))

    def _continue(self, round_: Round, joined: str, blocks: int) -> None:
        """Ask the model to continue a reply cut off at the output limit after its last complete block."""
        if self.attempts >= self.summary.max_retries:
            self.done = True
            return
        self.attempts += 1
        kept = _through_line(joined, self._complete_end) if self._complete_end else ""
        if kept.strip():
            text = CONTINUE_AFTER_BLOCKS.format(blocks=f"block {blocks}" if blocks == 1 else f"{blocks} blocks")
            shown = kept
        else:
            kept, text, shown = "", CONTINUE_FROM_START, joined
        self.outgoing = list(self.messages)
        if shown.strip():
            self.outgoing.append({"role": "assistant", "content": shown})
        self.outgoing.append({"role": "user", "content": text})
        self.prefix, self.continuing = kept, True
        round_.continuation = text
        self.emit(ContinuationSent(round_.number, text, blocks))

    def fail(self, exc: BaseException) -> None:
        """The reply could not be read to its end (or not applied): nothing of it is written."""
        blocks = self.stream.blocks if self.stream is not None else 0
        self._abort()
        if isinstance(exc, _StreamFailure):
            if exc.opened:
                self.summary.error = _cut_off(exc.error, self.base_url, blocks, self.timeout)
            else:
                self.summary.error = describe_error(exc.error, self.base_url, timeout=self.timeout)
        else:
            self.summary.error = _round_error(exc, self.base_url)

    def stop(self, *, cancelled: bool = False) -> None:
        """Ctrl-C or the cancel hook: the reply being received is not written."""
        self._abort()
        self.summary.interrupted = True
        self.summary.cancelled = cancelled

    def _abort(self) -> None:
        if self.stream is not None:
            self.stream.abort()
        if self.round is not None:
            self.round.reply = "".join(self.parts)
        self.done = True


def _through_line(text: str, line: int) -> str:
    """``text`` up to the end of its 1-based ``line``, and the fence line closing a block there."""
    lines = text.split("\n")
    end = min(line, len(lines) - 1)  # the last item is not a complete line
    fence = lines[end].strip() if end < len(lines) - 1 else ""
    if fence[:3] in ("```", "~~~") and not fence.strip("`~"):
        end += 1
    return "".join(f"{kept}\n" for kept in lines[:end])


def _cut_off(exc: BaseException, base_url: str | None, blocks: int, timeout: float | None) -> str:
    """Why a reply that had started stopped early, and what became of it."""
    import openai

    where = f" at {base_url}" if base_url else ""
    name = type(exc).__name__
    if isinstance(exc, openai.APITimeoutError) or "Timeout" in name:
        why = f"the model endpoint{where} sent nothing for {_seconds(timeout)} (the timeout, --timeout)"
    elif isinstance(exc, ValueError):
        why = f"the model endpoint{where} sent a malformed stream event ({exc})"
    elif isinstance(exc, openai.APIError) and not isinstance(exc, openai.APIConnectionError):
        why = f"the model endpoint{where} reported an error in the middle of the reply: {_message(exc)}"
    else:
        cause = exc.__cause__ or exc.__context__ or exc
        why = f"the connection to the model endpoint{where} broke in the middle of the reply ({cause or name})"
    count = f"{blocks} complete block{'' if blocks == 1 else 's'}"
    return f"{why}; the reply was cut off after {count} and nothing of it was written"


def _seconds(timeout: float | None) -> str:
    return "too long" if timeout is None else f"{timeout:g} s"


def _options(
    root: str | os.PathLike[str], dry_run: bool, match: str | None, continue_after_failure: bool, allow_delete: bool
) -> dict[str, Any]:
    # Every format is read, per block, as `editblocks apply` reads it: a reply in another format
    # than the one asked for still applies.
    return {
        "root": root,
        "format": None,
        "dry_run": dry_run,
        "match": match,
        "continue_after_failure": continue_after_failure,
        "allow_delete": allow_delete,
    }


@dataclass
class _Arguments:
    """The arguments of :func:`run_request` and :func:`arun_request`, which take the same ones."""

    request: str
    files: Sequence[str | os.PathLike[str]]
    root: str | os.PathLike[str]
    format: str
    model: str | None
    base_url: str | None
    api_key: str | None
    max_retries: int
    dry_run: bool
    read_only: Sequence[str | os.PathLike[str]]
    summaries: str | Mapping[str, str] | None
    match: str | None
    continue_after_failure: bool
    allow_delete: bool
    client: Any
    request_options: Mapping[str, Any] | None
    timeout: float | None
    cancel: Cancel | None
    on_event: Callable[[RunEvent], Any] | None


def _start(args: _Arguments, make: Callable[[str | None, str | None], Any]) -> tuple[_Loop, Any, Callable[[], bool]]:
    """The loop of one run, its client (made with ``make`` when not given) and its cancel check."""
    model = resolve_model(args.model)
    client = args.client if args.client is not None else make(args.api_key, args.base_url)
    shown_url = str(getattr(client, "base_url", "") or args.base_url or "") or None
    messages = build_messages(
        args.format,
        args.request,
        files=list(args.files),
        read_only=list(args.read_only),
        summaries=args.summaries,
        root=args.root,
    )
    summary = RunSummary(
        request=args.request,
        model=model,
        dry_run=args.dry_run,
        max_retries=max(args.max_retries, 0),
        messages=messages,
    )
    options = _options(args.root, args.dry_run, args.match, args.continue_after_failure, args.allow_delete)
    loop = _Loop(summary, args.format, args.on_event or (lambda event: None), options, shown_url, args.timeout)
    return loop, client, _cancel_check(args.cancel)


@contextlib.contextmanager
def _round(loop: _Loop) -> Iterator[None]:
    """One request and its reply: a cancel stops the loop, an endpoint or stream error ends the
    round (the loop records it), any other error stops the loop and propagates."""
    try:
        yield
    except _Cancelled:
        loop.stop(cancelled=True)
    except Exception as exc:
        if not isinstance(exc, _StreamFailure) and not _is_round_error(exc):
            loop.stop()
            raise
        loop.fail(exc)


def resolve_model(model: str | None = None) -> str:
    """``model``, else ``EDITBLOCKS_MODEL``, else ``OPENAI_MODEL``; raises :class:`RunError` when none is set."""
    model = model or os.environ.get(MODEL_ENV) or os.environ.get(OPENAI_MODEL_ENV)
    if not model:
        raise RunError(MISSING_MODEL)
    return model


def run_request(
    request: str,
    files: Sequence[str | os.PathLike[str]] = (),
    *,
    root: str | os.PathLike[str] = ".",
    format: str = "diff",
    model: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    max_retries: int = DEFAULT_MAX_RETRIES,
    dry_run: bool = False,
    read_only: Sequence[str | os.PathLike[str]] = (),
    summaries: str | Mapping[str, str] | None = None,
    match: str | None = None,
    continue_after_failure: bool = False,
    allow_delete: bool = True,
    client: Any = None,
    request_options: Mapping[str, Any] | None = None,
    timeout: float | None = DEFAULT_TIMEOUT,
    cancel: Cancel | None = None,
    on_event: Callable[[RunEvent], Any] | None = None,
) -> RunSummary:
    """Ask a model for ``request`` on ``files`` (paths under ``root``), apply its edit blocks as
    they arrive, and send the failures back for corrections, up to ``max_retries`` times.

    ``client`` is an ``openai.OpenAI`` client to use; without one it is made from ``api_key``
    and ``base_url`` (default: the ``OPENAI_API_KEY`` and ``OPENAI_BASE_URL`` environment
    variables). ``model`` defaults to ``EDITBLOCKS_MODEL``, then ``OPENAI_MODEL``.
    ``request_options`` are passed to the chat-completions call (e.g. ``{"temperature": 0}``).
    ``on_event`` sees everything as it happens (:data:`RunEvent`), for a live display.
    ``allow_delete=False`` fails the blocks that delete or move files (``patch``, ``udiff``)
    instead of applying them; the model is told why.

    The model is asked for ``format``; a reply in another format is read as ``editblocks apply``
    reads it (per block), and a reply without blocks gets a message showing the format. A reply
    cut off at the model's output limit (``finish_reason`` ``length``) is not written: the model
    is asked to continue after its last complete block and the continuation is joined to it;
    continuations count against ``max_retries``.

    ``timeout`` is how many seconds the endpoint may send nothing (None: the client's own).
    ``cancel`` (a ``threading.Event``, or a callable returning True) stops the loop as soon as
    it is set: the reply being received is not written and the summary says ``cancelled``.

    Raises :class:`RunError` when the ``openai`` library, the key or the model is missing, and
    :class:`editblocks.files.workspace.WorkspaceError` when a file cannot be read for the prompt. An
    error of the endpoint or of its stream, or Ctrl-C, ends the loop: the summary says so
    (``error``, ``interrupted``), and the reply being received then is not written.
    """
    args = _Arguments(**locals())
    loop, client, cancelled = _start(args, make_client)
    try:
        while (messages := loop.next_request()) is not None:
            reply = _ThreadedReply(client, _request(loop.summary.model, messages, request_options or {}, timeout))
            try:
                with _round(loop):
                    for chunk in reply.chunks(cancelled):
                        loop.chunk(*_parse_chunk(chunk))
                    loop.end()
            finally:
                reply.close()
    except KeyboardInterrupt:
        loop.stop()
    return loop.summary


async def arun_request(
    request: str,
    files: Sequence[str | os.PathLike[str]] = (),
    *,
    root: str | os.PathLike[str] = ".",
    format: str = "diff",
    model: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    max_retries: int = DEFAULT_MAX_RETRIES,
    dry_run: bool = False,
    read_only: Sequence[str | os.PathLike[str]] = (),
    summaries: str | Mapping[str, str] | None = None,
    match: str | None = None,
    continue_after_failure: bool = False,
    allow_delete: bool = True,
    client: Any = None,
    request_options: Mapping[str, Any] | None = None,
    timeout: float | None = DEFAULT_TIMEOUT,
    cancel: Cancel | None = None,
    on_event: Callable[[RunEvent], Any] | None = None,
) -> RunSummary:
    """:func:`run_request` for asyncio, with an ``openai.AsyncOpenAI`` client (made as
    :func:`make_async_client` makes it when not given); the same arguments and outcome.

    ``cancel`` may also be an ``asyncio.Event``. Cancelling the task itself also writes nothing
    of the reply being received, and the cancellation propagates."""
    args = _Arguments(**locals())
    loop, client, cancelled = _start(args, make_async_client)
    try:
        while (messages := loop.next_request()) is not None:
            stream: Any = None
            try:
                with _round(loop):
                    try:
                        request_args = _request(loop.summary.model, messages, request_options or {}, timeout)
                        stream = await _until(_aopen(client, request_args), cancelled)
                    except (_Cancelled, asyncio.CancelledError):
                        raise
                    except Exception as exc:
                        raise _StreamFailure(exc, False) from exc
                    chunks = stream.__aiter__()
                    while True:
                        try:
                            chunk = await _until(chunks.__anext__(), cancelled)
                        except StopAsyncIteration:
                            break
                        except (_Cancelled, asyncio.CancelledError):
                            raise
                        except Exception as exc:
                            raise _StreamFailure(exc, True) from exc
                        loop.chunk(*_parse_chunk(chunk))
                    loop.end()
            finally:
                if stream is not None:
                    try:
                        await stream.close()
                    except Exception:  # closing a broken connection
                        pass
    except (KeyboardInterrupt, asyncio.CancelledError):
        loop.stop()
        raise
    return loop.summary


async def _until(awaitable: Any, cancelled: Callable[[], bool]) -> Any:
    """Await ``awaitable``, raising :class:`_Cancelled` as soon as ``cancelled()`` says so."""
    task = asyncio.ensure_future(awaitable)
    try:
        while True:
            if cancelled():
                raise _Cancelled
            done, _ = await asyncio.wait({task}, timeout=POLL_SECONDS)
            if done:
                return task.result()
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task


def _is_round_error(exc: BaseException) -> bool:
    """An error of the endpoint or the connection, or a reply that cannot be applied."""
    from editblocks.files.workspace import WorkspaceError

    if isinstance(exc, (WorkspaceError, OSError)):
        return True
    try:
        import openai
    except ImportError:  # pragma: no cover
        return False
    if isinstance(exc, openai.OpenAIError):
        return True
    # A connection that breaks while the reply streams surfaces as the HTTP library's own error.
    module = type(exc).__module__.split(".")[0]
    return module in ("httpx", "httpx2", "httpcore", "httpcore2", "h11")


def _round_error(exc: BaseException, base_url: str | None) -> str:
    from editblocks.files.workspace import WorkspaceError

    if isinstance(exc, WorkspaceError):
        return f"the reply could not be applied: {exc}"
    return describe_error(exc, base_url)


__all__ = [
    "API_KEY_ENV",
    "BASE_URL_ENV",
    "DEFAULT_TIMEOUT",
    "MODEL_ENV",
    "OPENAI_MODEL_ENV",
    "Cancel",
    "ContinuationSent",
    "FeedbackSent",
    "ReplyChunk",
    "Round",
    "RoundFinished",
    "RoundStarted",
    "RunError",
    "RunEvent",
    "RunSummary",
    "Usage",
    "arun_request",
    "describe_error",
    "make_async_client",
    "make_client",
    "no_blocks_feedback",
    "resolve_model",
    "run_request",
]
