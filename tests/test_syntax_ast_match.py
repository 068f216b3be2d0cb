"""The ``ast`` match level: a SEARCH that is one whole definition, placed by name and kind.

Accepted only when exactly one definition has that name and kind and it is similar enough; the
change is carried onto the file's lines, so a wrong edit is impossible: anything uncertain is
refused and the file is left as it was.
"""

from __future__ import annotations

import keyword
import random
import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import editblocks
from editblocks.cli import main
from editblocks.matching import LEVELS, Match, MatchFailure, locate
from editblocks.syntax import analyze
from editblocks.syntax import tree as syntax_tree

from .helpers import sr
from .syntax_support import needs_ast, npm_root, stdlib_file

_WORD = re.compile(r"[A-Za-z_]\w{2,}")


def _stale(lines: list[str], keep: int, count: int, rnd: random.Random) -> list[str]:
    """``lines`` as a model might remember them: ``count`` identifiers renamed, never on line
    ``keep`` nor on the first line."""
    out = list(lines)
    rows = [
        i
        for i, line in enumerate(out)
        if i not in (0, keep)
        and any(not keyword.iskeyword(w) for w in _WORD.findall(line))
        and '"""' not in line
        and "'''" not in line
    ]
    for i in rnd.sample(rows, min(count, len(rows))):
        word = rnd.choice([w for w in _WORD.findall(out[i]) if not keyword.iskeyword(w)])
        out[i] = out[i].replace(word, word + "_old", 1)
    return out


def _apply(text: str, found: Match) -> str:
    return text[: found.start] + found.replacement + text[found.end :]


def _text(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def test_ast_is_the_last_level() -> None:
    assert LEVELS[-1] == "ast" and LEVELS.index("fuzzy") < LEVELS.index("ast")


# -- accepted when unique -------------------------------------------------------------------------------


@needs_ast
def test_stdlib_methods_with_stale_lines_are_placed_by_name_and_never_wrongly() -> None:
    """Real methods, each remembered with two identifiers wrong and one line to change: every
    edit the ast level makes is exactly the intended one, and it makes more than fuzzy can."""
    accepted = fuzzy_only = tried = 0
    for module in (
        "html/parser.py",
        "argparse.py",
        "json/decoder.py",
        "textwrap.py",
        "email/feedparser.py",
        "asyncio/locks.py",
    ):
        text = stdlib_file(module).read_text(encoding="utf-8")
        lines = text.split("\n")
        rnd = random.Random(module)
        for d in analyze(text, "python").definitions:
            if d.kind != "method":
                continue
            body = lines[d.first : d.last + 1]
            rows = [
                i
                for i, line in enumerate(body)
                if line.strip() and not line.strip().startswith(("#", '"', "'")) and i > 0
            ]
            if len(rows) < 6:
                continue
            keep = rnd.choice(rows)
            search = _stale(body, keep, 2, rnd)
            replace = list(search)
            replace[keep] = search[keep] + "  # edited"
            expected = "\n".join(
                [*lines[: d.first + keep], lines[d.first + keep] + "  # edited", *lines[d.first + keep + 1 :]]
            )
            tried += 1
            fuzzy = locate(text, _text(search), _text(replace), level="fuzzy", language="python")
            found = locate(text, _text(search), _text(replace), level="ast", language="python")
            if isinstance(fuzzy, Match):
                fuzzy_only += 1
            if isinstance(found, Match):
                accepted += 1
                assert _apply(text, found) == expected, (module, d.qualname)
            else:
                assert isinstance(found, MatchFailure)
    assert tried > 50
    assert accepted > fuzzy_only
    assert accepted >= tried * 0.6


def _stale_stdlib_method() -> tuple[str, str, str, str]:
    """A method of this Python's own html/parser.py as a model remembers it, and an edit of one
    of its lines: (file text, stale SEARCH, REPLACE, the file as the edit means it). The method is
    chosen from the file as found: the longest one of ``HTMLParser`` with comment lines, which
    the stale copy drops along with the blank lines."""
    import ast

    text = stdlib_file("html/parser.py").read_text(encoding="utf-8")
    lines = text.split("\n")
    cls = next(n for n in ast.parse(text).body if isinstance(n, ast.ClassDef) and n.name == "HTMLParser")
    methods = sorted(
        (n for n in cls.body if isinstance(n, ast.FunctionDef)),
        key=lambda n: (n.end_lineno or 0) - n.lineno,
        reverse=True,
    )
    for fn in methods:
        body = lines[fn.lineno - 1 : fn.end_lineno]
        comments = [i for i, line in enumerate(body) if line.strip().startswith("#")]
        targets = [i for i, line in enumerate(body) if i > 0 and line.strip().startswith("return ") and "#" not in line]
        if len(comments) >= 2 and targets and len(body) >= 12:
            keep = targets[-1]
            edited = body[keep] + "  # edited"
            kept = [i for i, line in enumerate(body) if i not in comments and line.strip()]
            stale = [body[i] for i in kept]
            search = "".join(x + "\n" for x in stale)
            stale[kept.index(keep)] = edited
            replace = "".join(x + "\n" for x in stale)
            start = fn.lineno - 1 + keep
            expected = "\n".join([*lines[:start], edited, *lines[start + 1 :]])
            return text, search, replace, expected
    raise AssertionError("html/parser.py has no method with comments and a return line")


@needs_ast
def test_a_stale_stdlib_method_is_placed_by_name(root: Path) -> None:
    """A method of html/parser.py as found on this machine, remembered without its comments and
    blank lines: the ast level places the edit on that method's line, and keeps the comments the
    model forgot; no level makes any other edit."""
    text, search, replace, expected = _stale_stdlib_method()
    (root / "parser.py").write_text(text)
    reply = sr("parser.py", search, replace)
    fuzzy = editblocks.apply_edits(reply, root, dry_run=True)
    assert not fuzzy.ok or fuzzy.results[0].status.value == "applied"
    result = editblocks.apply_edits(reply, root, match="ast")
    assert result.ok, result.results[0].reason
    # Only that line changed: the comments and blank lines the model forgot are kept.
    assert (root / "parser.py").read_text() == expected


def _npm_class_methods() -> tuple[str, list]:
    """A file of npm's own JavaScript as found on this machine, and the methods of its classes
    (the file whose classes have the most methods with names of their own)."""
    best: tuple[int, str, list] = (0, "", [])
    for path in sorted((npm_root() / "lib").rglob("*.js"))[:400]:
        text = path.read_text(encoding="utf-8", errors="replace")
        if "class " not in text:
            continue
        defs = [d for d in analyze(text, "javascript").definitions if d.kind == "method"]
        names = [d.name for d in defs]
        unique = [d for d in defs if names.count(d.name) == 1 and d.last - d.first >= 7]
        if len(unique) > best[0]:
            best = (len(unique), text, unique)
    assert best[0] >= 3, "npm's JavaScript has no class with three methods of their own"
    return best[1], best[2]


@needs_ast
def test_npm_javascript_method_placed_by_name() -> None:
    """Class methods of npm's own code, remembered with stale lines, lifted out of their class."""
    text, defs = _npm_class_methods()
    lines = text.split("\n")
    rnd = random.Random(7)
    done = 0
    for d in defs:
        body = lines[d.first : d.last + 1]
        rows = [
            i
            for i, line in enumerate(body)
            if i > 0 and re.search(r"\w+\(", line) and not line.strip().startswith("//")
        ]
        if not rows:
            continue
        keep = rows[0]
        search = _stale(body, keep, 2, rnd)
        replace = list(search)
        replace[keep] = search[keep] + " // edited"
        found = locate(text, _text(search), _text(replace), level="ast", language="javascript")
        if isinstance(found, Match):
            assert found.strategy in ("fuzzy", "ast")
            expected = "\n".join(
                [*lines[: d.first + keep], lines[d.first + keep] + " // edited", *lines[d.first + keep + 1 :]]
            )
            assert _apply(text, found) == expected
            done += 1
    assert done >= 3


# Two definitions whose bodies are the same: the text alone cannot tell them apart, the name can.
TWINS = {
    "go": (
        "p.go",
        "package p\n\n{a}\n\n{b}\n",
        "func (p *Parser) {name}(data []byte) error {{\n\tif len(data) == 0 {{\n\t\treturn nil\n\t}}\n\tp.buf = append(p.buf, data...)\n\tp.count++\n\treturn p.flush()\n}}",
    ),
    "rust": (
        "p.rs",
        "impl Parser {{\n{a}\n\n{b}\n}}\n",
        "    pub fn {name}(&mut self, data: &[u8]) -> usize {{\n        if data.is_empty() {{\n            return 0;\n        }}\n        self.buf.extend_from_slice(data);\n        self.count += 1;\n        self.flush()\n    }}",
    ),
    "java": (
        "P.java",
        "public class Parser {{\n{a}\n\n{b}\n}}\n",
        "    public int {name}(byte[] data) {{\n        if (data.length == 0) {{\n            return 0;\n        }}\n        buf.write(data);\n        count += 1;\n        return flush();\n    }}",
    ),
    "typescript": (
        "p.ts",
        "export class Parser {{\n{a}\n\n{b}\n}}\n",
        "  public {name}(data: string): number {{\n    if (!data) {{\n      return 0;\n    }}\n    this.buf += data;\n    this.count += 1;\n    return this.flush();\n  }}",
    ),
    "tsx": (
        "p.tsx",
        "{a}\n\n{b}\n",
        "export function {name}(props: Props) {{\n  if (!props.items) {{\n    return null;\n  }}\n  const rows = props.items.map(render);\n  const count = rows.length;\n  return <ul data-count={{count}}>{{rows}}</ul>;\n}}",
    ),
    "javascript": (
        "p.js",
        "class Parser {{\n{a}\n\n{b}\n}}\n",
        "  {name} (data) {{\n    if (!data) {{\n      return 0\n    }}\n    this.buf += data\n    this.count += 1\n    return this.flush()\n  }}",
    ),
    "cpp": (
        "p.cpp",
        "class Parser {{\n public:\n{a}\n\n{b}\n}};\n",
        "  int {name}(const std::string& data) {{\n    if (data.empty()) {{\n      return 0;\n    }}\n    buf += data;\n    count += 1;\n    return flush();\n  }}",
    ),
    "c": (
        "p.c",
        "{a}\n\n{b}\n",
        "static int {name}(struct parser *p, const char *data)\n{{\n    if (!data) {{\n        return 0;\n    }}\n    strcat(p->buf, data);\n    p->count += 1;\n    return flush(p);\n}}",
    ),
    "python": (
        "p.py",
        "class Parser:\n{a}\n\n{b}\n",
        "    def {name}(self, data):\n        if not data:\n            return 0\n        self.buf += data\n        self.count += 1\n        self.pending = True\n        return self.flush()",
    ),
}


@needs_ast
@pytest.mark.parametrize("language", sorted(TWINS))
def test_the_name_settles_what_the_text_cannot(language: str) -> None:
    path, layout, template = TWINS[language]
    first, second = template.format(name="FeedAll"), template.format(name="FeedOne")
    text = layout.format(a=first, b=second)
    # The model remembers FeedOne with one line stale and changes its counting line.
    stale = second.split("\n")
    count_row = next(
        i for i, line in enumerate(stale) if "count" in line and ("+=" in line or "++" in line or "rows.length" in line)
    )
    search = list(stale)
    search[1] = search[1].replace("if", "if   ", 1)
    search = [line.replace("buf", "buffer") if i == count_row - 1 else line for i, line in enumerate(search)]
    replace = list(search)
    replace[count_row] = (
        search[count_row].replace("1", "2") if "1" in search[count_row] else search[count_row] + " // x"
    )
    fuzzy = locate(text, _text(search), _text(replace), level="fuzzy", language=language)
    assert isinstance(fuzzy, MatchFailure)
    found = locate(text, _text(search), _text(replace), level="ast", language=language)
    assert isinstance(found, Match), found.reason
    assert found.strategy == "ast"
    out = _apply(text, found)
    assert out == text.replace(second, second.replace(stale[count_row], replace[count_row]))
    assert first in out


# -- refused ----------------------------------------------------------------------------------------------


STALE_INIT = """\
    def __init__(self, *, object_hook=None, parse_float=None,
            parse_int=None, parse_constant=None, strict=True,
            object_pairs_hook=None):
        self.object_hook = object_hook
        self.parse_float = parse_float or float
        self.parse_int = parse_int or int
        self.parse_constant = parse_constant or _CONSTANTS.__getitem__
        self.strict = strict
        self.object_pairs_hook = object_pairs_hook
        self.parse_object = JSONObject
        self.parse_array = JSONArray
        self.parse_string = scanstring
        self.memo = {}
        self.scan_once = scanner.make_scanner(self)
"""


@needs_ast
def test_refused_when_two_definitions_share_the_name(root: Path) -> None:
    """json/decoder.py has two ``__init__`` methods (JSONDecodeError's and JSONDecoder's); the
    model's copy of the second lacks its docstring, so only the name could place it."""
    text = stdlib_file("json/decoder.py").read_text(encoding="utf-8")
    inits = [d for d in analyze(text, "python").definitions if d.name == "__init__"]
    assert [d.qualname for d in inits] == ["JSONDecodeError.__init__", "JSONDecoder.__init__"]
    (root / "decoder.py").write_text(text)
    reply = sr("decoder.py", STALE_INIT, STALE_INIT.replace("self.memo = {}", "self.memo = dict()"))
    result = editblocks.apply_edits(reply, root, match="ast")
    assert not result.ok
    reason = result.results[0].reason or ""
    assert "2 definitions share the name `__init__`: `JSONDecodeError.__init__`" in reason
    assert "the name does not tell which is meant" in reason
    assert (root / "decoder.py").read_text() == text


@needs_ast
def test_a_near_miss_is_refused_and_nothing_changes(root: Path) -> None:
    """Another module's ``close`` aimed at html/parser.py, whose only ``close`` is different."""
    target = stdlib_file("html/parser.py").read_text(encoding="utf-8")
    other = stdlib_file("xml/etree/ElementTree.py").read_text(encoding="utf-8")
    closes = [d for d in analyze(target, "python").definitions if d.name == "close"]
    assert len(closes) == 1
    d = next(d for d in analyze(other, "python").definitions if d.qualname == "XMLParser.close")
    body = other.split("\n")[d.first : d.last + 1]
    replace = [*body[:-1], body[-1] + "  # edited"]
    (root / "parser.py").write_text(target)
    result = editblocks.apply_edits(sr("parser.py", _text(body), _text(replace)), root, match="ast")
    assert not result.ok
    reason = result.results[0].reason or ""
    assert "the only method named `close`, `HTMLParser.close`" in reason and "similar to SEARCH (at least" in reason
    assert (root / "parser.py").read_text() == target


@needs_ast
def test_a_change_to_a_line_the_definition_lacks_is_refused() -> None:
    text = "class A:\n    def run(self, x):\n        y = x + 1\n        z = y * 2\n        w = z - 3\n        log(w)\n        return w\n"
    search = "def run(self, x):\n    y = x + 1\n    z = y * 2\n    w = z - 3\n    notify(everyone, loudly=True)\n    return w\n"
    replace = search.replace("notify(everyone, loudly=True)", "notify(everyone)")
    found = locate(text, search, replace, level="ast", language="python")
    assert isinstance(found, MatchFailure)
    assert "does not contain the line" in found.reason


RUN = "class A:\n    def run(self, x):\n        total = x + 1\n        total = total * 2\n        return total\n"


@needs_ast
@pytest.mark.parametrize(
    ("search", "why"),
    [
        ("class run:\n    acc = 1\n", "no class named `run`"),
        (
            "def runs(self, value):\n    acc = value + 1\n    acc = acc * 2\n    return acc\n",
            "no function or method named `runs`",
        ),
        (
            "def run(self, value):\n    acc = value + 1\ndef other():\n    pass\n",
            "not one complete function, method or class",
        ),
        ("    acc = value + 1\n    return acc\n", "not one complete function, method or class"),
        ("def run(self, value):\n    acc = (value + \n", "not one complete function, method or class"),
        ("def run(self, value):\n    acc = value - 1\n    return acc\n", "similar to SEARCH (at least 90% is needed)"),
    ],
)
def test_near_misses_of_name_kind_shape_or_body_are_refused(search: str, why: str) -> None:
    for level in ("fuzzy", "ast"):
        found = locate(RUN, search, search.replace("1", "2") + "# new\n", level=level, language="python")
        assert isinstance(found, MatchFailure)
    assert why in found.reason


@needs_ast
def test_a_definition_sharing_its_lines_is_refused() -> None:
    text = "function a() { return 1 } function b() {\n  return 2\n}\n"
    search = "function a() {\n  return 1\n}\n"
    found = locate(text, search, search.replace("1", "3"), level="ast", language="javascript")
    assert isinstance(found, MatchFailure)
    assert "shares its lines with other code" in found.reason


@needs_ast
def test_the_ast_level_is_off_unless_asked(root: Path) -> None:
    (root / "m.py").write_text(
        "class A:\n    def run(self, x):\n        y = x + 1\n        z = y * 2\n        return z\n"
    )
    reply = sr(
        "m.py",
        "def run(self, value):\n    y = value + 1\n    z = y * 2\n    return z\n",
        "def run(self, value):\n    y = value + 1\n    z = y * 3\n    return z\n",
    )
    assert not editblocks.apply_edits(reply, root, dry_run=True).ok
    assert not editblocks.apply_edits(reply, root, dry_run=True, match="fuzzy").ok


# -- without syntax support ------------------------------------------------------------------------------------


def test_without_the_extra_the_ast_level_fails_with_a_note_never_an_error(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "tree_sitter_language_pack", None)
    monkeypatch.setattr(syntax_tree, "_parsers", {})
    monkeypatch.setattr(syntax_tree, "_last", None)
    (root / "m.py").write_text("class A:\n    def run(self, x):\n        y = x + 1\n        return y\n")
    reply = sr(
        "m.py",
        "def run(self, value):\n    q = value + 1\n    return q\n",
        "def run(self, value):\n    q = value + 2\n    return q\n",
    )
    result = editblocks.apply_edits(reply, root, match="ast")
    assert not result.ok
    assert "(the syntax step did not place it: syntax support is not installed" in (result.results[0].reason or "")


def test_an_unsupported_language_at_the_ast_level_fails_with_a_note(root: Path) -> None:
    (root / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    result = editblocks.apply_edits(sr("notes.txt", "delta\n", "epsilon\n"), root, match="ast")
    assert not result.ok
    assert "the syntax step did not place it: the file's language is not known" in (result.results[0].reason or "")


# -- the command ---------------------------------------------------------------------------------------------------


@needs_ast
def test_cli_apply_match_ast(tmp_path: Path) -> None:
    text, search, replace, expected = _stale_stdlib_method()
    project = tmp_path / "project"
    project.mkdir()
    (project / "parser.py").write_text(text)
    reply = tmp_path / "reply.md"
    reply.write_text(sr("parser.py", search, replace))
    out = CliRunner().invoke(main, ["apply", str(reply), "--root", str(project), "--match", "ast", "--json"])
    assert out.exit_code == 0, out.output
    assert (project / "parser.py").read_text() == expected
