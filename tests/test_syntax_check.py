"""Syntax as a second opinion: a file that parsed before its blocks and does not after them."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import editblocks
from editblocks import EditStatus

from .helpers import sr


def test_a_break_gets_a_note_and_feedback(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("def f():\n    return g(1, 2)\n")
    result = editblocks.apply_edits(sr("m.py", "    return g(1, 2)\n", "    return g(1, 2\n"), tmp_path)
    (res,) = result.results
    assert res.status is EditStatus.APPLIED
    assert any("no longer" in n and "line 2" in n for n in res.notes), res.notes
    assert "m.py" in result.syntax_problems
    assert "does not parse" in result.feedback_message()
    assert (tmp_path / "m.py").read_text() == "def f():\n    return g(1, 2\n"


def test_verify_syntax_leaves_the_file_untouched(tmp_path: Path) -> None:
    text = "def f():\n    return g(1, 2)\n"
    (tmp_path / "m.py").write_text(text)
    result = editblocks.apply_edits(
        sr("m.py", "    return g(1, 2)\n", "    return g(1, 2\n"), tmp_path, verify_syntax=True
    )
    (res,) = result.results
    assert res.status is EditStatus.FAILED and "parse" in (res.reason or "")
    assert (tmp_path / "m.py").read_text() == text and not result.files_modified


def test_a_file_that_did_not_parse_before_gets_no_note(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("def f(:\n    x = 1\n")
    result = editblocks.apply_edits(sr("m.py", "    x = 1\n", "    x = 2\n"), tmp_path, verify_syntax=True)
    assert result.results[0].status is EditStatus.APPLIED and not result.syntax_problems


def test_other_languages_through_the_syntax_tree(tmp_path: Path) -> None:
    (tmp_path / "a.js").write_text("function f() {\n  return 1;\n}\n")
    result = editblocks.apply_edits(sr("a.js", "  return 1;\n}\n", "  return 1;\n"), tmp_path, verify_syntax=True)
    assert result.results[0].status is EditStatus.FAILED
    assert (tmp_path / "a.js").read_text() == "function f() {\n  return 1;\n}\n"


def test_cli_verify_syntax_on_real_code(tmp_path: Path) -> None:
    """textwrap.py from the standard library: an edit that drops a closing bracket is refused."""
    shutil.copyfile(textwrap.__file__, tmp_path / "textwrap.py")
    original = (tmp_path / "textwrap.py").read_text(encoding="utf-8")
    line = next(x for x in original.split("\n") if x.endswith(")") and original.count(x) == 1 and _breaks(original, x))
    reply = sr("textwrap.py", line + "\n", line.rstrip()[:-1] + "\n")
    (tmp_path / "reply.md").write_text(reply)
    run = subprocess.run(
        [sys.executable, "-m", "editblocks", "apply", "reply.md", "--verify-syntax", "--json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 1, run.stderr
    payload = json.loads(run.stdout)
    assert payload["results"][0]["status"] == "failed" and "textwrap.py" in payload["syntax_problems"]
    assert (tmp_path / "textwrap.py").read_text(encoding="utf-8") == original


def _breaks(text: str, line: str) -> bool:
    try:
        compile(text.replace(line, line[:-1]), "t.py", "exec", dont_inherit=True)
    except SyntaxError:
        return True
    return False
