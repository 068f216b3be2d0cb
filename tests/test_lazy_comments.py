"""Elision comments of lazy sketches read in each language's own comment syntax.

With the ``ast`` extra, a sketch line is an elision when the tree-sitter grammar of the file's
language reads it as a comment of its own and its words say so; without it (or where the
sketch has a syntax error near the line) the per-extension table decides. The files merged
into are real files installed on the machine (the standard library, the installed packages,
the system's own), copied into a temporary folder; the edits are derived from them as found.
Languages no installed file is written in (Lua, Haskell, OCaml, JSX, Julia) use small samples
written here.
"""

from __future__ import annotations

import shutil
import sys
import sysconfig
from collections.abc import Callable
from pathlib import Path

import pytest

import editblocks
from editblocks import EditStatus, apply_edits
from editblocks.matching.lazy import SketchMerge, SketchRefusal, merge_sketch, sketch_elisions
from editblocks.syntax import tree as syntax_tree
from editblocks.syntax.comments import read_lines

STDLIB = Path(sysconfig.get_paths()["stdlib"])
PURELIB = Path(sysconfig.get_paths()["purelib"])

needs_ast = pytest.mark.skipif(not syntax_tree.available(), reason="needs the ast extra (tree-sitter and its grammars)")


def apply_sketch(root: Path, path: str, sketch: str) -> editblocks.EditResult:
    fence = "````" if "```" in sketch else "```"
    result = apply_edits(f"{path}\n{fence}\n{sketch}{fence}\n", root, format="lazy", journal=False)
    (res,) = result.results
    return res


@pytest.fixture
def no_tree_sitter(monkeypatch: pytest.MonkeyPatch) -> None:
    """The core install: tree-sitter cannot be imported, no parser is cached."""
    monkeypatch.setitem(sys.modules, "tree_sitter", None)
    monkeypatch.setattr(syntax_tree, "_parsers", {})


# -- which lines are elisions -----------------------------------------------------------------------

LUA = """local M = {}

function M.greet(name)
  return "hello " .. name
end

function M.part(name)
  local s = [[
-- rest of the file
]]
  return s .. name
end

return M
"""

HASKELL = """module Greet where

greet :: String -> String
greet name = "hello " ++ name

shout :: String -> String
shout = map succ
"""

OCAML = """let greet name = "hello " ^ name

let shout s = String.uppercase_ascii s

let () = print_endline (greet "world")

let () = print_endline (shout "world")
"""

JSX = """export function App() {
  return (
    <div>
      <Header />
      <Main />
      <Footer />
    </div>
  );
}
"""

JULIA = """module Greet

greet(name) = "hello " * name

shout(s) = uppercase(s)

whisper(s) = lowercase(s)

end
"""


@needs_ast
@pytest.mark.parametrize(
    ("path", "sketch", "want"),
    [
        (
            "m.lua",
            "-- ... existing code ...\nfunction M.f()\nend\n--[[ ... rest of the file ... ]]\n",
            [True, False, False, True],
        ),
        ("q.sql", "-- ... existing code ...\nSELECT 1;\n/* ... rest of the file ... */\n", [True, False, True]),
        ("G.hs", "{- ... existing code ... -}\nf :: Int\nf = 1\n-- rest of the file\n", [True, False, False, True]),
        ("g.ml", "(* ... existing code ... *)\nlet f x = x + 1\n(* ... *)\n", [True, False, True]),
        (
            "A.jsx",
            "function A() {\n  return (\n    <div>\n      {/* ... existing code ... */}\n    </div>\n  );\n}\n",
            [False] * 3 + [True] + [False] * 3,
        ),
        ("g.jl", "#= ... existing code ... =#\nf(x) = x + 1\n# ...\n", [True, False, True]),
        ("g.erl", "% ... existing code ...\nf(X) -> X + 1.\n", [True, False]),
        ("a.py", "x = 1  # unchanged\n# unchanged\n", [False, True]),
    ],
)
def test_elision_comments_by_the_grammar(path: str, sketch: str, want: list[bool]) -> None:
    marks, uncertain = sketch_elisions(sketch.split("\n")[:-1], path)
    assert marks == want
    assert uncertain == {}


@needs_ast
def test_a_line_inside_a_string_is_not_a_comment() -> None:
    lines = LUA.split("\n")
    row = lines.index("-- rest of the file")
    readings = read_lines(LUA, "m.lua", [row, 0], ("--",))
    assert readings is not None
    assert readings[row].comment is False and readings[row].what == "a string"
    assert readings[0].comment is False  # code


@needs_ast
def test_a_sketch_with_a_syntax_error_near_the_line_is_read_by_the_table() -> None:
    # An unterminated docstring: the tree cannot tell; the table reads the comment line.
    sketch = ["def f():", '    """Start of the docstring.', "# ... existing code ...", "    return 1"]
    marks, uncertain = sketch_elisions(sketch, "a.py")
    assert marks == [False, False, True, False] and uncertain == {}


def test_without_the_grammars_the_table_decides(no_tree_sitter: None) -> None:
    assert read_lines(OCAML, "g.ml", [0], ("(*",)) is None
    marks, uncertain = sketch_elisions(["(* ... existing code ... *)", "let f x = x", "-- rest of the file"], "g.ml")
    assert marks == [True, False, False] and uncertain == {}
    marks, _ = sketch_elisions(["{- ... -}", "f = 1", "-- rest of the file", "# ... existing code ..."], "G.hs")
    assert marks == [True, False, True, False]


# -- merges into the languages the table used to miss ------------------------------------------------


@pytest.mark.parametrize("tree", [True, False], ids=["grammar", "table"])
@pytest.mark.parametrize(
    ("path", "text", "sketch", "old", "new"),
    [
        (
            "G.hs",
            HASKELL,
            '{- ... existing code ... -}\ngreet :: String -> String\ngreet name = "hi " ++ name\n\nshout :: String -> String\n{- ... rest of the file ... -}\n',
            '"hello "',
            '"hi "',
        ),
        (
            "g.ml",
            OCAML,
            '(* ... existing code ... *)\nlet greet name = "hello " ^ name\n\nlet shout s = String.lowercase_ascii s\n\nlet () = print_endline (greet "world")\n(* ... *)\n',
            "uppercase",
            "lowercase",
        ),
        (
            "m.lua",
            LUA,
            '--[[ ... existing code ... ]]\nfunction M.greet(name)\n  return "hi " .. name\nend\n-- ... rest of the file ...\n',
            '"hello "',
            '"hi "',
        ),
        (
            "A.jsx",
            JSX,
            "export function App() {\n  return (\n    <div>\n      <Header />\n      <Nav />\n      <Main />\n      {/* ... existing code ... */}\n    </div>\n  );\n}\n",
            "      <Header />\n",
            "      <Header />\n      <Nav />\n",
        ),
    ],
)
def test_sketches_in_each_comment_syntax_merge(
    tmp_path: Path, request: pytest.FixtureRequest, tree: bool, path: str, text: str, sketch: str, old: str, new: str
) -> None:
    if tree and not syntax_tree.available():
        pytest.skip("needs the ast extra")
    if not tree:
        request.getfixturevalue("no_tree_sitter")
    (tmp_path / path).write_text(text)
    res = apply_sketch(tmp_path, path, sketch)
    assert res.status is EditStatus.APPLIED, res.reason
    assert (tmp_path / path).read_text() == text.replace(old, new, 1)


@needs_ast
def test_a_comment_only_the_grammar_knows(tmp_path: Path) -> None:
    sketch = '#= ... existing code ... =#\ngreet(name) = "hello " * name\n\nshout(s) = lowercase(s)\n\nwhisper(s) = lowercase(s)\n#= ... rest of the file ... =#\n'
    (tmp_path / "g.jl").write_text(JULIA)
    res = apply_sketch(tmp_path, "g.jl", sketch)
    assert res.status is EditStatus.APPLIED, res.reason
    assert (tmp_path / "g.jl").read_text() == JULIA.replace("uppercase", "lowercase")


def test_without_the_grammar_an_unknown_comment_is_never_written_into_the_file(
    tmp_path: Path, no_tree_sitter: None
) -> None:
    sketch = '#= ... existing code ... =#\ngreet(name) = "hello " * name\n\nshout(s) = lowercase(s)\n\nwhisper(s) = lowercase(s)\n#= ... rest of the file ... =#\n'
    (tmp_path / "g.jl").write_text(JULIA)
    res = apply_sketch(tmp_path, "g.jl", sketch)
    assert res.status is EditStatus.FAILED
    assert (tmp_path / "g.jl").read_text() == JULIA


@needs_ast
def test_a_line_that_is_a_syntax_error_in_the_language_is_read_by_the_table(tmp_path: Path) -> None:
    """``/* ... */`` is no Haskell comment, and no Haskell code either (the grammar finds a
    syntax error there): the grammar cannot tell, and the table's ``...`` rule reads it as an
    elision, as without the extra."""
    (tmp_path / "G.hs").write_text(HASKELL)
    sketch = '/* ... existing code ... */\ngreet :: String -> String\ngreet name = "hi " ++ name\n\nshout :: String -> String\n/* ... */\n'
    readings = read_lines(sketch, "G.hs", [0, 5], ("/*",))
    assert readings is not None and readings[0].comment is None and readings[5].comment is None
    res = apply_sketch(tmp_path, "G.hs", sketch)
    assert res.status is EditStatus.APPLIED, res.reason
    assert (tmp_path / "G.hs").read_text() == HASKELL.replace('"hello "', '"hi "')


@needs_ast
def test_an_elision_like_line_in_a_lua_long_string_is_refused(tmp_path: Path) -> None:
    (tmp_path / "m.lua").write_text(LUA)
    sketch = (
        "-- ... existing code ...\nfunction M.part(name)\n  local s = [[\n-- rest of the file\nmore\n]]\n"
        "  return s .. name\nend\n-- ... existing code ...\n"
    )
    merged = merge_sketch(LUA, sketch, "m.lua")
    assert isinstance(merged, SketchMerge)  # the file has that line: the string's own text
    sketch = sketch.replace("-- rest of the file\n", "-- rest of the code\n")
    refused = merge_sketch(LUA, sketch, "m.lua")
    assert isinstance(refused, SketchRefusal)
    assert "lua grammar reads it as a string" in refused.reason and refused.line == 4


# -- real files ----------------------------------------------------------------------------------------


def derive(
    text: str, header: Callable[[str], bool], offset: int, change: Callable[[str], str], first: str, last: str
) -> tuple[str, str]:
    """A sketch of ``text`` that changes the line ``offset`` lines below the first line that
    ``header`` picks and that occurs once (with the line above it and two lines below the
    change), between elision comments ``first`` and ``last``; and the file it means."""
    lines = text.split("\n")[:-1]
    h = next(i for i, x in enumerate(lines) if header(x) and lines.count(x) == 1)
    t = h + offset
    changed = change(lines[t])
    assert changed != lines[t]
    sketch = [first, *lines[max(h - 1, 0) : t], changed, *lines[t + 1 : t + 3], last]
    want = [*lines[:t], changed, *lines[t + 1 :]]
    return "".join(x + "\n" for x in sketch), "".join(x + "\n" for x in want)


def copy_real(tmp_path: Path, source: Path, name: str | None = None) -> tuple[Path, str]:
    if not source.is_file():
        pytest.skip(f"{source} is not installed here")
    target = tmp_path / (name or source.name)
    shutil.copyfile(source, target)
    return target, target.read_text(encoding="utf-8")


def _grammar_cases() -> list[tuple[str, Path, Callable[[str], bool], int, Callable[[str], str], str, str]]:
    tex = PURELIB / "docutils" / "writers" / "latex2e" / "default.tex"
    return [
        (
            "sql",
            Path("/usr/share/postgresql/15/system_functions.sql"),
            lambda x: x.startswith("CREATE OR REPLACE FUNCTION rpad("),
            4,
            lambda x: x.replace("' '", "'*'"),
            "-- ... existing code ...",
            "/* ... rest of the file ... */",
        ),
        (
            "tcl",
            Path("/usr/share/tcltk/tk8.6/button.tcl"),
            lambda x: x.startswith("proc ::tk::CheckRadioInvoke"),
            2,
            lambda x: x.replace("$cmd", "$cmd 1"),
            "# ... existing code ...",
            "# ... rest of the file ...",
        ),
        (
            "latex",
            tex,
            lambda x: x.startswith("%%% Custom LaTeX preamble"),
            1,
            lambda x: x + "\n\\usepackage{lmodern}",
            "% ... existing code ...",
            "% ... rest of the file ...",
        ),
        (
            "scheme",
            PURELIB / "tree_sitter_yaml" / "queries" / "highlights.scm",
            lambda x: x.startswith("] @number"),
            2,
            lambda x: x.replace("@comment", "@comment.line"),
            "; ... existing code ...",
            "; ... rest of the file ...",
        ),
    ]


@pytest.mark.parametrize("tree", [True, False], ids=["grammar", "table"])
@pytest.mark.parametrize("case", _grammar_cases(), ids=lambda c: c[0])
def test_real_files_in_other_comment_syntaxes(
    tmp_path: Path,
    request: pytest.FixtureRequest,
    tree: bool,
    case: tuple[str, Path, Callable[[str], bool], int, Callable[[str], str], str, str],
) -> None:
    _, source, header, offset, change, first, last = case
    if tree and not syntax_tree.available():
        pytest.skip("needs the ast extra")
    if not tree:
        request.getfixturevalue("no_tree_sitter")
    target, text = copy_real(tmp_path, source)
    sketch, want = derive(text, header, offset, change, first, last)
    if tree:
        marks, uncertain = sketch_elisions(sketch.split("\n")[:-1], target.name)
        assert marks[0] and marks[-1] and not any(marks[1:-1]) and not uncertain
    res = apply_sketch(tmp_path, target.name, sketch)
    assert res.status is EditStatus.APPLIED, res.reason
    assert target.read_text(encoding="utf-8") == want


@pytest.mark.parametrize("tree", [True, False], ids=["grammar", "table"])
def test_an_elision_inside_a_docstring_of_a_stdlib_file(
    tmp_path: Path, request: pytest.FixtureRequest, tree: bool
) -> None:
    """``textwrap.dedent``'s docstring cut by an elision, its first and last lines kept: the
    grammar reads the elision line as the docstring's text, so the sketch is refused (the table
    alone reads it as an elision and merges)."""
    if tree and not syntax_tree.available():
        pytest.skip("needs the ast extra")
    if not tree:
        request.getfixturevalue("no_tree_sitter")
    target, text = copy_real(tmp_path, STDLIB / "textwrap.py")
    lines = text.split("\n")[:-1]
    d = lines.index("def dedent(text):")
    close = next(i for i in range(d + 2, len(lines)) if lines[i].strip() == '"""')
    new_line = "    # dedent: lazy"
    sketch = [
        "# ... existing code ...",
        *lines[d : d + 2],
        "    # ... existing code ...",
        *lines[close : close + 2],
        new_line,
    ]
    sketch += [*lines[close + 2 : close + 4], "# ... existing code ..."]
    res = apply_sketch(tmp_path, target.name, "".join(x + "\n" for x in sketch))
    if tree:
        assert res.status is EditStatus.FAILED
        assert "python grammar reads it as a string" in (res.reason or "")
        assert target.read_text(encoding="utf-8") == text
    else:
        assert res.status is EditStatus.APPLIED, res.reason
        want = [*lines[: close + 2], new_line, *lines[close + 2 :]]
        assert target.read_text(encoding="utf-8") == "".join(x + "\n" for x in want)
