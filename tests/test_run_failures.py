"""``editblocks run`` when the endpoint or its stream misbehaves, when a reply is cut off at the
output limit, comes in another format or has no blocks: the real ``openai`` client against a real
chat-completions server on 127.0.0.1 scripted per test (see ``chat_server.py``)."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from editblocks import run_request
from editblocks.cli import main
from editblocks.run import ContinuationSent, arun_request, make_client

from .chat_server import ChatServer, Scripted
from .helpers import read_tree, write_tree
from .test_run import EXPECTED, FIXED, GOOD, SOURCE, block, cli, pieces

CUT_IN_SECOND = GOOD + "\n" + FIXED[: FIXED.index("=======") + 8]
"""The first block whole, the second cut inside its REPLACE part."""
UDIFF = (
    "Here is the change as a diff.\n\n```diff\n--- a/stats.py\n+++ b/stats.py\n@@ -1,2 +1,2 @@\n"
    " def total(items):\n-    return sum(items)\n+    return sum(items, 0)\n```\n"
)


@pytest.fixture
def chat() -> Iterator[ChatServer]:
    # One server per test: a request the client retries after a test's stall must not take the
    # next test's scripted reply.
    server = ChatServer().start()
    yield server
    server.stop()


@pytest.fixture
def project(tmp_path: Path, chat: ChatServer, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    write_tree(root, {"stats.py": SOURCE, "README.md": "Stats helpers.\n"})
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", chat.url)
    monkeypatch.delenv("EDITBLOCKS_MODEL", raising=False)
    monkeypatch.delenv("OPENAI_MODEL", raising=False)
    return root


def run_json(project: Path, *args: str) -> tuple[int, dict[str, Any]]:
    """``editblocks run --json`` on stats.py; its standard output must be one JSON document."""
    args = ("run", "Make it safe.", "stats.py", "--root", str(project), "--model", "scripted", "--json", *args)
    result = CliRunner().invoke(main, list(args), env={"COLUMNS": "200"})
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    code, out = result.exit_code, result.stdout
    try:
        data = json.loads(out)
    except json.JSONDecodeError:
        pytest.fail(f"--json printed no JSON (exit {code}): {out}")
    return code, data


# -- the endpoint and its stream fail: exit 3, an error in the summary, nothing written --------------


def test_a_connection_cut_mid_reply_says_the_reply_was_cut_off(project: Path, chat: ChatServer) -> None:
    before = read_tree(project)
    parts = [GOOD, *pieces(FIXED, 20)]
    chat.script(Scripted(parts, cut_after=3))
    code, data = run_json(project)
    assert code == 3, data
    error = data["error"]
    assert "cannot reach" not in error
    assert "broke in the middle of the reply" in error
    assert "cut off after 1 complete block" in error and "nothing of it was written" in error
    assert data["ok"] is False and data["applied"] == [] and data["files_changed"] == []
    assert read_tree(project) == before

    # Live, the complete block is "ready", never "applied" or "written".
    chat.script(Scripted(parts, cut_after=3))
    code, out = cli("run", "Make it safe.", "stats.py", "--root", str(project), "--model", "scripted")
    assert code == 3, out
    assert "==> block 1 stats.py: ready" in out
    assert "stats.py: applied" not in out and "stats.py: written" not in out
    assert "error: the connection to the model endpoint" in out and "nothing was written" in out
    assert read_tree(project) == before


def test_a_malformed_stream_event_is_an_endpoint_failure(project: Path, chat: ChatServer) -> None:
    before = read_tree(project)
    chat.script(Scripted([GOOD, *pieces(FIXED, 20)], malformed_after=2))
    code, data = run_json(project)
    assert code == 3, data
    assert "sent a malformed stream event" in data["error"]
    assert "cut off after 1 complete block" in data["error"]
    assert data["requests"] == 1 and data["ok"] is False
    assert read_tree(project) == before

    # From Python: no exception, the summary says what happened.
    chat.script(Scripted([GOOD, FIXED], malformed_after=1))
    summary = run_request("Make it safe.", ["stats.py"], root=project, model="scripted")
    assert summary.error is not None and "malformed stream event" in summary.error
    assert summary.rounds[0].result is None
    assert read_tree(project) == before


def test_a_stream_event_with_fields_of_the_wrong_type_is_an_endpoint_failure(project: Path, chat: ChatServer) -> None:
    """Valid JSON, wrong types: content that is a number, token counts that are not numbers."""
    before = read_tree(project)
    chat.script(Scripted([GOOD, *pieces(FIXED, 20)], mistyped_after=2))
    code, data = run_json(project)
    assert code == 3, data
    assert "malformed stream event" in data["error"] and "content is int" in data["error"]
    assert read_tree(project) == before
    # Token counts that are not numbers, as the client hands them over.
    from types import SimpleNamespace

    from editblocks.run import _parse_chunk, _StreamFailure

    with pytest.raises(_StreamFailure, match="wrong type"):
        _parse_chunk(
            SimpleNamespace(usage=SimpleNamespace(prompt_tokens="a", completion_tokens=1, total_tokens=2), choices=[])
        )


def test_a_429_is_retried_by_the_client_and_the_reply_applied(project: Path, chat: ChatServer) -> None:
    chat.script(Scripted(status=429, once=True, headers={"retry-after-ms": "20"}), Scripted([GOOD]))
    code, data = run_json(project)
    assert code == 0, data
    assert len(chat.requests) == 2  # the 429, then the same request again
    assert chat.requests[0]["messages"] == chat.requests[1]["messages"]
    assert data["ok"] is True and data["error"] is None and len(data["applied"]) == 1
    assert (project / "stats.py").read_text() == SOURCE.replace("sum(items)", "sum(items, 0)")


def test_a_server_error_is_exit_3_with_a_json_summary(project: Path, chat: ChatServer) -> None:
    before = read_tree(project)
    chat.script(Scripted(status=500))
    code, data = run_json(project)
    assert code == 3, data
    assert "answered HTTP 500" in data["error"] and "failed on purpose" in data["error"]
    assert data["applied"] == [] and data["failed"] == [] and data["diffs"] == {}
    assert data["requests"] == 1 and data["rounds"][0]["written"] is False
    assert read_tree(project) == before


def test_a_stalled_stream_ends_at_the_timeout(project: Path, chat: ChatServer) -> None:
    before = read_tree(project)
    chat.script(Scripted([GOOD, FIXED], stall_after=1, stall=6))
    started = time.monotonic()
    code, data = run_json(project, "--timeout", "1")
    took = time.monotonic() - started
    assert code == 3, data
    assert took < 5, took
    assert "sent nothing for 1 s" in data["error"] and "--timeout" in data["error"]
    assert "cut off after 1 complete block" in data["error"]
    assert read_tree(project) == before


def test_an_endpoint_that_never_answers_ends_at_the_timeout(project: Path, chat: ChatServer) -> None:
    before = read_tree(project)
    chat.script(Scripted([GOOD], wait=6))
    started = time.monotonic()
    summary = run_request(
        "Make it safe.", ["stats.py"], root=project, model="scripted", client=make_client(max_retries=0), timeout=1
    )
    assert time.monotonic() - started < 4
    assert summary.error is not None and "did not answer in time (within 1 s, --timeout)" in summary.error
    assert read_tree(project) == before


def test_the_cancel_hook_stops_a_stalled_stream_at_once(project: Path, chat: ChatServer) -> None:
    before = read_tree(project)
    chat.script(Scripted([GOOD, FIXED], stall_after=1, stall=6))
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    started = time.monotonic()
    summary = run_request("Make it safe.", ["stats.py"], root=project, model="scripted", cancel=cancel)
    assert time.monotonic() - started < 3
    assert summary.cancelled and summary.interrupted and not summary.ok
    assert summary.to_dict()["cancelled"] is True
    assert read_tree(project) == before
    # A callable works too.
    chat.script(Scripted([GOOD]))
    summary = run_request("Make it safe.", ["stats.py"], root=project, model="scripted", cancel=lambda: True)
    assert summary.cancelled and summary.blocks == 0
    assert read_tree(project) == before


# -- a reply cut off at the output limit -------------------------------------------------------------


def test_a_reply_cut_at_the_output_limit_is_continued_then_written(project: Path, chat: ChatServer) -> None:
    chat.script(Scripted(pieces(CUT_IN_SECOND, 9), finish_reason="length"), Scripted(pieces(FIXED, 9)))
    on_disk_when_continued: list[str] = []

    def on_event(event: object) -> None:
        if isinstance(event, ContinuationSent):
            on_disk_when_continued.append((project / "stats.py").read_text())

    summary = run_request("Make it safe.", ["stats.py"], root=project, model="scripted", on_event=on_event)
    assert summary.ok, summary.to_dict()
    assert on_disk_when_continued == [SOURCE]  # nothing of the cut reply was written
    assert (project / "stats.py").read_text() == EXPECTED
    assert len(summary.applied) == 2 and summary.continuations == 1 and summary.retries == 0

    # The continuation request: the reply up to its last complete block, then the request to go on.
    assert len(chat.requests) == 2
    *_, kept, ask = chat.requests[1]["messages"]
    assert kept == {"role": "assistant", "content": GOOD}
    assert (
        ask["role"] == "user" and "cut off" in ask["content"] and "last complete edit block (block 1)" in ask["content"]
    )
    # The conversation keeps the joined reply.
    assert summary.messages[-1] == {"role": "assistant", "content": GOOD + FIXED}

    # From the command line: exit 0 and the JSON says one continuation.
    (project / "stats.py").write_text(SOURCE)
    chat.script(Scripted([CUT_IN_SECOND], finish_reason="length"), Scripted([FIXED]))
    code, data = run_json(project)
    assert code == 0, data
    assert data["continuations"] == 1 and len(data["applied"]) == 2 and data["truncated"] is False
    assert [r["finish_reason"] for r in data["rounds"]] == ["length", "stop"]
    assert (project / "stats.py").read_text() == EXPECTED


def test_a_reply_that_never_completes_writes_nothing_and_exits_1(project: Path, chat: ChatServer) -> None:
    before = read_tree(project)
    chat.script(*[Scripted([CUT_IN_SECOND], finish_reason="length") for _ in range(3)])
    code, data = run_json(project, "--max-retries", "2")
    assert code == 1, data
    assert len(chat.requests) == 3 and data["continuations"] == 2
    assert data["ok"] is False and data["truncated"] is True and data["cut_off"] is True
    assert data["error"] is None and data["applied"] == [] and data["files_changed"] == []
    assert read_tree(project) == before

    chat.script(*[Scripted([CUT_IN_SECOND], finish_reason="length") for _ in range(2)])
    code, out = cli(
        "run", "Make it safe.", "stats.py", "--root", str(project), "--model", "scripted", "--max-retries", "1"
    )
    assert code == 1, out
    assert "cut off at the model's output limit" in out and "never completed" in out
    assert "stats.py: written" not in out
    assert read_tree(project) == before


# -- replies in another format, or without blocks -----------------------------------------------------


def test_a_reply_in_another_format_is_applied(project: Path, chat: ChatServer) -> None:
    chat.script(UDIFF)
    code, data = run_json(project, "--format", "diff", "--max-retries", "0")
    assert code == 0, data
    assert [r["file_path"] for r in data["applied"]] == ["stats.py"]
    assert "+    return sum(items, 0)" in data["diffs"]["stats.py"]
    assert (project / "stats.py").read_text() == SOURCE.replace("sum(items)", "sum(items, 0)")


def test_a_reply_without_blocks_gets_the_format_back(project: Path, chat: ChatServer) -> None:
    chat.script("Sure, I would make total() start from 0.", GOOD)
    code, data = run_json(project)
    assert code == 0, data
    assert len(chat.requests) == 2
    *_, reply, feedback = chat.requests[1]["messages"]
    assert reply == {"role": "assistant", "content": "Sure, I would make total() start from 0."}
    assert feedback["role"] == "user"
    assert "no edit blocks" in feedback["content"] and "diff format" in feedback["content"]
    assert "<<<<<<< SEARCH" in feedback["content"] and ">>>>>>> REPLACE" in feedback["content"]  # the example
    assert data["retries"] == 1 and data["rounds"][0]["feedback"] == feedback["content"]
    assert (project / "stats.py").read_text() == SOURCE.replace("sum(items)", "sum(items, 0)")


# -- feedback -------------------------------------------------------------------------------------------


TWICE = "def a():\n    x = 1\n    return x\n\n\ndef b():\n    x = 1\n    return x\n\n\ndef c():\n    return 3\n"


def test_ambiguous_block_feedback_shows_the_candidates_and_the_changed_lines(project: Path, chat: ChatServer) -> None:
    (project / "twice.py").write_text(TWICE)
    first = (
        block("twice.py", "def c():\n    return 3\n", "def c():\n    return 4\n")
        + "\n"
        + block("twice.py", "    x = 1\n    return x\n", "    x = 2\n    return x\n")
    )
    fix = block("twice.py", "def b():\n    x = 1\n", "def b():\n    x = 2\n")
    chat.script(first, fix)
    code, out = cli("run", "Change b.", "twice.py", "--root", str(project), "--model", "scripted", "--json")
    assert code == 0, out
    feedback = chat.requests[1]["messages"][-1]["content"]
    assert "ambiguous" in feedback
    # Each candidate place with its current, numbered lines.
    assert "The file's lines at line 2 (current, numbered):" in feedback
    assert "The file's lines at line 7 (current, numbered):" in feedback
    assert "6 | def b():" in feedback and "7 |     x = 1" in feedback and "1 | def a():" in feedback
    # The region block 1 changed, as it is now.
    assert "Block 1 changed twice.py at line 11" in feedback and "12 |     return 4" in feedback
    assert (project / "twice.py").read_text() == TWICE.replace("def b():\n    x = 1", "def b():\n    x = 2").replace(
        "return 3", "return 4"
    )


# -- the model, the async API, the JSON -----------------------------------------------------------


def test_openai_model_is_used_when_no_other_model_is_given(
    project: Path, chat: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_MODEL", "from-openai-model")
    chat.script(GOOD)
    code, out = cli("run", "Make it safe.", "stats.py", "--root", str(project), "--json")
    assert code == 0, out
    assert chat.requests[0]["model"] == "from-openai-model" and json.loads(out)["model"] == "from-openai-model"
    monkeypatch.setenv("EDITBLOCKS_MODEL", "from-editblocks-model")
    chat.script(FIXED)
    code, out = cli("run", "Make it safe.", "stats.py", "--root", str(project), "--json")
    assert code == 0, out
    assert chat.requests[0]["model"] == "from-editblocks-model"


def test_arun_request_has_the_same_semantics(project: Path, chat: ChatServer) -> None:
    before = read_tree(project)
    chat.script(Scripted([GOOD, FIXED], malformed_after=1))
    summary = asyncio.run(arun_request("Make it safe.", ["stats.py"], root=project, model="scripted"))
    assert summary.error is not None and "malformed stream event" in summary.error
    assert read_tree(project) == before

    chat.script(Scripted(pieces(CUT_IN_SECOND, 9), finish_reason="length"), Scripted(pieces(FIXED, 9)))
    summary = asyncio.run(arun_request("Make it safe.", ["stats.py"], root=project, model="scripted"))
    assert summary.ok and summary.continuations == 1
    assert (project / "stats.py").read_text() == EXPECTED
    data = summary.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert [r["file_path"] for r in data["applied"]] == ["stats.py", "stats.py"]
    assert "+    return sum(items, 0)" in data["diffs"]["stats.py"]


def test_arun_request_cancel_hook(project: Path, chat: ChatServer) -> None:
    before = read_tree(project)
    chat.script(Scripted([GOOD, FIXED], stall_after=1, stall=6))

    async def go() -> Any:
        cancel = asyncio.Event()
        asyncio.get_running_loop().call_later(0.5, cancel.set)
        return await arun_request("Make it safe.", ["stats.py"], root=project, model="scripted", cancel=cancel)

    started = time.monotonic()
    summary = asyncio.run(go())
    assert time.monotonic() - started < 3
    assert summary.cancelled and not summary.ok
    assert read_tree(project) == before


def test_the_json_summary_has_one_shape(project: Path, chat: ChatServer) -> None:
    from .test_run import FIRST, SECOND

    chat.script(FIRST, SECOND)
    code, data = run_json(project)
    assert code == 0, data
    for key in ("applied", "already_applied", "failed", "skipped", "rounds", "files_changed", "shell_suggestions"):
        assert isinstance(data[key], list), key
    assert [r["status"] for r in data["applied"]] == ["applied", "applied"]
    assert data["diffs"]["stats.py"].startswith("--- a/stats.py")
    assert data["tokens"] == {"prompt": 200, "completion": 40, "total": 240, "complete": True}
    assert [r["number"] for r in data["rounds"]] == [1, 2] and data["rounds"][0]["feedback"]
    client = make_client(max_retries=0)
    assert client is not None
