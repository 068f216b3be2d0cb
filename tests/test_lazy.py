"""The ``lazy`` format: sketches with elision comments, merged into real files or refused."""

from __future__ import annotations

import importlib.util
import json
import random
import shutil
import sys
import sysconfig
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import editblocks
from editblocks import EditStatus, apply_edits, parse_reply
from editblocks.cli import main
from editblocks.matching import lazy
from editblocks.matching.lazy import SketchMerge, SketchRefusal, is_sketch_elision, merge_sketch
from editblocks.mcp_server.tools import format_names, list_formats
from editblocks.pipeline.verifier import check_sketch
from editblocks.prompts import example_messages, reminder, system_prompt

STDLIB = Path(sysconfig.get_paths()["stdlib"])
EXAMPLE = Path(__file__).parent / "prompt_example"
GENERATOR = Path(__file__).resolve().parent.parent / "benchmarks" / "lazy_sketches.py"


def reply(path: str, sketch: str, lang: str = "") -> str:
    fence = "````" if "```" in sketch else "```"
    return f"{path}\n{fence}{lang}\n{sketch}{fence}\n"


def apply_sketch(root: Path, path: str, sketch: str) -> editblocks.EditResult:
    result = apply_edits(reply(path, sketch), root, format="lazy", journal=False)
    (res,) = result.results
    return res


def copy_stdlib(tmp_path: Path, name: str) -> tuple[Path, str]:
    source = STDLIB / name
    target = tmp_path / Path(name).name
    shutil.copyfile(source, target)
    return target, target.read_text(encoding="utf-8")


# -- elision lines ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "path"),
    [
        ("# ... existing code ...", "a.py"),
        ("    # ...", "a.py"),
        ("# rest of the file", "a.py"),
        ("# existing imports", "a.py"),
        ("# unchanged", "a.py"),
        ("# ... (existing tests) ...", "a.py"),
        ("// ... existing code ...", "a.js"),
        ("// rest of code", "a.ts"),
        ("...", "a.js"),
        ("/* ... */", "a.go"),
        ("// same", "a.rs"),
        ("{/* ... existing code ... */}", "a.tsx"),
        ("<!-- ... existing sections ... -->", "a.html"),
        ("<!-- rest of the file unchanged -->", "README.md"),
        ("-- ... existing code ...", "q.sql"),
        ("; existing methods", "init.el"),
        ("# ... existing code ...", "config.yaml"),
        ("// existing methods remain the same", "A.java"),
    ],
)
def test_elision_lines_in_each_comment_syntax(line: str, path: str) -> None:
    assert is_sketch_elision(line, path)


@pytest.mark.parametrize(
    ("line", "path"),
    [
        ("...", "a.py"),  # Python's Ellipsis: a statement, never an elision
        ("    ...", "stub.pyi"),
        ("# existing users are migrated below", "a.py"),
        ("# the same key is used twice", "a.py"),
        ("// ... existing code ...", "a.py"),  # not Python's comment syntax
        ("# ... existing code ...", "a.js"),
        ("<!-- ... -->", "a.py"),
        ("x = 1  # unchanged", "a.py"),
        ("print('...')", "a.py"),
    ],
)
def test_lines_that_are_not_elisions(line: str, path: str) -> None:
    assert not is_sketch_elision(line, path)


# -- merging into standard-library files -------------------------------------------------------------


def test_textwrap_change_inside_dedent(tmp_path: Path) -> None:
    target, text = copy_stdlib(tmp_path, "textwrap.py")
    sketch = (
        "# ... existing code ...\n"
        "def dedent(text):\n"
        '    """Remove any common leading whitespace from every line in `text`.\n'
        "# ... existing code ...\n"
        "    if margin:\n"
        "        text = re.sub(r'(?m)^' + margin, '', text)\n"
        "    text = text.replace('\\t', '    ')  # lazy\n"
        "    return text\n"
        "# ... existing code ...\n"
    )
    res = apply_sketch(tmp_path, target.name, sketch)
    assert res.status is EditStatus.APPLIED, res.reason
    assert res.strategy == "sketch"
    anchor = "        text = re.sub(r'(?m)^' + margin, '', text)\n    return text\n"
    assert text.count(anchor) == 1
    want = text.replace(
        anchor,
        "        text = re.sub(r'(?m)^' + margin, '', text)\n    text = text.replace('\\t', '    ')  # lazy\n    return text\n",
    )
    assert target.read_text(encoding="utf-8") == want
    # The same sketch again: already applied, nothing written.
    again = apply_sketch(tmp_path, target.name, sketch)
    assert again.status is EditStatus.ALREADY_APPLIED and again.already_applied
    assert target.read_text(encoding="utf-8") == want


def test_json_encoder_two_parts_and_a_removed_line(tmp_path: Path) -> None:
    target, text = copy_stdlib(tmp_path, "json/encoder.py")
    lines = text.split("\n")
    i = lines.index("class JSONEncoder(object):")
    j = lines.index("    def encode(self, o):")
    k = lines.index("        # This is for extremely simple cases and benchmarks.")
    sketch_lines = [
        "# ... existing code ...",
        lines[i],
        "    # lazy: a new comment",
        *lines[i + 1 : i + 3],
        "    # ... existing code ...",
        *lines[j : j + 2],
        "    # ... existing methods ...",
        *lines[k - 4 : k],
        *lines[k + 1 : k + 3],
        "# ... rest of the file ...",
    ]
    res = apply_sketch(tmp_path, target.name, "\n".join(sketch_lines) + "\n")
    assert res.status is EditStatus.APPLIED, res.reason
    want = lines[: i + 1] + ["    # lazy: a new comment"] + lines[i + 1 : k] + lines[k + 1 :]
    assert target.read_text(encoding="utf-8") == "\n".join(want)


def test_a_part_in_several_places_is_refused_with_its_places(tmp_path: Path) -> None:
    target, text = copy_stdlib(tmp_path, "textwrap.py")
    lines = text.split("\n")
    twice = next(
        x for x in lines if x.strip() and len(x.strip()) > 12 and lines.count(x) >= 2 and not x.strip().startswith("#")
    )
    places = [n + 1 for n, x in enumerate(lines) if " ".join(x.split()) == " ".join(twice.split())]
    sketch = f"# ... existing code ...\n{twice}\n{twice[: len(twice) - len(twice.lstrip())]}x = 1  # lazy\n# ... existing code ...\n"
    res = apply_sketch(tmp_path, target.name, sketch)
    assert res.status is EditStatus.FAILED
    assert "several places" in res.reason and "line" in res.reason
    assert res.candidates[:2] == places[:2]
    assert target.read_text(encoding="utf-8") == text


def test_a_part_out_of_order_is_refused(tmp_path: Path) -> None:
    target, text = copy_stdlib(tmp_path, "textwrap.py")
    sketch = (
        "# ... existing code ...\n"
        "def indent(text, prefix, predicate=None):\n"
        "    # lazy\n"
        "# ... existing code ...\n"
        "def dedent(text):\n"
        "# ... existing code ...\n"
    )
    res = apply_sketch(tmp_path, target.name, sketch)
    assert res.status is EditStatus.FAILED
    assert "out of order" in res.reason and "file's order" in res.reason
    assert target.read_text(encoding="utf-8") == text


def test_a_part_that_is_nowhere_is_refused(tmp_path: Path) -> None:
    target, text = copy_stdlib(tmp_path, "textwrap.py")
    res = apply_sketch(
        tmp_path, target.name, "# ... existing code ...\ndef brand_new():\n    return 1\n# ... existing code ...\n"
    )
    assert res.status is EditStatus.FAILED
    assert "not in the file" in res.reason and "unchanged line" in res.reason


def test_a_new_line_that_could_be_a_changed_copy_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("import os\nimport sys\n\n\ndef f():\n    return 1\n")
    res = apply_sketch(tmp_path, "a.py", "import os\nimport json\n# ... existing code ...\n")
    assert res.status is EditStatus.FAILED and "changed copy" in res.reason


def test_definition_without_elision_replaces_the_only_one(tmp_path: Path) -> None:
    target, text = copy_stdlib(tmp_path, "json/encoder.py")
    lines = text.split("\n")
    i = lines.index("def py_encode_basestring(s):")
    end = next(n for n in range(i + 1, len(lines)) if lines[n] and not lines[n].startswith((" ", "\t")))
    body = [x for x in lines[i:end]]
    while not body[-1].strip():
        body.pop()
    changed = [*body[:-1], "    # lazy", body[-1]]
    res = apply_sketch(tmp_path, target.name, "\n".join(changed) + "\n")
    assert res.status is EditStatus.APPLIED, res.reason
    assert res.strategy == "definition"
    assert target.read_text(encoding="utf-8") == "\n".join(lines[:i] + changed + lines[i + len(body) :])


def test_method_sketch_is_reindented_into_its_class(tmp_path: Path) -> None:
    target, text = copy_stdlib(tmp_path, "textwrap.py")
    sketch = "def _munge_whitespace(self, text):\n    return text  # lazy\n"
    res = apply_sketch(tmp_path, target.name, sketch)
    assert res.status is EditStatus.APPLIED, res.reason
    new = target.read_text(encoding="utf-8")
    assert "    def _munge_whitespace(self, text):\n        return text  # lazy\n" in new
    assert new.count("def ") == text.count("def ")


def test_definition_missing_or_defined_twice_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(
        "class A:\n    def run(self):\n        return 1\n\n\nclass B:\n    def run(self):\n        return 2\n\n\ndef other():\n    pass\n"
    )
    res = apply_sketch(tmp_path, "a.py", "def run(self):\n    return 3\n")
    assert res.status is EditStatus.FAILED and "2 times" in res.reason and "lines 2 and 7" in res.reason
    res = apply_sketch(tmp_path, "a.py", "def missing():\n    return 3\n")
    assert res.status is EditStatus.FAILED and "has no" in res.reason


def test_complete_file_without_elision_applies_as_whole(tmp_path: Path) -> None:
    target, text = copy_stdlib(tmp_path, "textwrap.py")
    new = text.replace("def fill(text, width=70, **kwargs):", "def fill(text, width=72, **kwargs):")
    res = apply_sketch(tmp_path, target.name, new)
    assert res.status is EditStatus.APPLIED and res.strategy == "whole"
    assert target.read_text(encoding="utf-8") == new


def test_a_fragment_that_is_no_definition_is_refused(tmp_path: Path) -> None:
    target, text = copy_stdlib(tmp_path, "textwrap.py")
    res = apply_sketch(tmp_path, target.name, "    x = 1\n    y = 2\n")
    assert res.status is EditStatus.FAILED and "elision comment" in res.reason
    assert target.read_text(encoding="utf-8") == text


def test_forgotten_leading_elision_is_refused(tmp_path: Path) -> None:
    target, text = copy_stdlib(tmp_path, "textwrap.py")
    res = apply_sketch(tmp_path, target.name, "def dedent(text):\n    # lazy\n# ... existing code ...\n")
    assert res.status is EditStatus.FAILED and "first lines" in res.reason
    assert target.read_text(encoding="utf-8") == text


def test_merge_that_breaks_syntax_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def f():\n    a = 1\n    b = 2\n    return a + b\n\n\ndef g():\n    return 0\n")
    res = apply_sketch(tmp_path, "a.py", "def f():\n    a = 1\n  b = (\n    return a + b\n# ... existing code ...\n")
    assert res.status is EditStatus.FAILED and "parse" in res.reason


def test_elision_line_the_file_has_is_read_both_ways(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(
        "def f():\n    a = 1\n    # ...\n    b = 2\n    return a + b\n\n\ndef g():\n    return 0\n"
    )
    # Read as an elision, "# ..." keeps line 2 to 4; read as the file's line, it would delete them.
    res = apply_sketch(tmp_path, "a.py", "def f():\n    # ...\n    return a + b + 1\n\n\ndef g():\n    return 0\n")
    assert res.status is EditStatus.FAILED and "whether it stands" in res.reason


def test_python_bare_ellipsis_is_code(tmp_path: Path) -> None:
    (tmp_path / "p.py").write_text(
        "class P:\n    def a(self) -> int: ...\n\n\ndef b():\n    pass\n\n\ndef c():\n    pass\n"
    )
    res = apply_sketch(tmp_path, "p.py", "def b():\n    ...\n")
    assert res.status is EditStatus.APPLIED, res.reason
    assert (
        tmp_path / "p.py"
    ).read_text() == "class P:\n    def a(self) -> int: ...\n\n\ndef b():\n    ...\n\n\ndef c():\n    pass\n"


def test_sketch_on_a_missing_file(tmp_path: Path) -> None:
    res = apply_sketch(tmp_path, "new.py", "def f():\n    return 1\n")
    assert res.status is EditStatus.APPLIED and res.strategy == "create"
    assert (tmp_path / "new.py").read_text() == "def f():\n    return 1\n"
    res = apply_sketch(tmp_path, "other.py", "# ... existing code ...\nx = 1\n")
    assert res.status is EditStatus.FAILED and "empty or missing" in res.reason
    assert not (tmp_path / "other.py").exists()


# -- other languages ---------------------------------------------------------------------------------

JS = """import { a } from "./a";

export function first(x) {
  if (x) {
    return a(x);
  }
  return null;
}

export function second(y) {
  return y * 2;
}

export class Box {
  constructor(v) {
    this.v = v;
  }
}
"""

TSX = """export function App() {
  return (
    <div>
      <Header />
      <Main />
      <Footer />
    </div>
  );
}
"""

RUST = """use std::fmt;

pub struct Point {
    x: i32,
    y: i32,
}

impl Point {
    pub fn new(x: i32, y: i32) -> Self {
        Point { x, y }
    }
}

fn helper() -> i32 {
    1
}
"""

GO = """package main

import "fmt"

type S struct{}

func (s *S) Run() {
	fmt.Println("run")
}

func main() {
	s := &S{}
	s.Run()
}
"""

MARKDOWN = """# Title

Intro text.

## Install

Run the installer.

## Usage

Use it well.
"""

HTML = """<html>
<body>
  <h1>Title</h1>
  <p>One</p>
  <p>Two</p>
</body>
</html>
"""


@pytest.mark.parametrize(
    ("path", "text", "sketch", "want"),
    [
        (
            "a.js",
            JS,
            "// ... existing code ...\nexport function second(y) {\n  return y * 3;\n}\n// ... existing code ...\n",
            JS.replace("return y * 2;", "return y * 3;"),
        ),
        (
            "a.js",
            JS,
            "...\nexport function first(x) {\n  if (x) {\n    return a(x);\n  }\n  return undefined;\n}\n...\n",
            JS.replace("return null;", "return undefined;"),
        ),
        (
            "App.tsx",
            TSX,
            "export function App() {\n  return (\n    <div>\n      <Header />\n      <Nav />\n      <Main />\n      {/* ... existing code ... */}\n    </div>\n  );\n}\n",
            TSX.replace("      <Header />\n", "      <Header />\n      <Nav />\n"),
        ),
        (
            "lib.rs",
            RUST,
            "// ... existing code ...\nimpl Point {\n    pub fn new(x: i32, y: i32) -> Self {\n        Point { x: x + 1, y }\n    }\n}\n// ... existing code ...\n",
            RUST.replace("Point { x, y }", "Point { x: x + 1, y }"),
        ),
        (
            "main.go",
            GO,
            '// ... existing code ...\nfunc (s *S) Run() {\n\tfmt.Println("run!")\n}\n// ... existing code ...\n',
            GO.replace('"run"', '"run!"'),
        ),
        (
            "README.md",
            MARKDOWN,
            "<!-- ... existing sections ... -->\n## Install\n\nRun the installer, then restart.\n\n## Usage\n<!-- ... rest of the file ... -->\n",
            MARKDOWN.replace("Run the installer.", "Run the installer, then restart."),
        ),
        (
            "index.html",
            HTML,
            "<html>\n<body>\n  <h1>Title</h1>\n  <p>Zero</p>\n  <p>One</p>\n  <!-- ... existing code ... -->\n</body>\n</html>\n",
            HTML.replace("  <h1>Title</h1>\n", "  <h1>Title</h1>\n  <p>Zero</p>\n"),
        ),
    ],
)
def test_sketches_in_other_languages(tmp_path: Path, path: str, text: str, sketch: str, want: str) -> None:
    (tmp_path / path).write_text(text)
    res = apply_sketch(tmp_path, path, sketch)
    assert res.status is EditStatus.APPLIED, res.reason
    assert (tmp_path / path).read_text() == want


@pytest.mark.parametrize("tree", [True, False], ids=["syntax-tree", "plain-text"])
@pytest.mark.parametrize(
    ("path", "text", "sketch", "old", "new"),
    [
        (
            "a.js",
            JS,
            "function second(y) {\n  return y + 2;\n}\n",
            "export function second(y) {\n  return y * 2;\n}",
            "function second(y) {\n  return y + 2;\n}",
        ),
        (
            "lib.rs",
            RUST,
            "fn helper() -> i32 {\n    2\n}\n",
            "fn helper() -> i32 {\n    1\n}",
            "fn helper() -> i32 {\n    2\n}",
        ),
        (
            "main.go",
            GO,
            "func main() {\n\ts := &S{}\n\ts.Run()\n\ts.Run()\n}\n",
            "\ts.Run()\n}",
            "\ts.Run()\n\ts.Run()\n}",
        ),
        (
            "a.py",
            "import os\n\n\ndef f():\n    return 1\n\n\ndef g():\n    return 2\n",
            "def g():\n    return 3\n",
            "return 2",
            "return 3",
        ),
    ],
)
def test_whole_definitions_in_other_languages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tree: bool, path: str, text: str, sketch: str, old: str, new: str
) -> None:
    if not tree:
        from editblocks.syntax.tree import SyntaxUnavailable

        def unavailable(*args: object) -> None:
            raise SyntaxUnavailable("no ast extra")

        monkeypatch.setattr(lazy, "_tree_definitions", unavailable)
    (tmp_path / path).write_text(text)
    res = apply_sketch(tmp_path, path, sketch)
    assert res.status is EditStatus.APPLIED, res.reason
    got = (tmp_path / path).read_text()
    if path == "a.js":
        assert got == text.replace(old, new)  # the sketch's own text: `export` was not in it
    else:
        assert got == text.replace(old, new, 1) if path != "main.go" else got.endswith("\ts.Run()\n\ts.Run()\n}\n")


# -- the format, the command line, the MCP server, the prompts -----------------------------------------


def test_never_detected_and_read_when_asked() -> None:
    text = reply("a.py", "# ... existing code ...\nx = 1\n# ... existing code ...\n")
    assert parse_reply(text).blocks == []
    (block,) = parse_reply(text, "lazy").blocks
    assert block.sketch and block.kind == "sketch" and block.format == "lazy"
    assert editblocks.FORMATS["lazy"].auto is False


def test_cli_apply_format_lazy(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("import os\n\n\ndef f():\n    return 1\n\n\ndef g():\n    return 2\n")
    (tmp_path / "reply.md").write_text(reply("a.py", "# ... existing code ...\ndef g():\n    return 3\n"))
    out = CliRunner().invoke(
        main, ["apply", str(tmp_path / "reply.md"), "--root", str(tmp_path), "--format", "lazy", "--json"]
    )
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["results"][0]["status"] == "applied"
    assert (tmp_path / "a.py").read_text().endswith("def g():\n    return 3\n")


def test_mcp_lists_lazy() -> None:
    assert "lazy" in format_names()
    text, rows = list_formats()
    assert any(r["name"] == "lazy" and not r["auto_detected"] and r["prompt"] for r in rows)


def test_prompt_example_parses_and_applies(tmp_path: Path) -> None:
    texts = [system_prompt("lazy"), reminder("lazy")] + [m["content"] for m in example_messages("lazy")]
    for text in texts:
        assert "{{" not in text and "<!--" not in text.replace("<!-- ... existing code ... -->", "")
    assert "... existing code ..." in system_prompt("lazy") and "... existing code ..." in reminder("lazy")
    edits, shell = [m["content"] for m in example_messages("lazy") if m["role"] == "assistant"]
    parsed = parse_reply(edits, "lazy")
    assert parsed.warnings == []
    assert [(b.file_path, b.kind) for b in parsed.blocks] == [
        ("inventory/stock.py", "sketch"),
        ("inventory/report.py", "sketch"),
    ]
    project = tmp_path / "project"
    shutil.copytree(EXAMPLE / "before", project)
    result = apply_edits(edits, project, format="lazy")
    assert result.ok, [r.reason for r in result.results]
    assert (project / "inventory/report.py").read_text() == (EXAMPLE / "after" / "inventory/report.py").read_text()
    # A sketch never deletes a function: the example leaves removing describe() to the user, so
    # stock.py is the expected file with describe() still in it.
    stock = (project / "inventory/stock.py").read_text()
    after = (EXAMPLE / "after" / "inventory/stock.py").read_text()
    assert 'raise ValueError("amount must be at least 1")' in stock and "def describe(item):" in stock
    assert stock.startswith(after.rstrip("\n").rsplit("\n", 0)[0][: len(after) // 2])
    assert parse_reply(shell).shell_suggestions == ["git rm inventory/legacy.py"]


def test_verifier_rejects_a_merge_that_changed_lines_outside_its_spans() -> None:
    before = "a\nb\nc\nd\n"
    assert check_sketch(before, "a\nB\nc\nd\n", [(2, 4, 2, 4, "B\n")])
    assert not check_sketch(before, "a\nB\nc\nD\n", [(2, 4, 2, 4, "B\n")])
    assert not check_sketch(before, "a\nX\nc\nd\n", [(2, 4, 2, 4, "B\n")])
    assert not check_sketch(before, "a\n# ... existing code ...\nc\nd\n", [(2, 4, 2, 26, "# ... existing code ...\n")])


# -- property: sketches of real files merge into the intended file or are refused ----------------------


def _generator():
    if not GENERATOR.is_file():
        pytest.skip("benchmarks/lazy_sketches.py is not part of this installation")
    spec = importlib.util.spec_from_file_location("lazy_sketches", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("lazy_sketches", module)
    spec.loader.exec_module(module)
    return module


REAL_FILES = [
    "textwrap.py",
    "json/encoder.py",
    "shlex.py",
    "json/decoder.py",
    "string.py",
    "fnmatch.py",
    "colorsys.py",
    "glob.py",
]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(st.sampled_from(REAL_FILES), st.integers(0, 2**32 - 1))
def test_sketches_of_real_files_merge_exactly_or_are_refused(
    tmp_path_factory: pytest.TempPathFactory, name: str, seed: int
) -> None:
    generator = _generator()
    source = STDLIB / name
    if not source.is_file():
        pytest.skip(f"{name} is not in this Python's standard library")
    text = source.read_text(encoding="utf-8")
    case = generator.make_case(random.Random(seed), Path(name).name, text)
    if case is None:
        return
    root = tmp_path_factory.mktemp("lazy")
    target = root / case.path
    target.write_text(case.before, encoding="utf-8")
    res = apply_sketch(root, case.path, case.sketch)
    after = target.read_text(encoding="utf-8")
    if res.status is EditStatus.APPLIED:
        assert after == case.intended, f"{case.kind} sketch merged into something else:\n{case.sketch}"
    else:
        assert res.status is EditStatus.FAILED, res.reason
        assert after == case.before


def test_merge_sketch_text_api() -> None:
    merged = merge_sketch("a = 1\nb = 2\nc = 3\nd = 4\n", "# ...\nb = 2\nb2 = 5\nc = 3\n# ...\n", "x.py")
    assert isinstance(merged, SketchMerge) and merged.text == "a = 1\nb = 2\nb2 = 5\nc = 3\nd = 4\n"
    refused = merge_sketch("a = 1\nb = 2\n", "# ...\nz = 9\n# ...\n", "x.py")
    assert isinstance(refused, SketchRefusal)


M_PY = """import os


def first(x):
    y = x + 1
    return y * 2


def second(x):
    y = x + 1
    return y * 3


def third():
    pass
"""


@pytest.mark.parametrize(
    "sketch, why",
    [
        # A changed last line equal to a later line of the file: the part would reach down to it.
        (
            "# ... existing code ...\ndef first(x):\n    y = x + 1\n    return y * 3\n# ... existing code ...\n",
            "def second(x):",
        ),
        # No elision after the last part: the rest of the file would go, a definition with it.
        ("# ... existing code ...\ndef second(x):\n    y = x + 1\n    z = y * 3\n    return z\n", "def third():"),
        # A bare ... meant as an elision, in Python, where it would replace code.
        (
            "# ... existing code ...\ndef second(x):\n    y = x + 1\n    ...\n\n\ndef third():\n    return 5\n",
            "bare `...`",
        ),
        ("...\ndef second(x):\n    y = x + 2\n    return y * 3\n\n\ndef third():\n    pass\n", "def first(x):"),
    ],
)
def test_a_sketch_never_drops_what_it_does_not_show(tmp_path: Path, sketch: str, why: str) -> None:
    (tmp_path / "m.py").write_text(M_PY)
    res = apply_sketch(tmp_path, "m.py", sketch)
    assert res.status is EditStatus.FAILED and why in (res.reason or ""), res.reason
    assert (tmp_path / "m.py").read_text() == M_PY


def test_a_definition_sketch_keeps_no_decorator_silently(tmp_path: Path) -> None:
    text = "import functools\n\n\nclass C:\n    @functools.lru_cache(maxsize=None)\n    def value(self):\n        return 1\n"
    (tmp_path / "d.py").write_text(text)
    res = apply_sketch(tmp_path, "d.py", "def value(self):\n    return 10\n")
    assert res.status is EditStatus.FAILED and "@functools.lru_cache" in (res.reason or "")
    assert (tmp_path / "d.py").read_text() == text


def test_a_complete_file_sketch_without_the_files_last_line_is_refused(tmp_path: Path) -> None:
    text = "#!/bin/sh\nfoo() {\n  echo foo\n}\n\nbar() {\n  echo bar\n}\n\nfoo\nbar\n"
    (tmp_path / "s.sh").write_text(text)
    res = apply_sketch(tmp_path, "s.sh", "#!/bin/sh\nfoo() {\n  echo foo\n}\n\nbar() {\n  echo BAR\n}\n")
    assert res.status is EditStatus.FAILED and "last line" in (res.reason or "")
    assert (tmp_path / "s.sh").read_text() == text


def test_a_long_run_left_out_of_a_part_is_not_deleted(tmp_path: Path) -> None:
    """A part that skips a function's docstring (models leave unchanged docstrings out) would
    delete it: refused, and the file is unchanged."""
    target, text = copy_stdlib(tmp_path, "textwrap.py")
    lines = text.split("\n")
    at = lines.index("def wrap(text, width=70, **kwargs):")
    body_end = next(i for i in range(at + 1, len(lines)) if lines[i].strip().startswith("w = TextWrapper"))
    after = next(i for i in range(body_end, len(lines)) if lines[i].startswith("def "))
    part = [lines[at], *lines[body_end:after], lines[after]]
    part = [x.replace("w.wrap(text)", "w.wrap(text)  # edited") for x in part]
    sketch = "# ... existing code ...\n" + "\n".join(part) + "\n# ... existing code ...\n"
    res = apply_sketch(tmp_path, target.name, sketch)
    assert res.status is EditStatus.FAILED and "does not show" in (res.reason or ""), res.reason
    assert target.read_text(encoding="utf-8") == text


def test_a_definition_with_a_multiline_string_keeps_the_strings_text(tmp_path: Path) -> None:
    """A method sketch whose multi-line string has lines at column 0: written at the file's
    indentation it replaces the method as written; written elsewhere it is refused, never shifted
    (shifting would change the string)."""
    text = 'class Page:\n    def page(self, title):\n        """Format it."""\n        return """\\\n<html>\n<title>%s</title>""" % title\n'
    (tmp_path / "p.py").write_text(text)
    sketch = '    def page(self, title):\n        """Format it."""\n        return """\\\n<html lang="en">\n<title>%s</title>""" % title\n'
    res = apply_sketch(tmp_path, "p.py", sketch)
    assert res.status is EditStatus.APPLIED, res.reason
    assert (tmp_path / "p.py").read_text() == text.replace("<html>", '<html lang="en">')
    (tmp_path / "p.py").write_text(text)
    res = apply_sketch(tmp_path, "p.py", "\n".join(x[4:] if x.startswith("    ") else x for x in sketch.split("\n")))
    assert res.status is EditStatus.FAILED and "indentation" in (res.reason or "")
    assert (tmp_path / "p.py").read_text() == text


_THREE = "def f():\n    return 0\n\n\ndef g(x):\n    y = x * 2\n    return y\n\n\ndef h():\n    return 2\n"


@pytest.mark.parametrize("blank", ["\n\n", "\n", ""])
def test_a_rewritten_body_before_an_outer_elision_never_keeps_the_old_body(tmp_path: Path, blank: str) -> None:
    # The sketch rewrites g's body and closes g before an elision at the top level, while g's old
    # lines follow in the file: keeping them would leave both bodies in g. Refused.
    (tmp_path / "m.py").write_text(_THREE)
    sketch = f"# ... existing code ...\n{blank}def g(x):\n    return x * 3\n{blank}# ... existing code ...\n"
    res = apply_sketch(tmp_path, "m.py", sketch)
    assert res.status is EditStatus.FAILED and "outside the block" in (res.reason or "")
    assert (tmp_path / "m.py").read_text() == _THREE


def test_a_run_ending_on_the_files_own_line_keeps_the_rest_of_the_body(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(_THREE)
    sketch = "# ... existing code ...\ndef g(x):\n    y = x * 2\n# ... existing code ...\ndef h():\n    return 3\n"
    res = apply_sketch(tmp_path, "m.py", sketch)
    assert res.status is EditStatus.APPLIED, res.reason
    assert (tmp_path / "m.py").read_text() == _THREE.replace("return 2", "return 3")


def test_a_nested_block_added_before_an_outer_elision_never_keeps_the_old_body(tmp_path: Path) -> None:
    text = "def outer(xs):\n    def inner(x):\n        a = x + 1\n        b = a * 2\n        return b\n\n    out = [inner(x) for x in xs]\n    return out\n"
    (tmp_path / "n.py").write_text(text)
    sketch = "def outer(xs):\n    def inner(x):\n        if x < 0:\n            return 0\n    # ... existing code ...\n"
    res = apply_sketch(tmp_path, "n.py", sketch)
    assert res.status is EditStatus.FAILED and (tmp_path / "n.py").read_text() == text


_JS = (
    'import { join } from "path";\n\nconst cache = {};\n\nexport function load(root, key) {\n'
    "  const path = join(root, key);\n  const data = read(path);\n  cache[key] = data;\n  return data;\n}\n\n"
    "export function save(root, key, data) {\n  const path = join(root, key);\n  write(path, data);\n  cache[key] = data;\n}\n"
)


def test_a_closing_brace_after_a_body_elision_closes_that_block(tmp_path: Path) -> None:
    # The usual shape of an editor's sketch: a line added at the top of a function, the rest of
    # its body elided, its closing brace, then the rest of the file elided.
    (tmp_path / "s.js").write_text(_JS)
    sketch = (
        "// ... existing code ...\nexport function load(root, key) {\n  if (key in cache) return cache[key];\n"
        "  // ... existing code ...\n}\n// ... existing code ...\n"
    )
    res = apply_sketch(tmp_path, "s.js", sketch)
    assert res.status is EditStatus.APPLIED, res.reason
    assert (tmp_path / "s.js").read_text() == _JS.replace(
        "export function load(root, key) {\n",
        "export function load(root, key) {\n  if (key in cache) return cache[key];\n",
    )


def test_lines_added_to_a_body_before_a_top_level_elision_never_keep_the_old_body(tmp_path: Path) -> None:
    (tmp_path / "s.js").write_text(_JS)
    sketch = (
        "// ... existing code ...\nexport function load(root, key) {\n  const path = join(root, key);\n"
        "  return cache[key] ?? read(path);\n// ... existing code ...\n"
    )
    res = apply_sketch(tmp_path, "s.js", sketch)
    assert res.status is EditStatus.FAILED and (tmp_path / "s.js").read_text() == _JS
