"""The MCP server's guard rails, driven by the MCP SDK's own client over stdio and over HTTP.

Unknown arguments are refused (and nothing is written), a call where no block applied is an
error, the results have an output schema, descriptions and validation errors read well for a
model, the ``edit`` tool replaces exact text through the apply pipeline, and the HTTP transport
takes requests as large as a reply and none without the bearer token.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from editblocks.files.workspace import DEFAULT_MAX_REPLY_BYTES

from .helpers import read_tree, sr, write_tree
from .test_mcp import PROJECT, TIMEOUT, drive, http_server, http_session, log, needs_sdk, ok, project, refused, text_of  # noqa: F401  (fixtures)

STALE = sr("src/app.py", "        return 'stale text'\n", "        return 'new'\n")
GOOD = sr("src/util.py", "    return x + 1\n", "    return x * 2\n")


# -- arguments -----------------------------------------------------------------------------------------


@needs_sdk
def test_an_unknown_argument_is_refused_and_nothing_is_written(project: Path, log: Path) -> None:
    before = read_tree(project)

    async def scenario(session: Any) -> None:
        tools = (await session.list_tools()).tools
        assert all(t.input_schema.get("additionalProperties") is False for t in tools)
        # dryRun is not apply_edits' name for it: the SDK alone would drop it and write the file.
        message = await refused(session, "apply_edits", {"reply": GOOD, "dryRun": True}, "unknown argument 'dryRun'")
        assert "did you mean 'dry_run'" in message and "reply (required), dry_run" in message
        assert "preview" in message
        await refused(
            session,
            "edit",
            {"path": "src/util.py", "edits": [{"oldText": "x + 1", "newText": "x"}], "dry_run": True},
            "unknown argument 'dry_run'",
            "dryRun",
        )
        await refused(
            session,
            "edit",
            {"path": "src/util.py", "edits": [{"oldText": "x + 1", "newText": "x", "replaceAll": True}]},
            "unknown field 'replaceAll' in edits[0]",
        )
        await refused(
            session, "read_file", {"path": "README.txt", "lines": 3}, "unknown argument 'lines'", "start_line, end_line"
        )

    drive(project, log, scenario)
    assert read_tree(project) == before


@needs_sdk
def test_descriptions_are_dedented_and_validation_errors_have_no_links(project: Path, log: Path) -> None:
    async def scenario(session: Any) -> None:
        for tool in (await session.list_tools()).tools:
            lines = tool.description.splitlines()
            assert lines and all(line == line.lstrip() for line in lines), f"{tool.name}: {tool.description!r}"
        for tool, arguments, part in [
            (
                "read_file",
                {"path": "README.txt", "start_line": 0},
                "argument 'start_line': Input should be greater than or equal to 1",
            ),
            ("read_file", {}, "missing required argument 'path'"),
            ("apply_edits", {"reply": 42}, "argument 'reply': Input should be a valid string"),
            ("edit", {"path": "README.txt", "edits": [{"oldText": "hello"}]}, "edits[0].newText is missing"),
        ]:
            message = await refused(session, tool, arguments, part, "This tool takes:")
            assert "http" not in message and "pydantic" not in message, message

    drive(project, log, scenario)


# -- results -------------------------------------------------------------------------------------------


@needs_sdk
def test_no_block_applied_is_an_error_with_the_structured_result(project: Path, log: Path) -> None:
    async def scenario(session: Any) -> None:
        tools = {t.name: t for t in (await session.list_tools()).tools}
        for name in ("apply_edits", "preview", "edit"):
            schema = tools[name].output_schema
            assert schema is not None, name
            assert (
                {"ok", "counts", "results", "diffs", "feedback"}
                <= set(schema["properties"])
                <= set(schema["properties"])
            )
        assert "diff" in tools["edit"].output_schema["properties"]

        failed = await session.call_tool("apply_edits", {"reply": STALE})
        assert failed.is_error
        assert failed.structured_content["counts"] == {"applied": 0, "failed": 1, "skipped": 0, "already_applied": 0}
        assert "return 'old'" in failed.structured_content["feedback"]
        assert "0 applied, 1 failed" in text_of(failed)
        assert (project / "src/app.py").read_text() == PROJECT["src/app.py"]
        preview = await session.call_tool("preview", {"reply": STALE})
        assert preview.is_error

        # One block applied: not an error, though the other failed.
        partly = await ok(session, "apply_edits", {"reply": GOOD + "\n" + STALE})
        assert partly.structured_content["counts"]["applied"] == 1
        assert (project / "src/util.py").read_text() == "def helper(x):\n    return x * 2\n"

    drive(project, log, scenario)


# -- the edit tool ---------------------------------------------------------------------------------------


@needs_sdk
def test_edit_replaces_exact_text_and_shows_a_diff(project: Path, log: Path) -> None:
    async def scenario(session: Any) -> None:
        args = {
            "path": "src/app.py",
            "edits": [
                {"oldText": "return 'old'", "newText": "return 'new'"},
                {
                    "oldText": "    def stop(self):\n        return None\n",
                    "newText": "    def stop(self):\n        return False\n",
                },
            ],
        }
        preview = await ok(session, "edit", {**args, "dryRun": True})
        assert (project / "src/app.py").read_text() == PROJECT["src/app.py"]
        assert preview.structured_content["dry_run"] is True
        assert "nothing was written" in text_of(preview)
        assert "-        return 'old'\n+        return 'new'" in preview.structured_content["diff"]

        done = await ok(session, "edit", args)
        text = text_of(done)
        assert "```diff\n--- a/src/app.py\n+++ b/src/app.py\n@@ " in text
        assert "+        return False" in text
        assert (project / "src/app.py").read_text() == PROJECT["src/app.py"].replace("'old'", "'new'").replace(
            "return None", "return False"
        )
        assert done.structured_content["ok"] is True and done.structured_content["files_modified"] == ["src/app.py"]

        # Through the apply pipeline: the undo journal has it.
        await ok(session, "undo")
        assert (project / "src/app.py").read_text() == PROJECT["src/app.py"]

    drive(project, log, scenario)


@needs_sdk
def test_edit_refuses_ambiguous_and_missing_text_writing_nothing(project: Path, log: Path) -> None:
    write_tree(project, {"conf.txt": "[a]\nenabled = true\n\n[b]\nenabled = true\n"})
    before = read_tree(project)

    async def scenario(session: Any) -> None:
        one = {"oldText": "enabled = true", "newText": "enabled = false"}
        await refused(
            session,
            "edit",
            {"path": "conf.txt", "edits": [one]},
            "occurs 2 times in conf.txt, at lines 2, 5",
            "neighbouring lines",
        )
        await refused(
            session,
            "edit",
            {"path": "conf.txt", "edits": [{"oldText": "enabled = yes", "newText": "x"}]},
            "oldText not found in conf.txt",
        )
        # A good edit with a bad one: all or nothing.
        good = {"oldText": "[b]\nenabled = true", "newText": "[b]\nenabled = false"}
        await refused(
            session,
            "edit",
            {"path": "conf.txt", "edits": [good, {"oldText": "missing", "newText": ""}]},
            "edit 2: oldText not found",
        )
        await refused(
            session, "edit", {"path": "conf.txt", "edits": [{"oldText": "", "newText": "x"}]}, "oldText is empty"
        )
        await refused(session, "edit", {"path": "../secret.txt", "edits": [good]}, "may not leave the root")

        disambiguated = await ok(session, "edit", {"path": "conf.txt", "edits": [good]})
        assert disambiguated.structured_content["ok"] is True

    drive(project, log, scenario)
    after = read_tree(project)
    assert after.pop("conf.txt") == b"[a]\nenabled = true\n\n[b]\nenabled = false\n"
    before.pop("conf.txt")
    assert {k: v for k, v in after.items() if not k.startswith(".editblocks")} == before


# -- over HTTP -----------------------------------------------------------------------------------------------


async def _mcp_error(call: Any) -> str:
    """The message of the MCP error awaiting ``call()`` raises (the client may wrap it in exception groups)."""
    from mcp.shared.exceptions import MCPError

    try:
        await call()
    except BaseException as exc:
        pending: list[BaseException] = [exc]
        while pending:
            current = pending.pop()
            if isinstance(current, MCPError):
                return str(current)
            if isinstance(current, BaseExceptionGroup):
                pending += current.exceptions
        raise
    pytest.fail("the call should have been refused with an MCP error")


def _post_initialize(url: str, headers: dict[str, str]) -> Any:
    import httpx2

    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    accept = {"Accept": "application/json, text/event-stream"}
    return httpx2.post(url, json=body, headers={**accept, **headers}, timeout=TIMEOUT)


@needs_sdk
def test_http_needs_the_bearer_token(project: Path, tmp_path: Path) -> None:
    import anyio

    before = read_tree(project)
    reply = sr("src/util.py", "    return x + 1\n", "    return 0\n")
    with http_server(project, tmp_path / "server.log") as (url, token):
        assert token and len(token) >= 40
        for headers in (
            {},
            {"Authorization": "Bearer wrong"},
            {"Authorization": token},
            {"Authorization": f"Basic {token}"},
        ):
            refused_request = _post_initialize(url, headers)
            assert refused_request.status_code == 401, headers
            assert "Authorization: Bearer" in refused_request.json()["error"]["message"]
        assert _post_initialize(url, {"Authorization": f"Bearer {token}"}).status_code == 200

        async def main() -> None:
            for wrong in (None, "not-the-token"):

                async def call(wrong: str | None = wrong) -> None:
                    async with http_session(url, wrong) as session:
                        await session.call_tool("apply_edits", {"reply": reply})

                with anyio.fail_after(TIMEOUT):
                    assert "unauthorized" in await _mcp_error(call)
            assert read_tree(project) == before
            with anyio.fail_after(TIMEOUT):
                async with http_session(url, token) as session:
                    await ok(session, "apply_edits", {"reply": reply})

        anyio.run(main)
    assert (project / "src/util.py").read_text() == "def helper(x):\n    return 0\n"


@needs_sdk
def test_http_token_from_the_environment_and_no_token(project: Path, tmp_path: Path) -> None:
    import anyio

    fixed = "a-fixed-token-from-the-environment"
    with http_server(project, tmp_path / "fixed.log", env={"EDITBLOCKS_TOKEN": fixed}) as (url, token):
        assert token == fixed
        assert _post_initialize(url, {}).status_code == 401

        async def with_fixed() -> None:
            with anyio.fail_after(TIMEOUT):
                async with http_session(url, fixed) as session:
                    await ok(session, "edit", {"path": "README.txt", "edits": [{"oldText": "hello", "newText": "hi"}]})

        anyio.run(with_fixed)
    assert (project / "README.txt").read_text() == "hi\n"

    log = tmp_path / "open.log"
    with http_server(project, log, "--no-token") as (url, token):
        assert token is None
        assert "warning: --no-token" in log.read_text(encoding="utf-8")

        async def without() -> None:
            with anyio.fail_after(TIMEOUT):
                async with http_session(url, None) as session:
                    await ok(session, "edit", {"path": "README.txt", "edits": [{"oldText": "hi", "newText": "bye"}]})

        anyio.run(without)
    assert (project / "README.txt").read_text() == "bye\n"


@needs_sdk
def test_http_takes_a_large_reply_and_says_when_one_is_too_large(project: Path, tmp_path: Path) -> None:
    import anyio

    # 20 MB of explanation around one block: five times the SDK's own 4 MiB limit.
    prose = "".join(f"Step {i}: the helper must return the doubled value, as discussed.\n" for i in range(300_000))
    large = prose + "\n" + GOOD
    assert 19_000_000 < len(large) < DEFAULT_MAX_REPLY_BYTES
    huge = "x" * (DEFAULT_MAX_REPLY_BYTES * 3 // 2) + "\n" + sr("README.txt", "hello\n", "huge\n")

    with http_server(project, tmp_path / "server.log") as (url, token):

        async def main() -> None:
            with anyio.fail_after(TIMEOUT * 4):
                async with http_session(url, token) as session:
                    applied = await ok(session, "apply_edits", {"reply": large})
                    assert applied.structured_content["counts"]["applied"] == 1
                    message = await _mcp_error(lambda: session.call_tool("apply_edits", {"reply": huge}))
                    assert "too large" in message and re.search(r"limit is \d+\.\d MB", message), message
                    # Still serving.
                    await ok(session, "read_file", {"path": "README.txt"})

        anyio.run(main)
    assert (project / "src/util.py").read_text() == "def helper(x):\n    return x * 2\n"
    assert (project / "README.txt").read_text() == "hello\n"
