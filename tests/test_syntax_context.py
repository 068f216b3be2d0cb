"""``editblocks context``: lines of interest with their enclosing scopes, on real files and in
every supported language; plain text with a note without the extra."""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from editblocks.cli import main
from editblocks.syntax import analyze, file_context, language_for
from editblocks.syntax import tree as syntax_tree

from .syntax_support import needs_ast, npm_root, stdlib_file


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def no_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if the ast extra were not installed: importing the grammar pack fails."""
    monkeypatch.setitem(sys.modules, "tree_sitter_language_pack", None)
    monkeypatch.setattr(syntax_tree, "_parsers", {})
    monkeypatch.setattr(syntax_tree, "_last", None)


# -- languages ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "text", "language"),
    [
        ("a/b.py", None, "python"),
        ("x.pyi", None, "python"),
        ("app.js", None, "javascript"),
        ("app.mjs", None, "javascript"),
        ("App.jsx", None, "javascript"),
        ("x.ts", None, "typescript"),
        ("X.tsx", None, "tsx"),
        ("main.go", None, "go"),
        ("lib.rs", None, "rust"),
        ("A.java", None, "java"),
        ("a.c", None, "c"),
        ("a.h", "int f(void);\n", "c"),
        ("a.h", "namespace n {\nclass A {};\n}\n", "cpp"),
        ("a.cpp", None, "cpp"),
        ("a.HPP", None, "cpp"),
        ("s.css", None, "css"),
        ("i.html", None, "html"),
        ("p.json", None, "json"),
        ("c.yml", None, "yaml"),
        ("c.yaml", None, "yaml"),
        ("README.md", None, None),
        ("Makefile", None, None),
        ("script", "#!/usr/bin/env python3\nprint(1)\n", "python"),
        ("cli", "#!/usr/bin/env node\nconsole.log(1)\n", "javascript"),
    ],
)
def test_language_by_extension_and_first_line(path: str, text: str | None, language: str | None) -> None:
    assert language_for(path, text) == language


# -- real files ---------------------------------------------------------------------------------------


def _python_span(text: str, qualname: str) -> tuple[int, int]:
    """First and last line of a definition by Python's own parser (decorators included)."""

    def visit(node: ast.AST, stack: list[str]) -> tuple[int, int] | None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = ".".join([*stack, child.name])
                if name == qualname:
                    first = child.decorator_list[0].lineno if child.decorator_list else child.lineno
                    assert child.end_lineno is not None
                    return first, child.end_lineno
                found = visit(child, [*stack, child.name])
            else:
                found = visit(child, stack)
            if found:
                return found
        return None

    span = visit(ast.parse(text), [])
    assert span is not None, qualname
    return span


@needs_ast
def test_stdlib_context_shows_class_then_method_then_the_line() -> None:
    path = stdlib_file("html/parser.py")
    text = path.read_text(encoding="utf-8")
    result = file_context(text, "html/parser.py", grep=r"self\.rawdata = self\.rawdata \+ data")
    lines = result.text.split("\n")[:-1]
    first, last = _python_span(text, "HTMLParser.feed")
    assert result.scopes == [f"HTMLParser.feed (lines {first}-{last})"]
    assert lines[0] == "⋮" and lines[-1] == "⋮"
    klass = lines.index("│class HTMLParser(_markupbase.ParserBase):")
    method = lines.index("│    def feed(self, data):")
    interest = lines.index("█        self.rawdata = self.rawdata + data")
    assert klass < method < interest
    # Elided runs are single ⋮ lines, never two in a row, and every shown line is the file's.
    assert all(not (a == b == "⋮") for a, b in zip(lines, lines[1:]))
    file_lines = text.split("\n")
    for line in lines:
        if line != "⋮":
            assert line[1:] in file_lines
    assert result.render().startswith("html/parser.py:\n⋮\n")


@needs_ast
def test_stdlib_context_with_line_numbers_and_line_option() -> None:
    path = stdlib_file("json/decoder.py")
    text = path.read_text(encoding="utf-8")
    target = next(
        i for i, line in enumerate(text.split("\n"), 1) if "obj, end = self.raw_decode(s, idx=_w(s, 0).end())" in line
    )
    result = file_context(text, "json/decoder.py", lines=[target], line_numbers=True)
    marked = [line for line in result.text.split("\n") if "█" in line]
    assert marked == [f"{target:>{len(str(len(text.splitlines())))}}█{text.split(chr(10))[target - 1]}"]
    first, last = _python_span(text, "JSONDecoder.decode")
    assert result.scopes == [f"JSONDecoder.decode (lines {first}-{last})"]
    assert re.search(r"^\s*\d+│class JSONDecoder\(object\):$", result.text, re.MULTILINE)


@needs_ast
def test_stdlib_definitions_agree_with_pythons_own_parser() -> None:
    """Every class and function of real modules, with its lines, as Python's ast sees them
    (tree-sitter also counts comments that end a body as part of it)."""
    for name in ("html/parser.py", "json/decoder.py", "argparse.py", "email/feedparser.py", "asyncio/locks.py"):
        text = stdlib_file(name).read_text(encoding="utf-8")
        lines = text.split("\n")
        ours = {d.qualname: d.lines for d in analyze(text, "python").definitions}
        theirs: dict[str, tuple[int, int]] = {}

        def visit(node: ast.AST, stack: list[str], theirs: dict[str, tuple[int, int]] = theirs) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    q = ".".join([*stack, child.name])
                    first = child.decorator_list[0].lineno if child.decorator_list else child.lineno
                    assert child.end_lineno is not None
                    theirs[q] = (first, child.end_lineno)
                    visit(child, [*stack, child.name])
                else:
                    visit(child, stack)

        visit(ast.parse(text), [])
        assert set(ours) == set(theirs), name
        for q, (first, last) in theirs.items():
            got_first, got_last = ours[q]
            assert got_first == first, (name, q)
            assert got_last >= last, (name, q)
            extra = lines[last:got_last]
            assert all(not x.strip() or x.strip().startswith("#") for x in extra), (name, q, extra)


@needs_ast
def test_npm_javascript_context_names_the_method_of_the_class() -> None:
    root = npm_root()
    text = (root / "lib" / "npm.js").read_text(encoding="utf-8")
    lines = text.split("\n")
    load = next((i for i, line in enumerate(lines) if re.match(r"^  async load \(\) \{", line)), None)
    if load is None or not any(re.match(r"^class Npm\b", line) for line in lines):
        pytest.skip("this npm's lib/npm.js has no class Npm with a load() method")
    result = file_context(text, "lib/npm.js", lines=[load + 2])
    assert result.scopes and result.scopes[0].startswith("Npm.load (lines ")
    shown = result.text.split("\n")
    assert any(re.match(r"^│class Npm\b", s) for s in shown)
    assert "│  async load () {" in shown
    assert shown.index("│  async load () {") < next(i for i, s in enumerate(shown) if s.startswith("█"))


@needs_ast
def test_npm_grep_on_a_class_line_shows_its_members() -> None:
    root = npm_root()
    text = (root / "lib" / "npm.js").read_text(encoding="utf-8")
    if not re.search(r"^class Npm \{$", text, re.MULTILINE):
        pytest.skip("this npm's lib/npm.js has no 'class Npm {' line")
    result = file_context(text, "lib/npm.js", grep=r"^class Npm \{$")
    shown = result.text.split("\n")
    members = [s for s in shown if re.match(r"^│  (?:static |async |get |set )*#?\w+ \(", s)]
    assert len(members) >= 3
    assert "│  async load () {" in shown


@needs_ast
def test_npm_package_json_context_is_by_keys() -> None:
    root = npm_root()
    text = (root / "package.json").read_text(encoding="utf-8")
    data = json.loads(text)
    if "scripts" not in data or "test" not in data["scripts"]:
        pytest.skip("this npm's package.json has no scripts.test")
    row = next(i for i, line in enumerate(text.split("\n"), 1) if re.match(r'^\s*"test":', line))
    result = file_context(text, "package.json", lines=[row])
    assert result.scopes[0].startswith("scripts.test (lines ")
    assert '│  "scripts": {' in result.text.split("\n")


# -- every language -------------------------------------------------------------------------------------

SAMPLES = [
    (
        "p.py",
        "class Parser:\n    def feed(self, data):\n        self.buf += data  # HERE\n        return 1\n",
        "Parser.feed",
        ["class Parser:", "    def feed(self, data):"],
    ),
    (
        "p.js",
        "class Parser {\n  feed (data) {\n    this.buf += data // HERE\n  }\n}\n",
        "Parser.feed",
        ["class Parser {", "  feed (data) {"],
    ),
    (
        "p.ts",
        "export class Parser {\n  public feed(data: string): void {\n    this.buf += data; // HERE\n  }\n}\n",
        "Parser.feed",
        ["export class Parser {"],
    ),
    (
        "p.tsx",
        "export function View(props: Props) {\n  const x = 1;\n  return <div>{props.a}</div>; // HERE\n}\n",
        "View",
        ["export function View(props: Props) {"],
    ),
    (
        "p.go",
        "package p\n\nfunc (p *Parser) Feed(data []byte) error {\n\tp.buf = append(p.buf, data...) // HERE\n\treturn nil\n}\n",
        "Parser.Feed",
        ["func (p *Parser) Feed(data []byte) error {"],
    ),
    (
        "p.rs",
        "impl Parser {\n    pub fn feed(&mut self, data: &[u8]) {\n        self.buf.extend(data); // HERE\n    }\n}\n",
        "Parser::feed",
        ["impl Parser {", "    pub fn feed(&mut self, data: &[u8]) {"],
    ),
    (
        "P.java",
        "public class Parser {\n    public void feed(String data) {\n        buf += data; // HERE\n    }\n}\n",
        "Parser.feed",
        ["public class Parser {", "    public void feed(String data) {"],
    ),
    (
        "p.c",
        "static int feed(struct parser *p, const char *data)\n{\n    p->len += 1; /* HERE */\n    return 0;\n}\n",
        "feed",
        ["static int feed(struct parser *p, const char *data)"],
    ),
    (
        "p.cpp",
        "namespace io {\nclass Parser {\n  void feed(const std::string& d) {\n    buf += d; // HERE\n  }\n};\n}\n",
        "io::Parser::feed",
        ["namespace io {", "class Parser {", "  void feed(const std::string& d) {"],
    ),
    (
        "s.css",
        "@media (max-width: 600px) {\n  .nav a {\n    color: red; /* HERE */\n  }\n}\n",
        "@media (max-width: 600px) .nav a",
        ["@media (max-width: 600px) {", "  .nav a {"],
    ),
    (
        "i.html",
        '<html>\n<body>\n<div id="main">\n<p>hello</p> <!-- HERE -->\n</div>\n</body>\n</html>\n',
        "html > body > div#main > p",
        ['<div id="main">'],
    ),
    ("p.json", '{\n  "scripts": {\n    "test": "tap",\n    "x": "HERE"\n  }\n}\n', "scripts.x", ['  "scripts": {']),
    (
        "c.yml",
        "jobs:\n  build:\n    steps:\n      - run: make  # HERE\n",
        "jobs.build.steps.run",
        ["jobs:", "  build:", "    steps:"],
    ),
]


@needs_ast
@pytest.mark.parametrize(("path", "source", "scope", "headers"), SAMPLES, ids=[s[0] for s in SAMPLES])
def test_every_language_names_the_enclosing_scope(path: str, source: str, scope: str, headers: list[str]) -> None:
    result = file_context(source, path, grep="HERE")
    assert result.notes == []
    assert result.scopes and result.scopes[-1].split(" (lines ")[0] == scope
    shown = result.text.split("\n")
    for h in headers:
        assert "│" + h in shown, (h, result.text)


# -- without syntax support ---------------------------------------------------------------------------------


def test_without_the_extra_context_is_plain_lines_with_a_note(no_extra: None) -> None:
    text = "".join(f"line {i}\n" for i in range(1, 21))
    result = file_context(text, "a.py", lines=[10])
    assert any("not installed" in n and "editblocks[ast]" in n for n in result.notes)
    assert result.text == "⋮\n│line 9\n█line 10\n│line 11\n⋮\n"
    assert result.scopes == []


def test_an_unsupported_language_is_plain_lines_with_a_note() -> None:
    text = "# Title\n\nsome text\nmore\n"
    result = file_context(text, "README.md", grep="some")
    assert result.notes and "no syntax support" in result.notes[0]
    assert result.text == "⋮\n│\n█some text\n│more\n"


# -- the command -------------------------------------------------------------------------------------------------


@needs_ast
def test_cli_context_on_the_standard_library(tmp_path: Path) -> None:
    source = stdlib_file("html/parser.py")
    code, out, err = run("context", source.name, "--root", str(source.parent), "--grep", r"def feed\(", "-n")
    assert code == 0, err
    assert out.startswith("parser.py:\n")
    assert re.search(r"^\s*\d+█    def feed\(self, data\):$", out, re.MULTILINE)
    assert re.search(r"^\s*\d+│class HTMLParser", out, re.MULTILINE)


@needs_ast
def test_cli_context_json() -> None:
    source = stdlib_file("json/decoder.py")
    code, out, _ = run("context", "decoder.py", "--root", str(source.parent), "--grep", "def raw_decode", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["language"] == "python"
    assert data["scopes"][0].startswith("JSONDecoder.raw_decode (lines ")


def test_cli_context_usage_errors_and_no_match(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    assert run("context", "a.py", "--root", str(tmp_path))[0] == 2
    assert run("context", "missing.py", "--root", str(tmp_path), "--line", "1")[0] == 2
    assert run("context", "a.py", "--root", str(tmp_path), "--grep", "(")[0] == 2
    code, out, err = run("context", "a.py", "--root", str(tmp_path), "--grep", "nothing here")
    assert code == 1 and out == "" and "no line of interest" in err
    code, out, _ = run("context", "a.py", "--root", str(tmp_path), "--line", "1")
    assert code == 0 and "█x = 1" in out
