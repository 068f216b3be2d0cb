"""What the MCP server's tools do, without the SDK: plain functions of the root folder.

Each returns the text for the model (and, for most, the same as JSON-ready data) and raises
:class:`ToolFailure` with a message saying why it cannot do what was asked. Paths go through
:class:`~editblocks.files.workspace.Workspace`, so none leaves the root.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from editblocks.quoting import percent

if TYPE_CHECKING:
    from editblocks.models import ApplyResult, EditBlock

MAX_READ_LINES = 2000
"""Most lines :func:`read_lines` returns in one call; the answer says how to read on."""
MAX_LINE_CHARS = 2000
"""Longer lines are cut in :func:`read_lines`' answer, with a note (minified code, data)."""


class ToolFailure(Exception):
    """A tool cannot do what was asked; the message, for the model, says why."""


def syntax_available() -> bool:
    """True when the ``ast`` extra (tree-sitter and its grammars) imports."""
    try:
        from editblocks.syntax import available
    except ImportError:
        return False
    return available()


# -- the tools, without the SDK ----------------------------------------------------------------------


def _workspace(root: str | os.PathLike[str]) -> Any:
    from editblocks.files.workspace import Workspace, WorkspaceError

    try:
        return Workspace(root)
    except WorkspaceError as exc:
        raise ToolFailure(str(exc)) from None


def _check_choice(value: str | None, known: Sequence[str], what: str) -> str | None:
    if value is None or value == "":
        return None
    if value not in known:
        raise ToolFailure(f"unknown {what} {value!r}; known {what}s: {', '.join(known)}")
    return value


def format_names() -> list[str]:
    from editblocks.formats import FORMATS

    return list(FORMATS)


def match_levels() -> list[str]:
    from editblocks.matching import LEVELS

    return list(LEVELS)


def apply_reply(
    root: str | os.PathLike[str],
    reply: str,
    *,
    dry_run: bool = False,
    format: str | None = None,
    match: str | None = None,
    atomic: bool = False,
) -> tuple[str, dict[str, Any]]:
    """Apply (or with ``dry_run`` preview) the edit blocks of ``reply`` under ``root``.

    Returns the text for the model (summary, feedback on failed blocks, diffs) and the same as
    data. Raises :class:`ToolFailure` for an empty reply, a reply without edit blocks, an
    unknown format or match level, and a reply or root that cannot be used.
    """
    from editblocks.files.workspace import WorkspaceError, check_reply_size
    from editblocks.pipeline.api import apply_edits
    from editblocks.reading.reader import parse_reply

    fmt = _check_choice(format, format_names(), "format")
    level = _check_choice(match, match_levels(), "match level")
    if not isinstance(reply, str) or not reply.strip():
        raise ToolFailure("the reply is empty: pass the text with the edit blocks as 'reply'")
    if "\x00" in reply:
        raise ToolFailure("the reply contains NUL characters; it must be text")
    try:
        check_reply_size(reply)
    except WorkspaceError as exc:
        raise ToolFailure(str(exc)) from None
    parsed = parse_reply(reply, fmt)
    if not parsed.blocks:
        lines = ["no edit blocks found in the reply" + (f" (read as the {fmt} format)" if fmt else "")]
        lines += [f"reply line {w.line}: {w.message}" if w.line else w.message for w in parsed.warnings]
        lines.append(
            "Write the edits as blocks of one of the formats (the `formats` tool lists them; load a format's "
            "prompt for its rules), e.g. the diff format: the file path on its own line, then a fenced block "
            "with <<<<<<< SEARCH, the exact lines to replace, =======, the new lines, >>>>>>> REPLACE."
        )
        raise ToolFailure("\n".join(lines))
    workspace = _workspace(root)
    try:
        result = apply_edits(parsed, workspace.root, dry_run=dry_run, match=level, atomic=atomic)
    except (WorkspaceError, ValueError) as exc:
        raise ToolFailure(str(exc)) from None
    return describe_result(result), result_data(result)


def edit_file(
    root: str | os.PathLike[str], path: str, edits: Sequence[tuple[str, str]], *, dry_run: bool = False
) -> tuple[str, dict[str, Any]]:
    """Replace exact text in one file under ``root``: ``edits`` are (old text, new text) pairs,
    made in order, each on the result of the ones before (as the filesystem MCP server's
    ``edit_file``).

    Each old text must occur exactly once; the edits become edit blocks applied as one atomic
    apply at the exact match level, so the checks, the atomic write and the undo journal of
    :func:`apply_reply` hold. Returns the text for the model (the git-style diff) and the apply
    result as data, with the diff under ``"diff"``. Raises :class:`ToolFailure` when an old text
    is empty, missing or found more than once, writing nothing.
    """
    from editblocks.files.workspace import WorkspaceError
    from editblocks.pipeline.api import apply_edits

    if not edits:
        raise ToolFailure("no edits given: pass at least one {oldText, newText} in 'edits'")
    rel, text = _read_text(root, path)
    blocks = text_edit_blocks(rel, text, edits)
    workspace = _workspace(root)
    try:
        result = apply_edits(blocks, workspace.root, dry_run=dry_run, match="exact", atomic=True)
    except (WorkspaceError, ValueError) as exc:
        raise ToolFailure(str(exc)) from None
    data = result_data(result)
    diff = "".join(d if d.endswith("\n") else d + "\n" for d in result.diffs.values() if d)
    data["diff"] = diff
    if not result.ok:
        return describe_result(result), data
    fence = "`" * max([3, *(len(run) + 1 for run in re.findall(r"`{3,}", diff))])
    n = f"{len(blocks)} edit{'s' if len(blocks) != 1 else ''}"
    if dry_run:
        head = f"Preview (dry run): nothing was written. {n} would change {rel}:"
    else:
        head = f"Edited {rel} ({n}):"
    out = [head, f"{fence}diff", diff.rstrip("\n") or "(no change)", fence]
    if not dry_run and result.files_modified:
        out.append("The `undo` tool restores the file.")
    return "\n".join(out) + "\n", data


_NUMBERED = re.compile(r"^\s*\d+\t")


def text_edit_blocks(path: str, text: str, edits: Sequence[tuple[str, str]]) -> list[EditBlock]:
    """Edit blocks making the replacements ``edits`` in ``text`` (the file ``path``, LF line endings).

    Each old text is found in the text as the edits before it left it, and must occur exactly
    once (else :class:`ToolFailure`, naming the lines of every place it occurs); its block
    replaces the whole lines it touches, and is hinted at the first of them.
    """
    from editblocks.models import make_block

    blocks: list[EditBlock] = []
    current = text
    for n, (old, new) in enumerate(edits, start=1):
        old, new = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
        label = f"edit {n}" if len(edits) > 1 else "the edit"
        after = " (after the edits before it)" if n > 1 else ""
        if not old.strip():
            what = "empty" if not old else "only white space"
            raise ToolFailure(
                f"{label}: oldText is {what}; give the exact text to replace, with a line that is not blank. "
                "Nothing was written (to create a file, use apply_edits)."
            )
        starts = _occurrences(current, old)
        if not starts:
            hint = "Use read_file to see the file's exact lines."
            if all(_NUMBERED.match(line) for line in old.split("\n") if line):
                hint = "oldText seems to hold read_file's line numbers: leave out each number and the tab after it."
            raise ToolFailure(
                f"{label}: oldText not found in {path}{after}; it must match the file exactly, white space "
                f"included. Nothing was written. {hint}"
            )
        if len(starts) > 1:
            lines = [current.count("\n", 0, start) + 1 for start in starts]
            shown = ", ".join(map(str, lines[:20])) + (f" and {len(lines) - 20} more" if len(lines) > 20 else "")
            raise ToolFailure(
                f"{label}: oldText occurs {len(starts)} times in {path}{after}, at lines {shown}; it must match "
                "exactly one place: include neighbouring lines to tell them apart. Nothing was written."
            )
        start = starts[0]
        end = start + len(old)
        first = current.rfind("\n", 0, start) + 1
        last = end if current[end - 1] == "\n" else _line_end(current, end)
        replaced = current[first:start] + new + current[end:last]
        while replaced and not replaced.endswith("\n") and last < len(current):
            # The new text joins the next line: the block takes that line too.
            following = _line_end(current, last)
            replaced += current[last:following]
            last = following
        original = current[first:last]
        no_final_newline = False
        if not original.endswith("\n"):
            # The last line of a file without a final newline: blocks hold whole lines.
            original += "\n"
            no_final_newline = bool(replaced) and not replaced.endswith("\n")
            if no_final_newline:
                replaced += "\n"
        blocks.append(
            make_block(
                path,
                old_lines=original,
                new_lines=replaced,
                line_number=n,
                end_line=n,
                hint_line=current.count("\n", 0, first) + 1,
                no_final_newline=no_final_newline,
            )
        )
        current = current[:first] + (replaced[:-1] if no_final_newline else replaced) + current[last:]
    return blocks


def _occurrences(text: str, part: str) -> list[int]:
    """Every index where ``part`` starts in ``text``, overlapping ones included."""
    found: list[int] = []
    at = text.find(part)
    while at >= 0:
        found.append(at)
        at = text.find(part, at + 1)
    return found


def _line_end(text: str, at: int) -> int:
    """The index just after the line ending at or after ``at`` (the text's length on the last line)."""
    end = text.find("\n", at)
    return len(text) if end < 0 else end + 1


def result_data(result: ApplyResult) -> dict[str, Any]:
    """The apply result as JSON-ready data: per-block results, diffs and feedback."""
    data = result.to_dict()
    data["ok"] = result.ok
    data["counts"] = {
        "applied": len(result.applied),
        "failed": len(result.failed),
        "skipped": len(result.skipped),
        "already_applied": len(result.already_applied),
    }
    data["diffs"] = dict(result.diffs)
    data["feedback"] = result.feedback_message()
    return data


def describe_result(result: ApplyResult) -> str:
    """The apply result as text for the model."""
    applied, failed, skipped = len(result.applied), len(result.failed), len(result.skipped)
    out: list[str] = []
    if result.dry_run:
        out.append("Preview (dry run): nothing was written.")
    already = f", {len(result.already_applied)} already applied" if result.already_applied else ""
    out.append(f"{applied} applied, {failed} failed, {skipped} skipped{already}, of {len(result.results)} blocks.")
    for i, r in enumerate(result.results, start=1):
        how = []
        if r.strategy:
            how.append(r.strategy + (f" {percent(r.score)}" if r.score is not None else ""))
        if r.estimated_line is not None:
            how.append(f"file line {r.estimated_line}")
        how.append(f"reply line {r.reply_line}")
        status = "already applied" if r.already_applied else r.status.value
        out.append(f"  block {i}: {status:<8} {r.file_path} ({', '.join(how)})")
        details = [*r.notes]
        if r.reason and not r.already_applied:
            details.append(r.reason)
        for d in details:
            out.append(f"      {d}")
    verb = "would change" if result.dry_run else "changed"
    out.append(f"Files {verb}: {', '.join(result.files_modified) or 'none'}")
    for w in result.warnings:
        out.append(f"warning: reply line {w.line}: {w.message}" if w.line else f"warning: {w.message}")
    if result.shell_suggestions:
        out.append("Shell commands suggested by the reply (not run):")
        out += [f"  $ {cmd}" for cmd in result.shell_suggestions]
    feedback = result.feedback_message()
    if feedback:
        out += ["", "Feedback on the blocks that did not apply:", "", feedback.rstrip("\n")]
    diffs = {path: diff for path, diff in result.diffs.items() if diff}
    if diffs:
        out += ["", "Diffs:" if not result.dry_run else "Diffs (not written):"]
        for diff in diffs.values():
            out.append(diff.rstrip("\n"))
    if not result.dry_run and result.files_modified:
        out += ["", "The `undo` tool restores these files."]
    return "\n".join(out) + "\n"


def undo_last(root: str | os.PathLike[str]) -> tuple[str, dict[str, Any]]:
    """Undo the last apply under ``root``; raises :class:`ToolFailure` when refused or nothing to undo."""
    from editblocks.files.journal import undo
    from editblocks.files.workspace import WorkspaceError

    workspace = _workspace(root)
    try:
        done = undo(workspace.root)
    except WorkspaceError as exc:
        raise ToolFailure(str(exc)) from None
    lines = [f"Undid apply #{done.entry.id} of {done.entry.time}."]
    lines += [f"  restored {p}" for p in done.restored]
    lines += [f"  deleted  {p} (the apply created it)" for p in done.deleted]
    lines += [f"  already as before: {p}" for p in done.unchanged]
    data = {
        "undone": done.entry.id,
        "time": done.entry.time,
        "restored": list(done.restored),
        "deleted": list(done.deleted),
        "unchanged": list(done.unchanged),
    }
    return "\n".join(lines) + "\n", data


def _read_text(root: str | os.PathLike[str], path: str) -> tuple[str, str]:
    """(relative path, text with LF line endings) of a text file under ``root``."""
    from editblocks.files.workspace import WorkspaceError

    workspace = _workspace(root)
    try:
        file = workspace.read(path)
    except WorkspaceError as exc:
        raise ToolFailure(str(exc)) from None
    return file.path, file.text


def read_lines(root: str | os.PathLike[str], path: str, start_line: int = 1, end_line: int | None = None) -> str:
    """Lines ``start_line``..``end_line`` (1-based, inclusive) of a text file under ``root``.

    Each line is its number, a tab, then the line exactly as in the file (line endings shown as
    LF). At most :data:`MAX_READ_LINES` lines per call; the header says how to read on.
    """
    if start_line < 1:
        raise ToolFailure(f"start_line must be 1 or more, not {start_line}")
    if end_line is not None and end_line < start_line:
        raise ToolFailure(f"end_line ({end_line}) is before start_line ({start_line})")
    rel, text = _read_text(root, path)
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    total = len(lines)
    if total == 0:
        return f"{rel} is empty (0 lines).\n"
    if start_line > total:
        raise ToolFailure(f"start_line {start_line} is past the end of {rel}, which has {_lines(total)}")
    wanted = total if end_line is None else min(end_line, total)
    last = min(wanted, start_line + MAX_READ_LINES - 1)
    width = len(str(last))
    out = [f"{rel}: lines {start_line}-{last} of {total} (each line: its number, a tab, then the line as in the file)"]
    for n in range(start_line, last + 1):
        line = lines[n - 1]
        if len(line) > MAX_LINE_CHARS:
            line = line[:MAX_LINE_CHARS] + f" [... {len(line) - MAX_LINE_CHARS} more characters not shown]"
        out.append(f"{n:>{width}}\t{line}")
    if last < wanted:
        out.append(f"(at most {MAX_READ_LINES} lines per call; read on with start_line={last + 1})")
    if last == total and not text.endswith("\n"):
        out.append("(the file does not end with a newline)")
    return "\n".join(out) + "\n"


def _lines(n: int) -> str:
    return f"{n} line{'s' if n != 1 else ''}"


def list_formats() -> tuple[str, list[dict[str, Any]]]:
    """The edit formats: name, description, whether a prompt explains it, whether it is detected."""
    from editblocks.formats import FORMATS

    prompts = set(prompt_formats())
    rows: list[dict[str, Any]] = [
        {"name": name, "description": fmt.description, "prompt": name in prompts, "auto_detected": bool(fmt.auto)}
        for name, fmt in FORMATS.items()
    ]
    width = max(len(name) for name in FORMATS)
    lines = ["Edit formats editblocks reads (a reply's format is detected per block unless one is named):"]
    for r in rows:
        notes = [] if r["auto_detected"] else [f"read only when named: format={r['name']}"]
        if not r["prompt"]:
            notes.append("no prompt")
        extra = f" [{'; '.join(notes)}]" if notes else ""
        lines.append(f"  {r['name']:<{width}}  {r['description']}{extra}")
    lines.append("Load the prompt of the format you will write to get its rules and an example.")
    return "\n".join(lines) + "\n", rows


def prompt_formats() -> list[str]:
    """The formats whose instructions the package holds (each becomes an MCP prompt)."""
    from editblocks.prompts import MissingPromptError, system_prompt

    names = []
    for name in format_names():
        try:
            system_prompt(name)
        except MissingPromptError:
            continue
        names.append(name)
    return names


def format_instructions(name: str) -> str:
    """The system prompt of format ``name``: how to work and how to write its edit blocks."""
    from editblocks.prompts import system_prompt

    return system_prompt(name)


def format_prompt(name: str, request: str = "") -> list[dict[str, str]]:
    """The prompt messages for format ``name``: its instructions, the example conversation, and
    with a ``request`` that request followed by the format's reminder.

    MCP prompts hold user and assistant messages only, so the instructions (the system prompt
    of :func:`editblocks.build_messages`) are the first user message.
    """
    from editblocks.prompts import build_messages

    messages = build_messages(name, request.strip("\n") or "-")
    first = {"role": "user", "content": messages[0]["content"].rstrip("\n")}
    rest = messages[1:] if request.strip() else messages[1:-1]
    return [first, *({"role": m["role"], "content": m["content"]} for m in rest)]


def file_context_text(root: str | os.PathLike[str], path: str, line: int, pad: int = 1) -> tuple[str, dict[str, Any]]:
    """Line ``line`` of a file under ``root`` with the definitions around it, numbered."""
    from editblocks.syntax import file_context

    if line < 1:
        raise ToolFailure(f"line must be 1 or more, not {line}")
    if pad < 0:
        raise ToolFailure(f"pad must be 0 or more, not {pad}")
    rel, text = _read_text(root, path)
    total = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    if line > total:
        raise ToolFailure(f"line {line} is past the end of {rel}, which has {_lines(total)}")
    result = file_context(text, rel, lines=[line], pad=pad, line_numbers=True)
    out = [result.render().rstrip("\n")]
    if result.scopes:
        out.append("Inside: " + "; ".join(result.scopes))
    out += [f"note: {n}" for n in result.notes]
    return "\n".join(out) + "\n", result.to_dict()


def summary_text(
    root: str | os.PathLike[str], paths: Sequence[str] | None = None, max_tokens: int | None = None
) -> tuple[str, dict[str, Any]]:
    """Outlines of the source files under ``paths`` (all of ``root`` by default)."""
    from editblocks.files.workspace import WorkspaceError
    from editblocks.syntax import DEFAULT_MAX_TOKENS, summarize

    workspace = _workspace(root)
    chosen: list[str] = []
    for p in paths or []:
        if p in ("", ".", "./"):
            chosen = []
            break
        try:
            rel, full = workspace.resolve(p.rstrip("/") if len(p) > 1 else p)
        except WorkspaceError as exc:
            raise ToolFailure(str(exc)) from None
        if not full.exists():
            raise ToolFailure(f"no such file or folder: {rel}")
        chosen.append(rel)
    if max_tokens is not None and max_tokens < 0:
        raise ToolFailure(f"max_tokens must be 0 (no limit) or more, not {max_tokens}")
    budget = DEFAULT_MAX_TOKENS if max_tokens is None else (max_tokens or None)
    try:
        result = summarize(chosen or None, workspace.root, budget)
    except (ValueError, FileNotFoundError) as exc:
        raise ToolFailure(str(exc)) from None
    out = [result.text.rstrip("\n")] if result.text else ["(no definitions found)"]
    out += [f"note: {n}" for n in result.notes]
    data = {
        "files": dict(result.files),
        "notes": list(result.notes),
        "tokens": result.tokens,
        "definitions": result.definitions,
        "shown": result.shown,
    }
    return "\n".join(out) + "\n", data


__all__ = [
    "MAX_READ_LINES",
    "ToolFailure",
    "apply_reply",
    "describe_result",
    "edit_file",
    "file_context_text",
    "format_prompt",
    "list_formats",
    "prompt_formats",
    "read_lines",
    "result_data",
    "summary_text",
    "syntax_available",
    "text_edit_blocks",
    "undo_last",
]
