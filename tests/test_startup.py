"""What a command loads: ``import editblocks`` and the everyday commands import only the parts
they use (start-up time is measured in benchmarks/bench_startup.py, not asserted here)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HEAVY = {
    "rich",
    "pygments",
    "openai",
    "starlette",
    "uvicorn",
    "mcp",
    "tree_sitter",
    "tree_sitter_language_pack",
    "httpx",
    "rapidfuzz",
    "charset_normalizer",
    "click",
}

REPORT = "import sys, json; print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})), file=sys.__stderr__)"


def _loaded(code: str, cwd: Path | None = None) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\n" + REPORT], capture_output=True, text=True, cwd=cwd, timeout=120
    )
    return set(json.loads(out.stderr.strip().splitlines()[-1]))


def _command(args: list[str]) -> str:
    """Code that runs the command line with ``args`` and then reports the loaded modules."""
    return (
        "import sys\n"
        f"sys.argv = ['editblocks', *{args!r}]\n"
        "from editblocks.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
    )


def test_import_editblocks_loads_no_library() -> None:
    loaded = _loaded("import editblocks")
    assert not loaded & HEAVY, loaded & HEAVY
    # Reading a reply needs no library either (matching, where rapidfuzz is, comes with applying).
    assert not _loaded("import editblocks; editblocks.parse_reply('x')") & HEAVY


def test_help_loads_no_engine_and_no_terminal_library() -> None:
    loaded = _loaded(_command(["--help"]))
    assert "click" in loaded
    assert not loaded & (HEAVY - {"click"}), loaded & HEAVY


def test_apply_json_loads_what_applying_needs_and_nothing_to_draw(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "reply.md").write_text("a.py\n```\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n")
    loaded = _loaded(_command(["apply", str(tmp_path / "reply.md"), "--root", str(tmp_path), "--json"]))
    assert (tmp_path / "a.py").read_text() == "x = 2\n"  # the command ran
    # An exact match needs no similarity scorer (rapidfuzz), and JSON no terminal library.
    assert not loaded & (HEAVY - {"click", "charset_normalizer"}), loaded & HEAVY


def test_apply_outside_git_loads_nothing_only_other_commands_need(tmp_path: Path) -> None:
    """No process module outside a git work tree, no demo copying, no stream parser for a whole reply."""
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "reply.md").write_text("a.py\n```\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n")
    code = _command(["apply", str(tmp_path / "reply.md"), "--root", str(tmp_path), "--json"])
    code += "\nimport sys; print(json.dumps(sorted(sys.modules)), file=sys.__stderr__)"
    out = subprocess.run([sys.executable, "-c", "import json\n" + code], capture_output=True, text=True, cwd=tmp_path)
    loaded = set(json.loads(out.stderr.strip().splitlines()[-1]))
    assert (tmp_path / "a.py").read_text() == "x = 2\n"
    unneeded = {"subprocess", "tempfile", "shutil", "importlib.resources", "secrets", "editblocks.reading.stream"}
    assert not loaded & unneeded, loaded & unneeded


def test_apply_in_a_pipe_prints_plain_lines_without_the_terminal_library(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "reply.md").write_text("a.py\n```\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n")
    loaded = _loaded(_command(["apply", str(tmp_path / "reply.md"), "--root", str(tmp_path)]))
    assert (tmp_path / "a.py").read_text() == "x = 2\n"
    assert not loaded & (HEAVY - {"click", "charset_normalizer"}), loaded & HEAVY


def test_every_public_name_resolves_and_is_shown_as_editblocks() -> None:
    import editblocks

    for name in editblocks.__all__:
        value = getattr(editblocks, name)
        if isinstance(value, type):
            assert value.__module__ == "editblocks", name
    assert set(dir(editblocks)) >= set(editblocks.__all__)
    assert issubclass(editblocks.WorkspaceError, editblocks.EditblocksError)
    assert issubclass(editblocks.ReplyDecodeError, editblocks.EditblocksError)


def test_the_earlier_names_of_reading_a_reply_still_work() -> None:
    import editblocks

    reply = "a.py\n```\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n"
    parsed = editblocks.parse_response(reply)
    assert isinstance(parsed, editblocks.ParsedReply) and editblocks.ParsedResponse is editblocks.ParsedReply
    assert [b.replace_text for b in parsed.blocks] == ["x = 2\n"]
    assert "parse_response" not in editblocks.__all__ and "parse_reply" in editblocks.__all__
