"""Prompts for every edit format, and the chat messages that carry a request to a model.

The texts are Markdown files in this package, read with :mod:`importlib.resources`:

- ``<format>/system.md``, ``<format>/example.md`` and ``<format>/reminder.md`` for each format;
- ``shared/`` and ``search-replace/``: parts that several formats include, and the messages
  that carry files, summaries and the request.

The files use a small template language:

- a line ``{{include NAME}}`` is replaced by the file ``NAME`` (a path in this package);
- lines ``<!-- role: user -->`` and ``<!-- role: assistant -->`` split a file into messages;
- ``{{fence}}`` and the message slots (``{{files}}``, ``{{summaries}}``, ``{{request}}``,
  ``{{reminder}}``) are filled in when messages are built, in one pass, so text filled in is
  never read as template syntax.

The messages follow one order: the system prompt; the example conversation and a note that
its files were only an example; read-only files; file summaries; the files to edit with their
full contents; the request followed by the format reminder.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Mapping
from importlib import resources

from editblocks.errors import EditblocksError
from editblocks.formats import get_format
from editblocks.quoting import choose_fence

Message = dict[str, str]
"""One chat message, OpenAI style: ``{"role": "system" | "user" | "assistant", "content": ...}``."""

FileSpec = str | os.PathLike[str] | tuple[str, str]
"""A file for the messages: a path read under ``root``, or a ``(path, text)`` pair."""

DEFAULT_FENCE = "````"
"""Four backticks: longer than the triple-backtick fences that are common inside source files."""

_INCLUDE = re.compile(r"^\{\{include ([^{}\s]+)\}\}[ \t]*$", re.MULTILINE)
_ROLE = re.compile(r"^<!-- role: (system|user|assistant) -->[ \t]*\n?", re.MULTILINE)
_SLOT = re.compile(r"\{\{(\w+)\}\}")


class MissingPromptError(EditblocksError, LookupError):
    """The package holds no prompt text for this format."""


# -- templates ---------------------------------------------------------------------------------


@functools.cache
def _template(name: str, depth: int = 0) -> str:
    """The text of prompt file ``name`` with its includes expanded."""
    if depth > 10:
        raise RecursionError(f"prompt includes nest too deeply at {name}")
    path = resources.files(__name__).joinpath(*name.split("/"))
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        raise MissingPromptError(f"no prompt text {name!r} in editblocks") from None
    return _INCLUDE.sub(lambda m: _template(m.group(1), depth + 1).rstrip("\n"), text)


def _fill(text: str, values: Mapping[str, str]) -> str:
    def slot(m: re.Match[str]) -> str:
        try:
            return values[m.group(1)]
        except KeyError:
            raise KeyError(f"prompt slot {{{{{m.group(1)}}}}} has no value") from None

    return _SLOT.sub(slot, text)


def _format_file(format: str, part: str) -> str:
    fmt = get_format(format)  # an unknown name raises UnknownFormatError, listing the known ones
    try:
        return _template(f"{fmt.prompt_folder or fmt.name}/{part}.md")
    except MissingPromptError:
        raise MissingPromptError(f"no {part} prompt for the format {format!r}") from None


def _messages(template: str, values: Mapping[str, str]) -> list[Message]:
    """The messages of a role-marked template, with its slots filled in."""
    pieces = _ROLE.split(template)
    if pieces[0].strip():
        raise ValueError("a message template must start with a role line")
    return [
        {"role": role, "content": _fill(body, values).strip("\n")}
        for role, body in zip(pieces[1::2], pieces[2::2], strict=True)
    ]


def _fence_values(fence: str) -> dict[str, str]:
    return {"fence": fence, "fence_size": str(len(fence))}


# -- the parts of a prompt -----------------------------------------------------------------------


def system_prompt(format: str, fence: str = DEFAULT_FENCE) -> str:
    """The system prompt for ``format``: how to work, and how to write its edit blocks."""
    return _fill(_format_file(format, "system"), _fence_values(fence)).strip("\n") + "\n"


def example_messages(format: str, fence: str = DEFAULT_FENCE) -> list[Message]:
    """The example conversation for ``format``: user requests and replies written in it."""
    return _messages(_format_file(format, "example"), _fence_values(fence))


def reminder(format: str, fence: str = DEFAULT_FENCE) -> str:
    """The short restatement of the format that follows the request."""
    return _fill(_format_file(format, "reminder"), _fence_values(fence)).strip("\n") + "\n"


def choose_prompt_fence(*texts: str) -> str:
    """A backtick fence (at least four) longer than any backtick run that starts a line of ``texts``."""
    return choose_fence("```", *texts)


# -- whole message lists -----------------------------------------------------------------------------


def build_messages(
    format: str,
    request: str,
    files: Iterable[FileSpec] = (),
    read_only: Iterable[FileSpec] = (),
    summaries: str | Mapping[str, str] | None = None,
    root: str | os.PathLike[str] = ".",
) -> list[Message]:
    """The chat messages that ask a model for ``request`` in the edit format ``format``.

    ``files`` are the files the model may edit and ``read_only`` files it may only read.
    Each is a path, read under ``root`` like the files an edit applies to (a path that leaves
    ``root``, a missing or a binary file raises :class:`editblocks.files.workspace.WorkspaceError`),
    or a ``(path, text)`` pair used as given. ``summaries`` outlines other files: a ready
    text, or a mapping from path to outline. One fence, longer than any backtick run at the
    start of a line in these texts, wraps every file and is the fence the prompt asks for.

    Returns OpenAI-style messages: ``[{"role": "system", "content": ...}, ...]``.
    """
    editable = _read_files(files, root)
    reference = _read_files(read_only, root)
    if isinstance(summaries, Mapping):
        summary_text = "\n\n".join(f"{path}:\n{text.rstrip()}" for path, text in summaries.items())
    else:
        summary_text = (summaries or "").strip("\n")
    fence = choose_prompt_fence(*(t for _, t in editable), *(t for _, t in reference), summary_text, request)

    messages: list[Message] = [{"role": "system", "content": system_prompt(format, fence)}]
    messages += example_messages(format, fence)
    messages += _messages(_template("shared/after-example.md"), {})
    if reference:
        messages += _messages(_template("shared/read-only.md"), {"files": _listing(reference, fence)})
    if summary_text.strip():
        messages += _messages(_template("shared/summaries.md"), {"summaries": summary_text})
    if editable:
        messages += _messages(_template("shared/files.md"), {"files": _listing(editable, fence)})
    messages += _messages(
        _template("shared/request.md"), {"request": request.strip("\n"), "reminder": reminder(format, fence)}
    )
    return messages


def _read_files(specs: Iterable[FileSpec], root: str | os.PathLike[str]) -> list[tuple[str, str]]:
    from editblocks.files.workspace import Workspace

    out: list[tuple[str, str]] = []
    workspace: Workspace | None = None
    for spec in specs:
        if isinstance(spec, tuple):
            path, text = spec
            out.append((str(path), text.replace("\r\n", "\n")))
            continue
        if workspace is None:
            workspace = Workspace(root)
        file = workspace.read(os.fspath(spec))
        out.append((file.path, file.text))
    return out


def _listing(files: list[tuple[str, str]], fence: str) -> str:
    """Each file as its path, then its full text between fences."""
    parts = []
    for path, text in files:
        if text and not text.endswith("\n"):
            text += "\n"
        parts.append(f"{path}\n{fence}\n{text}{fence}")
    return "\n\n".join(parts)


__all__ = [
    "DEFAULT_FENCE",
    "FileSpec",
    "Message",
    "MissingPromptError",
    "build_messages",
    "choose_prompt_fence",
    "example_messages",
    "reminder",
    "system_prompt",
]
