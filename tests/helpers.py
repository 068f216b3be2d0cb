"""Helpers shared by the test modules: building and reading project trees, writing blocks."""

from __future__ import annotations

from pathlib import Path

import editblocks


def write_tree(root: Path, files: dict[str, str | bytes]) -> None:
    """Create ``files`` (relative path -> text or bytes) under ``root``; text is written as-is (no newline translation)."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        data = content.encode("utf-8") if isinstance(content, str) else content
        path.write_bytes(data)


def read_tree(root: Path) -> dict[str, bytes]:
    """Every regular file under ``root`` as {relative POSIX path: bytes}, editblocks' own ``.editblocks/`` left out."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink() and ".editblocks" not in p.relative_to(root).parts
    }


def sr(path: str, search: str, replace: str, fence: str = "```") -> str:
    """One aider ``diff`` block (path line, fence, SEARCH/REPLACE)."""
    return f"{path}\n{fence}\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n{fence}\n"


def v2(path: str, lead: str, old: str, new: str, trail: str) -> str:
    """One ``edit-v2`` block."""
    return f"{path}\n<<<<<<< EDIT\n{lead}-------\n{old}=======\n{new}-------\n{trail}>>>>>>>\n"


def v3(path: str, edit: str, repl: str) -> str:
    """One ``edit-v3`` block."""
    return f"{path}\n««« EDIT\n{edit}═══════ REPL\n{repl}»»» EDIT END\n"


def apply_to(
    root: Path, files: dict[str, str | bytes], reply: str, **options: object
) -> tuple[editblocks.ApplyResult, dict[str, str]]:
    """Write ``files`` under ``root``, apply ``reply`` there, and return (result, text of every file after)."""
    write_tree(root, files)
    result = editblocks.apply_edits(reply, root, **options)  # type: ignore[arg-type]
    return result, {k: v.decode("utf-8", errors="replace") for k, v in read_tree(root).items()}


def default_sigint() -> None:
    """For a child process that is sent Ctrl-C (SIGINT): the default handling, even when the test
    run itself ignores SIGINT (started with ``nohup`` or in the background), so that Python in
    the child turns the signal into KeyboardInterrupt as it does at a terminal."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
