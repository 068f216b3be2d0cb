"""The MCP server (``editblocks mcp``), driven by the MCP SDK's own client.

The server runs as a subprocess (``python -m editblocks mcp --root DIR``) and the tests talk to
it over standard input and output with ``mcp.client.stdio.stdio_client`` and ``ClientSession``,
and once over the streamable HTTP transport on 127.0.0.1.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from editblocks.cli import main as cli
from editblocks.mcp_server import MAX_READ_LINES, missing_dependency, syntax_available
from editblocks.mcp_server import tools as mcp_tools
from editblocks.mcp_server.tools import ToolFailure

from .helpers import read_tree, sr, write_tree

SDK_MISSING = missing_dependency()
needs_sdk = pytest.mark.skipif(SDK_MISSING is not None, reason=f"MCP server tests skipped: {SDK_MISSING}")
needs_syntax = pytest.mark.skipif(
    not syntax_available(), reason="context and summary need the ast extra: pip install 'editblocks[ast]'"
)

TIMEOUT = 30
PROJECT = {
    "src/app.py": "import os\n\n\nclass App:\n    def run(self):\n        return 'old'\n\n    def stop(self):\n        return None\n",
    "src/util.py": "def helper(x):\n    return x + 1\n",
    "README.txt": "hello\n",
}


# -- a session with the server as a subprocess ---------------------------------------------------


@asynccontextmanager
async def stdio_session(root: Path, log: Path) -> AsyncIterator[Any]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "editblocks", "mcp", "--root", str(root)],
        env={"PYTHONPATH": os.pathsep.join(sys.path)},
        cwd=str(root.parent),
    )
    with open(log, "w", encoding="utf-8") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session


def drive(root: Path, log: Path, scenario: Callable[[Any], Awaitable[None]]) -> None:
    """Start the server on ``root`` and run ``scenario(session)`` against it."""
    import anyio

    async def main() -> None:
        with anyio.fail_after(TIMEOUT):
            async with stdio_session(root, log) as session:
                await scenario(session)

    anyio.run(main)


def text_of(result: Any) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")


async def ok(session: Any, tool: str, arguments: dict[str, Any] | None = None) -> Any:
    result = await session.call_tool(tool, arguments or {})
    assert not result.is_error, text_of(result)
    return result


async def refused(session: Any, tool: str, arguments: dict[str, Any], *expected: str) -> str:
    """Call ``tool`` and expect a tool error whose message contains every ``expected`` text."""
    result = await session.call_tool(tool, arguments)
    message = text_of(result)
    assert result.is_error, f"{tool}({arguments}) should have failed, but answered:\n{message}"
    for part in expected:
        assert part in message, f"{part!r} not in {message!r}"
    return message


@pytest.fixture
def project(root: Path) -> Path:
    files: dict[str, str | bytes] = dict(PROJECT)
    write_tree(root, files)
    (root.parent / "secret.txt").write_text("outside the root\n")
    return root


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return tmp_path / "server-stderr.log"


# -- over stdio --------------------------------------------------------------------------------------


@needs_sdk
def test_tools_are_listed_with_their_schemas(project: Path, log: Path) -> None:
    async def scenario(session: Any) -> None:
        tools = {t.name: t for t in (await session.list_tools()).tools}
        expected = {"apply_edits", "preview", "edit", "undo", "read_file", "formats"}
        if syntax_available():
            expected |= {"context", "summary"}
        assert set(tools) == expected
        apply_schema = tools["apply_edits"].input_schema
        assert apply_schema["required"] == ["reply"]
        props = apply_schema["properties"]
        assert props["reply"]["type"] == "string"
        assert props["dry_run"]["type"] == "boolean" and props["dry_run"]["default"] is False
        assert props["atomic"]["type"] == "boolean"
        format_choices = next(s for s in props["format"]["anyOf"] if s.get("type") == "string")["enum"]
        assert "diff" in format_choices and "edit-v2" in format_choices
        match_choices = next(s for s in props["match"]["anyOf"] if s.get("type") == "string")["enum"]
        assert match_choices == ["exact", "tolerant", "fuzzy", "ast"]
        read_schema = tools["read_file"].input_schema
        assert read_schema["required"] == ["path"]
        assert read_schema["properties"]["start_line"]["minimum"] == 1
        assert tools["read_file"].annotations.read_only_hint is True
        assert tools["apply_edits"].annotations.destructive_hint is True
        assert "number" in tools["read_file"].description
        formats = await ok(session, "formats")
        names = [row["name"] for row in formats.structured_content["formats"]]
        assert names[:2] == ["diff", "diff-fenced"] and "edit-v3" in names
        assert "SEARCH/REPLACE" in text_of(formats)

    drive(project, log, scenario)


@needs_sdk
def test_multi_file_apply_then_undo(project: Path, log: Path) -> None:
    before = read_tree(project)
    reply = (
        "Here are the changes.\n\n"
        + sr("src/app.py", "        return 'old'\n", "        return 'new'\n")
        + "\n"
        + sr("src/util.py", "    return x + 1\n", "    return x + 2\n")
        + "\n"
        + sr("src/new.py", "", "VALUE = 1\n")
    )

    async def scenario(session: Any) -> None:
        result = await ok(session, "apply_edits", {"reply": reply})
        data = result.structured_content
        assert data["ok"] is True
        assert [r["status"] for r in data["results"]] == ["applied", "applied", "applied"]
        assert sorted(data["files_modified"]) == ["src/app.py", "src/new.py", "src/util.py"]
        assert "+        return 'new'" in data["diffs"]["src/app.py"]
        assert "+    return x + 2" in data["diffs"]["src/util.py"]
        assert data["feedback"] == ""
        text = text_of(result)
        assert "3 applied, 0 failed, 0 skipped" in text and "+VALUE = 1" in text
        assert (
            (project / "src/app.py").read_text().endswith("return 'new'\n\n    def stop(self):\n        return None\n")
        )
        assert (project / "src/util.py").read_text() == "def helper(x):\n    return x + 2\n"
        assert (project / "src/new.py").read_text() == "VALUE = 1\n"

        undone = await ok(session, "undo")
        assert sorted(undone.structured_content["restored"]) == ["src/app.py", "src/util.py"]
        assert undone.structured_content["deleted"] == ["src/new.py"]
        assert read_tree(project) == before
        await refused(session, "undo", {}, "nothing to undo")

    drive(project, log, scenario)


@needs_sdk
def test_failed_block_comes_back_with_feedback(project: Path, log: Path) -> None:
    reply = (
        sr("src/util.py", "    return x + 1\n", "    return x * 2\n")
        + "\n"
        + sr("src/app.py", "        return 'stale text'\n", "        return 'new'\n")
    )

    async def scenario(session: Any) -> None:
        preview = await ok(session, "preview", {"reply": reply})
        assert preview.structured_content["dry_run"] is True
        assert preview.structured_content["counts"] == {"applied": 1, "failed": 1, "skipped": 0, "already_applied": 0}
        assert "nothing was written" in text_of(preview)
        assert read_tree(project)["src/util.py"] == PROJECT["src/util.py"].encode()

        result = await ok(session, "apply_edits", {"reply": reply})
        data = result.structured_content
        assert data["ok"] is False
        assert [r["status"] for r in data["results"]] == ["applied", "failed"]
        failed = data["results"][1]
        assert failed["file_path"] == "src/app.py" and failed["reason"]
        feedback = data["feedback"]
        assert "src/app.py" in feedback and "return 'old'" in feedback
        assert "do not send these again" in feedback.lower() or "applied" in feedback.lower()
        text = text_of(result)
        assert "1 applied, 1 failed" in text and feedback.strip() in text
        assert (project / "src/util.py").read_text() == "def helper(x):\n    return x * 2\n"
        assert (project / "src/app.py").read_text() == PROJECT["src/app.py"]

        # The corrected block, copied from the feedback, then applies.
        fixed = sr("src/app.py", "        return 'old'\n", "        return 'new'\n")
        again = await ok(session, "apply_edits", {"reply": fixed, "format": "diff", "match": "exact", "atomic": True})
        assert again.structured_content["ok"] is True

    drive(project, log, scenario)


@needs_sdk
def test_read_file_numbers_lines_for_copying(project: Path, log: Path) -> None:
    write_tree(project, {"crlf.txt": b"one\r\ntwo  \r\n\tthree"})

    async def scenario(session: Any) -> None:
        whole = text_of(await ok(session, "read_file", {"path": "src/app.py"}))
        header, *lines = whole.rstrip("\n").split("\n")
        assert header.startswith("src/app.py: lines 1-9 of 9")
        assert lines[3] == "4\tclass App:"
        assert lines[5] == "6\t        return 'old'"
        part = text_of(await ok(session, "read_file", {"path": "./src/app.py", "start_line": 5, "end_line": 6}))
        assert part.split("\n")[1:3] == ["5\t    def run(self):", "6\t        return 'old'"]
        tail = text_of(await ok(session, "read_file", {"path": "crlf.txt", "start_line": 2}))
        assert tail.split("\n")[1:3] == ["2\ttwo  ", "3\t\tthree"]
        assert "does not end with a newline" in tail
        past_end = {"path": "src/util.py", "end_line": 99}
        assert "lines 1-2 of 2" in text_of(await ok(session, "read_file", past_end))

    drive(project, log, scenario)


@needs_sdk
def test_bad_requests_are_tool_errors_and_the_server_carries_on(project: Path, log: Path) -> None:
    write_tree(project, {"image.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00"})
    try:
        (project / "link.txt").symlink_to(project.parent / "secret.txt")
        linked = True
    except OSError:  # no symbolic links on this system
        linked = False
    before = read_tree(project.parent)

    async def scenario(session: Any) -> None:
        await refused(session, "read_file", {"path": "../secret.txt"}, "'..'", "may not leave the root")
        await refused(
            session, "read_file", {"path": str(project.parent / "secret.txt")}, "absolute file paths are not allowed"
        )
        if linked:
            await refused(session, "read_file", {"path": "link.txt"}, "outside the root")
        await refused(session, "read_file", {"path": "src/missing.py"}, "file not found: src/missing.py")
        await refused(session, "read_file", {"path": "image.png"}, "binary")
        await refused(session, "read_file", {"path": "src"}, "folder")
        await refused(session, "read_file", {"path": ".editblocks/journal.json"}, "not allowed")
        await refused(session, "read_file", {"path": "src/app.py", "start_line": 50}, "past the end", "9 lines")
        await refused(
            session, "read_file", {"path": "src/app.py", "start_line": 0}, "start_line", "greater than or equal to 1"
        )
        await refused(session, "read_file", {"path": "src/app.py", "start_line": 5, "end_line": 2}, "before start_line")
        await refused(session, "read_file", {}, "path", "required")
        await refused(session, "read_file", {"path": ["src/app.py"]}, "path")
        await refused(session, "apply_edits", {"reply": ""}, "the reply is empty")
        await refused(session, "apply_edits", {"reply": "  \n\n "}, "the reply is empty")
        await refused(session, "apply_edits", {"reply": "I would rename the function."}, "no edit blocks found")
        await refused(
            session, "apply_edits", {"reply": "x", "format": "nope"}, "unknown format 'nope'", "diff, diff-fenced"
        )
        await refused(session, "apply_edits", {"reply": "x", "match": "loose"}, "unknown match level 'loose'", "fuzzy")
        await refused(session, "apply_edits", {"reply": 42}, "reply")
        await refused(session, "preview", {}, "reply", "required")
        await refused(session, "no_such_tool", {}, "no_such_tool")

        # A block aimed outside the root fails as a block, with its reason; nothing is written,
        # so the call is an error.
        escape = sr("../secret.txt", "outside the root\n", "changed\n")
        result = await session.call_tool("apply_edits", {"reply": escape})
        assert result.is_error
        assert result.structured_content["results"][0]["status"] == "failed"
        assert "root" in result.structured_content["results"][0]["reason"]

        # Still serving.
        assert "formats" in {t.name for t in (await session.list_tools()).tools}
        await ok(session, "read_file", {"path": "README.txt"})

    drive(project, log, scenario)
    after = read_tree(project.parent)
    assert after == before


@needs_sdk
def test_format_instructions_are_prompts_and_resources(project: Path, log: Path) -> None:
    from editblocks.prompts import system_prompt

    async def scenario(session: Any) -> None:
        prompts = {p.name: p for p in (await session.list_prompts()).prompts}
        for name in ("diff", "diff-fenced", "edit-v2", "edit-v3", "file-sections"):
            assert name in prompts
        assert set(prompts) == set(mcp_tools.prompt_formats())
        assert [a.name for a in prompts["diff"].arguments] == ["request"]
        assert prompts["diff"].arguments[0].required is False

        plain = await session.get_prompt("edit-v2")
        roles = [m.role for m in plain.messages]
        assert roles[0] == "user" and "assistant" in roles and roles[-1] == "assistant"
        assert plain.messages[0].content.text == system_prompt("edit-v2").rstrip("\n")
        assert "<<<<<<< EDIT" in "\n".join(m.content.text for m in plain.messages)

        asked = await session.get_prompt("diff", {"request": "Rename App to Application."})
        assert asked.messages[-1].role == "user"
        assert asked.messages[-1].content.text.startswith("Rename App to Application.")
        assert len(asked.messages) == len((await session.get_prompt("diff")).messages) + 1

        resources = {str(r.uri): r for r in (await session.list_resources()).resources}
        assert "editblocks://formats/diff" in resources
        read = await session.read_resource("editblocks://formats/diff")
        assert read.contents[0].text == system_prompt("diff")

    drive(project, log, scenario)


@needs_sdk
@needs_syntax
def test_context_and_summary_with_the_ast_extra(project: Path, log: Path) -> None:
    async def scenario(session: Any) -> None:
        context = await ok(session, "context", {"path": "src/app.py", "line": 6})
        text = text_of(context)
        assert "class App:" in text and "█" in text and "return 'old'" in text
        assert "App.run" in " ".join(context.structured_content["scopes"])
        await refused(session, "context", {"path": "../secret.txt", "line": 1}, "may not leave the root")
        await refused(session, "context", {"path": "src/app.py", "line": 40}, "past the end")

        summary = await ok(session, "summary", {"paths": ["src"]})
        assert "src/app.py" in summary.structured_content["files"]
        assert "def helper(x):" in text_of(summary)
        whole = await ok(session, "summary", {})
        assert "src/util.py" in whole.structured_content["files"]
        await refused(session, "summary", {"paths": ["../"]}, "may not leave the root")
        await refused(session, "summary", {"paths": ["/etc"]}, "absolute")
        await refused(session, "summary", {"paths": ["nowhere"]}, "no such file or folder: nowhere")

    drive(project, log, scenario)


# -- over streamable HTTP --------------------------------------------------------------------------


@contextmanager
def http_server(
    root: Path, log: Path, *args: str, env: dict[str, str] | None = None
) -> Iterator[tuple[str, str | None]]:
    """Run ``editblocks mcp --root ROOT --http 0 ARGS`` and yield its URL and the token it printed
    (None when it printed none); stop it afterwards."""
    with open(log, "w", encoding="utf-8") as errlog:
        proc = subprocess.Popen(
            [sys.executable, "-m", "editblocks", "mcp", "--root", str(root), "--http", "0", *args],
            stdout=subprocess.DEVNULL,
            stderr=errlog,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), **(env or {})},
        )
    try:
        url = _wait_for_url(proc, log)
        token = re.search(r"Authorization: Bearer (\S+)", log.read_text(encoding="utf-8"))
        yield url, token.group(1) if token else None
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@asynccontextmanager
async def http_session(url: str, token: str | None) -> AsyncIterator[Any]:
    """An initialized client session over streamable HTTP, sending ``token`` as the bearer token."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    headers = {"Authorization": f"Bearer {token}"} if token else None
    async with (
        create_mcp_http_client(headers=headers) as client,
        streamable_http_client(url, http_client=client) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


@needs_sdk
def test_streamable_http_transport_on_localhost(project: Path, tmp_path: Path) -> None:
    import anyio

    with http_server(project, tmp_path / "http-server.log") as (url, token):
        assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
        assert token

        async def main() -> None:
            with anyio.fail_after(TIMEOUT):
                async with http_session(url, token) as session:
                    assert "apply_edits" in {t.name for t in (await session.list_tools()).tools}
                    lines = text_of(await ok(session, "read_file", {"path": "src/util.py"}))
                    assert "1\tdef helper(x):" in lines
                    reply = sr("src/util.py", "    return x + 1\n", "    return x - 1\n")
                    applied = await ok(session, "apply_edits", {"reply": reply})
                    assert applied.structured_content["ok"] is True
                    await refused(session, "read_file", {"path": "../secret.txt"}, "may not leave the root")

        anyio.run(main)
        assert (project / "src/util.py").read_text() == "def helper(x):\n    return x - 1\n"


def _wait_for_url(proc: subprocess.Popen[bytes], log: Path) -> str:
    """The URL the server printed, once it has also said how it is protected (token or warning)."""
    import time

    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        text = log.read_text(encoding="utf-8")
        found = re.search(r"http://127\.0\.0\.1:\d+/mcp", text)
        if found and ("Authorization: Bearer" in text or "warning:" in text):
            return found.group(0)
        if proc.poll() is not None:
            pytest.fail(f"the MCP server exited with {proc.returncode}:\n{text}")
        time.sleep(0.05)
    pytest.fail(f"the MCP server did not say where it listens:\n{log.read_text(encoding='utf-8')}")


@needs_sdk
def test_an_unexpected_failure_is_a_tool_error_too(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import anyio
    from mcp import Client

    from editblocks.mcp_server import create_server

    def broken(*args: Any, **kwargs: Any) -> str:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(mcp_tools, "read_lines", broken)

    async def main() -> None:
        with anyio.fail_after(TIMEOUT):
            async with Client(create_server(project)) as client:
                result = await client.call_tool("read_file", {"path": "README.txt"})
                assert result.is_error
                assert "unexpected error (RuntimeError): disk on fire" in text_of(result)
                assert not (await client.call_tool("formats", {})).is_error

    anyio.run(main)


# -- the command line, and the tools without the SDK ---------------------------------------------------------


def test_command_says_how_to_install_the_extra(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "mcp" else real(name, *a))
    result = CliRunner().invoke(cli, ["mcp", "--root", str(root)])
    assert result.exit_code == 2
    assert "pip install 'editblocks[mcp]'" in result.output


def test_command_refuses_a_missing_root(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["mcp", "--root", str(tmp_path / "nowhere")])
    assert result.exit_code == 2
    assert "root folder not found" in result.output


def test_read_lines_pages_long_files(root: Path) -> None:
    write_tree(root, {"long.txt": "".join(f"line {i}\n" for i in range(1, MAX_READ_LINES + 11)), "empty.txt": ""})
    first = mcp_tools.read_lines(root, "long.txt").rstrip("\n").split("\n")
    assert first[0].startswith(f"long.txt: lines 1-{MAX_READ_LINES} of {MAX_READ_LINES + 10}")
    assert first[-1] == f"(at most {MAX_READ_LINES} lines per call; read on with start_line={MAX_READ_LINES + 1})"
    rest = mcp_tools.read_lines(root, "long.txt", MAX_READ_LINES + 1).rstrip("\n").split("\n")
    assert rest[1] == f"{MAX_READ_LINES + 1}\tline {MAX_READ_LINES + 1}" and len(rest) == 11
    assert mcp_tools.read_lines(root, "empty.txt") == "empty.txt is empty (0 lines).\n"
    with pytest.raises(ToolFailure, match="file not found"):
        mcp_tools.read_lines(root, "nope.txt")
