"""Plain output (a pipe, a log) is printed without rich, and reads exactly as rich prints it there."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.markup import escape as rich_escape
from rich.markup import render

from editblocks.cli.plain import PlainConsole, escape, render_markup

_TEXT = st.text(alphabet=st.sampled_from(list("ab [/]\\#@=:x")), max_size=40)


def _rich_plain(text: str, markup: bool = True) -> str:
    out = io.StringIO()
    Console(file=out, color_system=None, highlight=False, emoji=False, soft_wrap=True, width=10_000).print(
        text, markup=markup
    )
    return out.getvalue()


def _ours(text: str, markup: bool = True) -> str:
    console = PlainConsole()
    out = io.StringIO()
    console.__class__ = type("ToString", (PlainConsole,), {"file": property(lambda self: out)})
    console.print(text, markup=markup)
    return out.getvalue()


@settings(max_examples=300)
@given(_TEXT)
def test_escape_and_markup_are_riches(text: str) -> None:
    assert escape(text) == rich_escape(text)
    assert render_markup(escape(text)) == render(rich_escape(text), emoji=False).plain
    if "\\" not in text:
        assert render_markup(escape(text)) == text


@settings(max_examples=300)
@given(_TEXT, _TEXT, st.sampled_from(["green", "bold red", "yellow", "/"]))
def test_plain_lines_read_as_rich_prints_them_outside_a_terminal(before: str, after: str, style: str) -> None:
    text = f"[{style}]{escape(before)}[/] {escape(after)}" if style != "/" else escape(before + after)
    assert _ours(text) == _rich_plain(text)
    assert _ours(before, markup=False) == _rich_plain(before, markup=False)


def test_tabs_are_kept_so_a_printed_diff_still_applies() -> None:
    # rich expands tabs to spaces; a diff of a Makefile printed that way no longer applies.
    assert _ours("+\tcc -o x x.c", markup=False) == "+\tcc -o x x.c\n"


def test_control_characters_from_a_reply_are_written_out_not_sent_to_the_terminal() -> None:
    # A file name or a shell command holding an escape sequence must not clear the screen, retitle
    # the window or hide the rest of the line.
    assert _ours("a\rb\x07c\x1b[2Jd\x1b]0;t\x07", markup=False) == "a\\x0db\\x07c\\x1b[2Jd\\x1b]0;t\\x07\n"
    assert escape("rm -rf / \x1b[8m --no-preserve-root") == "rm -rf / \\x1b[8m --no-preserve-root"


def test_an_output_that_cannot_show_a_character_gets_an_escape_not_a_crash() -> None:
    out = io.TextIOWrapper(io.BytesIO(), encoding="cp1252")
    console = PlainConsole()
    console.__class__ = type("ToCp1252", (PlainConsole,), {"file": property(lambda self: out)})
    console.print("files changed: \u65e5\u672c.py, caf\u00e9.py", markup=False)
    out.flush()
    assert out.buffer.getvalue().decode("cp1252") == "files changed: \\u65e5\\u672c.py, caf\u00e9.py\n"  # type: ignore[attr-defined]


def test_apply_in_a_pipe_does_not_load_the_terminal_library(tmp_path: Path) -> None:
    (tmp_path / "a[red]b.py").write_text("x = 1\n")
    (tmp_path / "r.md").write_text("a[red]b.py\n```\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n")
    code = (
        "import sys\nfrom editblocks.cli import main\n"
        "try:\n    main(['apply', 'r.md'])\nexcept SystemExit:\n    pass\n"
        "print('RICH' if any(m == 'rich' or m.startswith('rich.') for m in sys.modules) else 'NO RICH')"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert "block 1 a[red]b.py: applied (exact, line 1)" in done.stdout
    assert "files changed: a[red]b.py" in done.stdout
    assert done.stdout.rstrip().endswith("NO RICH")
    assert (tmp_path / "a[red]b.py").read_text() == "x = 2\n"


def test_a_terminal_whose_encoding_lacks_a_character_gets_an_escape_not_a_crash(tmp_path: Path) -> None:
    # FORCE_COLOR draws the terminal's table (rich) although the output is captured.
    (tmp_path / "r.md").write_text("new_\u2603.py\n```python\n<<<<<<< SEARCH\n=======\nx = 1\n>>>>>>> REPLACE\n```\n")
    env = {**os.environ, "PYTHONIOENCODING": "cp1252", "FORCE_COLOR": "1", "COLUMNS": "200"}
    env.pop("NO_COLOR", None)
    done = subprocess.run(
        [sys.executable, "-m", "editblocks", "apply", "r.md"], cwd=tmp_path, capture_output=True, env=env
    )
    assert done.returncode == 0, done.stderr.decode("cp1252", "replace")
    assert b"Traceback" not in done.stderr and b"\\u2603" in done.stdout
    assert (tmp_path / "new_\u2603.py").read_text() == "x = 1\n"
