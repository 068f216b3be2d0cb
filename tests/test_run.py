"""``editblocks run`` and :func:`editblocks.run_request`: the real ``openai`` client against a real
chat-completions server on 127.0.0.1 that replays scripted replies (see ``chat_server.py``)."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

import editblocks
from editblocks import BlockApplied, RunError, run_request
from editblocks.cli import main
from editblocks.run import ReplyChunk, RoundFinished, make_client

from .chat_server import ChatServer, Scripted
from .helpers import default_sigint, read_tree, write_tree
from .test_incremental import _Lines

FENCE = "```"
SOURCE = "def total(items):\n    return sum(items)\n\n\ndef mean(items):\n    return total(items) / len(items)\n"


def block(path: str, search: str, replace: str) -> str:
    return f"{path}\n{FENCE}python\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n{FENCE}\n"


GOOD = block("stats.py", "def total(items):\n    return sum(items)\n", "def total(items):\n    return sum(items, 0)\n")
STALE = block(  # the model misremembers the file: 'len(values)' is nowhere in it
    "stats.py",
    "def mean(items):\n    return total(items) / len(values)\n",
    "def mean(items):\n    return total(items) / max(len(items), 1)\n",
)
FIXED = block(
    "stats.py",
    "def mean(items):\n    return total(items) / len(items)\n",
    "def mean(items):\n    return total(items) / max(len(items), 1)\n",
)
FIRST = "I'll make both functions safer.\n\n" + GOOD + "\n" + STALE + "\nThen run:\n\n```bash\npytest -q\n```\n"
SECOND = "Sorry, here is the corrected block.\n\n" + FIXED
EXPECTED = SOURCE.replace("sum(items)", "sum(items, 0)").replace("/ len(items)", "/ max(len(items), 1)")


@pytest.fixture(scope="module")
def chat() -> Iterator[ChatServer]:
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
    return root


def pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), env={"COLUMNS": "200"})
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, " ".join(result.output.split())


# -- the loop ----------------------------------------------------------------------------------------


def test_a_failed_block_is_sent_back_and_the_correction_applied(project: Path, chat: ChatServer) -> None:
    chat.script(Scripted(pieces(FIRST, 9)), Scripted(pieces(SECOND, 9), prompt_tokens=300, completion_tokens=30))
    events: list[object] = []
    expected_messages = editblocks.build_messages(
        "diff", "Make the stats helpers safe.", files=["stats.py"], root=project
    )
    summary = run_request(
        "Make the stats helpers safe.", ["stats.py"], root=project, model="scripted", on_event=events.append
    )

    assert (project / "stats.py").read_text() == EXPECTED
    assert summary.ok, summary.to_dict()
    assert [len(summary.applied), len(summary.failed), len(summary.skipped)] == [2, 0, 0]
    assert summary.files_changed == ["stats.py"]
    assert summary.shell_suggestions == ["pytest -q"]
    assert summary.usage is not None and summary.usage_complete
    assert (summary.usage.prompt_tokens, summary.usage.completion_tokens, summary.usage.total_tokens) == (400, 50, 450)

    # The first request is build_messages' conversation, streamed with usage asked for.
    assert len(chat.requests) == 2
    first, second = chat.requests
    assert first["messages"] == expected_messages
    assert first["model"] == "scripted" and first["stream"] is True
    assert first["stream_options"] == {"include_usage": True}
    assert chat.headers[0]["authorization"] == "Bearer test-key"
    # The second carries the reply and then the feedback message for the failed block.
    feedback = summary.rounds[0].feedback
    assert "1 of 2 edit blocks failed" in feedback and "len(values)" in feedback
    assert "return total(items) / len(items)" in feedback  # the file's actual lines to copy
    assert second["messages"][: len(expected_messages)] == expected_messages
    assert second["messages"][-2:] == [{"role": "assistant", "content": FIRST}, {"role": "user", "content": feedback}]

    # Each block's status was known while its reply was still arriving.
    kinds = [(type(e).__name__, getattr(e, "round", None)) for e in events]
    first_applied = next(i for i, e in enumerate(events) if isinstance(e, BlockApplied))
    last_chunk_of_first = max(i for i, e in enumerate(events) if isinstance(e, ReplyChunk) and e.round == 1)
    assert first_applied < last_chunk_of_first, kinds
    assert [e.result.ok for e in events if isinstance(e, RoundFinished)] == [False, True]


def test_cli_run_shows_blocks_live_and_a_summary(project: Path, chat: ChatServer) -> None:
    chat.script(Scripted(pieces(FIRST, 7)), Scripted(pieces(SECOND, 7)))
    code, out = cli("run", "Make the stats helpers safe.", "stats.py", "--root", str(project), "--model", "scripted")
    assert code == 0, out
    assert (project / "stats.py").read_text() == EXPECTED
    assert "==> block 1 stats.py: ready" in out
    assert "==> block 2 stats.py: failed" in out
    assert "retry 1 of 3" in out
    assert out.index("==> block 1 stats.py: ready") < out.index("Then run:")  # before the reply went on
    # "written" once the reply has ended and its files are written, not before.
    assert out.index("Then run:") < out.index("==> block 1 stats.py: written") < out.index("retry 1 of 3")
    assert "stats.py: applied" not in out
    assert "blocks: 2 applied, 0 failed, 0 skipped" in out
    assert "tokens used: 240 (prompt 200, completion 40)" in out
    assert "files changed: stats.py" in out
    assert "not run" in out and "$ pytest -q" in out
    # Each reply was recorded for undo: undo twice restores the file.
    assert editblocks.undo(project).entry is not None
    editblocks.undo(project)
    assert (project / "stats.py").read_text() == SOURCE


def test_markers_split_across_chunks(project: Path, chat: ChatServer) -> None:
    reply = GOOD + FIXED
    markers = ("<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE", FENCE)
    cuts = sorted({m.start() + k for marker in markers for m in re.finditer(re.escape(marker), reply) for k in (2, 9)})
    parts = [reply[a:b] for a, b in zip([0, *cuts], [*cuts, len(reply)])]
    assert any(p.endswith("\n<<") for p in parts) and any(p.startswith("=====") for p in parts)
    assert any(p.startswith("EARCH") for p in parts) and any(p.startswith("EPLACE") for p in parts)
    chat.script(Scripted(parts), Scripted(pieces(reply, 1)))
    summary = run_request("Make it safe.", ["stats.py"], root=project, model="scripted", max_retries=0)
    assert summary.ok and len(summary.applied) == 2
    assert (project / "stats.py").read_text() == EXPECTED
    # The same reply one character at a time: both blocks are now already applied.
    again = run_request("Make it safe.", ["stats.py"], root=project, model="scripted", max_retries=0)
    assert again.ok and len(again.already_applied) == 2
    assert (project / "stats.py").read_text() == EXPECTED


def test_retries_exhausted(project: Path, chat: ChatServer) -> None:
    chat.script(FIRST, "Here it is again.\n\n" + STALE)
    code, out = cli(
        "run", "Make it safe.", "stats.py", "--root", str(project), "--model", "scripted", "--max-retries", "1"
    )
    assert code == 1, out
    assert len(chat.requests) == 2
    assert "blocks: 1 applied, 1 failed, 0 skipped" in out
    assert "still not applied: stats.py" in out and "SEARCH text not found" in out
    assert "gave up after 1 retry (--max-retries)" in out
    # The block that applied was written; the stale one changed nothing.
    assert (project / "stats.py").read_text() == SOURCE.replace("sum(items)", "sum(items, 0)")


def test_dry_run_writes_nothing_and_checks_corrections_against_the_earlier_blocks(
    project: Path, chat: ChatServer
) -> None:
    before = read_tree(project)
    # The correction only matches once the first reply's block is applied: 'sum(items, 0)'.
    fix = block(
        "stats.py",
        "    return sum(items, 0)\n\n\ndef mean(items):\n    return total(items) / len(items)\n",
        "    return sum(items, 0)\n\n\ndef mean(items):\n    return total(items) / max(len(items), 1)\n",
    )
    chat.script(FIRST, fix)
    code, out = cli("run", "Make it safe.", "stats.py", "--root", str(project), "--model", "scripted", "--dry-run")
    assert code == 0, out
    assert read_tree(project) == before
    assert not (project / ".editblocks").exists()
    assert "blocks: 2 applied, 0 failed, 0 skipped" in out
    assert "files that would change (dry run, nothing written): stats.py" in out
    assert "+ return sum(items, 0)" in out and "+ return total(items) / max(len(items), 1)" in out


def test_server_error_gives_a_clear_message_and_touches_nothing(project: Path, chat: ChatServer) -> None:
    before = read_tree(project)
    chat.script(Scripted(status=500))
    code, out = cli("run", "Make it safe.", "stats.py", "--root", str(project), "--model", "scripted")
    assert code == 3, out
    assert "error: the model endpoint at" in out and "answered HTTP 500" in out
    assert "the scripted server failed on purpose" in out
    assert "nothing was written" in out
    assert read_tree(project) == before


def test_a_reply_broken_off_after_a_complete_block_writes_nothing(project: Path, chat: ChatServer) -> None:
    before = read_tree(project)
    chat.script(Scripted(pieces(FIRST, 20), error_after=len(FIRST) // 20 - 2))
    summary = run_request(
        "Make it safe.", ["stats.py"], root=project, model="scripted", client=make_client(max_retries=0)
    )
    assert summary.error is not None and "broke off the reply" in summary.error
    assert not summary.ok and summary.rounds[0].result is None
    assert "<<<<<<< SEARCH" in summary.rounds[0].reply  # a block had arrived whole ...
    assert read_tree(project) == before  # ... and was not written


def test_usage_unknown_when_the_endpoint_does_not_report_it(project: Path, chat: ChatServer) -> None:
    chat.script(Scripted([GOOD], usage=False))
    code, out = cli("run", "Make it safe.", "stats.py", "--root", str(project), "--model", "scripted", "--json")
    assert code == 0, out
    data = json.loads(out)
    assert data["tokens"] is None and len(data["applied"]) == 1 and data["files_changed"] == ["stats.py"]
    chat.script(Scripted([FIXED], usage=False))
    code, out = cli("run", "Make it safe.", "stats.py", "--root", str(project), "--model", "scripted")
    assert "tokens used: unknown" in out


def test_a_reply_without_blocks(project: Path, chat: ChatServer) -> None:
    chat.script("Which function do you mean?")
    code, out = cli(
        "run", "Make it safe.", "stats.py", "--root", str(project), "--model", "scripted", "--max-retries", "0"
    )
    assert code == 1
    assert "the model's reply had no edit blocks" in out
    assert len(chat.requests) == 1


# -- --no-delete ---------------------------------------------------------------------------------------


DELETE_README = (
    "The readme is out of date; I'll remove it.\n\n*** Begin Patch\n*** Delete File: README.md\n*** End Patch\n"
)
REFUSED = "deleting files is not allowed in this apply (no-delete); README.md is left where it is"


def test_no_delete_refuses_a_deletion_and_tells_the_model_why(project: Path, chat: ChatServer) -> None:
    chat.script(DELETE_README, "Understood, README.md stays.")
    args = (
        "run",
        "Remove the readme.",
        "README.md",
        "--root",
        str(project),
        "--model",
        "scripted",
        "--format",
        "patch",
    )
    code, out = cli(*args, "--no-delete", "--max-retries", "1")
    assert code == 1, out
    assert (project / "README.md").read_text() == "Stats helpers.\n"
    assert "==> block 1 README.md: failed" in out
    assert "still not applied: README.md" in out and REFUSED in out
    # The correction request tells the model why its block was refused.
    assert len(chat.requests) == 2
    assert REFUSED in chat.requests[1]["messages"][-1]["content"]
    # Without --no-delete the same reply deletes the file.
    chat.script(DELETE_README)
    code, out = cli(*args)
    assert code == 0, out
    assert not (project / "README.md").exists()


# -- configuration errors -----------------------------------------------------------------------------


def test_missing_api_key(project: Path, chat: ChatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    chat.script(GOOD)
    code, out = cli("run", "Make it safe.", "stats.py", "--root", str(project), "--model", "scripted")
    assert code == 2
    assert "no API key: set OPENAI_API_KEY" in out
    with pytest.raises(RunError, match="OPENAI_API_KEY"):
        run_request("Make it safe.", ["stats.py"], root=project, model="scripted")
    assert chat.requests == []
    # --api-key stands in for the variable.
    code, out = cli(
        "run", "Make it safe.", "stats.py", "--root", str(project), "--model", "scripted", "--api-key", "k2"
    )
    assert code == 0, out
    assert chat.headers[0]["authorization"] == "Bearer k2"


def test_missing_model_and_missing_library(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, out = cli("run", "Make it safe.", "stats.py", "--root", str(project))
    assert code == 2 and "--model NAME" in out and "EDITBLOCKS_MODEL" in out
    monkeypatch.setitem(sys.modules, "openai", None)  # as if the run extra were not installed
    code, out = cli("run", "Make it safe.", "stats.py", "--root", str(project), "--model", "scripted")
    assert code == 2 and "pip install 'editblocks[run]'" in out


def test_base_url_option_overrides_the_variable(
    project: Path, chat: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens there
    chat.script(GOOD)
    code, out = cli(
        "run", "Make it safe.", "stats.py", "--root", str(project), "--model", "scripted", "--base-url", chat.url
    )
    assert code == 0, out
    assert len(chat.requests) == 1


# -- Ctrl-C and the review page -------------------------------------------------------------------------


def _spawn(project: Path, chat: ChatServer, *args: str, stderr: int = subprocess.STDOUT) -> subprocess.Popen[bytes]:
    env = dict(
        os.environ, OPENAI_API_KEY="test-key", OPENAI_BASE_URL=chat.url, COLUMNS="200", EDITBLOCKS_NO_BROWSER="1"
    )
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "editblocks",
            "run",
            "Make it safe.",
            "stats.py",
            "--root",
            str(project),
            "--model",
            "scripted",
            *args,
        ],
        stdout=subprocess.PIPE,
        stderr=stderr,
        env=env,
        preexec_fn=default_sigint,
    )


def test_ctrl_c_stops_cleanly_and_writes_nothing_of_the_reply(project: Path, chat: ChatServer) -> None:
    before = read_tree(project)
    # The good block arrives at once; the rest trickles in for a long time.
    chat.script(Scripted([GOOD, *pieces(STALE, 2)], delay=0.2))
    proc = _spawn(project, chat)
    try:
        out = _Lines(proc.stdout)
        out.wait_for("==> block 1 stats.py: ready")
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=20)
        rest = " ".join(out.rest())
    finally:
        proc.kill()
        proc.wait()
    assert code == 130, rest
    assert "stopped (Ctrl-C): the reply being received was not applied" in rest
    assert "Traceback" not in rest
    assert read_tree(project) == before


def test_review_streams_the_reply_into_the_browser_view(project: Path, chat: ChatServer) -> None:
    before = read_tree(project)
    chat.script(Scripted(pieces(FIRST, 50)))
    port = _free_port()
    proc = _spawn(project, chat, "--review", "--port", str(port))
    try:
        out = _Lines(proc.stdout)
        line = out.wait_for("Review and apply the blocks at")
        link = line.split(" at ", 1)[1].split()[0]
        url, token = link.split("?token=")
        assert url == f"http://127.0.0.1:{port}/" and len(token) >= 32
        state = _get_json(link, "api/state")
        assert state["live"]["done"] is True
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=20)
    finally:
        proc.kill()
        proc.wait()
    assert code == 1  # block 2 of the reply would fail
    text = " ".join(out.lines)
    assert "==> block 1 stats.py: ready" in text and "==> block 2 stats.py: failed" in text
    assert len(chat.requests) == 1  # no retries: the person applies from the page
    assert read_tree(project) == before


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get_json(link: str, path: str) -> dict:
    """GET ``path`` of the review page whose printed link (with its token) is ``link``."""
    url, token = link.split("?token=")
    request = urllib.request.Request(url + path, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def _post_json(link: str, path: str, data: dict) -> dict:
    url, token = link.split("?token=")
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
    request = urllib.request.Request(url + path, json.dumps(data).encode(), headers)
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def test_review_with_no_delete_refuses_the_deletion_on_the_page_too(project: Path, chat: ChatServer) -> None:
    chat.script(DELETE_README)
    proc = _spawn(project, chat, "--review", "--no-delete", "--format", "patch", "--json", stderr=subprocess.PIPE)
    try:
        out, err = _Lines(proc.stdout), _Lines(proc.stderr)
        line = err.wait_for("Review and apply the blocks at")  # with --json, standard output is the summary alone
        link = line.split(" at ", 1)[1].split()[0]
        view = _get_json(link, "api/reviews/live")
        [shown] = view["blocks"]
        assert (shown["status"], shown["reason"]) == ("failed", REFUSED)
        # Pressing Apply on the page does not delete the file either.
        applied = _post_json(link, "api/reviews/live/apply", {"all": True})
        assert applied["applied"]["counts"] == {"applied": 0, "failed": 1, "skipped": 0, "already_applied": 0}
        assert (project / "README.md").read_text() == "Stats helpers.\n"
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=20)
    finally:
        proc.kill()
        proc.wait()
    assert code == 1, err.lines
    summary = json.loads("\n".join(out.rest()))
    assert [(f["file_path"], f["reason"]) for f in summary["failed"]] == [("README.md", REFUSED)]


def test_review_refuses_the_options_it_would_ignore(
    project: Path, chat: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_page(*args: object, **kwargs: object) -> None:
        raise AssertionError("the review page was started")

    monkeypatch.setattr("editblocks.web.server.ReviewServer", no_page)
    chat.script(GOOD)
    base = ("run", "Make it safe.", "stats.py", "--root", str(project), "--model", "scripted", "--review")
    code, out = cli(*base, "--dry-run")
    assert code == 2 and "--review cannot be combined with --dry-run" in out
    code, out = cli(*base, "--max-retries", "2", "--dry-run")
    assert code == 2 and "--review cannot be combined with --max-retries, --dry-run" in out
    code, out = cli(*base[:-1], "--port", "8123")
    assert code == 2 and "--port is the review page's port: use it with --review" in out
    assert chat.requests == []  # refused before asking the model


def test_a_reply_that_ends_inside_a_block_is_not_done(project: Path, chat: ChatServer) -> None:
    """The reply is cut inside its second block: the complete block is written, the model is asked
    for the cut one, and when it never completes the run is not a success."""
    cut = GOOD + "\n" + FIXED[: FIXED.index("=======") + 8]
    chat.script(Scripted(pieces(cut, 9)), Scripted(pieces(cut, 9)))
    summary = run_request("Make the stats helpers safe.", ["stats.py"], root=project, model="scripted", max_retries=1)
    assert summary.truncated and not summary.ok and summary.to_dict()["truncated"] is True
    assert "could not be read" in (summary.rounds[0].feedback or "")
    assert len(chat.requests) == 2
    assert "sum(items, 0)" in (project / "stats.py").read_text()
