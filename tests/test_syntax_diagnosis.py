"""A failed block's reason names the function or class around the closest region: from the
syntax tree with the extra ("inside `Parser.feed` at lines 120-134"), from a line pattern
without it."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

import editblocks
from editblocks.matching import MatchFailure, locate
from editblocks.matching.diagnosis import enclosing_scope
from editblocks.syntax import tree as syntax_tree

from .helpers import sr
from .syntax_support import needs_ast, npm_root, stdlib_file


def _span(text: str, qualname: str) -> tuple[int, int]:
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and f"{node.name}.{item.name}" == qualname:
                    first = item.decorator_list[0].lineno if item.decorator_list else item.lineno
                    assert item.end_lineno is not None
                    return first, item.end_lineno
    raise AssertionError(qualname)


@needs_ast
def test_stdlib_failure_names_the_method_with_its_lines(root: Path) -> None:
    text = stdlib_file("html/parser.py").read_text(encoding="utf-8")
    if "        self.rawdata = self.rawdata + data\n        self.goahead(0)\n" not in text:
        pytest.skip("this Python's html/parser.py differs")
    (root / "parser.py").write_text(text)
    reply = sr(
        "parser.py", "        self.rawdata = self.rawdata + data_chunk\n        self.goahead(False)\n", "        pass\n"
    )
    result = editblocks.apply_edits(reply, root)
    assert not result.ok
    first, last = _span(text, "HTMLParser.feed")
    reason = result.results[0].reason or ""
    assert f"inside `HTMLParser.feed` at lines {first}-{last}" in reason
    assert re.search(r"closest match is lines \d+-\d+ \(\d+% similar\), inside `HTMLParser\.feed`", reason)
    assert (root / "parser.py").read_text() == text


@needs_ast
def test_npm_failure_names_the_class_method(root: Path) -> None:
    text = (npm_root() / "lib" / "npm.js").read_text(encoding="utf-8")
    lines = text.split("\n")
    start = next((i for i, line in enumerate(lines) if line == "  async load () {"), None)
    if start is None:
        pytest.skip("this npm's lib/npm.js has no load() method")
    body = next(i for i in range(start + 1, len(lines)) if len(lines[i].strip()) > 12)
    (root / "npm.js").write_text(text)
    wrong = lines[body].replace(lines[body].strip(), lines[body].strip()[:-3] + "Xyz")
    result = editblocks.apply_edits(sr("npm.js", "\n".join([lines[start], wrong]) + "\n", "// gone\n"), root)
    reason = result.results[0].reason or ""
    assert re.search(r"inside `Npm\.load` at lines \d+-\d+", reason), reason


CASES = [
    (
        "p.go",
        "package p\n\ntype Parser struct{ buf []byte }\n\nfunc (p *Parser) Feed(data []byte) error {\n\tp.buf = append(p.buf, data...)\n\tp.count = p.count + 1\n\treturn nil\n}\n",
        "\tp.buf = append(p.buf, data)\n\tp.count = p.count + 2\n",
        "Parser.Feed",
        (5, 9),
    ),
    (
        "p.rs",
        "struct Parser;\n\nimpl Parser {\n    pub fn feed(&mut self, data: &[u8]) {\n        self.buf.extend_from_slice(data);\n        self.count += 1;\n    }\n}\n",
        "        self.buf.extend_from_slice(bytes);\n        self.count += 2;\n",
        "Parser::feed",
        (4, 7),
    ),
    (
        "P.java",
        "public class Parser {\n    @Override\n    public void feed(String data) {\n        buffer.append(data);\n        count += 1;\n    }\n}\n",
        "        buffer.append(chunk);\n        count += 2;\n",
        "Parser.feed",
        (2, 6),
    ),
    (
        "p.ts",
        "export class Parser {\n  feed(data: string): void {\n    this.buf += data;\n    this.count += 1;\n  }\n}\n",
        "    this.buf += chunk;\n    this.count += 2;\n",
        "Parser.feed",
        (2, 5),
    ),
    (
        "p.cpp",
        "namespace io {\nvoid Parser::feed(const std::string& d) {\n  buf += d;\n  count += 1;\n}\n}\n",
        "  buf += data;\n  count += 2;\n",
        "io::Parser::feed",
        (2, 5),
    ),
    (
        "s.css",
        ".nav a {\n  color: red;\n  margin: 0 auto;\n}\n",
        "  color: blue;\n  margin: 0 auto;\n",
        ".nav a",
        (1, 4),
    ),
    (
        "p.json",
        '{\n  "scripts": {\n    "test": "tap",\n    "lint": "eslint ."\n  }\n}\n',
        '    "test": "tap --cov",\n    "lint": "eslint ."\n',
        "scripts",
        (2, 5),
    ),
    (
        "c.yaml",
        "jobs:\n  build:\n    runs-on: ubuntu\n    steps:\n      - run: make\n",
        "    runs-on: debian\n    steps:\n",
        "jobs.build",
        (2, 5),
    ),
]


@needs_ast
@pytest.mark.parametrize(("path", "text", "search", "scope", "lines"), CASES, ids=[c[0] for c in CASES])
def test_every_language_names_the_scope(path: str, text: str, search: str, scope: str, lines: tuple[int, int]) -> None:
    from editblocks.syntax import language_for

    found = locate(text, search, "x\n", level="fuzzy", language=language_for(path))
    assert isinstance(found, MatchFailure)
    assert f"inside `{scope}` at lines {lines[0]}-{lines[1]}" in found.reason
    assert found.scope == scope


@needs_ast
def test_a_region_outside_any_definition_names_none() -> None:
    text = "import os\nimport sys\n\n\ndef f():\n    return 1\n"
    found = locate(text, "import os\nimport system_tools\n", "x\n", level="fuzzy", language="python")
    assert isinstance(found, MatchFailure)
    assert "inside" not in found.reason and found.scope is None


def test_without_the_extra_the_line_pattern_names_the_scope(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tree_sitter_language_pack", None)
    monkeypatch.setattr(syntax_tree, "_parsers", {})
    monkeypatch.setattr(syntax_tree, "_last", None)
    (root / "m.py").write_text(
        "class Parser:\n    def feed(self, data):\n        self.buf += data\n        self.count += 1\n        return self.buf\n"
    )
    result = editblocks.apply_edits(
        sr("m.py", "        self.buf += chunk\n        self.count += 2\n", "        pass\n"), root
    )
    reason = result.results[0].reason or ""
    assert "inside `def feed`" in reason and " at lines " not in reason


def test_enclosing_scope_without_a_language_is_the_line_pattern() -> None:
    lines = ["class A:", "    def f(self):", "        x = 1", "        return x"]
    scope = enclosing_scope(lines, 2)
    assert scope is not None and scope.name == "def f" and scope.first is None
    assert str(scope) == "def f"


@needs_ast
def test_enclosing_scope_with_a_language_is_the_tree() -> None:
    lines = ["class A:", "    def f(self):", "        x = 1", "        return x"]
    scope = enclosing_scope(lines, 2, last=3, language="python")
    assert scope is not None and (scope.name, scope.first, scope.last) == ("A.f", 2, 4)
    # A region spanning two methods is inside their class.
    two = ["class A:", "    def f(self):", "        return 1", "    def g(self):", "        return 2"]
    scope = enclosing_scope(two, 2, last=3, language="python")
    assert scope is not None and (scope.name, scope.first, scope.last) == ("A", 1, 5)
