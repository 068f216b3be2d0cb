"""The MCP server on the official MCP Python SDK: tools, prompts and resources.

Imported only when the server is started (it imports the SDK). The tools' parameters are typed,
so the SDK publishes their JSON schema and validates every call against it; :class:`EditblocksServer`
adds what the SDK leaves out: an argument the schema does not name is refused (the SDK would drop
it, and ``dryRun: true`` would write), and validation errors are worded for a model. What the
tools do is in :mod:`editblocks.mcp_server.tools`.
"""

# Annotations are evaluated when the tools are defined: the SDK reads them to build the schemas.

import difflib
import functools
import inspect
import logging
import os
from collections.abc import Callable
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.prompts.base import AssistantMessage, Message, Prompt, UserMessage
from mcp.types import CallToolResult, TextContent, Tool, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from editblocks import __version__
from editblocks.files.workspace import Workspace, WorkspaceError
from editblocks.formats import FORMATS, get_format
from editblocks.matching import LEVELS
from editblocks.mcp_server import tools
from editblocks.mcp_server.tools import MAX_READ_LINES, ToolFailure

logger = logging.getLogger(__name__)

INSTRUCTIONS = """\
editblocks applies edit blocks written by a language model to the files of one project folder,
safely: each block is located in its file (exactly, then tolerating white-space differences,
then fuzzily), every file is written atomically, and every apply can be undone.

How to use it:
1. Load the prompt of the edit format you will write (e.g. "diff" for SEARCH/REPLACE blocks);
   the `formats` tool lists the formats.
2. Use `read_file` to see the exact lines you will change (numbered; the numbers and the tab
   after them are not part of the file).
3. Write your edit blocks as one reply and pass it to `preview` to check it without writing,
   or to `apply_edits` to write it.
4. For a block that failed, the result's feedback says why and shows the file's actual lines:
   send corrected blocks for the failed ones only. `undo` restores the files of the last apply.
5. For a small change to one file, `edit` replaces exact text instead: each oldText must occur
   exactly once in the file.

Paths are relative to the project folder; nothing outside it can be read or written."""

_FORMAT_NAMES = list(FORMATS)

Reply = Annotated[
    str,
    Field(description="The reply holding the edit blocks, as text (prose around the blocks is ignored)."),
]
Format = Annotated[
    Annotated[str, Field(json_schema_extra={"enum": _FORMAT_NAMES})] | None,
    Field(description=f"Edit format of the reply, one of: {', '.join(_FORMAT_NAMES)}. Default: detected per block."),
]
Match = Annotated[
    Annotated[str, Field(json_schema_extra={"enum": list(LEVELS)})] | None,
    Field(
        description=f"How tolerant locating a block is: {', '.join(LEVELS)}. "
        "Default: fuzzy for SEARCH/REPLACE formats, exact for edit-v2 and edit-v3."
    ),
]
FilePath = Annotated[str, Field(description="File path relative to the project folder, e.g. src/app.py.")]

_EDITING = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False)
_READING = ToolAnnotations(read_only_hint=True, open_world_hint=False)


class BlockOutcome(BaseModel):
    """One block's result in a tool's structured result."""

    file_path: str
    status: str = Field(
        description="applied, failed, skipped (an earlier block of the file failed) or already_applied."
    )
    reason: str | None = Field(description="Why the block failed or was skipped.")
    strategy: str | None = Field(description="How the block was located: exact, tolerant, fuzzy, ...")
    estimated_line: int | None = Field(description="Line of the file where the block was (or was nearly) found.")
    reply_line: int = Field(description="Line of the reply where the block starts.")
    score: float | None
    requested_path: str | None = Field(description="The path as written, when it was resolved to another file.")
    notes: list[str]
    already_applied: bool
    closest_region: list[int] | None = Field(description="For a failed block: first and last line of the closest text.")
    candidates: list[int] = Field(description="For an ambiguous block: every line where it matches.")
    candidate_texts: list[str]
    kind: str = Field(description="create, edit, whole, delete or move.")
    moved_to: str | None


class ReplyWarning(BaseModel):
    line: int
    message: str
    in_reply: bool


class ApplyCounts(BaseModel):
    applied: int
    failed: int
    skipped: int
    already_applied: int


class ApplyOutput(BaseModel):
    """The structured result of apply_edits, preview and edit."""

    ok: bool = Field(description="Every block applied (or was already applied).")
    dry_run: bool = Field(description="Nothing was written.")
    format: str | None
    counts: ApplyCounts
    results: list[BlockOutcome] = Field(description="Each block's result, in reply order.")
    files_modified: list[str]
    files_deleted: list[str]
    diffs: dict[str, str] = Field(description="Unified diff of each changed file.")
    feedback: str = Field(description="For failed blocks: why, with the file's actual lines; empty when none failed.")
    shell_suggestions: list[str]
    warnings: list[ReplyWarning]
    syntax_problems: dict[str, str]


class EditOutput(ApplyOutput):
    """The structured result of edit: the apply result and the diff as one text."""

    diff: str = Field(description="The git-style diff of the change, as the text answer shows it.")


class TextEdit(BaseModel):
    """One replacement of the edit tool."""

    model_config = ConfigDict(extra="forbid")

    oldText: str = Field(
        description="Text to search for; it must occur exactly once in the file (after the earlier edits)."
    )
    newText: str = Field(description="Text to replace it with.")


class EditblocksServer(MCPServer):
    """The SDK's server, stricter about arguments: every tool's input schema says
    ``additionalProperties: false`` and a call naming an argument the tool does not take is
    refused before it runs; validation errors are worded for a model (no library links)."""

    async def list_tools(self) -> list[Tool]:
        listed = await super().list_tools()
        for tool in listed:
            tool.input_schema = {**tool.input_schema, "additionalProperties": False}
        return listed

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        schema = next((t.input_schema for t in await super().list_tools() if t.name == name), None)
        if schema is not None:
            _check_argument_names(name, schema, arguments)
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if schema is None or isinstance(exc, UnexpectedToolError) or not isinstance(cause, ValidationError):
                raise
            raise ToolError(_validation_message(name, schema, cause)) from cause


def _argument_list(schema: dict[str, Any]) -> str:
    required = set(schema.get("required", []))
    names = [f"{n} (required)" if n in required else n for n in schema.get("properties", {})]
    return ", ".join(names) or "no arguments"


def _check_argument_names(name: str, schema: dict[str, Any], arguments: dict[str, Any]) -> None:
    """Refuse an argument ``schema`` does not name, saying which the tool takes."""
    known = list(schema.get("properties", {}))
    unknown = [arg for arg in arguments if arg not in known]
    if not unknown:
        return
    parts = []
    for arg in unknown:
        squashed = {k.replace("_", "").lower(): k for k in known}
        close = squashed.get(str(arg).replace("_", "").replace("-", "").lower()) or next(
            iter(difflib.get_close_matches(str(arg), known, n=1)), None
        )
        parts.append(f"unknown argument {arg!r}" + (f" (did you mean {close!r}?)" if close else ""))
    message = (
        f"Error executing tool {name}: {'; '.join(parts)}; this tool takes: {_argument_list(schema)}. Nothing was done."
    )
    if name == "apply_edits":
        message += " To check edits without writing, use the preview tool (or dry_run: true)."
    raise ToolError(message)


def _validation_message(name: str, schema: dict[str, Any], error: ValidationError) -> str:
    """A pydantic validation error as one line per problem, for a model: no URLs, no internals."""
    problems = []
    for err in error.errors(include_url=False):
        loc = [str(part) for part in err.get("loc", ())]
        where = loc[0] + "".join(f"[{p}]" if p.isdigit() else f".{p}" for p in loc[1:]) if loc else "arguments"
        kind = err.get("type", "")
        if kind == "missing":
            problems.append(f"missing required argument {where!r}" if len(loc) == 1 else f"{where} is missing")
        elif kind == "extra_forbidden":
            problems.append(f"unknown field {loc[-1]!r} in {where.rsplit('.', 1)[0]}")
        else:
            value = err.get("input")
            shown = (
                repr(value)
                if isinstance(value, (int, float, bool, type(None))) or (isinstance(value, str) and len(value) <= 40)
                else type(value).__name__
            )
            problems.append(f"argument {where!r}: {err.get('msg', 'invalid value')} (got {shown})")
    return f"Error executing tool {name}: invalid arguments: {'; '.join(problems)}. This tool takes: {_argument_list(schema)}."


def _guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Every failure as a tool error with a clear message; the server keeps running."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except ToolFailure as exc:
            raise ToolError(str(exc)) from None
        except ToolError:
            raise
        except Exception as exc:
            logger.exception("tool %s failed", fn.__name__)
            raise ToolError(f"unexpected error ({type(exc).__name__}): {exc}") from None

    # The docstring is the tool's description: without the source's indentation.
    wrapper.__doc__ = inspect.cleandoc(fn.__doc__) if fn.__doc__ else None
    return wrapper


def _answer(text: str, data: Any, *, is_error: bool = False) -> CallToolResult:
    """A tool result: ``text`` for the model, ``data`` as structured content."""
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data, is_error=is_error)


def _applied(text: str, data: dict[str, Any]) -> CallToolResult:
    """An apply result; an error when blocks failed and none applied (nothing was, or would be, changed)."""
    counts = data["counts"]
    return _answer(text, data, is_error=counts["failed"] > 0 and counts["applied"] == 0)


def create_server(root: str | os.PathLike[str]) -> EditblocksServer:
    """The server whose tools work under ``root``; raises :class:`ToolFailure` when it is not a folder."""
    try:
        base = Workspace(root).root
    except WorkspaceError as exc:
        raise ToolFailure(str(exc)) from None
    server = EditblocksServer(
        "editblocks",
        title="editblocks",
        description=f"Apply a language model's edit blocks to the files under {base}, safely, with undo.",
        instructions=INSTRUCTIONS,
        version=__version__,
        log_level="WARNING",
    )
    _add_edit_tools(server, str(base))
    _add_reading_tools(server, str(base))
    if tools.syntax_available():
        _add_syntax_tools(server, str(base))
    _add_format_prompts(server)
    return server


def _add_edit_tools(server: MCPServer, base: str) -> None:
    @server.tool(name="apply_edits", title="Apply edit blocks", annotations=_EDITING)
    @_guarded
    def apply_edits(
        reply: Reply,
        dry_run: Annotated[bool, Field(description="Compute and show everything; write nothing.")] = False,
        format: Format = None,
        match: Match = None,
        atomic: Annotated[bool, Field(description="All or nothing: write no file unless every block applies.")] = False,
    ) -> Annotated[CallToolResult, ApplyOutput]:
        """Apply the edit blocks of a reply to the project's files.

        Returns each block's result (applied; failed, with the reason; skipped), the diff of every
        changed file, and for failed blocks feedback with the file's actual lines to copy into
        corrected blocks: send corrected blocks for the failed ones only. Files are written
        atomically, and `undo` restores them. The result is an error when blocks failed and none
        applied.
        """
        return _applied(*tools.apply_reply(base, reply, dry_run=dry_run, format=format, match=match, atomic=atomic))

    @server.tool(name="preview", title="Preview edit blocks", annotations=_READING)
    @_guarded
    def preview(reply: Reply, format: Format = None, match: Match = None) -> Annotated[CallToolResult, ApplyOutput]:
        """Check a reply's edit blocks without writing anything: each block's result, the diffs
        it would make, and feedback on the blocks that would fail (an error when none would apply)."""
        return _applied(*tools.apply_reply(base, reply, dry_run=True, format=format, match=match))

    @server.tool(name="edit", title="Replace exact text in a file", annotations=_EDITING)
    @_guarded
    def edit(
        path: FilePath,
        edits: Annotated[
            list[TextEdit],
            Field(min_length=1, description="Replacements, made in order, each on the result of the ones before."),
        ],
        dryRun: Annotated[bool, Field(description="Show the diff; write nothing.")] = False,
    ) -> Annotated[CallToolResult, EditOutput]:
        """Edit a text file by replacing exact text: each oldText must occur exactly once in the
        file (include neighbouring lines to make it unique); an edit whose oldText is missing or
        occurs more than once refuses the whole call, writing nothing. Returns a git-style diff.
        The edits go through the same checks as apply_edits (atomic write, undo with `undo`)."""
        pairs = [(e.oldText, e.newText) for e in edits]
        text, data = tools.edit_file(base, path, pairs, dry_run=dryRun)
        return _applied(text, data)

    @server.tool(name="undo", title="Undo the last apply", annotations=_EDITING, structured_output=False)
    @_guarded
    def undo() -> CallToolResult:
        """Restore the files of the last apply; files it created are deleted. Refused, restoring
        nothing, when a file changed since that apply wrote it. Call it again to undo the apply
        before."""
        return _answer(*tools.undo_last(base))


def _add_reading_tools(server: MCPServer, base: str) -> None:
    @server.tool(
        name="read_file",
        title="Read lines of a file",
        annotations=_READING,
        structured_output=False,
        description="Read lines of a text file in the project, numbered: each line is its number, a tab, then "
        "the line exactly as in the file, to copy into SEARCH text without the number and the tab. "
        f"At most {MAX_READ_LINES} lines per call.",
    )
    @_guarded
    def read_file(
        path: FilePath,
        start_line: Annotated[int, Field(ge=1, description="First line to show, 1-based.")] = 1,
        end_line: Annotated[
            int | None, Field(ge=1, description="Last line to show, inclusive. Default: the end of the file.")
        ] = None,
    ) -> str:
        return tools.read_lines(base, path, start_line, end_line)

    @server.tool(name="formats", title="List the edit formats", annotations=_READING, structured_output=False)
    @_guarded
    def formats() -> CallToolResult:
        """List the edit formats editblocks reads, with a description of each. A format with
        instructions is also a prompt of the same name: load it for the format's rules."""
        text, rows = tools.list_formats()
        return _answer(text, {"formats": rows})


def _add_syntax_tools(server: MCPServer, base: str) -> None:
    @server.tool(name="context", title="Show a line in its context", annotations=_READING, structured_output=False)
    @_guarded
    def context(
        path: FilePath,
        line: Annotated[int, Field(ge=1, description="The line of interest, 1-based.")],
        pad: Annotated[int, Field(ge=0, le=100, description="Lines shown either side of the line.")] = 1,
    ) -> CallToolResult:
        """Show a line of a source file with the headers of the definitions around it (class,
        then method), numbered; hidden lines are shown as ⋮, the line of interest is marked █."""
        return _answer(*tools.file_context_text(base, path, line, pad))

    @server.tool(name="summary", title="Outline source files", annotations=_READING, structured_output=False)
    @_guarded
    def summary(
        paths: Annotated[
            list[str] | None,
            Field(description="Files or folders relative to the project folder. Default: the whole project."),
        ] = None,
        max_tokens: Annotated[
            int | None,
            Field(ge=0, description="Token budget, about 4 characters a token; 0 for no limit. Default: 1024."),
        ] = None,
    ) -> CallToolResult:
        """Outline the project's source files: each file's classes, functions and methods with
        their signatures, most referenced first, cut to a token budget. Files git ignores are
        left out."""
        return _answer(*tools.summary_text(base, paths, max_tokens))


def _add_format_prompts(server: MCPServer) -> None:
    for name in tools.prompt_formats():
        description = get_format(name).description
        server.add_prompt(
            Prompt.from_function(
                _prompt_function(name),
                name=name,
                title=f"The {name} edit format",
                description=f"How to write edits in the {name} format ({description}), with an example "
                "conversation. Give a request to end the messages with it and the format's reminder.",
            )
        )
        server.resource(
            f"editblocks://formats/{name}",
            name=name,
            title=f"The {name} edit format",
            description=f"Instructions for writing edits in the {name} format: {description}",
            mime_type="text/markdown",
        )(_resource_function(name))


def _prompt_function(name: str) -> Callable[..., list[Message]]:
    def prompt(
        request: Annotated[
            str, Field(description="The change to make (optional): the messages end with it and the format's reminder.")
        ] = "",
    ) -> list[Message]:
        return [
            (UserMessage if m["role"] == "user" else AssistantMessage)(m["content"])
            for m in tools.format_prompt(name, request or "")
        ]

    prompt.__name__ = f"{name.replace('-', '_')}_prompt"
    return prompt


def _resource_function(name: str) -> Callable[[], str]:
    def resource() -> str:
        return tools.format_instructions(name)

    resource.__name__ = f"{name.replace('-', '_')}_format"
    return resource


__all__ = ["INSTRUCTIONS", "create_server"]
