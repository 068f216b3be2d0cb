"""What the commands that apply a reply share: where the colour choice is kept, the reply's
label, the message when a reply has no blocks, and what follows a written apply (the journal's
note of the reply, ``--commit``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from editblocks.models import ApplyResult, ParsedReply

COLOR_KEY = "editblocks.color"
"""Where ``--color/--no-color`` is kept in the click context's ``meta``."""


def no_blocks_message(text: str, fmt: str | None) -> str:
    """ "no edit blocks found", and when the reply reads as whole files, how to apply them."""
    if fmt is None:
        from editblocks.reading.reader import parse_reply

        whole = parse_reply(text, "whole").blocks
        if whole:
            paths = list(dict.fromkeys(b.file_path for b in whole))
            listed = ", ".join(paths[:5]) + (", ..." if len(paths) > 5 else "")
            return (
                f"no edit blocks found in the reply; it looks like whole files ({listed}): "
                "to write them, apply it with --format whole"
            )
    return "no edit blocks found in the reply"


def no_blocks_json(parsed: ParsedReply) -> str:
    """``--json`` for a reply without blocks: its format guess, warnings and shell suggestions."""
    return json.dumps(
        {
            "format": parsed.format,
            "results": [],
            "files_modified": [],
            "shell_suggestions": parsed.shell_suggestions,
            "warnings": [{"line": w.line, "message": w.message} for w in parsed.warnings],
        },
        indent=2,
    )


def reply_label(reply: str, text: str) -> str:
    """Which reply, for the undo list and commit messages: its file name, or its first line."""
    if reply != "-":
        return Path(reply).name
    first = next((line.strip() for line in text.splitlines() if line.strip()), "standard input")
    return first if len(first) <= 60 else first[:60] + "…"


def commit_message(result: ApplyResult, label: str) -> str:
    """The message of ``apply --commit`` without one: the reply and files, then every block."""
    files = ", ".join(result.files_modified[:5]) + (", ..." if len(result.files_modified) > 5 else "")
    lines = [f"Apply edit blocks from {label} to {files}", ""]
    for i, r in enumerate(result.results, start=1):
        how = ", ".join(x for x in (r.strategy, None if r.estimated_line is None else f"line {r.estimated_line}") if x)
        lines.append(
            f"- block {i} {r.file_path} (reply line {r.reply_line}): {r.status.value}" + (f" ({how})" if how else "")
        )
    return "\n".join(lines) + "\n"


def finish_apply(root: str, result: ApplyResult, label: str, commit: str | None) -> str | None:
    """After an apply that wrote files: note which reply it was in the undo journal, and with
    ``commit`` (``--commit``; "" for the default message) commit exactly the files it wrote.
    Returns an error message when the commit failed."""
    if result.dry_run or not result.files_modified:
        return None
    from editblocks.files.journal import Journal
    from editblocks.files.workspace import Workspace

    workspace = Workspace(root)
    book = Journal(workspace.root)
    entry = book.entry_for(result.files_modified)
    if commit is None:
        if entry is not None:
            book.annotate(entry, reply=label)
        return None
    index = entry.git_index if entry is not None and entry.git_index else workspace.git_index(result.files_modified)
    sha, error = workspace.git_commit(result.files_modified, commit or commit_message(result, label))
    if entry is not None:
        if sha is not None and index is not None:
            entry.git_index = index
        book.annotate(entry, reply=label, git_commit=sha)
    return None if error is None else f"git commit: {error}"


def git_top_root(paths: list[str], cwd: Path | None = None) -> Path | None:
    """The top level of the git repository around ``cwd`` (default: the current folder) when
    ``cwd`` is a subfolder of it and the reply's ``paths`` name files there and none under ``cwd``."""
    here = (cwd or Path.cwd()).resolve()
    top = next((p for p in [here, *here.parents] if (p / ".git").exists()), None)
    if top is None or top == here or not paths:
        return None
    if any((here / p).exists() for p in paths):
        return None
    return top if any((top / p).exists() for p in paths) else None
