"""The whole loop against a model: request → streamed reply → apply while it arrives → feedback → fixes.

:func:`run_request` builds the messages for a request (:func:`editblocks.build_messages`), asks
any OpenAI-compatible chat-completions endpoint for a streamed reply with the official ``openai``
client (the ``run`` extra: ``pip install 'editblocks[run]'``), and applies each edit block as
soon as it is complete (:class:`editblocks.incremental.ApplyStream`). When blocks fail, their
:meth:`~editblocks.ApplyResult.feedback_message` goes back to the model as the next user message
and the corrected blocks are applied, up to ``max_retries`` times. It returns a
:class:`RunSummary`.

Writing: each reply's blocks are written when that reply has ended, every changed file
atomically. A reply that is cut short, by Ctrl-C or by an error of the endpoint, writes nothing;
the files the earlier replies wrote stay written (``editblocks undo`` puts them back, one reply
at a time). Ctrl-C while files are being written waits until they all are.

In a dry run nothing is written; each later reply is checked against the files as the earlier
replies' blocks would have left them.

The key and the endpoint come from ``OPENAI_API_KEY`` and ``OPENAI_BASE_URL`` unless given; the
model from ``EDITBLOCKS_MODEL`` unless given.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .diffs import unified_diff
from .errors import EditblocksError
from .incremental import ApplyStream, StreamEvent
from .models import ApplyResult, EditBlock, EditResult, EditStatus
from .prompts import build_messages

API_KEY_ENV = "OPENAI_API_KEY"
BASE_URL_ENV = "OPENAI_BASE_URL"
MODEL_ENV = "EDITBLOCKS_MODEL"
DEFAULT_MAX_RETRIES = 3

MISSING_EXTRA = "editblocks run needs the openai client library: pip install 'editblocks[run]'"
MISSING_KEY = (
    f"no API key: set {API_KEY_ENV} (for a local server that needs no key, any value such as 'none'), "
    "or pass one explicitly"
)
MISSING_MODEL = f"no model given: pass the model's name (--model NAME), or set {MODEL_ENV}"


class RunError(EditblocksError):
    """The loop cannot start: the ``run`` extra, the API key or the model is missing."""


# -- what happens, as it happens -----------------------------------------------------------------


@dataclass(slots=True)
class RoundStarted:
    """A request is being sent: ``round`` 1 is the request itself, later ones carry feedback."""

    round: int
    messages: list[dict[str, str]]


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


RunEvent = RoundStarted | ReplyChunk | RoundFinished | FeedbackSent | StreamEvent
"""What :func:`run_request` reports to ``on_event``; the reply's parse and apply events
(:mod:`editblocks.streaming`, :class:`~editblocks.incremental.BlockApplied`) come between a
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
    result: ApplyResult | None = None
    """None when the reply did not end (an error or Ctrl-C): nothing of it was written."""
    usage: Usage | None = None
    finish_reason: str | None = None
    feedback: str = ""
    """The message sent back to the model after this reply ("" when none was sent)."""
    interrupted: bool = False
    """Ctrl-C came while this reply's files were written (they all were)."""


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
    """Stopped by Ctrl-C; the reply being received then was not written."""

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
    def exhausted(self) -> bool:
        """Blocks still failed after ``max_retries`` feedback rounds."""
        return bool(self.failed or self.skipped) and self.retries >= self.max_retries and self.error is None

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
        """The last reply had a block that could not be read (cut off, or malformed)."""
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
        usage = self.usage
        return {
            "request": self.request,
            "model": self.model,
            "dry_run": self.dry_run,
            "ok": self.ok,
            "truncated": self.truncated,
            "requests": len(self.rounds),
            "applied": len(self.applied),
            "already_applied": len(self.already_applied),
            "failed": [r.to_dict() for r in self.failed],
            "skipped": [r.to_dict() for r in self.skipped],
            "files_changed": self.files_changed,
            "shell_suggestions": self.shell_suggestions,
            "tokens": None
            if usage is None
            else {
                "prompt": usage.prompt_tokens,
                "completion": usage.completion_tokens,
                "total": usage.total_tokens,
                "complete": self.usage_complete,
            },
            "error": self.error,
            "interrupted": self.interrupted,
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
    failed to connect or got a server error. Raises :class:`RunError` when the ``openai``
    library or the key is missing."""
    try:
        import openai
    except ImportError:
        raise RunError(MISSING_EXTRA) from None
    key = api_key or os.environ.get(API_KEY_ENV)
    if not key:
        raise RunError(MISSING_KEY)
    url = base_url or os.environ.get(BASE_URL_ENV) or None
    options: dict[str, Any] = {"api_key": key, "base_url": url, "max_retries": max_retries}
    if timeout is not None:
        options["timeout"] = timeout
    return openai.OpenAI(**options)


def describe_error(exc: BaseException, base_url: str | None = None) -> str:
    """A one-line explanation of an error talking to the endpoint."""
    try:
        import openai
    except ImportError:  # pragma: no cover - the client raised it, so it is installed
        return str(exc)
    where = f" at {base_url}" if base_url else ""
    if isinstance(exc, openai.APITimeoutError):
        return f"the model endpoint{where} did not answer in time"
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


class _ReplyStream:
    """The text of one streamed chat completion; ``usage`` and ``finish_reason`` once it ended."""

    def __init__(self, client: Any, model: str, messages: list[dict[str, str]], options: Mapping[str, Any]) -> None:
        self.usage: Usage | None = None
        self.finish_reason: str | None = None
        self._stream = self._open(client, model, messages, options)

    @staticmethod
    def _open(client: Any, model: str, messages: list[dict[str, str]], options: Mapping[str, Any]) -> Any:
        import openai

        request = {"model": model, "messages": messages, "stream": True, **options}
        try:
            return client.chat.completions.create(**request, stream_options={"include_usage": True})
        except openai.APIStatusError as exc:
            # Some compatible servers do not know stream_options: ask again without it.
            if exc.status_code in (400, 422) and "stream_options" in str(_message(exc)):
                return client.chat.completions.create(**request)
            raise

    def __iter__(self) -> Iterator[str]:
        for chunk in self._stream:
            usage = getattr(chunk, "usage", None)
            if usage is not None:
                self.usage = Usage(
                    int(getattr(usage, "prompt_tokens", 0) or 0),
                    int(getattr(usage, "completion_tokens", 0) or 0),
                    int(getattr(usage, "total_tokens", 0) or 0),
                )
            for choice in getattr(chunk, "choices", None) or []:
                if getattr(choice, "index", 0) != 0:
                    continue
                if choice.finish_reason:
                    self.finish_reason = choice.finish_reason
                delta = choice.delta
                text = getattr(delta, "content", None) if delta is not None else None
                if text:
                    yield text

    def close(self) -> None:
        close = getattr(self._stream, "close", None)
        if close is not None:
            try:
                close()
            except Exception:  # closing a broken connection
                pass


# -- the loop ---------------------------------------------------------------------------------------


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
    on_event: Callable[[RunEvent], Any] | None = None,
) -> RunSummary:
    """Ask a model for ``request`` on ``files`` (paths under ``root``), apply its edit blocks as
    they arrive, and send the failures back for corrections, up to ``max_retries`` times.

    ``client`` is an ``openai.OpenAI`` client to use; without one it is made from ``api_key``
    and ``base_url`` (default: the ``OPENAI_API_KEY`` and ``OPENAI_BASE_URL`` environment
    variables). ``model`` defaults to ``EDITBLOCKS_MODEL``. ``request_options`` are passed to
    the chat-completions call (e.g. ``{"temperature": 0}``). ``on_event`` sees everything as it
    happens (:data:`RunEvent`), for a live display. ``allow_delete=False`` fails the blocks that
    delete or move files (``patch``, ``udiff``) instead of applying them; the model is told why.

    Raises :class:`RunError` when the ``openai`` library, the key or the model is missing, and
    :class:`editblocks.workspace.WorkspaceError` when a file cannot be read for the prompt. An
    error of the endpoint, or Ctrl-C, ends the loop: the summary says so, and the reply being
    received then is not written.
    """
    model = model or os.environ.get(MODEL_ENV)
    if not model:
        raise RunError(MISSING_MODEL)
    if client is None:
        client = make_client(api_key, base_url)
    shown_url = str(getattr(client, "base_url", "") or base_url or "") or None
    emit = on_event or (lambda event: None)
    messages = build_messages(format, request, files=list(files), read_only=list(read_only), summaries=summaries, root=root)
    summary = RunSummary(request=request, model=model, dry_run=dry_run, max_retries=max_retries, messages=messages)
    carried: list[EditBlock] = []  # dry run: the blocks earlier replies applied in memory
    stream_options = {
        "root": root,
        "format": format,
        "dry_run": dry_run,
        "match": match,
        "continue_after_failure": continue_after_failure,
        "allow_delete": allow_delete,
    }

    try:
        for number in range(1, max(max_retries, 0) + 2):
            round_ = Round(number)
            summary.rounds.append(round_)
            emit(RoundStarted(number, list(messages)))
            error = _one_round(round_, client, model, messages, request_options or {}, carried, emit, stream_options)
            if error is not None:
                summary.error = _round_error(error, shown_url)
                break
            result = round_.result
            assert result is not None
            messages.append({"role": "assistant", "content": round_.reply})
            if dry_run:
                carried += [r.block for r in result.results if r.status is EditStatus.APPLIED]
            emit(RoundFinished(number, result, round_.usage))
            if round_.interrupted:
                summary.interrupted = True
                break
            feedback = result.feedback_message() if result.results else ""
            if not feedback or number > max_retries:
                break
            round_.feedback = feedback
            messages.append({"role": "user", "content": feedback})
            emit(FeedbackSent(number, feedback))
    except KeyboardInterrupt:
        summary.interrupted = True
    return summary


def _one_round(
    round_: Round,
    client: Any,
    model: str,
    messages: list[dict[str, str]],
    request_options: Mapping[str, Any],
    carried: list[EditBlock],
    emit: Callable[[RunEvent], Any],
    stream_options: Mapping[str, Any],
) -> BaseException | None:
    """Ask for one reply and apply it while it arrives; fills ``round_``. Returns the error that
    cut the reply short (nothing of it written then); Ctrl-C propagates, also writing nothing."""
    reply: _ReplyStream | None = None
    parts: list[str] = []
    try:
        with ApplyStream(**stream_options) as stream:
            if carried:
                stream.replay(carried)
            reply = _ReplyStream(client, model, messages, request_options)
            for text in reply:
                parts.append(text)
                emit(ReplyChunk(round_.number, text))
                for event in stream.feed(text):
                    emit(event)
            for event in stream.close():
                emit(event)
            round_.result = stream.write()
            round_.interrupted = stream.interrupted
    except Exception as exc:
        if not _is_round_error(exc):
            raise
        return exc
    finally:
        round_.reply = "".join(parts)
        if reply is not None:
            reply.close()
            round_.usage = reply.usage
            round_.finish_reason = reply.finish_reason
    return None


def _is_round_error(exc: BaseException) -> bool:
    """An error of the endpoint or the connection, or a reply that cannot be applied."""
    from .workspace import WorkspaceError

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
    from .workspace import WorkspaceError

    if isinstance(exc, WorkspaceError):
        return f"the reply could not be applied: {exc}"
    return describe_error(exc, base_url)


__all__ = [
    "API_KEY_ENV",
    "BASE_URL_ENV",
    "MODEL_ENV",
    "FeedbackSent",
    "ReplyChunk",
    "Round",
    "RoundFinished",
    "RoundStarted",
    "RunError",
    "RunEvent",
    "RunSummary",
    "Usage",
    "describe_error",
    "make_client",
    "run_request",
]
